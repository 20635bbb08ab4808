#!/usr/bin/env python3
"""Check seektrace's write figures for a real program against strace of the same run.

usage: write_compare.py --lib LIBSEEKTRACE [--written posix|stdio] [--glibc DIR]
                        [--min-writes N] [--reread N] [--keep] -- COMMAND ARG...

COMMAND's arguments may name, in a fresh directory made before each run:
{bin} (4 MiB of binary) and {text} (lines of varied length), as for
strace_compare.py; {tree} (a directory of 120 files, 0 to 60 KiB); {out}
(a path there that does not exist yet, for the program's output). The command
runs twice, plainly (the reference stdout, stderr and exit status) and under
strace with libseektrace preloaded, writing JSON reports.

For every file in that directory that the run read or wrote (strace's view
and seektrace's, summed over the processes): write_syscalls,
kernel_write_bytes, read_syscalls, kernel_read_bytes and lseek_syscalls must
equal strace's count. --written posix (every write on those files is the
program's own POSIX call: tar, gzip, sqlite, the shell, C++ streams): also
written_bytes must equal the bytes the successful calls were handed (their
count, or their iovecs' total), and for each call kind (write, pwrite,
writev, pwritev) the report's calls, write_syscalls and kernel_write_bytes
must equal strace's count of write, pwrite64, writev and pwritev/pwritev2.
--written stdio: stdio wrote them (its bytes handed over are counted on the
stdio side), the kernel figures only. --min-writes N: at least N write
syscalls must have been made on those files, so that a run that writes
nothing cannot pass. --reread N: {out}'s reread_bytes must be N (what the
program read again, known from its own offsets: the shadow offsets of
writes, pwrites and appends were right). No report may name a file of the reports' own
directory: seektrace never counts its own writes. stdout, stderr and exit
status must be those of the plain run.

Exit status: 0 all agree, 1 a mismatch or a broken run, 77 no strace (skipped).
"""
import argparse
import os
import random
import shutil
import subprocess
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import data_files  # noqa: E402 (after the line above on purpose)
import seektrace_reports  # noqa: E402
import strace_log  # noqa: E402
from strace_compare import (TIMEOUT, RunError, clean_environment, compare_rows,  # noqa: E402
                            drive, glibc_loader, same_behaviour)

FIGURES = ("write_syscalls", "kernel_write_bytes", "read_syscalls", "kernel_read_bytes",
           "lseek_syscalls")
# The report's call kind of each strace syscall name.
KIND_OF = {"write": "write", "pwrite64": "pwrite", "writev": "writev", "pwritev": "pwritev",
           "pwritev2": "pwritev"}
