#!/usr/bin/env python3
"""Names of the files a tree walk opens, against strace -y's, on real programs.

usage: tree_names.py --lib LIBSEEKTRACE [--keep]

seektrace names a file opened as openat(dirfd, "entry", O_NOFOLLOW) (or
O_CREAT|O_EXCL) from its directory's name without asking /proc
(src/preload/accounts/name_in_dir.h). This builds a tree whose names could
make that go wrong, next to one in /dev/shm (tmpfs), and runs tree walkers
over it under strace -f -y with the library preloaded:

  grep -r   fts, openat(dirfd, entry, O_NOFOLLOW) on every file
  grep -R   the same walk following symlinks: the entries reached through a
            symlinked directory, and a symlink to a file (opened without
            O_NOFOLLOW: named by /proc)
  tar -c    GNU tar's own walk, openat(dirfd, entry, O_NOFOLLOW)
  python3   os.open(entry, dir_fd=...) with O_NOFOLLOW, O_CREAT|O_EXCL, and
            without either through a symlink; "." and ".."-relative names

and a root named through a symlink on the command line. For every file of the
two trees that either side saw, the file's name and its read_syscalls,
kernel_read_bytes, lseek_syscalls, write_syscalls and kernel_write_bytes must
be the same in seektrace's reports as in strace's log.

Exit status: 0 all agree, 1 a mismatch or a broken run, 77 no strace (skipped).
"""
import argparse
import codecs
import os
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True
import seektrace_reports  # noqa: E402
import strace_compare  # noqa: E402
import strace_log  # noqa: E402

FIGURES = ("read_syscalls", "kernel_read_bytes", "lseek_syscalls", "write_syscalls",
           "kernel_write_bytes")
# Entries whose names a join could get wrong if it were careless.
NAMES = [b"plain.txt", b"with space.txt", b"new\nline.txt", "\u00fcn\u00efc\u00f6de.txt".encode(),
         b"\xff\xfe-not-utf8.txt", b"-dash.txt", b"..dots..txt"]

PYTHON_WALK = r"""
import os, sys
root = sys.argv[1]
d = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
sub = os.open("sub", os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=d)
for name in (b"plain.txt", b"with space.txt"):
    fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW, dir_fd=d)
    os.read(fd, 100); os.lseek(fd, 3, 0); os.read(fd, 100); os.close(fd)
fd = os.open("deep.txt", os.O_RDONLY | os.O_NOFOLLOW, dir_fd=sub)
os.read(fd, 7); os.close(fd)
fd = os.open("made.txt", os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644, dir_fd=sub)
os.write(fd, b"x" * 33); os.close(fd)
fd = os.open("made.txt", os.O_RDONLY, dir_fd=sub)        # no O_NOFOLLOW: /proc names it
os.read(fd, 50); os.close(fd)
fd = os.open("link-to-file", os.O_RDONLY, dir_fd=d)      # a symlink, followed
os.read(fd, 50); os.close(fd)
fd = os.open("../sub/deep.txt", os.O_RDONLY | os.O_NOFOLLOW, dir_fd=sub)  # not one entry
os.read(fd, 5); os.close(fd)
up = os.open("..", os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=sub)
fd = os.open("plain.txt", os.O_RDONLY | os.O_NOFOLLOW, dir_fd=up)
os.read(fd, 9); os.close(fd)
"""


def make_tree(root, outside):
    """root/{NAMES, sub/deep.txt, sub/NAMES, link-to-file, link-to-dir}; outside/target.txt."""
    os.makedirs(os.path.join(root, "sub"))
    os.makedirs(outside)
    for i, name in enumerate(NAMES):
        for where in (root, os.path.join(root, "sub")):
            with open(os.path.join(os.fsencode(where), name), "wb") as f:
                f.write(b"needle %d\n" % i * (40 + 300 * i))
    with open(os.path.join(root, "sub", "deep.txt"), "wb") as f:
        f.write(b"needle deep\n" * 500)
    with open(os.path.join(outside, "target.txt"), "wb") as f:
        f.write(b"needle outside\n" * 70)
    os.symlink(os.path.join(outside, "target.txt"), os.path.join(root, "link-to-file"))
    os.symlink(outside, os.path.join(root, "link-to-dir"))


