#!/usr/bin/env python3
"""The seektrace command under valgrind memcheck (issue 7, item 8).

usage: test_memcheck.py --seektrace BIN --lib LIB --demo BIN --crasher BIN
                        --valgrind PATH --traces DIR CASE

CASE traces records, into DIR, the traces and at-exit reports the other
cases read: the demo (one stream, many seeks), a two-thread run, a process
killed by SIGKILL (a trace without footer) and a trace cut short by
SEEKTRACE_TRACE_MAX. CASE report, check, export and run run each subcommand
on them, and bad_input on traces that are corrupt, cut, from the future,
empty or foreign. Each command runs under
    valgrind --error-exitcode=99 --leak-check=full
             --errors-for-leak-kinds=definite --track-fds=no
and must exit with the status it has without valgrind: any invalid read or
write, use of uninitialised memory, bad free or definite leak fails the case,
with valgrind's own report printed.

valgrind is required: CI installs it (scripts/setup.sh). Without it every
case fails and says so, rather than passing untested. Exit 0 pass, 1 fail.
"""
import argparse
import glob
import os
import random
import shutil
import subprocess
import sys

VALGRIND_ARGS = ["--error-exitcode=99", "--leak-check=full", "--errors-for-leak-kinds=definite",
                 "--track-fds=no", "-q"]
VALGRIND_ERROR = 99


class Ctx:
    def __init__(self, a):
        self.a = a
        self.problems = []
        self.runs = 0

    def trace(self, name):
        """The one trace recorded under traces/NAME."""
        found = glob.glob(os.path.join(self.a.traces, name, "*.sktrace"))
        if len(found) != 1:
            raise SystemExit(f"FAIL: {len(found)} traces in {self.a.traces}/{name}: "
                             "run the memcheck.traces case first")
        return found[0]

    def memcheck(self, args, want_rc, stdin=None):
        """Runs seektrace ARGS under memcheck; records a problem unless it
        exits want_rc with no error from valgrind."""
        self.runs += 1
        p = subprocess.run([self.a.valgrind, *VALGRIND_ARGS, self.a.seektrace, *args],
                           capture_output=True, timeout=120, input=stdin)
        label = "seektrace " + " ".join(os.path.basename(x) if os.path.exists(x) else x
                                        for x in args)
        err = p.stderr.decode(errors="replace")
        vg = [ln for ln in err.splitlines() if ln.startswith("==")]
        print(f"{'ok' if p.returncode == want_rc and not vg else 'FAIL':4} exit {p.returncode}  {label}")
        if p.returncode == VALGRIND_ERROR or vg:
            self.problems.append(f"{label}: memcheck errors:\n" + "\n".join(vg[:60]))
        elif p.returncode != want_rc:
            self.problems.append(f"{label}: exit {p.returncode}, expected {want_rc}: {err[-500:]}")
        return p


