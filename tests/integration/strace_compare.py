#!/usr/bin/env python3
"""Check seektrace's report for one workload against strace of the same run.

usage: strace_compare.py --lib LIBSEEKTRACE [--stdin FILE] [--pipes]
                         [--requested workload|syscalls] [--call NAME]
                         [--reads-by NAME] [--keep]
                         -- COMMAND ARG...

COMMAND's arguments (and --stdin) may name the data files as {bin} (4 MiB of
binary) and {text} (lines of varied length); they are made in a fresh
directory before each run. The command runs twice:

  1. plainly, for the reference stdout, stderr and exit status, and for the
     JSON line the workload prints: {"requested", "delivered", "calls"};
  2. once under strace, with libseektrace preloaded and writing JSON reports.

Then, for every data file (and with --pipes, every pipe the run read from):
read_syscalls, kernel_read_bytes and lseek_syscalls must equal strace's count,
and for data files write_syscalls and kernel_write_bytes too. The workload's
requested and delivered bytes must equal the command's own report summed over
those files, and so must its written bytes and write syscalls per flush cause
when it gives them ("written", "flushes": a workload writing through stdio) (--requested syscalls: each file's requested and delivered bytes
must equal the count arguments and returns of its read/pread64 calls instead,
for runtimes that read through their own buffers). --call NAME: the report's
count of NAME calls must equal the workload's "calls". --reads-by NAME: for a
reader seektrace does not interpose (getc, fgets), whose calls are not
counted: every read syscall of the workload's process on those files must be
charged to NAME (found by walking the stack). stdout, stderr and exit
status must be those of the plain run: the library prints nothing else.

--glibc DIR runs COMMAND under another glibc, extracted to DIR by
tests/glibc/fetch.sh, through that glibc's own loader (DIR/ld-linux-x86-64.so.2
--library-path DIR COMMAND ...), in both runs; the programs COMMAND starts run
under the machine's glibc, preloaded as usual. The report of the command
itself must then name that glibc's version.

Exit status: 0 all agree, 1 a mismatch or a broken run, 77 no strace (skipped).
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import data_files  # noqa: E402 (after the line above on purpose)
import seektrace_reports  # noqa: E402
import strace_log  # noqa: E402

SKIP = 77
TIMEOUT = 50  # seconds per run (two runs fit ctest's 120 s); each takes about one
KERNEL_READ_FIGURES = ("read_syscalls", "kernel_read_bytes", "lseek_syscalls")
# Compared on data files only: seektrace counts stdio's writes, and on a pipe
# the writer is another program (cat) using write() itself.
KERNEL_WRITE_FIGURES = ("write_syscalls", "kernel_write_bytes")
# The causes of stdio's write syscalls (the report's flushes_<cause>).
FLUSH_CAUSES = ("fflush", "full", "newline", "unbuffered", "seek", "close", "exit", "read")


class RunError(Exception):
    pass


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lib", required=True, help="path of libseektrace.so")
    parser.add_argument("--stdin", help="data file to pipe into the command's stdin, e.g. {text}")
    parser.add_argument("--pipes", action="store_true", help="check the pipes the run read from")
    parser.add_argument("--requested", choices=("workload", "syscalls"), default="workload",
                        help="what the report's requested/delivered bytes must equal")
    parser.add_argument("--call", help="report call name whose count must equal the workload's calls")
    parser.add_argument("--reads-by", help="report call name every read syscall must be charged to")
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory")
    parser.add_argument("--env", action="append", default=[], metavar="NAME=VALUE",
                        help="extra setting for the instrumented run (e.g. SEEKTRACE_CAPTURE=inferred)")
    parser.add_argument("--glibc", metavar="DIR",
                        help="run the command under the glibc extracted to DIR (tests/glibc/fetch.sh)")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="-- COMMAND ARG...")
    args = parser.parse_args()
    if args.command[:1] == ["--"]:
        args.command = args.command[1:]
    if not args.command:
        parser.error("no command given")
    return args


def clean_environment():
    """os.environ without anything that would instrument the plain run."""
    return {k: v for k, v in os.environ.items()
            if k != "LD_PRELOAD" and not k.startswith("SEEKTRACE_")}


def run_plain(argv, env, stdin_bytes):
    return subprocess.run(argv, env=env, input=stdin_bytes, capture_output=True, timeout=TIMEOUT)


def workload_line(stdout):
    """The workload's own count: its one line of JSON. A workload that writes
    through stdio adds "written" (bytes it handed over) and "flushes" (write
    syscalls per cause, FLUSH_CAUSES)."""
    try:
        line = json.loads(stdout)
        tally = {key: int(line[key]) for key in ("requested", "delivered", "calls")}
        if "written" in line:
            tally["written"] = int(line["written"])
        if "flushes" in line:
            tally["flushes"] = {cause: int(line["flushes"].get(cause, 0))
                                for cause in FLUSH_CAUSES}
        return tally
    except (ValueError, KeyError, TypeError, AttributeError):
        raise RunError(f"workload printed no JSON tally: {stdout!r}") from None


def same_behaviour(plain, traced):
    """Mismatches between the plain run and the traced, preloaded one."""
    problems = []
    for what in ("returncode", "stdout", "stderr"):
        a, b = getattr(plain, what), getattr(traced, what)
        if a != b:
            problems.append(f"{what} differs with seektrace preloaded:\n"
                            f"    plain:  {a!r}\n    traced: {b!r}")
    return problems


def checked_paths(data_paths, strace_counts, report_sums, with_pipes):
    """The files the comparison covers: the data files, and maybe the pipes read."""
    paths = set(data_paths)
    if with_pipes:
        paths |= {p for p, c in strace_counts.items()
                  if p and p.startswith("pipe:") and (c.read_syscalls or c.lseek_syscalls)}
        paths |= {p for p, f in report_sums.items()
                  if p.startswith("pipe:") and (f["read_syscalls"] or f["delivered_bytes"])}
    return sorted(paths)


def rows_for(args, paths, data_paths, reports, root_pid, strace_counts, tally):
    """Every assertion: (where, figure, seektrace's value, reference, its value)."""
    sums = seektrace_reports.per_path(reports)
    rows = []
    for path in paths:
        mine = sums.get(path, dict.fromkeys(seektrace_reports.FIGURES, 0))
        theirs = strace_counts.get(path, strace_log.FileSyscalls())
        figures = KERNEL_READ_FIGURES + (KERNEL_WRITE_FIGURES if path in data_paths else ())
        rows += [(path, f, mine[f], "strace", getattr(theirs, f)) for f in figures]
        if args.requested == "syscalls":
            rows.append((path, "requested_bytes", mine["requested_bytes"],
                         "strace read/pread64 counts", theirs.read_count_args))
            rows.append((path, "delivered_bytes", mine["delivered_bytes"],
                         "strace read returns", theirs.kernel_read_bytes))

    # The workload's own line describes the root process only (popen's cat
    # reads the file too, but not on the workload's behalf).
    root = seektrace_reports.of_process(reports, root_pid)
    root_files = [f for f in root["files"] if f["path"] in paths]
    where = f"pid {root['pid']} (the workload)"
    if args.requested == "workload":
        # Inferred capture sees no call arguments: it counts what a call
        # delivered as what it asked for, so only delivered is exact.
        figures = (("requested_bytes", "requested"), ("delivered_bytes", "delivered"))
        if "SEEKTRACE_CAPTURE=inferred" in args.env:
            figures = figures[1:]
        for figure, key in figures:
            rows.append((where, figure, sum(f[figure] for f in root_files),
                         f"workload {key}", tally[key]))
    if "written" in tally:
        rows.append((where, "written_bytes", sum(f["written_bytes"] for f in root_files),
                     "workload written", tally["written"]))
    for cause, count in tally.get("flushes", {}).items():
        rows.append((where, f"flushes_{cause}", sum(f[f"flushes_{cause}"] for f in root_files),
                     f"workload flushes[{cause}]", count))
    if args.call:
        rows.append((where, f"calls[{args.call}]", seektrace_reports.calls(root, args.call, paths),
                     "workload calls", tally["calls"]))
    if args.reads_by:
        reads = sum(f["read_syscalls"] for f in root_files)
        rows.append((where, f"by_call[{args.reads_by}].read_syscalls",
                     seektrace_reports.reads_by(root, args.reads_by, paths),
                     "all its read syscalls there", reads))
        if reads == 0:
            rows.append((where, "read_syscalls", 0, "at least", 1))
    return rows


def glibc_loader(glibc_dir):
    """The words that run a program under the glibc in glibc_dir, or none."""
    if not glibc_dir:
        return []
    loader = os.path.join(glibc_dir, "ld-linux-x86-64.so.2")
    if not os.path.exists(loader):
        raise RunError(f"no glibc in {glibc_dir}: run tests/glibc/fetch.sh first")
    return [loader, "--library-path", glibc_dir]


def glibc_version(glibc_dir):
    """The version of the glibc extracted to glibc_dir, as gnu_get_libc_version says it."""
    with open(os.path.join(glibc_dir, ".version"), encoding="utf-8") as f:
        return f.read().strip().split("-")[0]


def run_test(args, lib, tmp):
    data_dir, run_dir = os.path.join(tmp, "data"), os.path.join(tmp, "run")
    os.mkdir(data_dir)
    os.mkdir(run_dir)
    names = data_files.needed(args.command + [args.stdin or ""])
    data_paths = {os.path.join(data_dir, name) for name in names}
    argv = glibc_loader(args.glibc) + [data_files.expand(arg, data_dir) for arg in args.command]

    def prepare():
        """Recreate the data files (a run may write to them); the bytes for stdin."""
        data_files.write_all(data_dir, names)
        if not args.stdin:
            return None
        with open(data_files.expand(args.stdin, data_dir), "rb") as f:
            return f.read()

    plain = run_plain(argv, clean_environment(), prepare())
    if plain.returncode != 0:
        raise RunError(f"workload fails without seektrace (status {plain.returncode}): "
                       f"{plain.stderr.decode(errors='replace')}")
    tally = workload_line(plain.stdout)

    log = os.path.join(run_dir, "strace.log")
    preload = {"LD_PRELOAD": lib, "SEEKTRACE_FORMAT": "json",
               "SEEKTRACE_OUTPUT": os.path.join(run_dir, "report.%p.json")}
    preload.update(setting.split("=", 1) for setting in args.env)
    traced = strace_log.run(log, clean_environment(), preload, argv, prepare(), TIMEOUT)
    if not os.path.exists(log):
        raise RunError(f"strace wrote no log: {traced.stderr.decode(errors='replace')}")

    problems = same_behaviour(plain, traced)
    root_pid, strace_counts = strace_log.parse(log)
    capture = "inferred" if "SEEKTRACE_CAPTURE=inferred" in args.env else "exact"
    reports = seektrace_reports.load(run_dir, capture)
    paths = checked_paths(data_paths, strace_counts, seektrace_reports.per_path(reports), args.pipes)
    rows = rows_for(args, paths, data_paths, reports, root_pid, strace_counts, tally)
    if args.glibc:
        root = seektrace_reports.of_process(reports, root_pid)
        rows.append((f"pid {root_pid} (the workload)", "libc_version", root.get("libc_version"),
                     "the glibc under test", glibc_version(args.glibc)))

    return problems + compare_rows(rows, 18)


def compare_rows(rows, figure_width):
    """Prints each (where, figure, seektrace's, reference, the reference's)
    row with its verdict; returns the problem, if any figure differs."""
    width = max(len(row[0]) for row in rows)
    for where, figure, mine, reference, theirs in rows:
        verdict = "ok" if mine == theirs else "MISMATCH"
        print(f"{verdict:8} {where:{width}}  {figure:{figure_width}} seektrace={mine}  "
              f"{reference}={theirs}")
    mismatches = sum(row[2] != row[4] for row in rows)
    return [f"{mismatches} figure(s) differ (MISMATCH lines above)"] if mismatches else []


def main():
    return drive(parse_args(), run_test, "seektrace-it-")


def drive(args, run_test, prefix):
    """A comparison's command line: run_test(args, lib, tmp) in a scratch
    directory, its problems printed; the exit status."""
    if shutil.which("strace") is None:
        print("SKIP: strace is not installed; the integration tests need it as the reference")
        return SKIP
    lib = os.path.realpath(args.lib)
    if not os.path.isfile(lib):
        print(f"FAIL: no library at {lib}")
        return 1

    # realpath: the names strace and /proc/self/fd give contain no symlinks.
    tmp = os.path.realpath(tempfile.mkdtemp(prefix=prefix))
    print("command:", " ".join(args.command))
    try:
        problems = run_test(args, lib, tmp)
    except (RunError, strace_log.LogError, seektrace_reports.ReportError,
            subprocess.TimeoutExpired) as e:
        problems = [str(e)]
    finally:
        if args.keep:
            print(f"kept {tmp}")
        else:
            shutil.rmtree(tmp)

    for problem in problems:
        print("FAIL:", problem)
    print("PASS" if not problems else "FAIL")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
