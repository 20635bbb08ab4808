#!/usr/bin/env python3
"""End-to-end tests of trace files and the seektrace command (issue 4).

    cli_tests.py --seektrace BIN --lib LIB ... CASE

Each CASE runs real programs under libseektrace with SEEKTRACE_TRACE set and
checks what the traces and the command say against what is independently
known: the report each process printed at exit (the round trip), the
programs' own arithmetic (fork, crash and fan-out cases), and parsers of the
output formats (JSON, CSV, JUnit XML, Chrome trace events). Exit 0 pass,
1 fail, 77 skipped.
"""
import argparse
import collections
import csv
import glob
import io
import json
import math
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "integration"))
import data_files  # noqa: E402  (the integration tests' fixed data files)
from seektrace_reports import name_bytes  # noqa: E402
import strace_log  # noqa: E402


class Failure(Exception):
    pass


def expect(cond, what):
    if not cond:
        raise Failure(what)


class Ctx:
    def __init__(self, args, tmp):
        self.a = args
        self.tmp = tmp
        self.data = os.path.join(tmp, "data")
        os.makedirs(self.data)
        data_files.write_all(self.data, [data_files.BINARY_NAME, data_files.TEXT_NAME])
        self.bin = os.path.join(self.data, data_files.BINARY_NAME)
        self.text = os.path.join(self.data, data_files.TEXT_NAME)
        self.n = 0

    def newdir(self, name):
        self.n += 1
        d = os.path.join(self.tmp, f"{self.n:02d}-{name}")
        os.makedirs(d)
        return d

    def traced(self, argv, name="run", env=None, stdin=None, check=True, timeout=120,
               strace_to=None):
        """Runs argv under the library; returns (trace dir, reports dir, proc).
        With strace_to, under strace too, its log written there (the library's
        settings reach the traced program alone)."""
        d = self.newdir(name)
        traces, reports = os.path.join(d, "traces"), os.path.join(d, "reports")
        os.makedirs(reports)
        e = self.traced_env()
        e.update(LD_PRELOAD=self.preload(), SEEKTRACE_TRACE=traces, SEEKTRACE_FORMAT="json",
                 SEEKTRACE_OUTPUT=os.path.join(reports, "%p.json"))
        e.update(env or {})
        if strace_to:
            tracee = {k: v for k, v in e.items() if os.environ.get(k) != v}
            e = {k: v for k, v in os.environ.items() if k not in tracee}
            argv = strace_log.command(strace_to, tracee, argv)
        p = subprocess.run(argv, env=e, stdin=stdin, capture_output=True, timeout=timeout)
        if check and p.returncode != 0:
            raise Failure(f"{argv} exited {p.returncode}: {p.stderr.decode(errors='replace')[-2000:]}")
        return traces, reports, p

    def preload(self):
        """LD_PRELOAD for a traced program (a sanitized build's library needs
        the ASan runtime first)."""
        return f"{self.a.preload_prefix}:{self.a.lib}" if self.a.preload_prefix else self.a.lib

    def traced_env(self, base=None):
        """The environment of traced programs: in a sanitized build, ASan
        leaves their signals (the crash tests) and their leaks alone, and gives
        no thread an alternate signal stack a report could run off
        (tests/reliability/CMakeLists.txt)."""
        e = dict(base if base is not None else os.environ)
        if self.a.preload_prefix:
            e["ASAN_OPTIONS"] = ("detect_leaks=0:handle_segv=0:handle_sigbus=0:handle_abort=0:"
                                 "handle_sigfpe=0:allow_user_segv_handler=1:use_sigaltstack=0")
        return e

    def st(self, *args, rc=0, env=None, input=None, strace_to=None):
        """Runs seektrace; returns (stdout, stderr) as text, checking the exit code.
        With strace_to, under strace -f, its log written there."""
        out, err = self.st_bytes(*args, rc=rc, env=env, input=input, strace_to=strace_to)
        return out.decode(errors="replace"), err.decode(errors="replace")

    def st_raw(self, *args, rc=0):
        """Runs seektrace; returns its stdout as bytes, checking the exit code."""
        return self.st_bytes(*args, rc=rc)[0]

    def st_bytes(self, *args, rc=0, env=None, input=None, strace_to=None):
        if args and args[0] == "run" and self.a.preload_prefix:
            # What run starts is traced: the runtime goes first (run keeps it so).
            env = self.traced_env(env)
            old = env.get("LD_PRELOAD")
            env["LD_PRELOAD"] = self.a.preload_prefix + (":" + old if old else "")
        argv = [self.a.seektrace, *args]
        if strace_to:
            tracee = {k: v for k, v in (env or {}).items() if os.environ.get(k) != v}
            env = {k: v for k, v in os.environ.items() if k not in tracee}
            argv = strace_log.command(strace_to, tracee, argv)
        p = subprocess.run(argv, capture_output=True, env=env, input=input, timeout=300)
        if rc is not None and p.returncode != rc:
            raise Failure(f"seektrace {' '.join(map(str, args))}: exit {p.returncode}, expected {rc}\n"
                          f"stdout: {p.stdout[-3000:].decode(errors='replace')}\n"
                          f"stderr: {p.stderr[-3000:].decode(errors='replace')}")
        return p.stdout, p.stderr

    def stj(self, *args, **kw):
        out, _ = self.st(*args, **kw)
        try:
            return json.loads(out)
        except json.JSONDecodeError as e:
            raise Failure(f"seektrace {' '.join(args)}: not JSON ({e}): {out[:500]}")


def traces_in(d):
    return sorted(glob.glob(os.path.join(d, "*.sktrace")))


def reports_in(d):
    """{pid: at-exit JSON report}; a pid that exec'd has several (the last wins)."""
    return {pid: rs[-1][2] for pid, rs in report_files(d).items()}


def report_files(d):
    """{pid: [(path, text, report)]} for every at-exit report in d."""
    out = {}
    for f in sorted(glob.glob(os.path.join(d, "*.json"))):
        with open(f) as fh:
            text = fh.read()
        r = json.loads(text)
        out.setdefault(r["pid"], []).append((f, text, r))
    return out


def the_report_of(reports, j):
    """The at-exit report of the process a trace's report j describes: the
    same pid and command line (an exec'd image keeps its pid)."""
    for f, text, r in report_files(reports).get(j["pid"], []):
        if r["argv"] == j["argv"]:
            return text, r
    raise Failure(f"no at-exit report of pid {j['pid']} {j['argv']}")


def without_empty_sites(r):
    """Normalized for comparing a report rebuilt from events with the one
    printed at exit. A fork child's report at exit lists, with zero counts,
    the sites its parent's cells had (exit_report.c); its trace never saw
    them: left out. Modules are named by the loader at exit (a symbolic link
    such as .../libasan.so) and by /proc/self/maps in a trace (its target):
    compared as real paths."""
    r = json.loads(json.dumps(r))

    def busy(s):
        return any(s.get(k) for k in FIGURES) or s.get("calls")

    def frame(f):
        if f.get("module", "").startswith("/"):
            f["module"] = os.path.realpath(f["module"])

    def sites(lst):
        out = [s for s in lst if busy(s)]
        for s in out:
            frame(s)
            for f in s.get("frames", []):
                frame(f)
        return out

    for f in r.get("files", []):
        f["sites"] = sites(f.get("sites", []))
    r["sites"] = sites(r.get("sites", []))
    for f in r.get("findings", []):
        if f.get("site"):
            frame(f["site"])
    return r


FIGURES = ("read_syscalls", "kernel_read_bytes", "lseek_syscalls", "fstat_syscalls",
           "write_syscalls", "kernel_write_bytes", "requested_bytes", "delivered_bytes",
           "reread_bytes", "seeks_in_buffer", "seeks_discarding_buffer", "written_bytes")


def per_file(report):
    return {f["path"]: {k: f[k] for k in FIGURES} for f in report["files"]}


ORIGIN = re.compile(r',"host":(?:null|"(?:[^"\\]|\\.)*"),"start_time_ns":(\d+),"duration_ns":(\d+),'
                    r'"labels":\{(?:"(?:[^"\\]|\\.)*":"(?:[^"\\]|\\.)*",?)*\}')


def without_origin(doc):
    """A trace's report --json without what only the trace knows (host,
    start, duration, labels: the at-exit report has none), checked first."""
    m = ORIGIN.search(doc)
    expect(m is not None, f"no host, start_time_ns, duration_ns, labels in {doc[-400:]}")
    j = json.loads(doc)
    expect(j["host"] == os.uname().nodename, f"host {j['host']}")
    expect(abs(int(m.group(1)) - time.time_ns()) < 86400 * 10**9 and int(m.group(2)) > 0,
           f"start {m.group(1)}, duration {m.group(2)}")
    for k in ("host", "start_time_ns", "duration_ns", "labels"):
        j.pop(k)
    return doc[:m.start()] + doc[m.end():], j


def roundtrip_dir(ctx, traces, reports, min_traces=1):
    """Every trace: report --json equals the process's at-exit JSON report,
    from the footer byte for byte, and rebuilt from the events."""
    ts = traces_in(traces)
    expect(len(ts) >= min_traces, f"{len(ts)} traces in {traces}, expected >= {min_traces}")
    for t in ts:
        footer, j = without_origin(ctx.st("report", "--json", t)[0])
        raw, at_exit = the_report_of(reports, j)
        expect(footer == raw, f"{t}: report --json differs from the at-exit report:\n"
                              f"{footer[:1500]}\n---\n{raw[:1500]}")
        _, events = without_origin(ctx.st("report", "--json", "--from-events", t)[0])
        events = without_empty_sites(events)
        at_exit = without_empty_sites(at_exit)
        if events != at_exit:
            for key in at_exit:
                if events.get(key) != at_exit[key]:
                    raise Failure(f"{t}: rebuilt from events, '{key}' differs:\n"
                                  f"{json.dumps(events.get(key))[:2000]}\n---\n"
                                  f"{json.dumps(at_exit[key])[:2000]}")
            raise Failure(f"{t}: rebuilt report differs")
        # The text report matches too (it is what people read), unless a site
        # lies in a module the loader knew by another name.
        text, _ = ctx.st("report", t)
        text_events, _ = ctx.st("report", "--from-events", t)
        expect(text == text_events or ctx.a.preload_prefix,
               f"{t}: text from footer and from events differ")
    return ts


# ---- round trips ---------------------------------------------------------------

def case_roundtrip_demo(ctx):
    traces, reports, p = ctx.traced([ctx.a.demo, os.path.join(ctx.tmp, "d.dat"), "--seeks", "3000"])
    (t,) = roundtrip_dir(ctx, traces, reports)
    j = ctx.stj("report", "--json", t)
    f = [x for x in j["files"] if x["path"].endswith("d.dat")][0]
    expect(f["delivered_bytes"] == 3000 * 16, f"delivered {f['delivered_bytes']}")
    expect(f["calls"]["fseek"] == 3000 and f["calls"]["fread"] == 3000, f"calls {f['calls']}")
    # Compactness: the issue's budget is 16 bytes per event on the demo.
    out, _ = ctx.st("report", "--stats", t)
    per_event = float(out.split("bytes/event")[0].rsplit("(", 1)[1])
    expect(per_event <= 16, f"{per_event} bytes per event")


def case_roundtrip_userbuf(ctx):
    traces, reports, _ = ctx.traced([ctx.a.demo, os.path.join(ctx.tmp, "d.dat"), "--seeks", "2000",
                                     "--buffer", "131072"])
    (t,) = roundtrip_dir(ctx, traces, reports)
    j = ctx.stj("report", "--json", t)
    s = [x for x in j["files"] if x["path"].endswith("d.dat")][0]["streams"][0]
    expect(s["buffer_size"] == 131072 and s["buffer_origin"] == "user", f"stream {s}")


def case_open_at_exit(ctx):
    """A stream the program leaves open keeps, in the exit report and in the
    trace's, the buffer its reads went through: glibc's exit cleanup
    unbuffers it, and that is not the program's doing."""
    prog = os.path.join(ctx.a.workloads, "wl_exit_open")
    traces, reports, _ = ctx.traced([prog, "return", ctx.text, "100"], name="open_at_exit",
                                    stdin=open(ctx.text, "rb"))
    blksize = os.stat(ctx.text).st_blksize
    default = blksize if 0 < blksize < 8192 else 8192  # glibc's _IO_file_doallocate
    (live,) = [os.path.join(reports, f) for f in os.listdir(reports)]
    (t,) = [os.path.join(traces, f) for f in os.listdir(traces)]
    for source, j in (("exit report", json.load(open(live))),
                      ("trace", ctx.stj("report", "--json", t))):
        # The file is read through fopen's stream (fd 3) and through stdin.
        (f,) = [x for x in j["files"] if x["path"] == os.path.abspath(ctx.text)]
        expect(sorted(s["fd"] for s in f["streams"]) == [0, 3], f"{source}: {f['streams']}")
        for s in f["streams"]:
            expect((s["buffer_size"], s["buffer_mode"], s["buffer_origin"]) ==
                   (default, "full", "default"), f"{source}: stream {s}")


def case_write_buffer(ctx):
    """A stream that only writes never refills: the report still names the
    buffer its writes went through, in the exit report and in the trace's
    (it said "no buffer yet")."""
    prog = os.path.join(ctx.a.workloads, "wl_writes")
    out = os.path.join(ctx.tmp, "w.out")
    blksize = os.statvfs(ctx.tmp).f_bsize
    default = blksize if 0 < blksize < 8192 else 8192  # glibc's _IO_file_doallocate
    for mode, count, want in (("fputc", "100000", (default, "full", "default")),
                              ("linebuf", "100", (default, "line", "default")),
                              ("unbuffered", "100", (1, "none", "default"))):
        traces, reports, _ = ctx.traced([prog, mode, out, count], name="wbuf_" + mode)
        (live,) = [os.path.join(reports, f) for f in os.listdir(reports)]
        (t,) = [os.path.join(traces, f) for f in os.listdir(traces)]
        for source, j in (("exit report", json.load(open(live))),
                          ("trace", ctx.stj("report", "--json", t))):
            (f,) = [x for x in j["files"] if x["path"] == os.path.abspath(out)]
            (s,) = f["streams"]
            expect((s["buffer_size"], s["buffer_mode"], s["buffer_origin"]) == want,
                   f"{mode}, {source}: stream {s}")
        text, _ = ctx.st("report", t)
        expect("no buffer yet" not in text, f"{mode}: text report says no buffer yet:\n{text}")


def case_roundtrip_workloads(ctx):
    w = ctx.a.workloads
    runs = [
        ["wl_text", "fgetc", ctx.text], ["wl_text", "getc_unlocked", ctx.text],
        ["wl_text", "fgets", ctx.text], ["wl_text", "getline", ctx.text],
        ["wl_text", "fscanf", ctx.text],
        ["wl_posix", "read", ctx.bin, "0", "0"], ["wl_posix", "pread", ctx.bin, "300", "5"],
        ["wl_posix", "lseek", ctx.bin, "300", "6"], ["wl_posix", "readv", ctx.bin, "0", "0"],
        ["wl_seek_patterns", "inbuf", ctx.bin, "200", "7"],
        ["wl_seek_patterns", "end", ctx.bin, "200", "7"],
        ["wl_seek_patterns", "ftell", ctx.bin, "200", "7"],
        ["wl_fread_seq", ctx.bin, "10240", "4096"],
        ["wl_eof", ctx.bin, "3"],
        ["wl_pipe", "popen", ctx.text],
        ["wl_exit_open", "_exit", ctx.text, "100"],
        ["wl_ifstream_seek", "unbuffered", ctx.bin, "200", "8"],
        # Writing through stdio: WRITTEN events (bytes handed over, flush causes).
        ["wl_writes", "unbuffered", os.path.join(ctx.tmp, "w.out"), "300"],
        ["wl_writes", "fputc", os.path.join(ctx.tmp, "w.out"), "20000"],
        ["wl_writes", "wplus", os.path.join(ctx.tmp, "w.out"), "300"],
        ["wl_writes", "stdout", os.path.join(ctx.tmp, "w.out"), "3000"],
        # The write side: every POSIX write call (WRITE_AT and WRITTEN events).
        ["wl_posix_write", os.path.join(ctx.tmp, "w.out"), "50", "13"],
        ["wl_ofstream_endl", "endl", os.path.join(ctx.tmp, "w.out"), "300"],
        ["wl_ofstream_endl", "big", os.path.join(ctx.tmp, "w.out"), "300"],
    ]
    for r in runs:
        prog = os.path.join(w, r[0])
        if not os.path.exists(prog):
            raise Failure(f"missing workload {prog}")
        traces, reports, _ = ctx.traced([prog, *r[1:]], name=r[0],
                                        stdin=open(ctx.text, "rb") if r[1] == "stdin" else None)
        roundtrip_dir(ctx, traces, reports)
    # "r+" modifies its file: last.
    data_files.write_all(ctx.data, [data_files.BINARY_NAME])
    traces, reports, _ = ctx.traced([os.path.join(w, "wl_rw"), ctx.bin, "100", "3"], name="rw")
    roundtrip_dir(ctx, traces, reports)


def case_roundtrip_threads(ctx):
    traces, reports, _ = ctx.traced([ctx.a.crasher, ctx.bin, "3000", "ok", "8"])
    (t,) = roundtrip_dir(ctx, traces, reports)
    j = ctx.stj("report", "--json", t)
    f = [x for x in j["files"] if x["path"] == ctx.bin][0]
    expect(f["calls"]["fread"] == 8 * 3000 and f["calls"]["pread"] == 8 * 3000, f"calls {f['calls']}")
    expect(f["delivered_bytes"] == 8 * 3000 * (64 + 100), f"delivered {f['delivered_bytes']}")


# ---- several processes -----------------------------------------------------------

def run_json(ctx, *args, rc=0, dirname="run", strace_to=None, process_reports=False):
    """seektrace run --json --trace DIR ... ; returns (merged JSON, DIR)."""
    d = os.path.join(ctx.newdir(dirname), "traces")
    out = os.path.join(os.path.dirname(d), "report.json")
    more = ["--process-reports"] if process_reports else []
    ctx.st("run", "--trace", d, "--json", "-o", out, *more, "--", *args, rc=rc,
           strace_to=strace_to)
    with open(out) as fh:
        return json.load(fh), d


def case_multiprocess_pipeline(ctx):
    size = os.path.getsize(ctx.bin)
    script = (f"cat {ctx.bin} | wc -c > /dev/null; head -c 100000 {ctx.bin} > /dev/null; "
              f"cat {ctx.text} {ctx.bin} | cat > /dev/null")
    log = os.path.join(ctx.tmp, "strace.pipeline")
    j, d = run_json(ctx, "sh", "-c", script, strace_to=log, process_reports=True)
    expect(j["schema"] == "seektrace.merged/2", f"schema {j.get('schema')}")
    procs = j["processes"]
    names = sorted(p["argv"][0] for p in procs)
    expect(names.count("cat") == 3 and "wc" in names and "head" in names, f"processes {names}")
    merged = {f["path"]: f for f in j["merged"]["files"]}
    b = merged[ctx.bin]
    # cat, cat and head read the file: 4 MiB + 4 MiB + 100000 bytes, once each.
    expect(b["delivered_bytes"] == 2 * size + 100000, f"delivered {b['delivered_bytes']}")
    # What the kernel gave them: strace's log of the whole tree (seektrace
    # itself never reads the file).
    kernel = strace_log.parse(log)[1][os.path.realpath(ctx.bin)]
    for k in ("read_syscalls", "kernel_read_bytes", "lseek_syscalls"):
        expect(b[k] == getattr(kernel, k), f"{k} {b[k]} != strace's {getattr(kernel, k)}")
    # Each process's trace equals its own at-exit report (in DIR/reports).
    roundtrip_dir(ctx, d, os.path.join(d, "reports"), min_traces=5)
    # The merged totals are the sums of the processes'.
    for k in FIGURES:
        expect(j["merged"]["totals"][k] == sum(p["totals"][k] for p in procs), f"totals {k}")
    # And the same figures from the traces alone.
    again = ctx.stj("report", "--json", d)
    expect(again["merged"]["totals"] == j["merged"]["totals"], "report over DIR differs from run")
    text, _ = ctx.st("report", "--by", "process", d)
    expect(f"{len(procs)} processes" in text and "wc -c" in text, text[:500])