def walkers(trees, root_link, archive):
    return [
        ["grep", "-r", "-c", "needle", *trees],
        ["grep", "-R", "-c", "needle", root_link, *trees],
        ["tar", "-c", "-f", archive, *trees],
        [sys.executable, "-c", PYTHON_WALK, trees[0]],
    ]


def under(path, roots):
    return any(path == r or path.startswith(r + b"/") for r in roots)


def strace_name(path):
    """The bytes of a name as strace -y prints it: C escapes (\\n, \\\\) and
    octal (\\303) for every byte that is not printable ASCII."""
    return codecs.escape_decode(path.encode("ascii"))[0]


def run_test(args, lib, tmp):
    problems = []
    trees = [os.path.join(tmp, "tree")]
    outside = os.path.join(tmp, "outside")
    make_tree(trees[0], outside)
    shm = None
    if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK):
        shm = os.path.realpath(tempfile.mkdtemp(prefix="seektrace-names-", dir="/dev/shm"))
        trees.append(os.path.join(shm, "tree"))
        make_tree(trees[1], os.path.join(shm, "outside"))
    root_link = os.path.join(tmp, "root-link")
    os.symlink(trees[0], root_link)
    roots = [os.fsencode(r) for r in trees + [outside] + ([os.path.join(shm, "outside")] if shm else [])]
    try:
        for n, argv in enumerate(walkers(trees, root_link, os.path.join(tmp, "archive.tar"))):
            run_dir = os.path.join(tmp, f"run{n}")
            os.mkdir(run_dir)
            log = os.path.join(run_dir, "strace.log")
            preload = {"LD_PRELOAD": lib, "SEEKTRACE_FORMAT": "json",
                       "SEEKTRACE_REPORT_FILES": "all",
                       "SEEKTRACE_OUTPUT": os.path.join(run_dir, "report.%p.json")}
            env = {k: v for k, v in os.environ.items()
                   if k != "LD_PRELOAD" and not k.startswith("SEEKTRACE_")}
            done = strace_log.run(log, env, preload, argv, b"", strace_compare.TIMEOUT)
            if done.returncode not in (0, 1):  # grep: 1 when a file has no match
                problems.append(f"{argv[0]} exited {done.returncode}: {done.stderr[-300:]!r}")
                continue
            _, theirs = strace_log.parse(log)
            mine = seektrace_reports.per_path(seektrace_reports.load(run_dir))
            theirs = {strace_name(p): c for p, c in theirs.items() if p}
            theirs = {p: c for p, c in theirs.items() if under(p, roots)}
            mine = {seektrace_reports.name_bytes(p): c for p, c in mine.items()}
            mine = {p: c for p, c in mine.items() if under(p, roots)}
            label = " ".join(argv[:2])
            if not theirs:
                problems.append(f"{label}: strace saw no file of the trees")
            for path in sorted(set(theirs) | set(mine)):
                if path not in mine:
                    problems.append(f"{label}: {path!r} in strace's log, not in the reports")
                    continue
                if path not in theirs:
                    problems.append(f"{label}: {path!r} in the reports, not in strace's log")
                    continue
                for figure in FIGURES:
                    if mine[path][figure] != getattr(theirs[path], figure):
                        problems.append(f"{label}: {path!r} {figure} seektrace="
                                        f"{mine[path][figure]} strace={getattr(theirs[path], figure)}")
            print(f"{label}: {len(theirs)} files compared")
    finally:
        if shm and not args.keep:
            shutil.rmtree(shm)
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lib", required=True)
    parser.add_argument("--keep", action="store_true")
    args = parser.parse_args()
    args.command = ["tree walkers"]
    return strace_compare.drive(args, run_test, "seektrace-names-")


if __name__ == "__main__":
    sys.exit(main())
