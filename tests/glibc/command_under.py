#!/usr/bin/env python3
"""The seektrace command of a build against an older glibc, run under a glibc.

usage: command_under.py --seektrace CMD --lib LIB --glibc DIR --sysroot DIR
                        -- WORKLOAD ARG...

Runs `seektrace run --trace T -- WORKLOAD ARG...` under strace, the command
and the workload both through DIR's loader (tests/glibc/fetch.sh), the
command's libdw from the sysroot it was built against (tests/glibc/sysroot.sh)
as that system's own would be; then `seektrace report --json T` the same way.
The report must name DIR's glibc with exact capture; for the data file
({bin}) read_syscalls, kernel_read_bytes and lseek_syscalls must equal
strace's, requested and delivered bytes and the fread calls the workload's
own line (its plain run). Exit status: 0 all agree, 1 otherwise, 77 no strace.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "integration"))
import data_files  # noqa: E402
import strace_log  # noqa: E402

TIMEOUT = 60


def loader(glibc, *more_dirs):
    path = ":".join((glibc,) + more_dirs)
    return [os.path.join(glibc, "ld-linux-x86-64.so.2"), "--library-path", path]


def run(argv, env=None):
    p = subprocess.run(argv, env=env, capture_output=True, timeout=TIMEOUT)
    if p.returncode != 0:
        raise RuntimeError(f"{argv[3:]} exited {p.returncode}: {p.stderr.decode(errors='replace')}")
    return p.stdout


def check(a, tmp):
    with open(os.path.join(a.glibc, ".version"), encoding="utf-8") as f:
        version = f.read().strip().split("-")[0]
    with open(os.path.join(a.sysroot, ".multiarch"), encoding="utf-8") as f:
        multiarch = f.read().strip()
    data_dir, trace_dir = os.path.join(tmp, "data"), os.path.join(tmp, "trace")
    os.mkdir(data_dir)
    data_files.write_all(data_dir, data_files.needed(a.command))
    data = data_files.expand("{bin}", data_dir)
    workload = loader(a.glibc) + [data_files.expand(arg, data_dir) for arg in a.command]
    command = loader(a.glibc, os.path.join(a.sysroot, "usr", "lib", multiarch),
                     os.path.join(a.sysroot, "lib", multiarch)) + [a.seektrace]

    tally = json.loads(run(workload))
    env = {k: v for k, v in os.environ.items() if not k.startswith("SEEKTRACE_")}
    env.pop("LD_PRELOAD", None)
    env["SEEKTRACE_LIBRARY"] = a.lib  # the command finds it beside itself, not the loader
    log = os.path.join(tmp, "strace.log")
    # -P: the data file's calls alone (the command's own descriptors, such as
    # its report's memfd, are named in ways the log parser does not take).
    traced = strace_log.command(log, {}, command + ["run", "--trace", trace_dir, "--"] + workload)
    run(traced[:1] + ["-P", data] + traced[1:], env)
    _, counts = strace_log.parse(log)
    report = json.loads(run(command + ["report", "--json", trace_dir], env))
    mine = next((f for f in report["files"] if f["path"] == data), None)
    if mine is None:
        return [f"the report has no row for {data}"]
    theirs = counts.get(data, strace_log.FileSyscalls())
    rows = [("libc_version", report.get("libc_version"), version),
            ("capture", report.get("capture"), "exact")]
    rows += [(f, mine[f], getattr(theirs, f))
             for f in ("read_syscalls", "kernel_read_bytes", "lseek_syscalls")]
    rows += [("requested_bytes", mine["requested_bytes"], tally["requested"]),
             ("delivered_bytes", mine["delivered_bytes"], tally["delivered"]),
             ("calls[fread]", mine["calls"].get("fread"), tally["calls"])]
    for name, got, want in rows:
        print(f"{'ok' if got == want else 'MISMATCH':8} {name:16} report={got}  expected={want}")
    return [f"{name}: {got} != {want}" for name, got, want in rows if got != want]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for opt in ("seektrace", "lib", "glibc", "sysroot"):
        ap.add_argument("--" + opt, required=True)
    ap.add_argument("command", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    a.command = a.command[1:] if a.command[:1] == ["--"] else a.command
    if shutil.which("strace") is None:
        print("SKIP: strace is not installed")
        return 77
    tmp = os.path.realpath(tempfile.mkdtemp(prefix="seektrace-cmd-"))
    try:
        problems = check(a, tmp)
    except (RuntimeError, ValueError, KeyError, strace_log.LogError,
            subprocess.TimeoutExpired) as e:
        problems = [str(e)]
    finally:
        shutil.rmtree(tmp)
    for problem in problems:
        print("FAIL:", problem)
    print("PASS" if not problems else "FAIL")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
