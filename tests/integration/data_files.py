"""The data files a workload reads, made fresh and identical for every run.

Binary content for the seek workloads; text with lines of varied length for the
character and line workloads (blank lines, and lines longer than both a 4 KiB
stdio buffer and the workloads' 1 KiB fgets buffer). Content is drawn from a
fixed seed, so every run of every test sees the same bytes.
"""
import os
import random

BINARY_NAME = "data.bin"
BINARY_SIZE = 4 * 1024 * 1024
TEXT_NAME = "lines.txt"
TEXT_LINES = 12000

# The placeholder a command line uses for each file, and how to make it.
PLACEHOLDERS = {"{bin}": BINARY_NAME, "{text}": TEXT_NAME}


def _binary():
    return random.Random(1).randbytes(BINARY_SIZE)


def _text():
    rng = random.Random(2)
    vocabulary = ["".join(rng.choices("abcdefghijklmnopqrstuvwxyz0123456789", k=n))
                  for n in range(1, 13) for _ in range(20)]
    lines = []
    for i in range(TEXT_LINES):
        # The first line is never blank: fscanf's byte count assumes the file
        # does not start with whitespace.
        if i and rng.random() < 0.05:
            words = 0
        elif rng.random() < 0.02:
            words = rng.randint(150, 700)  # about 1 to 5 KiB
        else:
            words = rng.randint(1, 20)
        lines.append(" ".join(rng.choices(vocabulary, k=words)))
    return ("\n".join(lines) + "\n").encode()


_MAKERS = {BINARY_NAME: _binary, TEXT_NAME: _text}


def needed(args):
    """The data file names that these arguments refer to through placeholders."""
    return sorted({name for arg in args for mark, name in PLACEHOLDERS.items() if mark in arg})


def expand(arg, data_dir):
    """arg with every placeholder replaced by the file's path in data_dir."""
    for mark, name in PLACEHOLDERS.items():
        arg = arg.replace(mark, os.path.join(data_dir, name))
    return arg


def write_all(data_dir, names):
    """(Re)create the named files in data_dir: workloads such as "r+" modify them."""
    for name in names:
        with open(os.path.join(data_dir, name), "wb") as f:
            f.write(_MAKERS[name]())