def case_multiprocess_fork(ctx):
    children = 4
    traces, reports, _ = ctx.traced([ctx.a.forker, ctx.bin, str(children)])
    ts = roundtrip_dir(ctx, traces, reports, min_traces=children + 1)
    expect(len(ts) == children + 1, f"{len(ts)} traces")
    by_pid = {}
    for t in ts:
        j = ctx.stj("report", "--json", t)
        by_pid[j["pid"]] = j
    parent = [j for j in by_pid.values() if j["ppid"] not in by_pid][0]
    pf = per_file(parent)[ctx.bin]
    # The parent: 8 KiB + 4 KiB by fread, nothing of its children's.
    expect(pf["delivered_bytes"] == 12288, f"parent delivered {pf['delivered_bytes']}")
    kids = sorted((j for j in by_pid.values() if j["ppid"] == parent["pid"]),
                  key=lambda j: per_file(j)[ctx.bin]["delivered_bytes"])
    expect(len(kids) == children, f"{len(kids)} children")
    for i, k in enumerate(kids):
        f = [x for x in k["files"] if x["path"] == ctx.bin][0]
        expect(f["calls"].get("pread") == i + 1 and f["delivered_bytes"] == 4096 * (i + 1),
               f"child {i}: {f['calls']} {f['delivered_bytes']}")
        expect("fread" not in f["calls"], f"child {i} counts its parent's fread")


def case_multiprocess_fanout(ctx):
    # make-like: jobs in parallel, each a child of the same shell.
    jobs = 12
    script = " ".join(f"(cat {ctx.bin} > /dev/null) &" for _ in range(jobs)) + " wait"
    j, d = run_json(ctx, "sh", "-c", script)
    cats = [p for p in j["processes"] if p["argv"][0] == "cat"]
    expect(len(cats) == jobs, f"{len(cats)} cat processes")
    merged = {f["path"]: f for f in j["merged"]["files"]}
    size = os.path.getsize(ctx.bin)
    expect(merged[ctx.bin]["delivered_bytes"] == jobs * size, "delivered")
    # Re-reads are per process: twelve processes reading once each re-read nothing.
    expect(merged[ctx.bin]["reread_bytes"] == 0, f"reread {merged[ctx.bin]['reread_bytes']}")


def case_run_exit_status(ctx):
    d = ctx.newdir("status")
    ctx.st("run", "-q", "--", "sh", "-c", f"cat {ctx.bin} > /dev/null; exit 7", rc=7)
    ctx.st("run", "-q", "--", "sh", "-c", "kill -TERM $$", rc=128 + signal.SIGTERM)
    _, err = ctx.st("run", "--", "/nonexistent/program", rc=127)
    expect("cannot run" in err, err)
    # The command's stdout is its own: the report goes to stderr.
    out, err = ctx.st("run", "--", "sh", "-c", f"head -c 10 {ctx.bin} > /dev/null; echo hello")
    expect(out == "hello\n", f"stdout {out!r}")
    expect("head -c 10" in err and "amplif." in err, err[:500])
    # LD_PRELOAD the user had is kept, after ours.
    out, _ = ctx.st("run", "-q", "--", "sh", "-c", "echo $LD_PRELOAD",
                    env=dict(os.environ, LD_PRELOAD="libm.so.6"))
    expect(out.strip().endswith(":libm.so.6") and "libseektrace.so" in out, out)
    # --trace keeps them; a directory that already holds traces is refused.
    keep = os.path.join(d, "kept")
    ctx.st("run", "-q", "--trace", keep, "--", "cat", ctx.text)
    expect(len(traces_in(keep)) == 1, "kept traces")
    _, err = ctx.st("run", "--trace", keep, "--", "true", rc=2)
    expect("already holds traces" in err, err)


def case_run_process_reports(ctx):
    """Without --process-reports no process writes a report of its own
    (SEEKTRACE_REPORT=off): the trace directory holds traces alone, each
    finished with its footer, whose accounts are those the same command's
    process writes in its report with --process-reports. The setting
    itself: off writes nothing at exit; a bad value is one warning and the
    report."""
    argv = [ctx.a.demo, os.path.join(ctx.tmp, "pr.dat"), "--seeks", "500"]
    subprocess.run(argv, check=True, capture_output=True, timeout=120)  # makes its file
    quiet = ctx.newdir("quiet")
    ctx.st("run", "-q", "--trace", quiet, "--", *argv)
    names = os.listdir(quiet)
    expect(len(names) == 1 and names[0].endswith(".sktrace"), f"trace dir holds {names}")
    off = ctx.stj("report", "--json", os.path.join(quiet, names[0]))
    expect("trace" not in off, f"trace not finished: {off.get('trace')}")
    kept = ctx.newdir("kept")
    ctx.st("run", "-q", "--trace", kept, "--process-reports", "--", *argv)
    (own,) = reports_in(os.path.join(kept, "reports")).values()
    # The device's figures are the run's own (the report file is written).
    a, b = ({k: v for k, v in r["totals"].items() if not k.startswith("device_")}
            for r in (own, off))
    expect(a == b and a["read_syscalls"] > 500, f"totals differ:\n{a}\n{b}")
    # The same files (the demo's stdout is a pipe of another name each run).
    a, b = ([f["path"] if not f["path"].startswith("pipe:") else "pipe" for f in r["files"]]
            for r in (own, off))
    expect(a == b and argv[1] in a, f"files differ: {a} {b}")
    # A sweep inside a run reads its runs' reports all the same.
    out, _ = ctx.st("run", "-q", "--", ctx.a.seektrace, "sweep", "--", *argv)
    rows = [l for l in out.splitlines() if re.match(r"^[ *][ +*]\S+ (B|KiB|MiB) ", l)]
    expect(len(rows) >= 10 and all(re.search(r"\s500\s", l) for l in rows),
           f"sweep under run (every size: 500 lseeks): {out[-800:]}")
    env = ctx.traced_env()
    env["LD_PRELOAD"] = ctx.preload()
    for value, want in (("off", ""), ("on", "amplif."), ("maybe", "SEEKTRACE_REPORT=maybe is not")):
        p = subprocess.run(argv, env=dict(env, SEEKTRACE_REPORT=value), capture_output=True,
                           timeout=120)
        err = p.stderr.decode(errors="replace")
        expect(p.returncode == 0 and (want in err if want else err == ""),
               f"SEEKTRACE_REPORT={value}: exit {p.returncode}, stderr {err[:300]!r}")
    expect("amplif." in err, f"a bad value still reports: {err[:300]!r}")