def record(a, name, argv, extra_env=None, expect_rc=0):
    """Runs argv with the library, its trace and report into traces/NAME."""
    d = os.path.join(a.traces, name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    env = {"PATH": "/usr/bin:/bin", "LD_PRELOAD": a.lib, "SEEKTRACE_TRACE": d,
           "SEEKTRACE_FORMAT": "json", "SEEKTRACE_OUTPUT": os.path.join(d, "report.%p.json")}
    env.update(extra_env or {})
    p = subprocess.run(argv, env=env, capture_output=True, timeout=60)
    if p.returncode != expect_rc:
        raise SystemExit(f"FAIL: recording {name}: {argv} exited {p.returncode}, expected "
                         f"{expect_rc}: {p.stderr[-500:]!r}")
    print(f"recorded {name}: {sorted(os.listdir(d))}")


def case_traces(ctx):
    a = ctx.a
    os.makedirs(a.traces, exist_ok=True)
    data = os.path.join(a.traces, "data.bin")
    with open(data, "wb") as f:
        f.write(random.Random(7).randbytes(1 << 20))
    record(a, "demo", [a.demo, os.path.join(a.traces, "demo.dat"), "--seeks", "300"])
    record(a, "threads", [a.crasher, data, "300", "ok", "2"], {"SEEKTRACE_STACK": "4"})
    record(a, "killed", [a.crasher, data, "300", "kill", "2"], expect_rc=-9)
    record(a, "truncated", [a.demo, os.path.join(a.traces, "demo.dat"), "--seeks", "5000"],
           {"SEEKTRACE_TRACE_MAX": "64k"})


# Each command costs about a second under memcheck: every form of each
# subcommand runs, not every form on every trace.
def case_report(ctx):
    for name, forms in (("demo", (["--json"], ["--from-events"], ["--by", "site"])),
                        ("threads", (["--by", "site"], ["--from-events", "--json"])),
                        ("killed", ([], ["--json"])),
                        ("truncated", ([], ["--from-events"]))):
        for form in forms:
            ctx.memcheck(["report", *form, ctx.trace(name)], 0)
    ctx.memcheck(["report", ctx.a.traces + "/threads"], 0)
    reports = glob.glob(os.path.join(ctx.a.traces, "demo", "report.*.json"))
    ctx.memcheck(["report", "--json", *reports], 0)


def case_check(ctx):
    demo, threads = ctx.trace("demo"), ctx.trace("threads")
    ctx.memcheck(["check", "--max-amplification", "8", demo], 1)
    ctx.memcheck(["check", "--max-amplification", "100000", threads], 0)
    ctx.memcheck(["check", "--max-read-syscalls", "10", "--format", "json", demo, threads], 1)
    ctx.memcheck(["check", "--max-reread-bytes", "1k", "--format", "junit", ctx.trace("killed")], 1)
    ctx.memcheck(["check", "--max-amplification", "8", "--file", "*.dat", ctx.trace("truncated")], 1)
    reports = glob.glob(os.path.join(ctx.a.traces, "demo", "report.*.json"))
    ctx.memcheck(["check", "--max-amplification", "8", *reports], 1)
    ctx.memcheck(["check", demo], 2)  # no limit: usage error


def case_export(ctx):
    for name, formats in (("demo", ("chrome", "csv")), ("threads", ("chrome", "jsonl")),
                          ("killed", ("chrome", "jsonl")), ("truncated", ("chrome", "csv"))):
        for fmt in formats:
            ctx.memcheck(["export", "--format", fmt, ctx.trace(name)], 0)


def case_run(ctx):
    out = os.path.join(ctx.a.traces, "run")
    shutil.rmtree(out, ignore_errors=True)
    ctx.memcheck(["run", "-q", "--trace", out, "--", "sh", "-c",
                  f"cat {ctx.trace('demo')} | sort | head -c 100 > /dev/null"], 0)
    ctx.memcheck(["run", "-q", "--check", "--max-amplification", "1", "--", ctx.a.demo,
                  os.path.join(ctx.a.traces, "demo.dat"), "--seeks", "100"], 1)


def case_html(ctx):
    out = os.path.join(ctx.a.traces, "page.html")
    for name in ("demo", "threads", "killed", "truncated"):
        ctx.memcheck(["html", "--cost", "400,150,300,0.1", ctx.trace(name), "-o", out], 0)
    reports = glob.glob(os.path.join(ctx.a.traces, "demo", "report.*.json"))
    ctx.memcheck(["html", "--cost", "400,150,300,0.1", *reports, "-o", out], 0)
    ctx.memcheck(["html", ctx.trace("demo")], 2)  # no -o: usage error


def case_bad_input(ctx):
    with open(ctx.trace("demo"), "rb") as f:
        good = f.read()
    d = os.path.join(ctx.a.traces, "bad")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    header = int.from_bytes(good[16:20], "little")
    corrupt = bytearray(good)
    corrupt[header + 32] = 0x1f  # the first chunk's first event: an unknown kind
    flipped = bytearray(good)
    for i in range(header + 7, len(good), 997):  # bytes all over the events and the footer
        flipped[i] ^= 0x5a
    future = bytearray(good)
    future[12] = 9  # version_major
    bad = {
        "corrupt.sktrace": bytes(corrupt),
        "flipped.sktrace": bytes(flipped),
        "cut-header.sktrace": good[:200],
        "cut-chunks.sktrace": good[:len(good) - 9000],
        "cut-half.sktrace": good[:len(good) // 2],
        "future.sktrace": bytes(future),
        "empty.sktrace": b"",
        "foreign.sktrace": b"#!/bin/sh\necho not a trace\n" * 100,
        "broken.json": b'{"schema": "seektrace.report/2", "files": [ {"path": 1',
    }
    for name, data in bad.items():
        path = os.path.join(d, name)
        with open(path, "wb") as f:
            f.write(data)
        commands = [["report"], ["check", "--max-amplification", "5"]]
        if name.endswith(".sktrace"):
            commands.append(["export", "--format", "chrome"])
        for args in commands:
            ctx.memcheck([*args, path], 2)


CASES = {"traces": case_traces, "report": case_report, "check": case_check,
         "export": case_export, "run": case_run, "html": case_html,
         "bad_input": case_bad_input}


def main():
    p = argparse.ArgumentParser()
    for opt in ("--seektrace", "--lib", "--demo", "--crasher", "--traces"):
        p.add_argument(opt, required=True)
    p.add_argument("--valgrind", default="")
    p.add_argument("case", choices=sorted(CASES))
    a = p.parse_args()
    a.seektrace = os.path.abspath(a.seektrace)
    if a.case != "traces":
        a.valgrind = a.valgrind or shutil.which("valgrind") or ""
        if not a.valgrind or not os.access(a.valgrind, os.X_OK):
            print("FAIL: valgrind is not installed: the tools' memcheck is part of the test "
                  "suite (scripts/setup.sh installs it; apt-get install valgrind)")
            return 1
    ctx = Ctx(a)
    CASES[a.case](ctx)
    for problem in ctx.problems:
        print("FAIL:", problem)
    if not ctx.problems:
        print(f"PASS ({ctx.runs} commands under memcheck)" if ctx.runs else "PASS")
    return 1 if ctx.problems else 0


if __name__ == "__main__":
    sys.exit(main())