TREE_FILES = 120


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lib", required=True, help="path of libseektrace.so")
    parser.add_argument("--written", choices=("posix", "stdio"), default="posix",
                        help="who wrote the files: the program's own POSIX calls, or stdio")
    parser.add_argument("--min-writes", type=int, default=1,
                        help="write syscalls the run must make on its files at least")
    parser.add_argument("--reread", type=int, help="{out}'s reread_bytes must be this")
    parser.add_argument("--glibc", metavar="DIR",
                        help="run the command under the glibc extracted to DIR (tests/glibc/fetch.sh)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="-- COMMAND ARG...")
    args = parser.parse_args()
    if args.command[:1] == ["--"]:
        args.command = args.command[1:]
    if not args.command:
        parser.error("no command given")
    return args


def make_tree(path):
    """120 files of 0 to 60 KiB, from a fixed seed."""
    rng = random.Random(3)
    os.makedirs(path)
    for i in range(TREE_FILES):
        with open(os.path.join(path, f"f{i:03}"), "wb") as f:
            f.write(rng.randbytes(rng.randint(0, 60 * 1024)))


def prepare(work, command):
    """A fresh work directory with what the command names; the command expanded."""
    if os.path.exists(work):
        shutil.rmtree(work)
    os.mkdir(work)
    data_files.write_all(work, data_files.needed(command))
    if any("{tree}" in arg for arg in command):
        make_tree(os.path.join(work, "tree"))
    out = os.path.join(work, "out")
    return [data_files.expand(arg, work).replace("{tree}", os.path.join(work, "tree"))
            .replace("{out}", out) for arg in command]


def kinds_of(reports, path):
    """{call kind: [calls, write_syscalls, kernel_write_bytes]} on path, over the reports."""
    kinds = {}
    for report in reports:
        for f in report["files"]:
            if f["path"] != path:
                continue
            for kind in set(KIND_OF.values()):
                by = f["by_call"].get(kind, {})
                row = kinds.setdefault(kind, [0, 0, 0])
                row[0] += f["calls"].get(kind, 0)
                row[1] += by.get("write_syscalls", 0)
                row[2] += by.get("kernel_write_bytes", 0)
    return kinds


def rows_for(args, work, reports, strace_counts):
    """Every assertion: (where, figure, seektrace's value, reference, its value)."""
    sums = seektrace_reports.per_path(reports)
    written = {}
    for report in reports:
        for f in report["files"]:
            written[f["path"]] = written.get(f["path"], 0) + f["written_bytes"]
    paths = sorted({p for p in list(sums) + list(strace_counts) if p and p.startswith(work + "/")})
    rows = []
    total_writes = 0
    for path in paths:
        mine = sums.get(path, dict.fromkeys(seektrace_reports.FIGURES, 0))
        theirs = strace_counts.get(path, strace_log.FileSyscalls())
        total_writes += theirs.write_syscalls
        rows += [(path, f, mine[f], "strace", getattr(theirs, f)) for f in FIGURES]
        if args.written != "posix":
            continue
        rows.append((path, "written_bytes", written.get(path, 0), "strace: bytes handed",
                     theirs.write_count_args))
        want = {kind: [0, 0] for kind in set(KIND_OF.values())}
        for name, (n, nbytes) in theirs.writes_by_name.items():
            want[KIND_OF[name]][0] += n
            want[KIND_OF[name]][1] += nbytes
        for kind, (calls, syscalls, nbytes) in sorted(kinds_of(reports, path).items()):
            rows.append((path, f"calls[{kind}]", calls, f"strace {kind}", want[kind][0]))
            rows.append((path, f"by_call[{kind}].write_syscalls", syscalls, f"strace {kind}",
                         want[kind][0]))
            rows.append((path, f"by_call[{kind}].kernel_write_bytes", nbytes, f"strace {kind}",
                         want[kind][1]))
    if args.reread is not None:
        out = os.path.join(work, "out")
        rows.append((out, "reread_bytes", sum(f["reread_bytes"] for r in reports
                                              for f in r["files"] if f["path"] == out),
                     "the program's own", args.reread))
    rows.append(("the run", f"made >= {args.min_writes} write syscalls", total_writes >= args.min_writes,
                 "expected", True))
    return rows


def run_test(args, lib, tmp):
    work, run_dir = os.path.join(tmp, "work"), os.path.join(tmp, "run")
    os.mkdir(run_dir)
    argv = glibc_loader(args.glibc) + prepare(work, args.command)
    plain = subprocess.run(argv, env=clean_environment(), capture_output=True, timeout=TIMEOUT)
    if plain.returncode != 0:
        raise RunError(f"the command fails without seektrace (status {plain.returncode}): "
                       f"{plain.stderr.decode(errors='replace')}")

    prepare(work, args.command)
    log = os.path.join(run_dir, "strace.log")
    preload = {"LD_PRELOAD": lib, "SEEKTRACE_FORMAT": "json",
               "SEEKTRACE_OUTPUT": os.path.join(run_dir, "report.%p.json"),
               "SEEKTRACE_REPORT_FILES": "all"}
    traced = strace_log.run(log, clean_environment(), preload, argv, None, TIMEOUT,
                            full_arrays=True)
    if not os.path.exists(log):
        raise RunError(f"strace wrote no log: {traced.stderr.decode(errors='replace')}")

    problems = same_behaviour(plain, traced)
    _, strace_counts = strace_log.parse(log)
    reports = seektrace_reports.load(run_dir)
    own = [f["path"] for r in reports for f in r["files"] if f["path"].startswith(run_dir + "/")]
    if own:
        problems.append(f"a report counts seektrace's own files: {own}")
    return problems + compare_rows(rows_for(args, work, reports, strace_counts), 34)


if __name__ == "__main__":
    sys.exit(drive(parse_args(), run_test, "seektrace-wt-"))