def case_run_switch_user(ctx):
    """-q says nothing when no process read a file; a --trace directory of
    mode 1777 gives its reports directory (--process-reports) the same
    mode, so a process that switched user (as root: setpriv to nobody)
    writes its trace and report there instead of warning on the program's
    stderr."""
    _, err = ctx.st("run", "-q", "--", "false", rc=1)
    expect(err == "", f"-q printed {err!r}")
    # --json with no process to report is still a document.
    out = os.path.join(ctx.newdir("none"), "r.json")
    ctx.st("run", "-q", "--json", "-o", out, "--", "true")
    with open(out) as fh:
        j = json.load(fh)
    expect(j["schema"] == "seektrace.merged/2" and j["processes"] == [], f"{j}")
    # Under /tmp itself: nobody must be able to reach it.
    d = tempfile.mkdtemp(prefix="seektrace-switch-")
    try:
        os.chmod(d, 0o1777)
        setpriv = shutil.which("setpriv")
        cmd = ["cat", "/etc/passwd"]
        if os.geteuid() == 0 and setpriv:
            cmd = [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups"] + cmd
        _, err = ctx.st("run", "-q", "--trace", d, "--process-reports", "--", *cmd)
        expect(err == "", f"stderr {err!r}")
        reports = os.path.join(d, "reports")
        mode = os.stat(reports).st_mode & 0o7777
        expect(mode == 0o1777, f"reports mode {mode:o}")
        owners = {os.stat(os.path.join(reports, r)).st_uid for r in os.listdir(reports)}
        if cmd[0] == setpriv:
            expect(65534 in owners, f"no report written as nobody: owners {owners}")
        expect(any(t.startswith("cat.") for t in os.listdir(d)), f"no trace from cat: {os.listdir(d)}")
    finally:
        shutil.rmtree(d, ignore_errors=True)
    if cmd[0] != setpriv:
        # ctest shows it skipped, not passed: the user switch did not run.
        print("SKIP: switching to nobody needs root and setpriv (the rest ran)")
        raise SystemExit(77)


def case_run_static(ctx):
    if not ctx.a.static:
        raise SystemExit(77)
    _, err = ctx.st("run", "--", ctx.a.static, ctx.text)
    lines = [l for l in err.splitlines() if "statically linked" in l]
    expect(len(lines) == 1 and ctx.a.static in lines[0], err)
    expect("no process wrote a trace" in err, err)


# ---- crashes ------------------------------------------------------------------------

def crash_case(ctx, how, sig):
    """Everything up to the crash is in the trace: the kernel figures equal
    strace's log of the same run, and the calls and bytes the workload's
    parameters (THREADS threads, each ITERATIONS rounds of fseek + fread(64)
    and pread(100), and one fseek to the end)."""
    n, threads = 2000, 2
    log = os.path.join(ctx.tmp, f"strace.{how}")
    traces, reports, p = ctx.traced([ctx.a.crasher, ctx.bin, str(n), how, str(threads)], name=how,
                                    check=False, strace_to=log)
    expect(p.returncode == -sig, f"{how}: exit {p.returncode}")
    (t,) = traces_in(traces)
    j = ctx.stj("report", "--json", t)
    status = j.get("trace", {}).get("status", "complete")
    if how == "kill":
        expect(status == "partial", f"SIGKILL left a {status} trace")
        _, err = ctx.st("report", t)
        expect("partial" in err, err)
    f = [x for x in j["files"] if x["path"] == ctx.bin][0]
    _, per_path = strace_log.parse(log)
    kernel = per_path[os.path.realpath(ctx.bin)]
    for k in ("read_syscalls", "kernel_read_bytes", "lseek_syscalls"):
        expect(f[k] == getattr(kernel, k), f"{how}: {k} {f[k]} != strace's {getattr(kernel, k)}")
    rounds = n * threads
    calls = {"fseek": rounds + threads, "fread": rounds, "pread": rounds}
    for call, count in calls.items():
        expect(f["by_call"][call]["calls"] == count,
               f"{how}: {call} calls {f['by_call'][call]['calls']} != {count}")
    for k in ("requested_bytes", "delivered_bytes"):
        expect(f[k] == rounds * (64 + 100), f"{how}: {k} {f[k]} != {rounds * 164}")
    expect(f["seeks_in_buffer"] + f["seeks_discarding_buffer"] == calls["fseek"],
           f"{how}: {f['seeks_in_buffer']} + {f['seeks_discarding_buffer']} seeks")
    # The events say the same as the footer (when there is one).
    ev = ctx.stj("report", "--json", "--from-events", t)
    fe = [x for x in ev["files"] if x["path"] == ctx.bin][0]
    for k in FIGURES:
        expect(fe[k] == f[k], f"{how}: from events {k} {fe[k]} != {f[k]}")


def site_frames(report, path):
    """The frames of every site on path in a (merged or per-process) report."""
    files = report["merged"]["files"] if "merged" in report else report["files"]
    return [s["frames"] for f in files if f["path"] == path for s in f["sites"]]


def case_run_labels(ctx):
    """Labels (run --label, SEEKTRACE_LABELS) are recorded in every trace of
    a run and shown by report with the host and wall-clock times; bad ones
    are one line from the command and a warning (the program unaffected)
    inside a traced process."""
    d = ctx.newdir("labels")
    traces = os.path.join(d, "traces")
    env = dict(os.environ, SEEKTRACE_LABELS="job=7,commit=old")
    before = time.time_ns()
    ctx.st("run", "--trace", traces, "--label", "commit=abc123", "--label", "test=t.one", "-q",
           "--", "sh", "-c", "cat /etc/passwd >/dev/null; cat /etc/hostname >/dev/null", env=env)
    after = time.time_ns()
    j = ctx.stj("report", "--json", traces)
    want = {"job": "7", "commit": "abc123", "test": "t.one"}
    expect(len(j["processes"]) == 3 and all(p["labels"] == want for p in j["processes"]),
           f"labels {[p.get('labels') for p in j['processes']]}")
    host = os.uname().nodename
    for p in j["processes"]:
        expect(p["host"] == host and before <= p["start_time_ns"] <= after
               and 0 < p["duration_ns"] <= after - before, f"origin {p['host']} {p['start_time_ns']}"
               f" {p['duration_ns']} in [{before}, {after}]")
    run = j["run"]
    first = min(p["start_time_ns"] for p in j["processes"])
    end = max(p["start_time_ns"] + p["duration_ns"] for p in j["processes"])
    expect(run == {"hosts": [host], "start_time_ns": first, "duration_ns": end - first,
                   "labels": want}, f"run {run}")
    # The merged document read back keeps them.
    merged = os.path.join(d, "merged.json")
    with open(merged, "w") as fh:
        json.dump(j, fh)
    again = ctx.stj("report", "--json", merged)
    expect(again["run"] == run, f"read back: {again.get('run')}")
    text, _ = ctx.st("report", traces)
    expect(f"  host {host}, started " in text and "labels: job=7 commit=abc123 test=t.one" in text,
           text[:600])
    # Bad labels: the command refuses them in one line; the library warns
    # and records none, the program's output and status untouched.
    for bad in ("nokey", "=v", "a b=1", "k=1,2", "k=1", "x" * 65 + "=1"):
        args = ["--label", bad, "--label", "k=2"] if bad == "k=1" else ["--label", bad]
        _, err = ctx.st("run", *args, "--", "true", rc=2)
        expect(len(err.strip().splitlines()) == 1 and "--label" in err, f"{bad}: {err}")
    _, err = ctx.st("run", "--", "true", rc=2, env=dict(os.environ, SEEKTRACE_LABELS="a=1,,"))
    expect(len(err.strip().splitlines()) == 1 and "SEEKTRACE_LABELS" in err, err)
    t2, _, p = ctx.traced(["cat", "/etc/hostname"], name="badlabels",
                          env={"SEEKTRACE_LABELS": "ok=1,bad key=2"})
    with open("/etc/hostname", "rb") as fh:
        expect(p.stdout == fh.read() and p.returncode == 0, "the program noticed")
    err = p.stderr.decode()
    expect("seektrace: warning: SEEKTRACE_LABELS=ok=1,bad key=2: the key has a character" in err,
           err)
    (t,) = traces_in(t2)
    expect(ctx.stj("report", "--json", t)["labels"] == {}, "bad labels were recorded")


def case_export_clickhouse(ctx):
    """export --format clickhouse: per table an INSERT line, its rows (the
    JSON report's keys and values), an empty line, runs last; the run id is
    the same whatever the order of the traces; no selection; load's usage
    errors are one line (tests/fleet loads into a real server)."""
    d = ctx.newdir("chexport")
    traces = os.path.join(d, "traces")
    ctx.st("run", "--trace", traces, "--label", "job=9", "-q", "--", "sh", "-c",
           f"{ctx.a.demo} {os.path.join(d, 'd.dat')} --seeks 300; cat /etc/passwd > /dev/null")
    out, _ = ctx.st("export", "--format", "clickhouse", "--database", "fleet_db", traces)
    blocks = [b for b in out.split("\n\n") if b]
    heads = [b.split("\n", 1)[0] for b in blocks]
    expect(heads == [f"INSERT INTO fleet_db.{t} FORMAT JSONEachRow" for t in
                     ("processes", "files", "streams", "sites", "findings", "events", "runs")],
           f"blocks {heads}")
    rows = {h.split(".")[1].split()[0]: [json.loads(r) for r in b.split("\n")[1:] if r]
            for h, b in zip(heads, blocks)}
    j = ctx.stj("report", "--json", traces)
    ids = {r["run_id"] for t in rows.values() for r in t}
    expect(len(ids) == 1 and re.fullmatch(r"[0-9a-f]{32}", next(iter(ids))), f"run ids {ids}")
    (run,) = rows["runs"]
    expect(all(run[k] == j["merged"]["totals"][k] for k in FIGURES), f"runs row {run}")
    expect(run["labels.key"] == ["job"] and run["labels.value"] == ["9"]
           and run["processes"] == len(j["processes"]) == len(rows["processes"]), f"{run}")
    for k in FIGURES:
        expect(sum(r[k] for r in rows["files"]) == j["merged"]["totals"][k], f"files' {k}")
    reads = [r for r in rows["events"] if r["event"] == "read"]
    expect(len(reads) == j["merged"]["totals"]["read_syscalls"], f"{len(reads)} read events")
    # The same traces in another order: the same run id.
    ts = sorted(traces_in(traces), reverse=True)
    again, _ = ctx.st("export", "--format", "clickhouse", *ts)
    expect(json.loads(again.split("\n")[1])["run_id"] in ids, "the run id depends on the order")
    for args in (["--pid", "1"], ["--keep-going"], ["--database", "a-b"]):
        _, err = ctx.st("export", "--format", "clickhouse", *args, traces, rc=2)
        expect(len(err.strip().splitlines()) == 1, err)
    for args in ([], ["--clickhouse", "ftp://x/"], ["--clickhouse", "http://u:p@h/"],
                 ["--clickhouse", "http://h/", "--retries", "x"]):
        _, err = ctx.st("load", *args, traces, rc=2)
        expect(len(err.strip().splitlines()) == 1 and "load" in err, f"{args}: {err}")


def case_run_symbolize_later(ctx):
    """seektrace run names call sites from the traces, once for the whole job
    (SEEKTRACE_SYMBOLIZE=later): no traced process loads libdw or opens its
    program file, the names and source lines equal those the process gives
    itself at exit (SEEKTRACE_SYMBOLIZE=exit), processes asked for reports
    of their own name their sites, and a program rebuilt after it ran is not
    named from its new file."""
    prog = os.path.join(ctx.tmp, "later_prog")
    shutil.copy(ctx.a.demo, prog)  # built with -g: its sites need DWARF
    # The same program without DWARF: named from its own symbol table, which
    # the process did itself at exit until later left every frame to `run`.
    plain = os.path.join(ctx.tmp, "later_plain")
    subprocess.run(["strip", "--strip-debug", "-o", plain, prog], check=True)
    runs = {}
    for mode in ("exit", "later"):
        d = ctx.newdir(f"symbolize-{mode}")
        # Each run makes its data files (the demo writes them when missing).
        argv = ["/bin/sh", "-c", '"$0" "$1" --seeks 50 && "$2" "$3" --seeks 50', prog,
                os.path.join(ctx.tmp, f"{mode}.dat"), plain, os.path.join(ctx.tmp, f"{mode}.plain")]
        log, out = os.path.join(d, "strace.openat"), os.path.join(d, "report.json")
        # Without the setting `run` makes it later; with it, as given.
        env = dict(os.environ, SEEKTRACE_SYMBOLIZE=mode) if mode == "exit" else None
        ctx.st("run", "--trace", os.path.join(d, "traces"), "--json", "-o", out, "--", "strace",
               "-f", "-qq", "-e", "trace=openat", "-o", log, *argv, env=env)
        with open(out) as fh:
            runs[mode] = (json.load(fh), os.path.join(d, "traces"), log)
        with open(log, errors="replace") as fh:
            lines = fh.readlines()
        libdw = [line for line in lines if "libdw.so" in line]
        # The exit run must load it, or this test could not tell them apart.
        expect(bool(libdw) == (mode == "exit"), f"{mode}: libdw opened {len(libdw)} times")
        # Nor does a process open its program file to read its symbol table.
        exe = [line for line in lines if "/proc/thread-self/exe" in line]
        expect(bool(exe) == (mode == "exit"), f"{mode}: program file opened {len(exe)} times")
    named = {mode: site_frames(j, os.path.join(ctx.tmp, f"{mode}.dat"))
             for mode, (j, _, _) in runs.items()}
    expect(named["later"] and named["later"] == named["exit"],
           f"names differ:\n{named['later']}\n---\n{named['exit']}")
    # Frames in modules without DWARF: the stripped copy's (named "main" from
    # its .symtab) and strace's (a Debian binary: .dynsym only) get the names
    # the process gave itself.
    for what, path_of in (("the copy without DWARF", lambda m, log: os.path.join(ctx.tmp, f"{m}.plain")),
                          ("strace", lambda m, log: log)):
        got = {mode: site_frames(j, path_of(mode, log)) for mode, (j, _, log) in runs.items()}
        expect(got["later"] and got["later"] == got["exit"],
               f"{what}: names differ:\n{got['later']}\n---\n{got['exit']}")
    top_plain = site_frames(runs["later"][0], os.path.join(ctx.tmp, "later.plain"))[0][0]
    expect(top_plain.get("function") == "main" and top_plain.get("source") is None
           and top_plain.get("module") == plain, f"site without DWARF {top_plain}")
    top = named["later"][0][0]
    expect(top.get("function") == "main" and top.get("source", "").endswith("fseek2006.c")
           and top.get("line", 0) > 0 and top.get("module") == prog, f"site {top}")
    # Without a trace to name them from, a process under later names its
    # sites itself.
    alone = ctx.newdir("symbolize-later-no-trace")
    e = ctx.traced_env()
    e.update(LD_PRELOAD=ctx.preload(), SEEKTRACE_SYMBOLIZE="later", SEEKTRACE_FORMAT="json",
             SEEKTRACE_OUTPUT=os.path.join(alone, "report.json"))
    alone_data = os.path.join(ctx.tmp, "alone.plain")
    subprocess.run([plain, alone_data, "--seeks", "50"], env=e, check=True, capture_output=True)
    with open(os.path.join(alone, "report.json")) as fh:
        top_alone = site_frames(json.load(fh), alone_data)[0][0]
    expect(top_alone.get("function") == "main" and top_alone.get("module") == plain,
           f"later without a trace: {top_alone}")
    # Processes asked for reports of their own name their sites themselves:
    # those reports are read as they are.
    d = ctx.newdir("symbolize-own-reports")
    own_data = os.path.join(ctx.tmp, "own.dat")
    ctx.st("run", "-q", "--trace", os.path.join(d, "traces"), "--process-reports", "--", prog,
           own_data, "--seeks", "50")
    (own,) = reports_in(os.path.join(d, "traces", "reports")).values()
    expect(site_frames(own, own_data) == named["later"],
           f"own report's frames {site_frames(own, own_data)}")
    data = os.path.join(ctx.tmp, "later.dat")
    # The same traces once the program has been rebuilt (a new file at its
    # path): module + offset, never the new file's names.
    again = ctx.stj("report", "--json", runs["later"][1])
    expect(site_frames(again, data) == named["later"], "report over DIR names differently")
    os.unlink(prog)
    shutil.copy(ctx.a.demo, prog)
    stale = site_frames(ctx.stj("report", "--json", runs["later"][1]), data)[0][0]
    expect(stale.get("function") is None and stale.get("source") is None
           and stale.get("module") == prog and stale["offset"] == top["offset"],
           f"rebuilt program: {stale}")


def case_debug_files(ctx):
    """Sites are named from separate debug files found by debug link, beside
    the program or in its .debug directory, as libdwfl's standard search
    finds them; and with no debuginfod server configured (DEBUGINFOD_URLS
    unset) naming a stripped program does not load libdebuginfod, which
    brings libcurl, GnuTLS and OpenSSL into the command (debuginfo_local.h)."""
    progs = {}
    for how in ("beside", "subdir", "none"):
        d = ctx.newdir(f"debug-{how}")
        prog = os.path.join(d, "prog")
        shutil.copy(ctx.a.demo, prog)  # built with -g
        debug = os.path.join(d, ".debug", "prog.debug") if how == "subdir" else prog + ".debug"
        os.makedirs(os.path.dirname(debug), exist_ok=True)
        subprocess.run(["objcopy", "--only-keep-debug", prog, debug], check=True)
        subprocess.run(["strip", "--strip-all", prog], check=True)
        if how != "none":
            subprocess.run(["objcopy", f"--add-gnu-debuglink={debug}", prog], check=True)
        else:
            os.unlink(debug)
        progs[how] = prog
    d = ctx.newdir("debug-run")
    traces = os.path.join(d, "traces")
    script = " && ".join(f'"${i}" "{os.path.join(d, k)}.dat" --seeks 20'
                         for i, k in enumerate(progs, start=1))
    ctx.st("run", "-q", "--trace", traces, "--", "/bin/sh", "-c", script, "sh", *progs.values())
    def report_opening(name, env):
        """report --json of the traces, and the libraries it opened."""
        log = os.path.join(d, name)
        p = subprocess.run(["strace", "-f", "-qq", "-e", "trace=openat", "-e", "signal=none",
                            "-o", log, ctx.a.seektrace, "report", "--json", traces],
                           capture_output=True, env=env, timeout=120)
        expect(p.returncode == 0, f"report: exit {p.returncode}: {p.stderr[-500:]}")
        with open(log, errors="replace") as fh:
            opened = [line for line in fh if "libdebuginfod" in line and " = -1 " not in line]
        return json.loads(p.stdout), opened

    env = {k: v for k, v in os.environ.items() if k != "DEBUGINFOD_URLS"}
    report, loaded = report_opening("report.strace", env)
    for how, prog in progs.items():
        frames = site_frames(report, os.path.join(d, how) + ".dat")
        expect(frames, f"{how}: no site")
        top = frames[0][0]
        expect(top.get("module") == prog, f"{how}: module {top}")
        if how == "none":
            expect(top.get("function") is None and top.get("source") is None,
                   f"{how}: named without a debug file: {top}")
        else:
            expect(top.get("function") == "main" and top.get("source", "").endswith("fseek2006.c")
                   and top.get("line", 0) > 0, f"{how}: not named from its debug file: {top}")
    expect(not loaded, f"libdebuginfod loaded with no server configured: {loaded[:2]}")
    # Where libdebuginfod is installed, a configured server brings the
    # standard search back whole (a port nothing listens on: refused at once).
    installed = subprocess.run(["/sbin/ldconfig", "-p"], capture_output=True,
                               text=True).stdout.count("libdebuginfod.so.1")
    if installed:
        env.update(DEBUGINFOD_URLS="http://127.0.0.1:9/", XDG_CACHE_HOME=ctx.newdir("cache"))
        again, loaded = report_opening("report-urls.strace", env)
        expect(loaded, "DEBUGINFOD_URLS set: the standard search did not run")
        expect(again["merged"]["files"] == report["merged"]["files"],
               "names differ with a debuginfod server configured")


def case_crash_segv(ctx):
    crash_case(ctx, "segv", signal.SIGSEGV)


def case_crash_abort(ctx):
    crash_case(ctx, "abort", signal.SIGABRT)


def case_crash_sigkill(ctx):
    crash_case(ctx, "kill", signal.SIGKILL)


def case_truncated_cap(ctx):
    traces, reports, _ = ctx.traced([ctx.a.demo, os.path.join(ctx.tmp, "d.dat"), "--seeks", "20000"],
                                    env={"SEEKTRACE_TRACE_MAX": "64k"})
    (t,) = traces_in(traces)
    expect(os.path.getsize(t) < 200 * 1024, f"a 64k cap made a {os.path.getsize(t)}-byte trace")
    j = ctx.stj("report", "--json", t)
    expect(j["trace"]["status"] == "truncated" and j["trace"]["events_lost"] > 0, f"{j.get('trace')}")
    at_exit = reports_in(reports)[j["pid"]]
    # The accounts are whole: the footer kept counting past the cap.
    expect(per_file(j) == per_file(at_exit), "truncated trace's footer differs from the report")
    _, err = ctx.st("report", t)
    expect("truncated" in err and "events were not recorded" in err, err)
    # The events stop early, and say so by their totals.
    ev = ctx.stj("report", "--json", "--from-events", t)
    d = [x for x in ev["files"] if x["path"].endswith("d.dat")][0]
    expect(d["calls"]["fseek"] < 20000, f"events {d['calls']}")


# ---- check --------------------------------------------------------------------------

def demo_trace(ctx, seeks="2000"):
    traces, reports, _ = ctx.traced([ctx.a.demo, os.path.join(ctx.tmp, "d.dat"), "--seeks", seeks],
                                    name="demo")
    return traces_in(traces)[0], reports


def seq_trace(ctx):
    traces, reports, _ = ctx.traced(["cat", ctx.bin], name="cat")
    return traces_in(traces)[0], reports


def case_check_codes(ctx):
    demo, _ = demo_trace(ctx)
    seq, _ = seq_trace(ctx)
    out, _ = ctx.st("check", "--max-amplification", "2", seq)
    expect("passed" in out, out)
    out, _ = ctx.st("check", "--max-amplification", "10", demo, rc=1)
    lines = out.splitlines()
    expect(len(lines) == 2 and "d.dat" in lines[0] and "exceeds 10x" in lines[0], out)
    expect("worst site: main (fseek2006.c:" in lines[0], out)   # the line that seeks
    expect("FAILED: 1 violation" in lines[1], out)
    # A directory with both: the demo fails, cat does not.
    d = ctx.newdir("both")
    shutil.copy(demo, d)
    shutil.copy(seq, d)
    ctx.st("check", "--max-amplification", "10", d, rc=1)
    ctx.st("check", "--max-amplification", "1000", d, rc=0)
    # Other limits.
    ctx.st("check", "--max-read-syscalls", "100", demo, rc=1)
    ctx.st("check", "--max-read-syscalls", "100000", demo, rc=0)
    ctx.st("check", "--max-reread-bytes", "1M", demo, rc=1)
    ctx.st("check", "--max-reread-bytes", "0", seq, rc=0)
    out, _ = ctx.st("check", "--max-amplification", "0", "--min-waste", "0", seq,
                    rc=1)  # the limit as given
    expect("exceeds 0x" in out, out)
    # --file and --min-bytes select what is checked.
    ctx.st("check", "--max-amplification", "10", "--file", "*.txt", demo, rc=2)  # matches nothing
    ctx.st("check", "--max-amplification", "10", "--file", "*/d.dat", demo, rc=1)
    ctx.st("check", "--max-amplification", "10", "--min-bytes", "1G", demo, rc=0)
    # run --check: the check's status wins over the command's 0.
    ctx.st("run", "-q", "--check", "--max-amplification", "10", "--", ctx.a.demo,
           os.path.join(ctx.tmp, "d.dat"), "--seeks", "500", rc=1)
    ctx.st("run", "-q", "--max-amplification", "1000", "--", "cat", ctx.bin, rc=0)
    # Usage errors are 2.
    ctx.st("check", demo, rc=2)
    ctx.st("check", "--max-amplification", "lots", demo, rc=2)


def case_check_write_syscalls(ctx):
    # 4,000 fprintf lines to an unbuffered file: a write syscall each. The
    # limit is write syscalls per MiB written, from the same figures strace
    # shows for the run.
    out = os.path.join(ctx.tmp, "unbuffered.out")
    log = os.path.join(ctx.tmp, "strace.unbuffered")
    traces, _, _ = ctx.traced([os.path.join(ctx.a.workloads, "wl_writes"), "unbuffered", out,
                               "4000"], name="unbuffered", strace_to=log)
    trace = traces_in(traces)[0]
    theirs = strace_log.parse(log)[1][os.path.realpath(out)]
    expect(theirs.write_syscalls == 4000, f"strace: {theirs}")
    mib = theirs.kernel_write_bytes / (1 << 20)
    per_mib = theirs.write_syscalls / mib
    # Passes at its own figure (rounded up), fails 1% under it.
    passing = math.ceil(per_mib)
    ctx.st("check", "--max-write-syscalls-per-mib", f"{passing}", "--file", "*/unbuffered.out",
           trace, rc=0)
    tight = str(int(per_mib * 0.99))
    text, _ = ctx.st("check", "--max-write-syscalls-per-mib", tight, "--file",
                     "*/unbuffered.out", trace, rc=1)
    lines = text.splitlines()
    want = (f"{per_mib:.1f} write syscalls per MiB exceed {float(tight):g}: pid ")
    expect(len(lines) == 2 and want in lines[0] and
           f"in {theirs.write_syscalls:,} write syscalls" in lines[0] and
           "worst site: main (writes.c:" in lines[0], text)
    j = ctx.stj("check", "--max-write-syscalls-per-mib", tight, "--file", "*/unbuffered.out",
                "--format", "json", trace, rc=1)
    (v,) = j["violations"]
    expect(v["limit"] == "write_syscalls_per_mib" and abs(v["value"] - per_mib) < 0.5 and
           v["max"] == float(tight) and v["write_syscalls"] == theirs.write_syscalls and
           v["kernel_write_bytes"] == theirs.kernel_write_bytes and
           j["limits"]["max_write_syscalls_per_mib"] == float(tight), json.dumps(v)[:600])
    # JUnit: the file's test case fails; annotations name the limit's rule.
    root = ET.fromstring(ctx.st("check", "--max-write-syscalls-per-mib", tight, "--file",
                                "*/unbuffered.out", "--format", "junit", trace, rc=1)[0])
    cases = [c for c in root.iter("testcase") if c.get("name").endswith("unbuffered.out")]
    expect(len(cases) == 1 and len(cases[0].findall("failure")) == 1,
           ET.tostring(root).decode()[:800])
    gh, _ = ctx.st("check", "--max-write-syscalls-per-mib", tight, "--file", "*/unbuffered.out",
                   "--format", "github", trace, rc=1)
    expect(any(l.startswith("::error ") and "limit/write-syscalls-per-mib" in l
               for l in gh.splitlines()), gh[:800])
    # --min-bytes selects by bytes written: above the file's, nothing is judged.
    ctx.st("check", "--max-write-syscalls-per-mib", tight, "--file", "*/unbuffered.out",
           "--min-bytes", str(theirs.kernel_write_bytes + 1), trace, rc=0)
    # One write is always allowed: a file written once passes a limit of 0.
    once = os.path.join(ctx.tmp, "once.out")
    traces, _, _ = ctx.traced([os.path.join(ctx.a.workloads, "wl_writes"), "fputc", once, "100"],
                              name="once")
    ctx.st("check", "--max-write-syscalls-per-mib", "0", "--file", "*/once.out",
           traces_in(traces)[0], rc=0)
    ctx.st("check", "--max-write-syscalls-per-mib", "many", trace, rc=2)
    # run takes the limit too: the check's status wins over the command's 0.
    wl = os.path.join(ctx.a.workloads, "wl_writes")
    ctx.st("run", "-q", "--max-write-syscalls-per-mib", tight, "--file", "*/unbuffered.out",
           "--", wl, "unbuffered", out, "4000", rc=1)
    ctx.st("run", "-q", "--max-write-syscalls-per-mib", str(passing), "--file",
           "*/unbuffered.out", "--", wl, "unbuffered", out, "4000", rc=0)


def case_report_write_sites(ctx):
    # 3,000 fprintf lines with fflush after each: every write syscall is
    # made at the fflush line. The site tables (the at-exit text report's
    # and report --by site's) show its writes, equal to strace's.
    out = os.path.join(ctx.tmp, "flushed.out")
    log = os.path.join(ctx.tmp, "strace.flushed")
    traces, reports, _ = ctx.traced([os.path.join(ctx.a.workloads, "wl_writes"), "fflush", out,
                                     "3000"], name="flushed", strace_to=log,
                                    env={"SEEKTRACE_FORMAT": "text"})
    theirs = strace_log.parse(log)[1][os.path.realpath(out)]
    w = theirs.write_syscalls
    expect(w == 3000, f"strace: {theirs}")
    kib = f"{theirs.kernel_write_bytes / 1024:.1f} KiB"
    (text,) = [open(p, encoding="utf-8").read() for p in glob.glob(os.path.join(reports, "*"))]
    lines = text.splitlines()
    head = [l for l in lines if l.rstrip().endswith("call site -> file")]
    expect(len(head) == 1 and " writes kernel wrote " in head[0], text)
    row = re.compile(rf" {w:,} +{re.escape(kib)} \S+ \(writes\.c:\d+\) -> {re.escape(out)}$")
    expect(sum(1 for l in lines if row.search(l)) == 1, f"no site row {row.pattern}:\n{text}")
    trace = traces_in(traces)[0]
    table, _ = ctx.st("report", "--by", "site", trace)
    tl = table.splitlines()
    expect("handed over    writes kernel wrote" in tl[0], table)
    hits = [tl[i] for i in range(len(tl) - 1)
            if tl[i + 1].strip() == out and "(writes.c:" in tl[i]]
    want = re.compile(rf" {w:,} +{re.escape(kib)} +[\d,]+  \S+ \(writes\.c:\d+\)$")
    expect(any(want.search(h) for h in hits), f"{want.pattern} in {hits}\n{table}")
    sites = ctx.stj("report", "--by", "site", "--json", trace)["sites"]
    mine = [x for x in sites if x["path"] == out]
    expect(sum(x["write_syscalls"] for x in mine) == w and
           sum(x["kernel_write_bytes"] for x in mine) == theirs.kernel_write_bytes, f"{mine}")
    # A run that writes nothing (cmp of a file with itself: no output) has
    # no write columns in either table.
    traces, reports, _ = ctx.traced(["cmp", ctx.bin, ctx.bin], name="cmp",
                                    env={"SEEKTRACE_FORMAT": "text"})
    (text,) = [open(p, encoding="utf-8").read() for p in glob.glob(os.path.join(reports, "*"))]
    head = [l for l in text.splitlines() if l.rstrip().endswith("call site -> file")]
    expect(len(head) == 1 and "writes" not in head[0], text)
    table, _ = ctx.st("report", "--by", "site", traces_in(traces)[0])
    expect("reads" in table.splitlines()[0] and "writes" not in table.splitlines()[0], table)


def case_check_formats(ctx):
    demo, _ = demo_trace(ctx)
    seq, _ = seq_trace(ctx)
    out, _ = ctx.st("check", "--max-amplification", "10", "--format", "json", demo, seq, rc=1)
    j = json.loads(out)
    expect(j["schema"] == "seektrace.check/1" and j["passed"] is False, out[:300])
    expect(j["checked"]["processes"] == 2, f"{j['checked']}")
    (v,) = j["violations"]
    # Its value is the file's kernel bytes per byte delivered, as report gives them.
    f = [x for x in ctx.stj("report", "--json", demo)["files"] if x["path"].endswith("d.dat")][0]
    want = f["kernel_read_bytes"] / f["delivered_bytes"]
    expect(v["limit"] == "amplification" and abs(v["value"] - want) < 1e-3 and v["max"] == 10,
           f"{v}, want {want}")
    expect(v["path"].endswith("d.dat") and v["site"].startswith("main (fseek2006.c:"), f"{v}")
    out, _ = ctx.st("check", "--max-amplification", "10", "--format", "junit", demo, seq, rc=1)
    root = ET.fromstring(out)
    suite = root.find("testsuite")
    cases = suite.findall("testcase")
    failed = [c for c in cases if c.find("failure") is not None]
    expect(int(suite.get("tests")) == len(cases) and int(suite.get("failures")) == len(failed) == 1,
           out[:800])
    expect(failed[0].get("name").endswith("d.dat"), out[:800])
    out, _ = ctx.st("check", "--max-amplification", "1000", "--format", "junit", seq)
    expect(ET.fromstring(out).find("testsuite").get("failures") == "0", out)


def case_check_reports(ctx):
    # The at-exit JSON reports are accepted as input, with the same verdicts.
    demo, reports = demo_trace(ctx)
    (rep,) = glob.glob(os.path.join(reports, "*.json"))
    a, _ = ctx.st("check", "--max-amplification", "10", "--format", "json", demo, rc=1)
    b, _ = ctx.st("check", "--max-amplification", "10", "--format", "json", rep, rc=1)
    va, vb = json.loads(a)["violations"][0], json.loads(b)["violations"][0]
    for k in ("path", "pid", "limit", "value", "site", "kernel_read_bytes", "delivered_bytes"):
        expect(va[k] == vb[k], f"{k}: trace {va[k]} report {vb[k]}")
    # A report file holding several reports (JSON lines) is read whole.
    both = os.path.join(ctx.tmp, "two.json")
    with open(both, "w") as fh, open(rep) as r:
        text = r.read()
        fh.write(text + text)
    out, _ = ctx.st("check", "--max-amplification", "10", "--format", "json", both, rc=1)
    expect(json.loads(out)["checked"]["processes"] == 2, out[:300])
    # And report reads them too.
    j = ctx.stj("report", "--json", both)
    expect(len(j["processes"]) == 2, "report over a JSON file")


def case_bad_input(ctx):
    demo, _ = demo_trace(ctx, seeks="300")
    with open(demo, "rb") as fh:
        good = fh.read()
    bad = {}

    def write(name, data):
        p = os.path.join(ctx.tmp, name)
        with open(p, "wb") as fh:
            fh.write(data)
        bad[name] = p
        return p

    write("foreign.sktrace", b"#!/bin/sh\necho not a trace\n" * 100)
    write("empty.sktrace", b"")
    write("cut-header.sktrace", good[:200])
    write("cut-chunks.sktrace", good[: len(good) - 9000])
    future = bytearray(good)
    future[12] = 9  # version_major
    write("future.sktrace", bytes(future))
    corrupt = bytearray(good)
    hs = int.from_bytes(good[16:20], "little")
    corrupt[hs + 32] = 0x1f  # the first chunk's first event: an unknown kind
    write("corrupt.sktrace", bytes(corrupt))
    write("bad.json", b'{"schema": "seektrace.report/7", "files": []}')
    write("broken.json", b'{"schema": "seektrace.report/2", "files": [ {"path": 1')
    for name, path in bad.items():
        for args in (["report"], ["report", "--from-events"], ["check", "--max-amplification", "5"],
                     ["export", "--format", "csv"]):
            if name.endswith(".json") and args[0] == "export":
                continue
            out, err = ctx.st(*args, path, rc=2)
            lines = err.strip().splitlines()
            expect(len(lines) == 1, f"{name} {args}: {err}")
            expect(path in lines[0], f"{name}: message does not name the file: {err}")
            if name.endswith(".sktrace") and name != "empty.sktrace" and name != "foreign.sktrace":
                expect("byte" in lines[0], f"{name}: message gives no byte offset: {err}")
    _, err = ctx.st("report", bad["future.sktrace"], rc=2)
    expect("version 9." in err and "upgrade" in err, err)
    _, err = ctx.st("report", bad["foreign.sktrace"], rc=2)
    expect("not a seektrace trace" in err, err)
    _, err = ctx.st("report", "--from-events", bad["corrupt.sktrace"], rc=2)
    expect("corrupt" in err, err)
    # A missing file and an empty directory.
    _, err = ctx.st("report", os.path.join(ctx.tmp, "nothing-here"), rc=2)
    empty = ctx.newdir("empty")
    _, err = ctx.st("report", empty, rc=2)
    expect("no trace files" in err, err)


# ---- check as a CI gate (issue 23) --------------------------------------------------

def file_of(report, suffix):
    (f,) = [f for f in report["files"] if f["path"].endswith(suffix)]
    return f


def one_line(err, *words):
    lines = err.strip().splitlines()
    expect(len(lines) == 1 and all(w in lines[0] for w in words), f"want one line with {words}: {err}")


def case_check_gate(ctx):
    demo, _ = demo_trace(ctx)
    # A --file or --site nothing matches is a mistake, not a pass.
    for opt, glob_ in (("--file", "/typo/*.db"), ("--site", "nosuch (x.c:*")):
        out, err = ctx.st("check", "--max-amplification", "10", opt, glob_, demo, rc=2)
        one_line(err, f"{opt} '{glob_}'", "matches nothing")
        expect(out == "", out)
    # Two, one of which matches: the other is named.
    _, err = ctx.st("check", "--max-amplification", "10", "--file", "*/d.dat", "--file", "/typo",
                    demo, rc=2)
    one_line(err, "--file '/typo'")
    expect("d.dat" not in err, err)
    # --site judges each matching site on its own figures: those on d.dat,
    # and printf's on stdout (/dev/null), which wrote and read nothing.
    rep = ctx.stj("report", "--json", demo)
    sites = {(s["frames"][0].get("function"), s["frames"][0].get("line")): s
             for s in file_of(rep, "d.dat")["sites"]}
    # The sites of main on every file: d.dat's, and its printf's on stdout.
    in_main = [s for f in rep["files"] for s in f["sites"]
               if s["frames"][0].get("function") == "main" and
               (s["frames"][0].get("source") or "").endswith("fseek2006.c")]
    j = json.loads(ctx.st("check", "--max-amplification", "10", "--site", "main (fseek2006.c:*",
                          "--format", "json", demo, rc=1)[0])
    expect(j["checked"]["sites"] == len(in_main) and j["violations"],
           f"{j['checked']}, {len(in_main)}")
    for v in j["violations"]:
        expect(v["site"].startswith("main (fseek2006.c:"), f"{v}")
        line = int(v["site"].rsplit(":", 1)[1].rstrip(")"))
        s = sites[("main", line)]
        expect(v["kernel_read_bytes"] == s["kernel_read_bytes"] and
               v["delivered_bytes"] == s["delivered_bytes"], f"{v} vs {s}")
    # The default floor: amplification is judged only where 64 KiB were
    # wasted; --min-waste moves it, at the byte.
    small, _ = demo_trace(ctx, seeks="2")
    f = file_of(ctx.stj("report", "--json", small), "d.dat")
    waste = f["kernel_read_bytes"] - f["delivered_bytes"]
    expect(0 < waste < 65536 and f["kernel_read_bytes"] > 10 * f["delivered_bytes"], f"{f}")
    j = json.loads(ctx.st("check", "--max-amplification", "10", "--format", "json", small)[0])
    expect(j["passed"] and j["limits"]["min_waste"] == 65536 and
           j["checked"]["below_min_waste"] >= 1, f"{j}")
    j = json.loads(ctx.st("check", "--max-amplification", "10", "--min-waste", str(waste),
                          "--format", "json", small, rc=1)[0])
    (v,) = j["violations"]
    expect(v["path"].endswith("d.dat") and v["kernel_read_bytes"] == f["kernel_read_bytes"], f"{v}")
    ctx.st("check", "--max-amplification", "10", "--min-waste", str(waste + 1), small, rc=0)
    # A file only written (glibc's fseek reads the block it lands in) is not
    # judged by amplification; one read and never delivered nor written is.
    out_file = os.path.join(ctx.tmp, "out.bin")
    w, _, _ = ctx.traced([ctx.a.rewriter, "write", out_file], name="write")
    f = file_of(ctx.stj("report", "--json", w), "out.bin")
    expect(f["kernel_read_bytes"] > 0 and f["delivered_bytes"] == 0 and f["write_syscalls"] > 0,
           f"the written file: {f}")
    j = json.loads(ctx.st("check", "--max-amplification", "8", "--min-waste", "0", "--format",
                          "json", w)[0])
    expect(j["passed"] and j["checked"]["written_only"] == 1, f"{j}")
    p, _, _ = ctx.traced([ctx.a.rewriter, "peek", ctx.bin], name="peek")
    f = file_of(ctx.stj("report", "--json", p), data_files.BINARY_NAME)
    expect(f["kernel_read_bytes"] > 0 and f["delivered_bytes"] == 0 and not f["write_syscalls"],
           f"the peeked file: {f}")
    out, _ = ctx.st("check", "--max-amplification", "8", "--min-waste", "0", p, rc=1)
    expect("amplification unbounded (nothing delivered)" in out, out)


def baseline_run(ctx, name, bufsize, strace_to=None):
    """fseek_fread at bufsize on its own copy of the data, in a directory of
    its own (as two CI checkouts): (trace dir, that directory)."""
    d = ctx.newdir(name + "-checkout")
    data = os.path.join(d, "data.bin")
    shutil.copy(ctx.bin, data)
    traces, _, _ = ctx.traced([os.path.join(ctx.a.workloads, "wl_fseek_fread"), data, "3000", "7",
                               str(bufsize)], name=name, strace_to=strace_to)
    return traces, d


def baseline_changes(j, change):
    return {c["key"]: c for c in j["baseline"]["changes"] if c["change"] == change}


def case_baseline(ctx):
    log = os.path.join(ctx.tmp, "strace.baseline")
    old, old_dir = baseline_run(ctx, "old", 4096, strace_to=log)
    again, again_dir = baseline_run(ctx, "again", 4096)
    grown, grown_dir = baseline_run(ctx, "grown", 131072)
    saved = os.path.join(ctx.tmp, "base.json")
    ctx.st("baseline", "save", "--path-prefix", f"src={old_dir}", "-o", saved, old)
    text = open(saved, encoding="utf-8").read()
    base = json.loads(text)
    expect(base["schema"] == "seektrace.baseline/1", f"{base.get('schema')}")
    entries = {e["key"]: e for e in base["entries"]}
    keys = list(entries)
    expect(keys == sorted(keys) and text.count("\n") == len(keys) + 3, "one entry a line, sorted")
    # The data file under its prefix, with strace's figures for the run.
    f = entries["file {src}/data.bin"]
    kernel = strace_log.parse(log)[1][os.path.realpath(os.path.join(old_dir, "data.bin"))]
    for k in ("read_syscalls", "kernel_read_bytes"):
        expect(f[k] == getattr(kernel, k), f"{k} {f[k]} != strace's {getattr(kernel, k)}")
    expect(f["delivered_bytes"] == 3000 * 16, f"{f}")
    # Sites are keyed by module, function, source and line; no pid, no address.
    sites = [k for k in keys if k.startswith("site wl_fseek_fread main fseek_fread.c:")]
    expect(sites and not any(str(os.getpid()) in k for k in keys), f"{keys}")
    expect(sum(entries[k]["kernel_read_bytes"] for k in sites) == f["kernel_read_bytes"],
           f"the sites' reads sum to the file's: {sites}")
    # The same job again, elsewhere: passes, with no change at all.
    prefix = ["--path-prefix", f"src={again_dir}"]
    out, _ = ctx.st("check", "--baseline", saved, *prefix, again)
    expect(out.splitlines() == ["seektrace check: passed: 2 files of 1 process within limits; "
                                "no regression against the baseline"], out)
    j = ctx.stj("check", "--baseline", saved, *prefix, "--format", "json", again)
    expect(j["passed"] and j["baseline"]["changes"] == [] and
           j["baseline"]["old_entries"] == len(keys), f"{j['baseline']}")
    # The buffer grown to 128 KiB: the file and the seeking line regress.
    prefix = ["--path-prefix", f"src={grown_dir}"]
    out, _ = ctx.st("check", "--baseline", saved, *prefix, grown, rc=1)
    expect("baseline: regressed: file {src}/data.bin: kernel_read_bytes" in out and
           "; at main (fseek_fread.c:" in out and "regressions against the baseline" in out, out)
    j = ctx.stj("check", "--baseline", saved, *prefix, "--format", "json", grown, rc=1)
    grew = baseline_changes(j, "grew")
    g = grew["file {src}/data.bin"]
    expect({"kernel_read_bytes", "reread_bytes"} <= set(g["changed"]) and
           g["old"]["kernel_read_bytes"] == f["kernel_read_bytes"] and
           g["new"]["kernel_read_bytes"] > 10 * f["kernel_read_bytes"], f"{g}")
    expect(any(k.startswith("site wl_fseek_fread main fseek_fread.c:") and c["line"] > 0 and
               c["source"].endswith("fseek_fread.c") for k, c in grew.items()), f"{grew}")
    expect(j["baseline"]["regressions"] == len(grew) and not j["passed"], f"{j['baseline']}")
    junit = ET.fromstring(ctx.st("check", "--baseline", saved, *prefix, "--format", "junit",
                                 grown, rc=1)[0])
    failed = [c.get("name") for c in junit.iter("testcase") if c.find("failure") is not None]
    expect(sorted(failed) == sorted(grew), f"{failed}")
    # Above the floor only: a floor of 1 GiB lets it pass; traces as the baseline.
    ctx.st("check", "--baseline", saved, *prefix, "--growth-floor", "1G", grown)
    # Back to 4 KiB: the file improves, while the line that freads refills its
    # smaller buffer more often (each figure is judged on its own).
    j = ctx.stj("check", "--baseline", grown, "--path-prefix", f"src={grown_dir}",
                "--path-prefix", f"src={old_dir}", "--format", "json", old, rc=1)
    expect("file {src}/data.bin" in baseline_changes(j, "improved"), f"{j['baseline']}")
    for key, c in baseline_changes(j, "grew").items():
        expect(key.startswith("site wl_fseek_fread main fseek_fread.c:") and
               c["changed"] == ["read_syscalls"] and
               c["new"]["read_syscalls"] - c["old"]["read_syscalls"] >= 16, f"{c}")
    # Without the prefix the paths differ: the file is new (and wasteful) and gone.
    out, _ = ctx.st("check", "--baseline", saved, grown, rc=1)
    expect(f"baseline: new and wasteful: file {grown_dir}/data.bin" in out and
           "baseline: gone: file {src}/data.bin" in out, out)
    # A site whose line moved (an edit above it) is the same site.
    site = max(sites, key=lambda k: entries[k]["kernel_read_bytes"])
    line = int(site.rsplit(":", 1)[1])
    moved = os.path.join(ctx.tmp, "moved.json")
    with open(moved, "w", encoding="utf-8") as m:
        m.write(text.replace(f'"key":"{site}"', f'"key":"{site.rsplit(":", 1)[0]}:{line + 3}"'))
    j = ctx.stj("check", "--baseline", moved, "--path-prefix", f"src={again_dir}", "--format",
                "json", again)
    expect(j["passed"] and j["baseline"]["changes"] == [], f"{j['baseline']}")
    # --path-glob keys every matching path as the glob.
    ctx.st("check", "--baseline", old, "--path-glob", "*/data.bin", again)
    # Bad input: one line, exit 2.
    bad = os.path.join(ctx.tmp, "bad.json")
    for content, words in (('{"schema":"seektrace.baseline/1","entries":[{"key"', "not JSON"),
                           ('{"schema":"seektrace.baseline/9","entries":[]}', "another version"),
                           ('{"schema":"seektrace.baseline/1","entries":[{"key":"x"}]}',
                            "without a count")):
        with open(bad, "w", encoding="utf-8") as b:
            b.write(content)
        _, err = ctx.st("check", "--baseline", bad, again, rc=2)
        one_line(err, words)
    one_line(ctx.st("check", "--baseline", os.path.join(ctx.tmp, "none"), again, rc=2)[1], "none")
    one_line(ctx.st("check", "--baseline", saved, "--max-growth", "ten", again, rc=2)[1],
             "--max-growth")
    one_line(ctx.st("baseline", "save", "--path-prefix", "src", old, rc=2)[1], "--path-prefix")
    one_line(ctx.st("baseline", "save", "-o", "/nonexistent/b.json", old, rc=2)[1], "/nonexistent")


def finding_rules():
    """The rule ids docs/findings.md documents, in order."""
    with open(os.path.join(HERE, "..", "..", "docs", "findings.md"), encoding="utf-8") as f:
        return [line.split("`")[1] for line in f if line.startswith("### `") and " — " in line]


def check_sarif(doc, root):
    """The SARIF 2.1.0 rules seektrace's output must keep (the specification's
    sections named): returns its results."""
    expect(doc["version"] == "2.1.0" and doc["$schema"].endswith("sarif-2.1.0.json"), "3.13.2-3")
    (run,) = doc["runs"]
    driver = run["tool"]["driver"]
    expect(driver["name"] == "seektrace" and driver["version"], "3.19.8")
    ids = [r["id"] for r in driver["rules"]]
    expect(len(ids) == len(set(ids)) and all(r["shortDescription"]["text"] for r in driver["rules"]),
           "3.49.3, 3.49.9: unique rule ids, each described")
    expect(ids[:len(finding_rules())] == finding_rules(), f"the findings' rules: {ids}")
    expect(run["originalUriBaseIds"]["SRCROOT"]["uri"] == "file://" + root.rstrip("/") + "/",
           f"3.14.14: {run['originalUriBaseIds']}")
    for r in run["results"]:
        expect(ids[r["ruleIndex"]] == r["ruleId"], f"3.27.6: {r}")
        expect(r["level"] in ("error", "warning") and r["message"]["text"], f"3.27.10, 3.11: {r}")
        for loc in r.get("locations", []):
            art = loc["physicalLocation"]["artifactLocation"]
            expect(not art["uri"].startswith("/") and
                   (art.get("uriBaseId") == "SRCROOT" or art["uri"].startswith("file:///")),
                   f"3.4.3: {art}")
            region = loc["physicalLocation"].get("region")
            expect(region is None or region["startLine"] >= 1, f"3.30.5: {region}")
    return run["results"]


def case_annotations(ctx):
    root = os.path.realpath(os.path.join(HERE, "..", ".."))
    old, old_dir = baseline_run(ctx, "old", 4096)
    grown, grown_dir = baseline_run(ctx, "grown", 131072)
    base = ["--baseline", old, "--path-prefix", f"src={old_dir}", "--path-prefix", f"src={grown_dir}",
            "--source-root", root]
    j = ctx.stj("check", *base, "--format", "json", grown, rc=1)
    grew = baseline_changes(j, "grew")
    rep = ctx.stj("report", "--json", grown)
    (finding,) = [x for x in rep["findings"] if x["rule"] == "fseek-discards-buffer"]
    seek_line = finding["site"]["line"]
    # SARIF: each regression an error at its source line, the finding a warning.
    results = check_sarif(json.loads(ctx.st("check", *base, "--format", "sarif", grown, rc=1)[0]),
                          root)
    errors = [r for r in results if r["level"] == "error"]
    expect(len(errors) == len(grew) and all(r["ruleId"] == "baseline/grew" for r in errors),
           f"{len(errors)} errors for {len(grew)} regressions")
    (w,) = [r for r in results if r["ruleId"] == "fseek-discards-buffer"]
    loc = w["locations"][0]["physicalLocation"]
    expect(w["level"] == "warning" and
           loc["artifactLocation"] == {"uri": "tests/workloads/fseek_fread.c", "uriBaseId": "SRCROOT"}
           and loc["region"]["startLine"] == seek_line, f"{w}")
    (site,) = [x for x in file_of(rep, "data.bin")["sites"] if x["frames"][0]["line"] == seek_line]
    expect(all(w["properties"][k] == site[k] for k in
               ("kernel_read_bytes", "read_syscalls", "delivered_bytes", "reread_bytes")),
           f"{w['properties']} vs {site}")
    # A limit's violation too, at the file's worst site.
    results = check_sarif(json.loads(ctx.st("check", "--max-amplification", "8", "--source-root",
                                             root, "--format", "sarif", grown, rc=1)[0]), root)
    (v,) = [r for r in results if r["ruleId"] == "limit/amplification"]
    expect(v["level"] == "error" and v["locations"][0]["physicalLocation"]["region"]["startLine"] ==
           seek_line, f"{v}")
    # GitHub workflow commands: a line each, '%' and newlines escaped.
    out, _ = ctx.st("check", *base, "--format", "github", grown, rc=1)
    lines = out.splitlines()
    # A line per regression and per finding (page-cache-copies too, the data
    # being in the page cache: docs/storage.md).
    expect(len(lines) == len(grew) + len(rep["findings"]), out)
    for line in lines:
        expect(line.startswith(("::error file=", "::warning file=")) and ",title=seektrace " in line
               and "::" in line[2:], line)
        expect("%" not in line.replace("%25", ""), f"unescaped %: {line}")
    expect(f"::warning file=tests/workloads/fseek_fread.c,line={seek_line},"
           "title=seektrace fseek-discards-buffer::" in out, out)
    # GitLab Code Quality: stable fingerprints, the same from another run's data.
    def gitlab(*args, rc):
        issues = json.loads(ctx.st("check", *args, "--format", "gitlab", rc=rc)[0])
        for i in issues:
            expect(set(i) == {"description", "check_name", "fingerprint", "severity", "location"}
                   and len(i["fingerprint"]) == 16 and i["severity"] in ("major", "minor") and
                   i["location"]["lines"]["begin"] >= 1, f"{i}")
        expect(len({i["fingerprint"] for i in issues}) == len(issues), "unique fingerprints")
        return {i["check_name"]: i["fingerprint"] for i in issues if i["severity"] == "minor"}
    again, _ = baseline_run(ctx, "again", 131072)
    first = gitlab(*base, grown, rc=1)
    expect(first and first == gitlab(*base, again, rc=1), "fingerprints differ between runs")
    # No finding, no regression: empty documents, exit 0.
    seq, _ = seq_trace(ctx)
    quiet = ["--source-root", root, "--max-amplification", "8", seq]
    expect(json.loads(ctx.st("check", *quiet, "--format", "gitlab")[0]) == [], "gitlab")
    expect(ctx.st("check", *quiet, "--format", "github")[0] == "", "github")


RECIPE_READER = """#include <stdio.h>
#include <stdlib.h>
#define BUFFER 4096
int main(int argc, char **argv)
{
    FILE *fp = fopen(argv[1], "r");
    static char buffer[1 << 20], record[16];
    unsigned long seed = 7, sum = 0;
    if (!fp || setvbuf(fp, buffer, _IOFBF, BUFFER) != 0)
        return 1;
    for (int i = 0; i < 2000; i++) {
        seed = seed * 6364136223846793005ul + 1442695040888963407ul;
        fseek(fp, (long)(seed >> 33) % 4000000, SEEK_SET);
        sum += fread(record, 1, sizeof record, fp);
    }
    printf("%lu\\n", sum);
    return 0;
}
"""
RECIPE_MAKEFILE = """check:
\tcc -g -O0 -o reader reader.c
\thead -c 4194304 /dev/zero > data.bin
\t./reader data.bin
"""


def case_ci_recipe(ctx):
    script = os.path.join(HERE, "..", "..", "docs", "ci", "seektrace-ci.sh")
    # The recipes call the script the way this test does.
    for recipe in ("github-workflow.yml", "gitlab-ci.yml"):
        with open(os.path.join(HERE, "..", "..", "docs", "ci", recipe), encoding="utf-8") as f:
            text = f.read()
        for action in ("save", "check"):
            expect(f"ci/seektrace-ci.sh {action} seektrace-baseline.json -- make check" in text,
                   f"{recipe} does not run '{action}' as tested")
    repo = ctx.newdir("repo")
    env = dict(os.environ, SEEKTRACE=ctx.a.seektrace, SEEKTRACE_CI_OUT=repo)
    def git(*args, cwd=repo):
        subprocess.run(["git", "-c", "user.name=ci", "-c", "user.email=ci@example.org", *args],
                       cwd=cwd, check=True, capture_output=True)
    def commit(buffer, message):
        with open(os.path.join(repo, "reader.c"), "w", encoding="utf-8") as f:
            f.write(RECIPE_READER.replace("BUFFER 4096", f"BUFFER {buffer}"))
        git("add", "reader.c", "Makefile")
        git("commit", "-q", "-m", message)
    def ci(action, cwd=repo, rc=0):
        p = subprocess.run([script, action, "seektrace-baseline.json", "--", "make", "check"],
                           cwd=cwd, env=dict(env, SEEKTRACE_CI_OUT=cwd), capture_output=True,
                           text=True, timeout=300)
        expect(p.returncode == rc, f"{action} in {cwd}: exit {p.returncode}, expected {rc}\n"
                                   f"{p.stdout[-2000:]}\n{p.stderr[-2000:]}")
        return p.stdout
    git("init", "-q")
    with open(os.path.join(repo, "Makefile"), "w", encoding="utf-8") as f:
        f.write(RECIPE_MAKEFILE)
    commit(4096, "a reader")
    ci("save")
    git("add", "seektrace-baseline.json")
    git("commit", "-q", "-m", "seektrace baseline")
    seek_line = RECIPE_READER.splitlines().index(
        "        fseek(fp, (long)(seed >> 33) % 4000000, SEEK_SET);") + 1
    # The regression: a 128 KiB buffer fails, naming the line that seeks.
    commit(131072, "a bigger buffer")
    out = ci("check", rc=1)
    expect(f"baseline: regressed: site reader main reader.c:{seek_line}" in out and
           "baseline: regressed: file {src}/data.bin" in out, out)
    sarif = json.load(open(os.path.join(repo, "seektrace.sarif"), encoding="utf-8"))
    results = check_sarif(sarif, repo)
    at = {(r["ruleId"], r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
           r["locations"][0]["physicalLocation"]["region"]["startLine"]) for r in results}
    expect(("baseline/grew", "reader.c", seek_line) in at, f"{at}")
    quality = json.load(open(os.path.join(repo, "gl-code-quality.json"), encoding="utf-8"))
    expect(any(i["check_name"] == "baseline/grew" and i["location"] ==
               {"path": "reader.c", "lines": {"begin": seek_line}} for i in quality), f"{quality}")
    # The fix passes, every time, and in another checkout of the repository.
    commit(4096, "the buffer back")
    for _ in range(2):
        out = ci("check")
        expect("no regression against the baseline" in out, out)
    clone = os.path.join(ctx.newdir("clone"), "repo")
    subprocess.run(["git", "clone", "-q", repo, clone], check=True, capture_output=True)
    out = ci("check", cwd=clone)
    expect("no regression against the baseline" in out, out)
    # A failing suite fails the job before any check.
    with open(os.path.join(clone, "Makefile"), "a", encoding="utf-8") as f:
        f.write("\tfalse\n")
    p = subprocess.run([script, "check", "seektrace-baseline.json", "--", "make", "check"], cwd=clone,
                       env=env, capture_output=True, text=True, timeout=300)
    expect(p.returncode == 1 and "the tests failed" in p.stderr, f"{p.returncode} {p.stderr}")


def case_check_junit_names(ctx):
    # Two runs of the same program: different pids, the same test names; in
    # one directory, one test case holding both runs' failures.
    a, _ = demo_trace(ctx)
    b, _ = demo_trace(ctx)
    names = []
    for t in (a, b):
        root = ET.fromstring(ctx.st("check", "--max-amplification", "10", "--format", "junit", t,
                                    rc=1)[0])
        # A pipe is named by its inode, another each run: the demo's stdout,
        # a file of the report since printf's bytes are counted.
        names.append(sorted((c.get("classname"), c.get("name")) for c in root.iter("testcase")
                            if not c.get("name").startswith("pipe:")))
    expect(names[0] == names[1], f"{names}")
    pids = {os.path.basename(t).split(".")[1] for t in (a, b)}
    for cls, name in names[0]:
        expect(cls == "seektrace.fseek2006" and not any(p in cls + name for p in pids),
               f"{cls} {name}")
    d = ctx.newdir("both")
    shutil.copy(a, d)
    shutil.copy(b, d)
    root = ET.fromstring(ctx.st("check", "--max-amplification", "10", "--format", "junit", d,
                                rc=1)[0])
    cases = [c for c in root.iter("testcase") if c.get("name").endswith("d.dat")]
    expect(len(cases) == 1 and len(cases[0].findall("failure")) == 2,
           ET.tostring(root).decode()[:800])
    # With --site, a case per command and site -> file.
    root = ET.fromstring(ctx.st("check", "--max-amplification", "10", "--site", "main*",
                                "--format", "junit", d, rc=1)[0])
    for c in root.iter("testcase"):
        expect(c.get("name").startswith("main (fseek2006.c:") and " -> " in c.get("name"),
               c.get("name"))


def case_run_machine_output(ctx):
    # run --format junit|json: the document alone on stdout (after what the
    # command printed) or alone in -o FILE; never on stderr with the report.
    cmd = ["sh", "-c", f"echo program-out; echo program-err >&2; {ctx.a.demo} "
           f"{os.path.join(ctx.tmp, 'd.dat')} --seeks 300 >/dev/null"]
    out, err = ctx.st("run", "--format", "junit", "--max-amplification", "10", "--", *cmd, rc=1)
    expect("<?xml" not in err and "program-err" in err and "all processes together" in err, err)
    expect(out.startswith("program-out\n"), out[:200])
    root = ET.fromstring(out[len("program-out\n"):])
    expect(root.find("testsuite").get("failures") == "1", out[:500])
    xml_file = os.path.join(ctx.tmp, "check.xml")
    out, err = ctx.st("run", "-o", xml_file, "--format", "junit", "--max-amplification", "10",
                      "--", *cmd, rc=1)
    expect(out == "program-out\n" and "<?xml" not in err and "all processes together" in err,
           f"{out} {err}")
    with open(xml_file) as fh:
        expect(ET.fromstring(fh.read()).find("testsuite").get("failures") == "1", xml_file)
    out, err = ctx.st("run", "-q", "--format", "json", "--max-amplification", "10", "--", *cmd,
                      rc=1)
    expect(json.loads(out[len("program-out\n"):])["passed"] is False, out[:300])
    expect(err.strip() == "program-err", err)
    # Text stays with the report, as before.
    out, err = ctx.st("run", "--max-amplification", "10", "--", *cmd, rc=1)
    expect(out == "program-out\n" and "FAILED: 1 violation" in err, err)


def damaged_dir(ctx):
    """A directory of two good traces and a truncated one; returns it and the
    bad trace's path."""
    demo, _ = demo_trace(ctx, seeks="300")
    seq, _ = seq_trace(ctx)
    d = ctx.newdir("damaged")
    shutil.copy(demo, d)
    shutil.copy(seq, d)
    with open(demo, "rb") as fh:
        good = fh.read()
    bad = os.path.join(d, "cut.1.sktrace")
    with open(bad, "wb") as fh:
        fh.write(good[: len(good) - 9000])
    return d, bad


def case_keep_going(ctx):
    d, bad = damaged_dir(ctx)
    for args in (["report"], ["report", "--json"], ["report", "--by", "site"], ["report", "--stats"],
                 ["check", "--max-amplification", "1000"], ["export", "--format", "csv"]):
        out, err = ctx.st(*args, d, rc=2)   # without it, as before
        one_line(err, bad)
    # report: the rest, and the skipped input named in the output; exit 3.
    out, err = ctx.st("report", "--keep-going", d, rc=3)
    expect("seektrace: 2 processes" in out and "skipped 1 input" in out and bad in out, out[:600])
    one_line(err, "skipped", bad)
    j = ctx.stj("report", "--json", "--keep-going", d, rc=3)
    expect(len(j["processes"]) == 2 and [s["source"] for s in j["skipped"]] == [bad] and
           "truncated" in j["skipped"][0]["error"], f"{j.get('skipped')}")
    j = ctx.stj("report", "--by", "site", "--json", "--keep-going", d, rc=3)
    expect([s["source"] for s in j["skipped"]] == [bad], f"{j.get('skipped')}")
    out, _ = ctx.st("report", "--stats", "--keep-going", d, rc=3)
    expect(out.count("events in") == 3 and bad in out, out)   # 2 traces + total
    # check: a violation still wins (1); a pass with skipped inputs is 3.
    out, _ = ctx.st("check", "--max-amplification", "10", "--keep-going", d, rc=1)
    expect("FAILED: 1 violation" in out and "1 input skipped" in out and bad in out, out)
    out, _ = ctx.st("check", "--max-amplification", "1000", "--keep-going", d, rc=3)
    expect("passed" in out and "1 input skipped" in out, out)
    root = ET.fromstring(ctx.st("check", "--max-amplification", "1000", "--format", "junit",
                                "--keep-going", d, rc=3)[0])
    errs = [c for c in root.iter("testcase") if c.find("error") is not None]
    expect(root.get("errors") == "1" and len(errs) == 1 and errs[0].get("name") == bad,
           ET.tostring(root).decode()[:600])
    j = json.loads(ctx.st("check", "--max-amplification", "1000", "--format", "json",
                          "--keep-going", d, rc=3)[0])
    expect(j["checked"]["processes"] == 2 and [s["source"] for s in j["skipped"]] == [bad], f"{j}")
    # export: every event of the good traces, the bad one named.
    full = ctx.st("export", "--format", "jsonl", *traces_in(d)[:0], *[t for t in traces_in(d)
                                                                     if t != bad])[0]
    out, _ = ctx.st("export", "--format", "jsonl", "--keep-going", d, rc=3)
    rows = [json.loads(x) for x in out.splitlines()]
    skipped = [r for r in rows if r["event"] == "skipped"]
    expect([r["source"] for r in skipped] == [bad], f"{skipped}")
    expect(len(rows) - 1 == len(full.splitlines()), f"{len(rows)} rows, {len(full.splitlines())}")
    doc = json.loads(ctx.st("export", "--format", "chrome", "--keep-going", d, rc=3)[0])
    expect([s["source"] for s in doc["otherData"]["skipped"]] == [bad], f"{doc['otherData']}")
    # Nothing readable at all is still an error.
    only = ctx.newdir("only-bad")
    shutil.copy(bad, only)
    for args in (["report"], ["check", "--max-amplification", "10"], ["export", "--format", "csv"]):
        ctx.st(*args, "--keep-going", only, rc=2)


def case_json_inputs(ctx):
    # Every JSON the command writes with reports in it is read back: the
    # merged document (report --json DIR, run --json), /2 and /1.
    d, _ = damaged_dir(ctx)
    os.remove(os.path.join(d, "cut.1.sktrace"))
    merged = os.path.join(ctx.tmp, "merged.json")
    text, _ = ctx.st("report", "--json", d)
    with open(merged, "w") as fh:
        fh.write(text)
    want = json.loads(text)
    got = ctx.stj("report", "--json", merged)
    expect([p["pid"] for p in got["processes"]] == [p["pid"] for p in want["processes"]],
           "processes")
    expect(per_file(got["merged"]) == per_file(want["merged"]), "merged figures differ")
    a = json.loads(ctx.st("check", "--max-amplification", "10", "--format", "json", d, rc=1)[0])
    b = json.loads(ctx.st("check", "--max-amplification", "10", "--format", "json", merged,
                          rc=1)[0])
    expect(a["violations"][0]["value"] == b["violations"][0]["value"] and
           a["checked"] == b["checked"], f"{a} {b}")
    # The /1 forms: the same document with /1 schemas (its strings are ASCII).
    old = os.path.join(ctx.tmp, "merged1.json")
    with open(old, "w") as fh:
        fh.write(text.replace("seektrace.merged/2", "seektrace.merged/1")
                 .replace("seektrace.report/2", "seektrace.report/1"))
    expect(per_file(ctx.stj("report", "--json", old)["merged"]) == per_file(want["merged"]),
           "merged/1")
    # run --json -o: a merged document of the run's processes.
    run_json = os.path.join(ctx.tmp, "run.json")
    ctx.st("run", "--json", "-o", run_json, "--", "sh", "-c", f"cat {ctx.bin}; cat {ctx.text}")
    with open(run_json) as fh:
        run = json.load(fh)
    back = ctx.stj("report", "--json", run_json)
    expect(len(back["processes"]) == len(run["processes"]) >= 2 and
           per_file(back["merged"]) == per_file(run["merged"]), "run --json read back")
    # Documents without reports say so, in one line.
    sites = os.path.join(ctx.tmp, "sites.json")
    with open(sites, "w") as fh:
        fh.write(ctx.st("report", "--by", "site", "--json", d)[0])
    for args in (["report"], ["check", "--max-amplification", "10"]):
        _, err = ctx.st(*args, sites, rc=2)
        one_line(err, sites, "seektrace.sites/1", "holds no process's report")
    # whatif: a report holds no calls to replay; what it holds is shown, and
    # its 4 KiB prediction is the one whatif makes from the trace.
    w = ctx.stj("whatif", "--json", merged)
    expect(w["schema"] == "seektrace.whatif-reports/1" and w["processes"] == 2, f"{w}"[:300])
    traces, _, _ = ctx.traced([ctx.a.demo, os.path.join(ctx.tmp, "d.dat"), "--buffer", "131072",
                               "--seeks", "300"], name="big")
    (bt,) = traces_in(traces)
    big = os.path.join(ctx.tmp, "big.json")
    with open(big, "w") as fh:
        fh.write(ctx.st("report", "--json", bt)[0])
    f = file_of(ctx.stj("report", "--json", bt), "d.dat")
    wf = file_of(ctx.stj("whatif", "--json", big), "d.dat")
    expect(all(wf[k] == f[k] for k in ("kernel_read_bytes", "delivered_bytes", "read_syscalls",
                                       "whatif_4k_kernel_read_bytes")) and
           wf["whatif_4k_kernel_read_bytes"] > 0, f"{wf} vs {f}")
    replayed = file_of(ctx.stj("whatif", "--json", "--sizes", "4k", "--cost", "400,150,300,0.1",
                               bt), "d.dat")
    expect(replayed["sizes"][0]["kernel_read_bytes"] == wf["whatif_4k_kernel_read_bytes"],
           f"{replayed['sizes'][0]} vs {wf}")
    out, _ = ctx.st("whatif", big)
    expect("from JSON reports" in out and "run whatif on the traces" in out, out[:400])
    _, err = ctx.st("whatif", big, bt, rc=2)
    one_line(err, "traces or JSON reports, not both")


def case_option_order(ctx):
    # Options anywhere among the inputs, "--" ends them: the same output.
    d, _ = damaged_dir(ctx)
    os.remove(os.path.join(d, "cut.1.sktrace"))
    for a, b in ((["report", "--json", d], ["report", d, "--json"]),
                 (["report", "--by", "site", "--top", "3", d], ["report", d, "--top=3", "--by", "site"]),
                 (["report", d], ["report", "--", d]),
                 (["export", "--format", "csv", d], ["export", d, "--format", "csv"]),
                 (["whatif", "--cost", "400,150,300,0.1", d], ["whatif", d, "--cost=400,150,300,0.1"])):
        x, _ = ctx.st(*a)
        y, _ = ctx.st(*b)
        expect(x == y and x, f"{a} and {b} differ")
    a = ctx.st("check", "--max-amplification", "10", d, rc=1)[0]
    expect(a == ctx.st("check", d, "--max-amplification", "10", rc=1)[0], "check order")
    # After "--", a name that looks like an option is an input.
    _, err = ctx.st("report", "--", "--json", rc=2)
    one_line(err, "--json", "No such file")


def case_report_limits(ctx):
    # --top sets the file table's length; the last line names this command's
    # options. --by site --json lists every site unless --top says otherwise.
    files = []
    for i in range(25):
        p = os.path.join(ctx.tmp, f"f{i:02d}.txt")
        with open(p, "w") as fh:
            fh.write("x" * (100 + i))
        files.append(p)
    traces, _, _ = ctx.traced(["cat", *files], name="cat25")
    (t,) = traces_in(traces)
    rep = ctx.stj("report", "--json", t)
    n = len(rep["files"])
    expect(n >= 25, f"{n} files")
    out, _ = ctx.st("report", t)
    expect(f"... and {n - 10} more files (--top N shows more, --json lists all)" in out, out[-600:])
    expect("SEEKTRACE_FORMAT" not in out, out[-300:])
    out, _ = ctx.st("report", "--top", "500", t)
    expect("more files" not in out, out[-300:])
    expect(all(p in out for p in files), "a file is missing from report --top 500")
    out, _ = ctx.st("report", "--top", str(n - 1), t)
    expect("... and 1 more file (" in out, out[-300:])
    nsites = sum(1 for f in rep["files"] for s in f["sites"])
    expect(nsites > 20, f"{nsites} sites")
    j = ctx.stj("report", "--by", "site", "--json", t)
    expect(len(j["sites"]) == j["total_sites"] == nsites, f"{len(j['sites'])} of {nsites}")
    expect(set(s["path"] for s in j["sites"]) == set(f["path"] for f in rep["files"]
                                                     if f["sites"]), "site paths")
    j = ctx.stj("report", "--by", "site", "--json", "--top", "5", t)
    expect(len(j["sites"]) == 5 and j["total_sites"] == nsites, f"{len(j['sites'])}")
    out, _ = ctx.st("report", "--by", "site", t)
    expect(f"... and {nsites - 20} more sites (--top N shows more)" in out, out[-300:])


def case_small_fixes(ctx):
    # Nothing delivered: amplification null in whatif JSON as in report JSON.
    p, _, _ = ctx.traced([ctx.a.rewriter, "peek", ctx.bin], name="peek")
    f = file_of(ctx.stj("report", "--json", p), data_files.BINARY_NAME)
    expect(f["delivered_bytes"] == 0 and f["amplification"] is None, f"{f}")
    w = ctx.stj("whatif", "--json", "--cost", "400,150,300,0.1", p)
    (wf,) = [x for x in w["files"] if x["path"] == ctx.bin]
    rows = [wf["exact"], wf["recorded"]["measured"]] + wf["sizes"]
    expect(all(r["delivered_bytes"] == 0 and r["amplification"] is None for r in rows),
           f"{[(r['delivered_bytes'], r['amplification']) for r in rows]}")
    d, _ = demo_trace(ctx, seeks="50")
    w = ctx.stj("whatif", "--json", "--cost", "400,150,300,0.1", d)
    (wf,) = [x for x in w["files"] if x["path"].endswith("d.dat")]
    expect(wf["exact"]["amplification"] == 1 and wf["sizes"][0]["amplification"] > 1, f"{wf['exact']}")
    # One read, one lseek: singular.
    one, _, _ = ctx.traced([ctx.a.rewriter, "one", ctx.bin], name="one")
    t = file_of(ctx.stj("report", "--json", one), data_files.BINARY_NAME)
    expect(t["read_syscalls"] == 1 and t["lseek_syscalls"] == 1, f"{t}")
    out, _ = ctx.st("report", one)
    tot = ctx.stj("report", "--json", one)["totals"]
    expect(tot["read_syscalls"] == 1 and tot["lseek_syscalls"] == 1, f"{tot}")
    expect("in 1 read syscall (1 lseek) to deliver" in out, out[:300])
    expect("read 1 (1 read, 16 B; 0 lseeks)" in out and "lseek 1 (0 reads, 0 B; 1 lseek)" in out,
           out)
    expect("1 reads" not in out and "1 lseeks" not in out, out)
    # --version is in --help.
    out, _ = ctx.st("--help")
    expect("--version" in out, out)
    # A mark's label in CSV is in its own column, never in path.
    traces, _, _ = ctx.traced([ctx.a.marks, ctx.text], name="marks")
    (t,) = traces_in(traces)
    rows = list(csv.DictReader(io.StringIO(ctx.st("export", "--format", "csv", t)[0])))
    marks = [r for r in rows if r["event"] == "mark"]
    expect([r["label"] for r in marks] == ["phase one: header", "phase two: body"] and
           all(r["path"] == "" for r in marks), f"{marks}")
    expect(any(r["path"] == ctx.text for r in rows), "the file's rows keep their path")
    # whatif's header names the root of the tree, not the first trace by name.
    d = os.path.join(ctx.newdir("tree"), "t")
    ctx.st("run", "-q", "--trace", d, "--", "sh", "-c",
           f"cat {ctx.text} >/dev/null; {ctx.a.demo} {os.path.join(ctx.tmp, 'd.dat')} --seeks 5")
    procs = ctx.stj("report", "--json", d)["processes"]
    pids = {p["pid"] for p in procs}
    (root,) = [p for p in procs if p["ppid"] not in pids]
    expect(root["argv"][0] == "sh" and len(procs) >= 3, f"{[p['argv'] for p in procs]}")
    out, _ = ctx.st("whatif", "--cost", "400,150,300,0.1", d)
    expect(out.startswith("what-if of: " + " ".join(root["argv"]) + " ("), out[:300])


# ---- export --------------------------------------------------------------------------

def case_export_chrome(ctx):
    traces, reports, _ = ctx.traced([ctx.a.crasher, ctx.bin, "500", "ok", "3"])
    (t,) = traces_in(traces)
    out, _ = ctx.st("export", "--format", "chrome", t)
    doc = json.loads(out)
    events = doc["traceEvents"]
    rep = ctx.stj("report", "--json", t)
    tot = rep["totals"]
    xs = [e for e in events if e.get("ph") == "X"]
    # A coverage build's library updates its .gcda files at exit, outside any
    # call of the program's (scripts/coverage.sh); a normal build has none.
    gcov = [e for e in xs if e.get("args", {}).get("path", "").endswith(".gcda")]
    expect(sum(1 for e in xs if e["name"] == "read") == tot["read_syscalls"], "read count")
    expect(sum(1 for e in xs if e["name"] == "lseek") == tot["lseek_syscalls"], "lseek count")
    expect(sum(e["args"].get("bytes", 0) for e in xs if e["name"] == "read") ==
           tot["kernel_read_bytes"], "read bytes")
    # A track per thread: 3 reader threads and main (its fcloses), each named.
    tids = {e["tid"] for e in events if e.get("ph") in ("B", "X")}
    expect(len(tids) == 4, f"threads {tids}")
    names = [e for e in events if e.get("ph") == "M" and e["name"] == "thread_name"]
    expect(sorted(e["tid"] for e in names) == sorted(tids), f"thread names {names}")
    # Slices nest: per thread, B/E balance in order, and every syscall lies
    # inside the innermost open call when one is open.
    inside = 0
    for tid in tids:
        stack = []
        for e in (e for e in events if e.get("tid") == tid and e.get("ph") in ("B", "E", "X")
                  and e not in gcov):
            if e["ph"] == "B":
                expect(not stack or e["ts"] >= stack[-1]["ts"], "B before its parent")
                stack.append(e)
            elif e["ph"] == "E":
                expect(stack, f"thread {tid}: E without B")
                b = stack.pop()
                expect(e["ts"] >= b["ts"], "E before B")
            elif stack:
                b = stack[-1]
                expect(e["ts"] >= b["ts"], f"syscall {e} starts before its call {b}")
                expect(e["args"]["call"] == b["name"], f"syscall {e} not under {b['name']}")
                inside += 1
        expect(not stack, f"thread {tid}: {len(stack)} calls never end")
    # Every stdio call's syscalls nest in its slice; a pread is its one
    # syscall, a slice of its own (3 threads x 500).
    syscalls = (tot["read_syscalls"] + tot["lseek_syscalls"] + tot["fstat_syscalls"] -
                sum(1 for e in gcov if e["name"] in ("read", "lseek", "fstat")))
    expect(inside == syscalls - 3 * 500, f"{inside} of {syscalls} syscalls nested")
    fseeks = [e for e in events if e.get("ph") == "B" and e["name"] == "fseek"
              and not e["args"].get("path", "").endswith(".gcda")]
    expect(len(fseeks) == 3 * 500 + 3, f"{len(fseeks)} fseek slices")   # + SEEK_END per thread
    expect(fseeks[0]["args"]["path"] == ctx.bin, f"{fseeks[0]}")
    expect("crasher.c" in fseeks[0]["args"].get("site", ""), f"{fseeks[0]}")


def case_advice_whatif(ctx):
    # Issue 23: the report's 4 KiB advice and whatif's table agree on what
    # 4 KiB reads, and the advice points at whatif for the other sizes.
    traces, _, _ = ctx.traced([ctx.a.demo, os.path.join(ctx.tmp, "d.dat"), "--seeks", "2000",
                               "--buffer", "131072"], name="demo128k")
    (t,) = traces_in(traces)
    rep = ctx.stj("report", "--json", t)
    (x,) = [x for x in rep["findings"] if x["rule"] == "fseek-discards-buffer"]
    expect("use a 4 KiB buffer" in x["change"] and "seektrace whatif" in x["change"], x["change"])
    f = file_of(rep, "d.dat")
    w = ctx.stj("whatif", "--json", "--cost", "400,150,300,0.1", t)
    (wf,) = [g for g in w["files"] if g["path"] == f["path"]]
    (row,) = [r for r in wf["sizes"] if r["size"] == 4096]
    expect(row["kernel_read_bytes"] == f["whatif_4k_kernel_read_bytes"] > 0,
           f"whatif {row['kernel_read_bytes']}, report {f['whatif_4k_kernel_read_bytes']}")


def case_export_other_name(ctx):
    # Issue 23: stdio work outside any interposed call (nss reading its
    # files for id) is not a Perfetto slice named "other".
    traces, _, _ = ctx.traced(["id", "-un"], name="id")
    (t,) = traces_in(traces)
    names = [e.get("name") for e in json.loads(ctx.st("export", "--format", "chrome", t)[0])
             ["traceEvents"] if e.get("ph") == "B"]
    expect("other" not in names and "stdio, no interposed call" in names, f"{set(names)}")


def case_export_csv_jsonl(ctx):
    traces, reports, _ = ctx.traced([ctx.a.demo, os.path.join(ctx.tmp, "d.dat"), "--seeks", "700"])
    (t,) = traces_in(traces)
    rep = ctx.stj("report", "--json", t)
    d = [f for f in rep["files"] if f["path"].endswith("d.dat")][0]
    out, _ = ctx.st("export", "--format", "csv", t)
    rows = list(csv.DictReader(io.StringIO(out)))
    expect(rows and set(rows[0]) >= {"pid", "tid", "time_ns", "event", "call", "path", "bytes"},
           f"columns {rows[0] if rows else None}")
    mine = [r for r in rows if r["path"] == d["path"]]
    reads = [r for r in mine if r["event"] == "read"]
    expect(len(reads) == d["read_syscalls"], f"{len(reads)} read rows, {d['read_syscalls']} reads")
    expect(sum(int(r["bytes"]) for r in reads) == d["kernel_read_bytes"], "read bytes")
    expect(sum(int(r["reread"] or 0) for r in mine) == d["reread_bytes"], "reread bytes")
    expect(sum(1 for r in mine if r["event"] == "lseek") == d["lseek_syscalls"], "lseeks")
    expect(sum(int(r["delivered"] or 0) for r in mine if r["event"] == "deliver") ==
           d["delivered_bytes"], "delivered")
    expect(all(int(r["time_ns"]) >= 0 for r in rows if r["time_ns"]), "times")
    out, _ = ctx.st("export", "--format", "jsonl", t)
    objs = [json.loads(line) for line in out.splitlines()]
    # jsonl has the stream operations (whatif's input) besides CSV's rows.
    ops = [o for o in objs if o["event"] == "op"]
    expect(len(objs) - len(ops) == len(rows),
           f"{len(objs) - len(ops)} jsonl events, {len(rows)} csv rows")
    calls = [o for o in objs if o["event"] == "call" and o.get("path") == d["path"]]
    expect(sum(1 for o in calls if o["call"] == "fseek") == 700, "fseek calls")
    seeks = [o for o in ops if o["op"] == "fseek" and o.get("path") == d["path"]]
    expect(len(seeks) == 700 and all(o["whence"] == 0 and o["offset"] >= 0 for o in seeks),
           f"{len(seeks)} fseek ops")
    expect_times_forward(objs, "export")


def case_export_select(ctx):
    traces, _, _ = ctx.traced(["sh", "-c", f"{ctx.a.demo} {ctx.tmp}/d.dat --seeks 700 >/dev/null; "
                                           f"cat {ctx.bin} >/dev/null"], name="select")
    full = [json.loads(line) for line in ctx.st("export", "--format", "jsonl", traces)[0].splitlines()]
    rep = ctx.stj("report", "--json", traces)
    procs = {p["pid"]: p for p in rep["processes"]}
    (demo,) = [pid for pid, p in procs.items() if p["argv"][0].endswith("fseek2006")]
    # --pid: that process's rows, all of them.
    one = [json.loads(line) for line in
           ctx.st("export", "--format", "jsonl", "--pid", str(demo), traces)[0].splitlines()]
    expect(one == [o for o in full if o["pid"] == demo], f"--pid {demo}: {len(one)} rows")
    # --file: the events on the file, every one; a call's end with its call.
    chrome = json.loads(ctx.st("export", "--format", "chrome", "--file", "*/d.dat", traces)[0])
    ev = [e for e in chrome["traceEvents"] if e["ph"] != "M"]
    expect(all(e["ph"] == "E" or e["args"].get("path", "").endswith("/d.dat") for e in ev),
           "an event off the file")
    depth = collections.Counter()
    for e in ev:
        depth[e["tid"]] += {"B": 1, "E": -1}.get(e["ph"], 0)
        expect(depth[e["tid"]] >= 0, "an end before its call")
    expect(not any(depth.values()), f"unclosed calls {depth}")
    reads = [e for e in ev if e.get("name") == "read"]
    expect(len(reads) == sum(1 for o in full if o["event"] == "read" and
                             o.get("path", "").endswith("/d.dat")), "reads on the file")
    # --from/--to: the timed events of the window (one trace: its start is the base).
    times = sorted(o["time_ns"] for o in one if "time_ns" in o)
    lo, hi = times[len(times) // 4], times[len(times) // 2]
    only = os.path.join(traces, [n for n in os.listdir(traces) if f".{demo}." in n][0])
    window = [json.loads(line) for line in ctx.st("export", "--format", "jsonl", "--from",
                                                  f"{lo}ns", "--to", f"{hi}ns", only)[0].splitlines()]
    want = [o for o in one if "time_ns" in o and lo <= o["time_ns"] < hi and o["event"] != "end"]
    got = [o for o in window if "time_ns" in o and o["event"] != "end"]
    expect(got == want, f"window: {len(got)} timed rows, {len(want)} expected")
    # --aggregate: a slice per thread and period whose sums are the report's.
    agg = json.loads(ctx.st("export", "--format", "chrome", "--aggregate", "1ms", traces)[0])
    slices = [e for e in agg["traceEvents"] if e["ph"] == "X"]
    expect(all(e["name"] == "I/O" and e["dur"] == 1000.0 and e["ts"] % 1000 == 0 for e in slices),
           "slices")
    for pid, p in procs.items():
        sums = collections.Counter()
        for e in slices:
            if e["pid"] == pid:
                sums.update({k: v for k, v in e["args"].items() if isinstance(v, int)})
        for k in ("read_syscalls", "kernel_read_bytes", "lseek_syscalls", "delivered_bytes"):
            expect(sums[k] == p["totals"][k], f"pid {pid} {k}: {sums[k]} != {p['totals'][k]}")
    expect(len(agg["traceEvents"]) * 20 < len(json.loads(ctx.st("export", "--format", "chrome",
                                                               traces)[0])["traceEvents"]),
           "aggregated is not smaller")
    # Bad values: one line, exit 2.
    for args, words in ((["--aggregate", "1ms", "--format", "csv"], "--aggregate"),
                        (["--from", "soon", "--format", "csv"], "--from"),
                        (["--pid", "x", "--format", "csv"], "--pid")):
        one_line(ctx.st("export", *args, traces, rc=2)[1], words)


def expect_times_forward(objs, label):
    """Within a thread, an exported trace's times never go back."""
    last = {}
    for o in objs:
        if "time_ns" in o:
            expect(o["time_ns"] >= last.get(o["tid"], 0), f"{label}: time goes back at {o}")
            last[o["tid"]] = o["time_ns"]


def case_trace_times(ctx):
    # Times are CLOCK_MONOTONIC's however they are read (the TSC by default,
    # clock_gettime with SEEKTRACE_TRACE_CLOCK=monotonic; trace_clock.h): two
    # reads with a 0.2 s sleep between them are at least that far apart in
    # the trace (less the 1 ms at which the TSC would be given up), every
    # event lies within the run's wall time, and one thread's times never go
    # back.
    code = ("import os, time\n"
            f"fd = os.open({ctx.text!r}, os.O_RDONLY)\n"
            "os.read(fd, 16)\ntime.sleep(0.2)\nos.read(fd, 16)\n")
    for clock in ("auto", "monotonic"):
        t0 = time.monotonic_ns()
        traces, _, _ = ctx.traced([sys.executable, "-S", "-c", code], name=clock,
                                  env={"SEEKTRACE_TRACE_CLOCK": clock})
        wall = time.monotonic_ns() - t0
        (t,) = traces_in(traces)
        out, _ = ctx.st("export", "--format", "jsonl", t)
        objs = [json.loads(line) for line in out.splitlines()]
        reads = [o for o in objs if o["event"] == "read" and o.get("path") == ctx.text]
        expect(len(reads) == 2, f"{clock}: reads of the text: {reads}")
        gap = reads[1]["time_ns"] - reads[0]["time_ns"]
        expect(199_000_000 <= gap <= wall, f"{clock}: reads {gap} ns apart, run {wall} ns")
        ends = [o["time_ns"] + o.get("dur_ns", 0) for o in objs if "time_ns" in o]
        expect(len(ends) > 10 and max(ends) <= wall, f"{clock}: last event at {max(ends)} ns, "
                                                      f"run {wall} ns")
        expect_times_forward(objs, clock)


def case_marks(ctx):
    # Without the library, the API does nothing and the program runs.
    p = subprocess.run([ctx.a.marks, ctx.text], capture_output=True)
    expect(p.returncode == 0 and p.stdout == b"active 0 flush 0\n", f"{p}")
    traces, reports, p = ctx.traced([ctx.a.marks, ctx.text])
    expect(p.stdout == b"active 1 flush 0\n", f"{p.stdout}")
    (t,) = traces_in(traces)
    out, _ = ctx.st("export", "--format", "jsonl", t)
    marks = [json.loads(l) for l in out.splitlines() if '"mark"' in l]
    expect([m["label"] for m in marks] == ["phase one: header", "phase two: body"], f"{marks}")
    doc = json.loads(ctx.st("export", "--format", "chrome", t)[0])
    expect(sum(1 for e in doc["traceEvents"] if e.get("cat") == "mark") == 2, "chrome marks")


def case_help(ctx):
    out, _ = ctx.st("--help")
    expect("run" in out and "export" in out, out)
    for sub in ("run", "report", "check", "export"):
        out, _ = ctx.st(sub, "--help")
        expect(out.startswith(f"usage: seektrace {sub}") and "Exit status" in out, out[:200])
        _, err = ctx.st(sub, "--no-such-option", "x", rc=2)
        expect(len(err.strip().splitlines()) == 1, err)
    ctx.st("frobnicate", rc=2)
    out, _ = ctx.st("--version")
    expect(out.startswith("seektrace "), out)


def case_merge_many(ctx):
    # Many processes' traces in one directory merge without holding them all:
    # the sum over 60 processes equals 60 times one.
    n = 60
    script = "for i in $(seq %d); do head -c 5000 %s > /dev/null; done" % (n, ctx.bin)
    d = os.path.join(ctx.newdir("many"), "traces")
    ctx.st("run", "-q", "--trace", d, "--", "sh", "-c", script)
    heads = [t for t in traces_in(d) if os.path.basename(t).startswith("head.")]
    expect(len(heads) == n, f"{len(heads)} head traces")
    j = ctx.stj("report", "--json", d)
    merged = {f["path"]: f for f in j["merged"]["files"]}
    expect(merged[ctx.bin]["delivered_bytes"] == 5000 * n, f"{merged[ctx.bin]['delivered_bytes']}")
    out, _ = ctx.st("report", "--by", "process", "--top", "5", d)
    expect("more processes" in out, out)
    out, _ = ctx.st("report", "--by", "site", d)
    expect("head" in out, out)
    j = ctx.stj("report", "--by", "site", "--json", d)
    expect(j["schema"] == "seektrace.sites/1" and j["sites"], f"{j}")


def cost(c):
    """What reports rank by (counts.h's st_counts_cost)."""
    return max(0, c["kernel_read_bytes"] - c["delivered_bytes"]) + \
        4096 * (c["read_syscalls"] + c["lseek_syscalls"] + c["write_syscalls"])


def merged_text_matches_json(out, j, nproc_of):
    """The merged text report against the merged JSON of the same traces:
    the same files on top in the same order (ranked by cost, cut at the
    noise floor), the rest summed exactly on one line, the same findings,
    folded streams and command groups. Returns the files shown."""
    m = j["merged"]
    files = m["files"]
    costs = [cost(f) for f in files]
    expect(costs == sorted(costs, reverse=True), f"JSON files not ranked by cost: {costs}")
    floor = max(65536, (sum(costs) + cost(m.get("other_files", FIGURE_ZERO))) // 100)
    above = [f["path"] for f in files if cost(f) >= floor][:10]
    rows = out.split("all processes together:")[1].split("call site -> file")[0].splitlines()
    shown = [f["path"] for f in files if any(ln.endswith("  " + f["path"]) for ln in rows)]
    expect(shown == above and len(shown) >= 2, f"text shows {shown}, JSON's above the floor {above}")
    small = [f for f in files if f["path"] not in shown]
    if small:
        reads = sum(f["read_syscalls"] for f in small)
        head = f"  {len(small)} small file{'s' if len(small) > 1 else ''}, each under the noise floor of "
        line = [ln for ln in out.splitlines() if ln.startswith(head)]
        expect(len(line) == 1 and f" in {reads:,} read" in line[0], f"small files: {head}, {reads}")
    # Findings: the first ones the JSON lists are the text's problems.
    finds = m["findings"]
    if not finds:
        expect("no problem worth your time found" in out, out[-400:])
    else:
        probs = [ln for ln in out.splitlines() if ln.startswith(("  problem:", "  also:"))]
        expect(len(probs) == min(4, len(finds)) and
               all(f["path"] in p for f, p in zip(finds, probs)), f"{probs} vs {finds[:4]}")
    # Streams alike are one row with a count, in text and JSON.
    for f in files:
        if f["path"] in shown:
            for s in f["streams"][:3]:
                n = s.get("folded", 1)
                word = f"{n:,} streams fd {s['fd']}:" if n > 1 else f"stream fd {s['fd']}:"
                expect(word in out, f"{f['path']}: no '{word}'")
    # Processes by command, with counts.
    for name, n in nproc_of.items():
        expect(any(ln.split()[:1] == [f"{n:,}"] and ln.rstrip().endswith("  " + name)
                   for ln in out.splitlines()), f"no command row '{n:,} ... {name}'")
    return shown


FIGURE_ZERO = {"kernel_read_bytes": 0, "delivered_bytes": 0, "read_syscalls": 0, "lseek_syscalls": 0,
               "write_syscalls": 0}


def merged_rows_run(ctx, name, dirs, big):
    """A run of processes reading dirs x 300 small files with cat, then the
    big files with dd (4 KiB reads): its trace directory."""
    d = ctx.newdir(name)
    for k in range(dirs):
        os.makedirs(os.path.join(d, f"d{k}"))
        for i in range(300):
            with open(os.path.join(d, f"d{k}", f"f{i}.txt"), "w") as fh:
                fh.write(f"line {i} of {k}\n")
    for path in big:
        if not os.path.exists(path):
            with open(path, "wb") as fh:
                fh.write(b"x" * (1 << 20))
    script = "; ".join([f'cat "{d}/d{k}"/* > /dev/null' for k in range(dirs)] +
                       [f'dd if="{p}" of=/dev/null bs=4k 2>/dev/null' for p in big])
    traces = os.path.join(d, "traces")
    ctx.st("run", "-q", "--trace", traces, "--", "/bin/sh", "-c", script)
    return traces


def merged_text_accounts(ctx, traces, files, big):
    """The merged text of traces (files: every merged file) has a row for
    each big file and counts every other file, and its reads, on its
    small-files line."""
    text, _ = ctx.st("report", traces)
    rows = [f for f in files if re.search(r"\s" + re.escape(f["path"]) + "$", text, re.M)]
    expect(all(p in [f["path"] for f in rows] for p in big), f"big files without a row:\n{text}")
    small = re.search(r"^  (\d+) small files, each under the noise floor of [^:]+: .* in ([\d,]+) reads",
                      text, re.M)
    expect(small and int(small.group(1)) == len(files) - len(rows),
           f"small files line {small and small.group(0)}, expected {len(files) - len(rows)} files")
    reads = sum(f["read_syscalls"] for f in files if f not in rows)
    expect(small and int(small.group(2).replace(",", "")) == reads,
           f"small files' reads {small and small.group(2)}, expected {reads}")


def case_merged_rows_kept(ctx):
    """A report of several processes keeps a full row only for the files it
    prints (issue 21): past 1000 merged files the JSON the worst 1000, their
    totals, findings and hints those of --full, the others summed exactly
    into other_files; the text, of 600 files or 2,400, a row for every file
    above its noise floor (each big file), the rest counted and summed on
    its small-files line. Its peak memory grows by at most 2 KiB a file
    from 1,200 files to 2,400 (1.2 KiB measured; a full row each took
    11.8 KiB)."""
    big = [os.path.join(ctx.tmp, f"big{i}.bin") for i in range(3)]
    half = merged_rows_run(ctx, "merged-rows-half", 4, big)
    traces = merged_rows_run(ctx, "merged-rows", 8, big)

    def peak_kb(d):
        with open(os.devnull, "wb") as null:
            p = subprocess.Popen([ctx.a.seektrace, "report", d], stdout=null, stderr=null)
            _, status, ru = os.wait4(p.pid, 0)
        expect(os.waitstatus_to_exitcode(status) == 0, f"report {d}: status {status}")
        return ru.ru_maxrss

    # Before any report is read in: a child's peak counts the test's own
    # resident size when it forks.
    grown = peak_kb(traces) - peak_kb(half)
    print(f"report of 1,200 more files: +{grown} kB")
    expect(grown <= 1200 * 2, f"report peak grew by {grown} kB over 1,200 files (at most 2 KiB each)")

    full = ctx.stj("report", "--json", "--full", traces)["merged"]
    bounded = ctx.stj("report", "--json", traces)["merged"]
    n = len(full["files"])
    expect(n > 2400, f"{n} files merged, expected over 2400")
    expect(len(bounded["files"]) == 1000 and bounded["files"] == full["files"][:1000],
           f"JSON rows: {len(bounded['files'])}, not --full's first 1000")
    expect(bounded.get("other_files", {}).get("files") == n - 1000,
           f"other_files {bounded.get('other_files')}, expected {n - 1000} files")
    for key in ("totals", "findings", "hints"):
        expect(bounded.get(key) == full.get(key), f"{key} differ from --full's")
    rest = full["files"][1000:]
    for k in ("kernel_read_bytes", "delivered_bytes", "read_syscalls", "lseek_syscalls"):
        expect(bounded["other_files"][k] == sum(f[k] for f in rest),
               f"other_files {k} {bounded['other_files'][k]} != {sum(f[k] for f in rest)}")
    merged_text_accounts(ctx, traces, full["files"], big)
    # Under 1000 files too the text keeps only the rows it prints.
    few = merged_rows_run(ctx, "merged-rows-few", 2, big)
    merged_text_accounts(ctx, few, ctx.stj("report", "--json", few)["merged"]["files"], big)



def case_merged_scale(ctx):
    # Issue 23: the merged text report of many processes stays short and
    # names what the JSON names. sqlite3 runs when installed (the issue's
    # case: getpwuid's /etc/passwd and nsswitch.conf in every process);
    # else id and head, which read them too.
    n = 100
    work = os.path.join(ctx.newdir("sqlite"), "db")
    if shutil.which("sqlite3"):
        subprocess.run(["sqlite3", work, "create table t(a, b)"], check=True)
        one, name = f'sqlite3 {work} "insert into t values($i, randomblob(100))"', "sqlite3"
    else:
        one, name = f"id -un > /dev/null; head -c 5000 {ctx.bin} > /dev/null", "head"
    d = os.path.join(os.path.dirname(work), "traces")
    ctx.st("run", "-q", "--trace", d, "--", "sh", "-c", f"for i in $(seq {n}); do {one}; done")
    j = ctx.stj("report", "--json", d)
    out, _ = ctx.st("report", d)
    lines = out.splitlines()
    expect(len(lines) < 60, f"{len(lines)} lines:\n{out}")
    shown = merged_text_matches_json(out, j, {name: n})
    # run prints the same report (to stderr).
    _, err = ctx.st("run", "--", "sh", "-c", f"for i in $(seq 3); do {one}; done")
    expect(any(ln.split()[:1] == ["3"] and ln.endswith("  " + name) for ln in err.splitlines()),
           err[:600])
    # --full: every process, file and site; nothing summed away.
    full, _ = ctx.st("report", "--full", d)
    expect(all(p["argv"] and " ".join(p["argv"])[:60] in full for p in j["processes"]),
           "--full misses a process")
    expect(all(f"  {f['path']}" in full for f in j["merged"]["files"]), "--full misses a file")
    expect("small file" not in full and "every call site:" in full, full[-500:])
    nsites = sum(len(f["sites"]) for f in j["merged"]["files"])
    expect(len(full.split("every call site:")[1].splitlines()) >= 2 * nsites, "--full's sites")
    # 20 times the processes (2,000; 10,000 gives the same, but its JSON is
    # 250 MB): the same report's shape, every figure scaled. The reader
    # takes the files' sites; the report's list of every site repeats them.
    reps = 20
    procs = []
    for r in range(reps):
        for p in j["processes"]:
            q = dict(p, pid=p["pid"] + 10_000_000 * (r + 1), ppid=p["ppid"] + 10_000_000 * (r + 1))
            q.pop("sites")
            procs.append(q)
    big = os.path.join(os.path.dirname(work), "big.json")
    with open(big, "w") as fh:
        json.dump({"schema": "seektrace.merged/2", "processes": procs}, fh, separators=(",", ":"))
    jb = ctx.stj("report", "--json", big)
    outb, _ = ctx.st("report", big)
    expect(len(outb.splitlines()) == len(lines), f"{len(outb.splitlines())} lines at {len(procs)} "
           f"processes, {len(lines)} at {len(j['processes'])}:\n{outb}")
    expect(merged_text_matches_json(outb, jb, {name: n * reps}) == shown, "another top at 10,000")
    tot, totb = j["merged"]["totals"], jb["merged"]["totals"]
    expect(all(totb[k] == reps * tot[k] for k in FIGURES), "totals at 10,000 are not exact sums")


def case_merged_findings(ctx):
    # A merged row's finding must have fired in one of its processes: ten
    # dd runs of 150 reads of 100 B each sum to 1,500 small reads, which no
    # single process made (small-direct-reads needs 1,000); one dd of 1,500
    # reads among nine short ones does fire, on the merged figures.
    def merged(counts):
        script = "; ".join(f"dd if={ctx.bin} of=/dev/null bs=100 count={c} 2>/dev/null"
                           for c in counts)
        j, _ = run_json(ctx, "sh", "-c", script, dirname="dd")
        (f,) = [f for f in j["merged"]["files"] if f["path"] == ctx.bin]
        expect(f["processes"] == len(counts) and f["read_syscalls"] == sum(counts), f"{f}")
        return [x["rule"] for x in j["merged"]["findings"] if x["path"] == ctx.bin]
    expect(merged([150] * 10) == [], "a finding only the sum of ten processes reaches")
    expect(merged([1500] + [10] * 9) == ["small-direct-reads"], "the one process's finding")


PY_SEEK_READ = """
import sys
with open(sys.argv[1], "rb", buffering=int(sys.argv[2])) as f:
    for i in range(500):
        f.seek((i * 7919 * 13) % 3000000)
        f.read(1)
"""


def case_hint_python(ctx):
    # Issue 23: a script's seek + read(1) through Python's buffered io shows
    # 1.00x, the buffer's refills; the report says what it cannot see. Its
    # twin with buffering=0 reads one byte per read(): nothing is hidden.
    script = os.path.join(ctx.tmp, "seek_read.py")
    with open(script, "w") as fh:
        fh.write(PY_SEEK_READ)
    for buffering, fires in (("-1", True), ("0", False)):
        traces, reports, _ = ctx.traced([sys.executable, script, ctx.bin, buffering],
                                        name="py" + buffering)
        (t,) = traces_in(traces)
        j = ctx.stj("report", "--json", t)
        f = file_of(j, data_files.BINARY_NAME)
        expect(f["lseek_syscalls"] >= 500 and f["read_syscalls"] >= 500, f"{f['calls']}")
        hints = [h for h in j["hints"] if h["rule"] == "python-io-buffer"]
        text, _ = ctx.st("report", t)
        line = [ln for ln in text.splitlines() if ln.startswith("  not seen: ")]
        if fires:
            size = f["requested_bytes"] // f["calls"]["read"]
            expect(size >= 4096 and len(hints) == 1 and hints[0]["path"] == ctx.bin,
                   f"buffered: {size} B a read, hints {j['hints']}")
            expect(len(line) == 1 and ctx.bin in line[0] and "buffering=0" in line[0] and
                   f"{f['calls']['read']:,} reads of" in line[0], f"{line}")
        else:
            expect(f["requested_bytes"] == f["calls"]["read"], f"unbuffered: {f['requested_bytes']}")
            expect(hints == [] and line == [], f"buffering=0: {j['hints']} {line}")


def hint_case(ctx, argv, name, rule, path):
    """Runs argv traced; the file's counts, rule's hints and the text
    report's "not seen" lines on that file, from the trace."""
    traces, _, _ = ctx.traced(argv, name=name)
    ts = [t for t in traces_in(traces) if "javac" not in t]
    j = ctx.stj("report", "--json", *ts)
    f = [x for x in j["files"] if x["path"] == path][0]
    hints = [h for h in j["hints"] if h["rule"] == rule]
    text, _ = ctx.st("report", *ts)
    return f, hints, [ln for ln in text.splitlines()
                      if ln.startswith(f"  not seen: {path} ")]


def case_hint_cxx_filebuf(ctx):
    # Issue 23: an ifstream's seekg + read(16): libstdc++'s filebuf refills
    # its buffer with reads of BUFSIZ - 1 bytes, charged to the program's
    # line, and the report says what it cannot see. Twins: the same program
    # unbuffered (pubsetbuf(0, 0): read(16) each), and a C program seeking
    # and reading 4 KiB with POSIX calls (no filebuf size).
    prog = os.path.join(ctx.a.workloads, "wl_ifstream_seek")
    f, hints, line = hint_case(ctx, [prog, "buffered", ctx.bin, "600", "7"], "cxx",
                               "cxx-filebuf", ctx.bin)
    size = f["requested_bytes"] // f["calls"]["read"]
    expect(size == 8191 and f["lseek_syscalls"] >= 600, f"{size} B a read, {f['calls']}")
    expect(len(hints) == 1 and hints[0]["path"] == ctx.bin, f"hints {hints}")
    expect(len(line) == 1 and f"{f['calls']['read']:,} reads of 8,191 bytes" in line[0] and
           "std::filebuf" in line[0], f"{line}")
    f, hints, line = hint_case(ctx, [prog, "unbuffered", ctx.bin, "600", "7"], "cxx0",
                               "cxx-filebuf", ctx.bin)
    expect(f["requested_bytes"] == 16 * f["calls"]["read"], f"unbuffered: {f['requested_bytes']}")
    expect(hints == [] and line == [], f"unbuffered: {hints} {line}")
    posix = os.path.join(ctx.a.workloads, "wl_posix")
    f, hints, line = hint_case(ctx, [posix, "lseek", ctx.bin, "300", "6"], "posix",
                               "cxx-filebuf", ctx.bin)
    expect(f["lseek_syscalls"] >= 300 and hints == [] and line == [], f"posix: {hints} {line}")


JAVA_SKIP_READ = """
import java.io.*;
public class SkipRead {
    public static void main(String[] a) throws Exception {
        long seeks = Long.parseLong(a[2]), delivered = 0;
        long size = new File(a[1]).length();
        try (RandomAccessFile raf = new RandomAccessFile(a[1], "r")) {
            FileInputStream fis = new FileInputStream(raf.getFD());
            byte[] rec = new byte[16];
            for (long i = 0; i < seeks; i++) {
                raf.seek((i % 2 == 1 ? size / 2 : 0) + 100 + (i / 2 % 8) * 16);
                if (a[0].equals("buffered"))
                    delivered += new BufferedInputStream(fis, 8192).read(rec);
                else
                    delivered += raf.read(rec);
            }
        }
        System.out.println(delivered);
    }
}
"""


def case_hint_java(ctx):
    # Issue 23: seek + read(16) through a BufferedInputStream: the JVM's
    # reads (libjava.so's) are the buffer's 8 KiB refills; the report says
    # what it cannot see. Its twin reads through RandomAccessFile: 16 bytes
    # a read, nothing hidden.
    javac, java = shutil.which("javac"), shutil.which("java")
    if not javac or not java:
        print("SKIP: no JDK (javac, java) on this machine")
        raise SystemExit(77)
    src = os.path.join(ctx.tmp, "SkipRead.java")
    with open(src, "w") as fh:
        fh.write(JAVA_SKIP_READ)
    subprocess.run([javac, "-d", ctx.tmp, src], check=True, capture_output=True, timeout=120)
    for mode, fires in (("buffered", True), ("direct", False)):
        f, hints, line = hint_case(ctx, [java, "-cp", ctx.tmp, "SkipRead", mode, ctx.bin, "300"],
                                   "java" + mode, "java-io-buffer", ctx.bin)
        expect(f["lseek_syscalls"] >= 300, f"{mode}: {f['calls']}")
        if fires:
            expect(len(hints) == 1 and hints[0]["path"] == ctx.bin, f"hints {hints}")
            expect(len(line) == 1 and "Java buffered stream" in line[0] and
                   f"{f['calls']['read']:,} reads of 8,192 bytes" in line[0], f"{line}")
        else:
            expect(f["requested_bytes"] == 16 * f["calls"]["read"], f"direct: {f['calls']}")
            expect(hints == [] and line == [], f"direct: {hints} {line}")


PY_MAP_READ = """
import mmap, sys
write = sys.argv[3] == "write"  # a shared writable mapping: memory shared through the file
with open(sys.argv[1], "r+b" if write else "rb") as f:
    total = 0
    for _ in range(int(sys.argv[2])):
        with mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_WRITE if write else mmap.ACCESS_READ) as m:
            total += sum(m[i] for i in range(0, len(m), 4096))
    f.seek(0)
    total += len(f.read(100))
print(total)
"""


def case_hint_mmap(ctx):
    # Issue 23: a file read through mmap is read by page faults, which the
    # report cannot count: each mapping is counted (as strace shows it) and
    # the report says so. Its twins map nothing, or map the file shared and
    # writable (memory shared through a file, as the JVM's hsperfdata):
    # strace shows those mappings, the report neither counts them nor hints.
    script = os.path.join(ctx.tmp, "map_read.py")
    with open(script, "w") as fh:
        fh.write(PY_MAP_READ)
    for maps, access, counted in ((3, "read", 3), (0, "read", 0), (3, "write", 0)):
        log = os.path.join(ctx.tmp, f"strace.mmap{maps}{access}")
        traces, _, _ = ctx.traced(["strace", "-f", "-qq", "-y", "-e", "trace=mmap", "-o", log,
                                   sys.executable, script, ctx.bin, str(maps), access],
                                  name=f"map{maps}{access}")
        with open(log) as fh:
            strace_maps = sum(1 for line in fh if f"<{os.path.realpath(ctx.bin)}>" in line)
        expect(strace_maps == maps, f"strace saw {strace_maps} mappings, the script made {maps}")
        j = ctx.stj("report", "--json", *[t for t in traces_in(traces) if "python" in t])
        f = file_of(j, data_files.BINARY_NAME)
        expect(f["calls"].get("mmap", 0) == counted,
               f"{access}: mmap calls {f['calls']}, {counted} expected (strace {maps})")
        hints = [h for h in j["hints"] if h["rule"] == "mmap-unseen"]
        text, _ = ctx.st("report", *[t for t in traces_in(traces) if "python" in t])
        line = [ln for ln in text.splitlines() if ln.startswith("  not seen: ")]
        if counted:
            expect(len(hints) == 1 and hints[0]["path"] == ctx.bin, f"hints {j['hints']}")
            expect(len(line) == 1 and ctx.bin in line[0] and f"mmap, {maps} times" in line[0],
                   f"{line}")
        else:
            expect(hints == [] and line == [], f"{access}, {maps} maps: {j['hints']} {line}")


# File names that are not UTF-8, one per class of Unicode §3.9 Table 3-7's
# ill-formed sequences, and names that are but need care.
ODD_NAMES = (
    b"a\xed\xa0\x80",                          # a surrogate (issue 19's reproducer)
    b"ov\xc0\xaf\xc1\xbf\xe0\x80\xaf\xf0\x80\x80\xaf",  # overlong forms
    b"big\xf4\x90\x80\x80\xf5\x80\x80\x80\xf8\x88\x80\x80\x80",  # past U+10FFFF, 5 bytes
    b"n\xffa\xfeme\x80\xbf.bin\xe1\x80",         # no lead, lone continuations, cut short
    b"rep\xef\xbf\xbdFF\xef\xbf\xbd",               # U+FFFD itself, once followed by hex
    b"ok-\xc3\xa9\xf0\x9f\x98\x80\xf4\x8f\xbf\xbf",   # well-formed, to the last code point
    b'q"b\\\x01\x7f\t',                          # well-formed, JSON escapes
)


def strict_json(data, what):
    """data (bytes) as JSON the strict way: UTF-8 that Python's decoder takes
    (no surrogates, overlong forms or code points past U+10FFFF), and no
    string escaping a lone surrogate (I-JSON, RFC 7493)."""
    try:
        doc = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise Failure(f"{what}: not JSON in well-formed UTF-8: {e}") from None
    stack = [doc]
    while stack:
        v = stack.pop()
        if isinstance(v, dict):
            stack.extend(v.keys())
            stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)
        elif isinstance(v, str):
            try:
                v.encode("utf-8")
            except UnicodeEncodeError:
                raise Failure(f"{what}: a string with a lone surrogate: {v!r}") from None
    return doc


def case_non_utf8_name(ctx):
    # A file name is bytes. Whatever they are, every output is well-formed
    # UTF-8 JSON (or XML) and names the exact bytes (seektrace_reports.name_bytes):
    # the library's report at exit, the command's reports over the traces
    # and over those reports, run, export and check.
    d = os.fsencode(ctx.newdir("names"))
    names = [d + b"/" + n for n in ODD_NAMES]
    for i, n in enumerate(names):
        with open(n, "wb") as fh:
            fh.write(b"y" * (1000 + i))
    want = set(names)

    def paths_of(report, what):
        got = {name_bytes(f["path"]) for f in report["files"]}
        expect(want <= got, f"{what}: {sorted(want - got)!r} missing from {sorted(got)!r}")

    traces, reports, _ = ctx.traced(["cat", *names], name="names-cat")
    (at_exit,) = glob.glob(os.path.join(reports, "*.json"))
    with open(at_exit, "rb") as fh:
        rep = strict_json(fh.read(), "the library's report")
    paths_of(rep, "the library's report")
    argv = [name_bytes(a) for a in rep["argv"]]
    expect(argv == [b"cat", *names], f"argv {argv!r}")
    (trace,) = traces_in(traces)
    for where in (trace, at_exit):
        again = strict_json(ctx.st_raw("report", "--json", where), f"report --json {where}")
        if again["schema"] == "seektrace.merged/2":  # a JSON report is read as one of several
            paths_of(again["merged"], f"report --json {where}")
            (again,) = again["processes"]
        paths_of(again, f"report --json {where}")
        expect([name_bytes(a) for a in again["argv"]] == argv, f"{where}: argv {again['argv']!r}")
        for fmt in ("json", "junit"):
            out = ctx.st_raw("check", "--max-read-syscalls", "0", "--format", fmt, where, rc=1)
            if fmt == "json":
                v = strict_json(out, f"check over {where}")["violations"]
                got = {name_bytes(x["path"]) for x in v}
            else:
                try:
                    cases = ET.fromstring(out).iter("testcase")
                except ET.ParseError as e:
                    raise Failure(f"check --format junit over {where}: not XML: {e}") from None
                got = {name_bytes(c.get("name")) for c in cases}
            # XML 1.0 cannot carry control characters: check writes '?'.
            expect({n for n in want if min(n) >= 0x20 or fmt == "json"} <= got,
                   f"check --format {fmt} over {where}: {sorted(want - got)!r} missing")
    sites = strict_json(ctx.st_raw("report", "--by", "site", "--json", trace), "report --by site")
    expect(want <= {name_bytes(s["path"]) for s in sites["sites"]}, "report --by site")
    lines = ctx.st_raw("export", "--format", "jsonl", trace).splitlines()
    events = {name_bytes(o["path"]) for o in (strict_json(l, "export jsonl") for l in lines)
              if "path" in o}
    expect(want <= events, f"export jsonl: {sorted(want - events)!r} missing")
    chrome = strict_json(ctx.st_raw("export", "--format", "chrome", trace), "export chrome")
    named = {name_bytes(e["args"]["path"]) for e in chrome["traceEvents"] if "path" in e.get("args", {})}
    expect(want <= named, f"export chrome: {sorted(want - named)!r} missing")
    j, run_dir = run_json(ctx, "sh", "-c", 'cat "$@" > /dev/null', "sh", *map(os.fsdecode, names),
                          dirname="names-run")
    paths_of(j["merged"], "run --json")
    merged = strict_json(ctx.st_raw("report", "--json", run_dir), "report --json over the run")
    paths_of(merged["merged"], "report --json over the run")
    # A seektrace.report/1 report (written before /2) is read by its own rule:
    # \udcXX is the byte, and U+FFFD followed by hex is just that text.
    old = os.path.join(os.fsdecode(d), "old.json")
    with open(old, "w") as fh:
        fh.write('{"schema":"seektrace.report/1","pid":7,"argv":["x"],"files":['
                 '{"path":"/a\\udcff","read_syscalls":1},{"path":"/b\\ufffdFF","read_syscalls":2}]}')
    again = strict_json(ctx.st_raw("report", "--json", old), "report --json over a report/1")
    got = sorted(name_bytes(f["path"]) for f in again["merged"]["files"])
    expect(got == [b"/a\xff", b"/b\xef\xbf\xbdFF"], f"report/1 read as {got!r}")


def case_install_layout(ctx):
    prefix = os.path.join(ctx.tmp, "prefix")
    p = subprocess.run(["cmake", "--install", ctx.a.build, "--prefix", prefix],
                       capture_output=True, timeout=120)
    expect(p.returncode == 0, p.stderr.decode()[-2000:])
    st = os.path.join(prefix, "bin", "seektrace")
    expect(os.access(st, os.X_OK), "no bin/seektrace")
    libs = glob.glob(os.path.join(prefix, "lib*", "**", "libseektrace.so"), recursive=True)
    expect(libs, "no installed libseektrace.so")
    for h in ("trace_format.h", "seektrace.h"):
        expect(os.path.exists(os.path.join(prefix, "include", "seektrace", h)), f"no {h}")
    expect(glob.glob(os.path.join(prefix, "share", "man", "man1", "seektrace.1*")), "no man page")
    expect(glob.glob(os.path.join(prefix, "share", "man", "man7", "libseektrace.7*")), "no man page 7")
    # The installed command finds the installed library.
    env = ctx.traced_env({k: v for k, v in os.environ.items() if k != "SEEKTRACE_LIBRARY"})
    if ctx.a.preload_prefix:
        env["LD_PRELOAD"] = ctx.a.preload_prefix
    p = subprocess.run([st, "run", "--", "cat", ctx.text], capture_output=True, env=env, timeout=60)
    expect(p.returncode == 0, p.stderr.decode())
    expect(b"amplif." in p.stderr and b"lines.txt" in p.stderr, p.stderr.decode()[:800])
    out = subprocess.run([st, "run", "-q", "--", "sh", "-c", "echo $LD_PRELOAD"], capture_output=True,
                         env=env).stdout.decode()
    expect(os.path.realpath(libs[0]) in out, f"{out} vs {libs[0]}")


# ---- calibrate ----------------------------------------------------------------------

FIGURES_NS = ("read_ns", "lseek_ns", "fstat_ns", "byte_ns")


def read_calibration(path):
    """The calibration file's figures and source, checking its layout."""
    with open(path) as fh:
        lines = fh.read().splitlines()
    expect(lines and lines[0] == "seektrace-calibration 1", f"{path}: header {lines[:1]}")
    kv = dict(line.split(" ", 1) for line in lines[1:])
    expect(sorted(kv) == sorted(FIGURES_NS + ("source",)) and len(kv) == len(lines) - 1,
           f"{path}: lines {lines}")
    return {k: float(kv[k]) for k in FIGURES_NS}, kv["source"]


def plausible(figures, what):
    # Wide bounds only, no timed assertion: a syscall from 10 ns to 1 ms, a
    # byte from the page cache from 0.001 to 10 ns (1 TB/s to 100 MB/s).
    for k in ("read_ns", "lseek_ns", "fstat_ns"):
        expect(10 <= figures[k] <= 1e6, f"{what}: {k} {figures[k]}")
    expect(0.001 <= figures["byte_ns"] <= 10, f"{what}: byte_ns {figures['byte_ns']}")


def case_calibrate(ctx):
    d = ctx.newdir("calibrate")
    tmp = os.path.join(d, "tmp")
    os.makedirs(tmp)
    env = dict(os.environ, TMPDIR=tmp)
    path = os.path.join(d, "made", "here", "calibration")
    out, _ = ctx.st("calibrate", "--quick", "--output", path, env=env)
    figures, source = read_calibration(path)
    plausible(figures, path)
    expect(source.startswith("calibrated ") and "--quick" in source, source)
    expect("read syscall" in out and "ns/B" in out and path in out, out)
    expect(os.stat(path).st_mode & 0o7777 == 0o600, oct(os.stat(path).st_mode))
    for p in (os.path.dirname(path), os.path.dirname(os.path.dirname(path))):
        expect(os.stat(p).st_mode & 0o7777 == 0o700, f"{p}: {oct(os.stat(p).st_mode)}")
    # The 64 MiB measuring file is gone, and no temporary file is left beside.
    expect(os.listdir(tmp) == [], f"left in TMPDIR: {os.listdir(tmp)}")
    expect(os.listdir(os.path.dirname(path)) == ["calibration"], os.listdir(os.path.dirname(path)))
    # --print shows the stored figures without measuring; --json the same.
    j = ctx.stj("calibrate", "--print", "--json", "--output", path)
    expect(j["schema"] == "seektrace.calibration/1" and j["path"] == path and j["source"] == source,
           f"{j}")
    expect(all(j[k] == figures[k] for k in FIGURES_NS), f"{j} vs {figures}")
    expect("fit_read_ns" not in j, f"--print measured: {j}")
    out, _ = ctx.st("calibrate", "--print", "--output", path)
    expect(out.startswith("read syscall ") and source in out, out)
    # The default path: $XDG_CACHE_HOME, else $HOME/.cache.
    env["XDG_CACHE_HOME"] = os.path.join(d, "xdg")
    j = ctx.stj("calibrate", "--quick", "--json", env=env)
    expect(j["path"] == os.path.join(d, "xdg", "seektrace", "calibration"), j["path"])
    plausible(read_calibration(j["path"])[0], j["path"])
    expect(j["fit_read_ns"] > 0 and 0 <= j["interrupted"] <= 1 and j["seconds"] > 0, f"{j}")
    again = ctx.stj("calibrate", "--print", "--json", env=env)
    expect(all(again[k] == j[k] for k in FIGURES_NS), f"{again} vs {j}")
    del env["XDG_CACHE_HOME"]
    env["HOME"] = os.path.join(d, "home")
    _, err = ctx.st("calibrate", "--print", env=env, rc=2)
    expect(err.count("\n") == 1 and "no calibration at " + os.path.join(
        d, "home", ".cache", "seektrace", "calibration") in err, err)
    out, _ = ctx.st("calibrate", "--help")
    expect(out.startswith("usage: seektrace calibrate") and "Exit status" in out, out[:200])


def case_calibrate_errors(ctx):
    d = ctx.newdir("calibrate-errors")
    good = os.path.join(d, "good")
    ctx.st("calibrate", "--quick", "--output", good)
    with open(good) as fh:
        text = fh.read()
    bad = {
        "header": "seektrace-calibrashun 1\n" + text.split("\n", 1)[1],
        "version": text.replace("seektrace-calibration 1", "seektrace-calibration 2"),
        "negative": text.replace("read_ns ", "read_ns -"),
        "nan": "\n".join("byte_ns nan" if line.startswith("byte_ns") else line
                         for line in text.split("\n")),
        "missing": "\n".join(line for line in text.split("\n") if not line.startswith("lseek_ns")),
        "truncated": text[:-3],
        "empty": "",
        "binary": "\x7fELF\x02\x01\x01\x00" * 10,
    }
    for name, content in bad.items():
        p = os.path.join(d, name)
        with open(p, "w") as fh:
            fh.write(content)
        for args in (["--print"], ["--print", "--json"]):
            out, err = ctx.st("calibrate", *args, "--output", p, rc=2)
            lines = err.splitlines()
            expect(len(lines) == 1 and err.endswith("\n") and p in lines[0] and not out,
                   f"{name}: {err!r} {out!r}")
            expect(lines[0].startswith("seektrace calibrate: "), f"{name}: {err}")
    _, err = ctx.st("calibrate", "--print", "--output", os.path.join(d, "none"), rc=2)
    expect(len(err.splitlines()) == 1 and "run 'seektrace calibrate'" in err, err)
    # Paths that cannot be written: in /proc, below a regular file, a directory.
    for p in ("/proc/seektrace-calibration", os.path.join(good, "calibration"), d):
        out, err = ctx.st("calibrate", "--quick", "--output", p, rc=2)
        lines = err.splitlines()
        expect(len(lines) == 1 and f"cannot write {p}:" in lines[0] and not out, f"{p}: {err!r}")
    # No temporary file left, neither in d nor beside d (where saving to d tried).
    expect(sorted(os.listdir(d)) == sorted(["good", *bad]),
           f"left behind: {sorted(os.listdir(d))}")
    beside = [f for f in os.listdir(os.path.dirname(d)) if f.startswith(os.path.basename(d) + ".")]
    expect(not beside, f"left behind: {beside}")
    # The stored calibration was not touched by the failures.
    with open(good) as fh:
        expect(fh.read() == text, "the good file changed")
    for args in (["--frobnicate"], ["--print", "--quick"], ["--output"], ["extra"]):
        _, err = ctx.st("calibrate", *args, rc=2)
        expect(len(err.splitlines()) == 1 and "calibrate --help" in err, f"{args}: {err}")


def case_glibc_named(ctx):
    """Reports, traces and whatif name the glibc the process ran under, and
    whatif replays with that glibc's rules: the machine's own, and sid's
    (tests/glibc/fetch.sh, run through its loader), whose 2.42 rules differ."""
    runs = [([], os.confstr("CS_GNU_LIBC_VERSION").split()[-1])]
    sid = os.path.join(ctx.a.build, "glibc", "sid")
    if not os.path.exists(os.path.join(sid, ".complete")):
        raise Failure(f"no glibc in {sid}: run tests/glibc/fetch.sh {ctx.a.build}/glibc sid")
    with open(os.path.join(sid, ".version"), encoding="utf-8") as f:
        runs.append(([os.path.join(sid, "ld-linux-x86-64.so.2"), "--library-path", sid],
                     f.read().strip().split("-")[0]))
    for loader, version in runs:
        v = tuple(map(int, version.split(".")))
        rules = "2.42+" if v >= (2, 42) else "2.36-2.41" if v >= (2, 36) else "2.28-2.35"
        traces, reports, p = ctx.traced(loader + [ctx.a.demo, os.path.join(ctx.tmp, "d.dat"),
                                                  "--seeks", "200"], name="glibc")
        report = list(reports_in(reports).values())[0]
        expect(report["capture"] == "exact" and report.get("libc_version") == version,
               f"at-exit report under glibc {version}: {report['capture']}, "
               f"{report.get('libc_version')}")
        trace = traces_in(traces)[0]
        j = ctx.stj("report", "--json", trace)
        expect(j.get("libc_version") == version, f"report --json: {j.get('libc_version')}")
        out, _ = ctx.st("report", trace)
        expect(f"[capture: exact, glibc {version}]" in out.splitlines()[0], f"report: {out[:300]}")
        out, _ = ctx.st("whatif", trace)
        expect(f"stdio model: glibc {rules} rules" in out, f"whatif under {version}: {out[:400]}")
        expect(ctx.stj("whatif", "--json", trace).get("stdio_rules") == f"glibc {rules}",
               f"whatif --json under {version}")


CASES = {name[5:]: fn for name, fn in globals().items() if name.startswith("case_")}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for opt in ("seektrace", "lib", "demo", "crasher", "forker", "marks", "rewriter", "workloads",
                "source", "build"):
        ap.add_argument("--" + opt, required=True)
    ap.add_argument("--static")
    ap.add_argument("--preload-prefix", default="")
    ap.add_argument("case", choices=sorted(CASES))
    a = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="st-cli-") as tmp:
        try:
            CASES[a.case](Ctx(a, tmp))
        except Failure as e:
            print(f"FAIL {a.case}: {e}", file=sys.stderr)
            return 1
    print(f"ok {a.case}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
