#!/usr/bin/env python3
"""Resource limits the traced program lives under: its address space
(`ulimit -v`), its file size limit (`ulimit -f`), a full disk under the
trace, and file names longer than PATH_MAX.

usage: test_limits.py --lib LIB --bin DIR --seektrace CLI --demo DEMO CASE [--keep]

DIR holds rl_vmsize. Each CASE prints what it checked and exits 0 (pass),
1 (fail) or 77 (skipped: a tool is missing, or the case cannot be tested
here). docs/reliability.md says what each case guarantees.
"""
import argparse
import collections
import glob
import json
import os
import random
import re
import resource
import shutil
import struct
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rl_common as rl  # noqa: E402

PY = "/usr/bin/python3"
# What the library may add to a process's address space (VmSize), kB.
DEFAULT_MAX_KB = 2048
TRACED_MAX_KB = 3072


class Ctx:
    def __init__(self, args):
        self.lib = os.path.realpath(args.lib)
        self.bin = os.path.realpath(args.bin)
        self.cli = os.path.realpath(args.seektrace)
        self.demo = os.path.realpath(args.demo)
        self.root = rl.tmpdir("seektrace-limits-")
        self.keep = args.keep
        self.n = 0

    def fresh(self, name):
        self.n += 1
        p = os.path.join(self.root, f"{name}-{self.n}")
        os.makedirs(p)
        return p

    def data(self, name, size, seed=7):
        """A file of text lines, generated here."""
        p = os.path.join(self.root, name)
        rnd = random.Random(seed)
        with open(p, "w") as f:
            n = 0
            while n < size:
                line = "%08d %s\n" % (rnd.randrange(10 ** 8), "x" * rnd.randrange(60))
                f.write(line)
                n += len(line)
        return p


def sanitized():
    """An ASan runtime preloaded first reserves terabytes of shadow memory:
    address-space limits cannot be tested there."""
    if os.environ.get("SEEKTRACE_TEST_PRELOAD_PREFIX"):
        print("SKIP: a sanitized build preloads ASan, whose shadow memory fills the address space")
        return True
    return False


def limited(kb=None, fsize=None):
    """preexec_fn: RLIMIT_AS of kb kB and/or RLIMIT_FSIZE of fsize bytes."""
    def apply():
        if kb is not None:
            resource.setrlimit(resource.RLIMIT_AS, (kb * 1024, kb * 1024))
        if fsize is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))
    return apply


def run(argv, env, cwd, kb=None, fsize=None, preexec=None):
    return subprocess.run(argv, env=env, cwd=cwd, capture_output=True, timeout=60,
                          stdin=subprocess.DEVNULL, preexec_fn=preexec or limited(kb, fsize))


def lowest_limit(ctx, argv, ok, hi):
    """The smallest RLIMIT_AS (kB, to 64 kB; at most hi) under which the
    plain program still runs as it does unlimited (ok(result) true)."""
    env, cwd = rl.clean_env(), ctx.fresh("cwd")
    lo = 1024
    if not ok(run(argv, env, cwd, kb=hi)):
        raise rl.Failure(f"{argv}: fails plainly even with a {hi} kB address space")
    while hi - lo > 64:
        mid = (lo + hi) // 2
        if ok(run(argv, env, cwd, kb=mid)):
            hi = mid
        else:
            lo = mid
    return hi


def report_of(report_dir):
    reports = rl.load_reports(report_dir)
    if len(reports) != 1:
        raise rl.Failure(f"{len(reports)} reports in {report_dir}, expected 1")
    return reports[0]


def file_row(report, path):
    rows = [f for f in report["files"] if f["path"] == path]
    if len(rows) != 1:
        raise rl.Failure(f"report of pid {report['pid']}: {len(rows)} rows for {path}: "
                         f"{[f['path'] for f in report['files']]}")
    return rows[0]


# --- address space ------------------------------------------------------------

def vmsize(ctx, traced):
    """What the preload adds to VmSize after the program's own I/O."""
    if sanitized():
        return None
    data = ctx.data("vmsize.txt", 200000)
    argv = [os.path.join(ctx.bin, "rl_vmsize"), data]

    def kb(result, label):
        m = re.fullmatch(rb"vmsize_kb (\d+)\n", result.stdout)
        if result.returncode != 0 or not m:
            raise rl.Failure(f"{label}: {rl.status_text(result.returncode)}, "
                             f"stdout {result.stdout!r}, stderr {result.stderr[-300:]!r}")
        return int(m[1])

    plain = kb(rl.run(argv, rl.clean_env(), cwd=ctx.fresh("cwd")), "plain")
    extra = {"SEEKTRACE_TRACE": ctx.fresh("traces")} if traced else {}
    pre = kb(rl.run(argv, rl.preload_env(ctx.lib, ctx.fresh("reports"), extra),
                    cwd=ctx.fresh("cwd")), "preloaded")
    limit = TRACED_MAX_KB if traced else DEFAULT_MAX_KB
    print(f"VmSize: {plain} kB plain, {pre} kB with seektrace{' and a trace' if traced else ''}: "
          f"{pre - plain} kB added (at most {limit} kB)")
    return [] if pre - plain <= limit else [
        f"seektrace adds {pre - plain} kB of address space, more than {limit} kB"]


def ulimit_v_sort(ctx):
    """sort under the lowest `ulimit -v` it runs in plainly, plus what the
    library may add: same output, status and a whole report."""
    if sanitized():
        return None
    data = ctx.data("big.txt", 4 << 20)
    argv = ["sort", "-S", "1M", data]
    want = subprocess.run(argv, capture_output=True, env=rl.clean_env(), check=True).stdout
    limit = lowest_limit(ctx, argv, lambda r: r.returncode == 0 and r.stdout == want, 1 << 16)
    reports = ctx.fresh("reports")
    pre = run(argv, rl.preload_env(ctx.lib, reports), ctx.fresh("cwd"),
              kb=limit + DEFAULT_MAX_KB)
    print(f"sort -S 1M runs plainly in {limit} kB; with seektrace in {limit + DEFAULT_MAX_KB} kB: "
          f"{rl.status_text(pre.returncode)}, stderr {pre.stderr[-200:]!r}")
    problems = []
    if pre.returncode != 0 or pre.stdout != want:
        return [f"sort with seektrace under ulimit -v {limit + DEFAULT_MAX_KB}: "
                f"{rl.status_text(pre.returncode)}, output {'same' if pre.stdout == want else 'differs'}"]
    row = file_row(report_of(reports), data)
    if row["kernel_read_bytes"] != os.path.getsize(data):
        problems.append(f"report: {row['kernel_read_bytes']} bytes read of {data}, "
                        f"which has {os.path.getsize(data)}")
    return problems


def ulimit_v_traced(ctx):
    """Python allocating 64 MiB under the lowest `ulimit -v` it runs in
    plainly, plus what the library with a trace may add: it still runs, and
    the trace is complete."""
    if sanitized():
        return None
    argv = [PY, "-c", "b = bytearray(64 * 2**20); print(len(b))"]
    want = b"67108864\n"
    limit = lowest_limit(ctx, argv, lambda r: r.returncode == 0 and r.stdout == want, 1 << 18)
    traces, reports = ctx.fresh("traces"), ctx.fresh("reports")
    pre = run(argv, rl.preload_env(ctx.lib, reports, {"SEEKTRACE_TRACE": traces}),
              ctx.fresh("cwd"), kb=limit + TRACED_MAX_KB)
    print(f"python3 runs plainly in {limit} kB; with seektrace and a trace in "
          f"{limit + TRACED_MAX_KB} kB: {rl.status_text(pre.returncode)}, "
          f"stderr {pre.stderr[-300:]!r}")
    if pre.returncode != 0 or pre.stdout != want:
        return [f"python3 with a trace under ulimit -v {limit + TRACED_MAX_KB}: "
                f"{rl.status_text(pre.returncode)}, stdout {pre.stdout!r}"]
    rep = subprocess.run([ctx.cli, "report", "--json", traces], capture_output=True, timeout=60)
    j = json.loads(rep.stdout) if rep.returncode == 0 else {}
    if rep.returncode != 0 or "trace" in j:
        return [f"the trace is not complete: {rep.returncode} {rep.stderr[-300:]!r} "
                f"{j.get('trace')}"]
    return []


# --- memory over time ---------------------------------------------------------

CHURN_ROUNDS = 4000
# What resident memory may still move by between the half-way point and the
# end of a run with constant work (the kernel's own rounding, a page or two).
CHURN_SLACK_KB = 64


def churn_files(ctx, n, name):
    d = os.path.join(ctx.root, name)
    os.makedirs(d)
    for i in range(n):
        with open(os.path.join(d, f"f{i}"), "w") as f:
            f.write("%08d\n" % i * (20 + 7 * i))
    return d


def churn_rss(result, label):
    m = re.fullmatch(rb"rss_kb_half (\d+)\nrss_kb_last (\d+)\n", result.stdout)
    if result.returncode != 0 or not m:
        raise rl.Failure(f"{label}: {rl.status_text(result.returncode)}, "
                         f"stdout {result.stdout!r}, stderr {result.stderr[-300:]!r}")
    return int(m[1]), int(m[2])


def churn_constant(ctx):
    """A daemon's constant work: the same 10 files opened, read and closed
    (stdio and POSIX) 4,000 times. Its resident memory at the end is what it
    was half way (no more than the plain program's own drift plus a page or
    two), and the report still counts every call."""
    if os.environ.get("SEEKTRACE_TEST_PRELOAD_PREFIX"):
        # A preloaded ASan allocator keeps every freed block in quarantine
        # (256 MB): resident memory grows with the program's own fopen and
        # fclose. The UBSan-only tree runs this case (label asan-skip).
        print("SKIP: ASan's allocator quarantines freed memory; resident size says nothing here")
        return None
    d = churn_files(ctx, 10, "churn")
    argv = [os.path.join(ctx.bin, "rl_churn"), d, str(CHURN_ROUNDS), "10"]
    p_half, p_last = churn_rss(rl.run(argv, rl.clean_env(), cwd=ctx.fresh("cwd")), "plain")
    reports = ctx.fresh("reports")
    half, last = churn_rss(rl.run(argv, rl.preload_env(ctx.lib, reports), cwd=ctx.fresh("cwd")),
                           "preloaded")
    allowed = max(p_last - p_half, 0) + CHURN_SLACK_KB
    print(f"resident memory half way / at the end: plain {p_half} / {p_last} kB, "
          f"with seektrace {half} / {last} kB (growth allowed: {allowed} kB)")
    problems = []
    if last - half > allowed:
        problems.append(f"with seektrace resident memory grew by {last - half} kB over the "
                        f"second {CHURN_ROUNDS // 2} rounds of constant work")
    report = report_of(reports)
    for i in range(10):
        row = file_row(report, os.path.join(d, f"f{i}"))
        size = os.path.getsize(os.path.join(d, f"f{i}"))
        for call in ("fopen", "fclose", "fseek", "open"):
            if row["calls"].get(call) != CHURN_ROUNDS:
                problems.append(f"f{i}: {row['calls'].get(call)} {call} calls counted, "
                                f"{CHURN_ROUNDS} made")
        # The POSIX loop reads the whole file once a round, and the stdio one
        # once with its buffer (which holds the file whole) and again after
        # fseek to 0: three times the file a round.
        if row["kernel_read_bytes"] != 3 * size * CHURN_ROUNDS:
            problems.append(f"f{i}: {row['kernel_read_bytes']} kernel bytes counted, "
                            f"{3 * size * CHURN_ROUNDS} read")
    return problems


# A process reading many files once each (grep -r, a compiler): what the
# library keeps per file it has opened, read and closed (issue 21's bound),
# measured over the second half of the files; the rows asked for.
MANY_FILES = 4000
MANY_ROWS = 100
PER_FILE_BYTES = 512


def many_dir(ctx):
    """MANY_FILES files of 27 to 468 bytes: a buffer reads each whole."""
    d = os.path.join(ctx.root, "many")
    os.makedirs(d)
    for i in range(MANY_FILES):
        with open(os.path.join(d, f"f{i}"), "w") as f:
            f.write("%08d\n" % i * (3 + i % 50))
    return d


def many_files(ctx):
    """rl_churn reading 4,000 files once (stdio and POSIX, 7 call sites a
    file) with 100 rows: closed files past the rows are folded as they close
    (fold.h). Resident memory over the second 2,000 files grows by at most
    the plain program's growth plus 512 bytes a file, where a run that keeps
    every file (SEEKTRACE_REPORT_FILES=all) grows by more (so the measure
    can fail). The report stays exact: its totals equal strace's over the
    files and statm, its 100 rows are the full run's first 100, and
    other_files counts and sums the rest."""
    if os.environ.get("SEEKTRACE_TEST_PRELOAD_PREFIX"):
        print("SKIP: ASan's allocator quarantines freed memory; resident size says nothing here")
        return None
    d = many_dir(ctx)
    argv = [os.path.join(ctx.bin, "rl_churn"), d, "1", str(MANY_FILES)]
    p_half, p_last = churn_rss(rl.run(argv, rl.clean_env(), cwd=ctx.fresh("cwd")), "plain")
    allowed = max(p_last - p_half, 0) + PER_FILE_BYTES * MANY_FILES // 2 // 1024
    problems = []

    def preloaded(rows, log=None):
        reports = ctx.fresh("reports")
        env = rl.preload_env(ctx.lib, reports, {"SEEKTRACE_REPORT_FILES": rows})
        if log:
            tracee = {k: v for k, v in env.items() if os.environ.get(k) != v}
            r = rl.strace_run(log, tracee, argv, cwd=ctx.fresh("cwd"), timeout=120)
        else:
            r = rl.run(argv, env, cwd=ctx.fresh("cwd"), timeout=120)
        half, last = churn_rss(r, f"rows {rows}")
        return last - half, report_of(reports)

    log = os.path.join(ctx.root, "many.strace")
    grown_all, full = preloaded("all")
    grown, bounded = preloaded(str(MANY_ROWS), log)
    print(f"second half of {MANY_FILES} files: plain +{p_last - p_half} kB, with seektrace "
          f"+{grown} kB (allowed {allowed} kB), keeping every file +{grown_all} kB")
    if grown > allowed:
        problems.append(f"resident memory grew by {grown} kB over {MANY_FILES // 2} files "
                        f"(at most {allowed} kB: {PER_FILE_BYTES} bytes a file)")
    if grown_all <= allowed:
        problems.append(f"keeping every file grew by only {grown_all} kB: the bound "
                        f"of {allowed} kB cannot tell folding from keeping")
    want = collections.Counter()
    for (pid, path), fig in rl.parse_strace(log).items():
        if path and (path.startswith(d + "/") or path.endswith("/statm")):
            want.update(fig)
    for fig in rl.KERNEL_FIGURES:
        if bounded["totals"][fig] != want[fig]:
            problems.append(f"totals.{fig}: seektrace={bounded['totals'][fig]} strace={want[fig]}")
    data = [f for f in bounded["files"] if f["path"].startswith(d + "/")]
    full_data = [f for f in full["files"] if f["path"].startswith(d + "/")]
    if len(data) != MANY_ROWS or data != full_data[:MANY_ROWS]:
        problems.append(f"{len(data)} rows of data files, not the full report's first {MANY_ROWS}")
    other = bounded.get("other_files", {})
    # Data files, statm (opened twice, 2,000 files apart: two records) and
    # stdout, which rl_churn writes its figures to.
    if other.get("files") != MANY_FILES - MANY_ROWS + 3:
        problems.append(f"other_files.files {other.get('files')}, expected "
                        f"{MANY_FILES - MANY_ROWS + 3}")
    for call in ("fopen", "open"):
        if other.get("calls", {}).get(call, 0) + sum(f["calls"].get(call, 0) for f in data) \
                < MANY_FILES:
            problems.append(f"{call}: fewer than {MANY_FILES} calls counted")
    # The text report says where the rest are: not all in a JSON report.
    reports = ctx.fresh("reports")
    env = rl.preload_env(ctx.lib, reports, {"SEEKTRACE_REPORT_FILES": str(MANY_ROWS)}, fmt="text")
    churn_rss(rl.run(argv, env, cwd=ctx.fresh("cwd"), timeout=120), "text")
    with open(os.path.join(reports, os.listdir(reports)[0]), encoding="utf-8") as fh:
        text = fh.read()
    if "more files (SEEKTRACE_FORMAT=json lists the worst, SEEKTRACE_REPORT_FILES=all" \
            not in text:
        problems.append("the text report does not say the JSON report lists only the worst: "
                        + "".join(ln for ln in text.splitlines(True) if "more file" in ln))
    return problems


def report_rows(ctx):
    """`cat` of 300 files. JSON with SEEKTRACE_REPORT_FILES=50: the 50 worst
    rows exactly as a report listing every file has them, then only rows of
    that report the findings may name (report_select.h: the most read file,
    a hint rule's first), the other files' counts summed exactly in
    other_files, the same totals. By default (1000
    rows) every file is listed and there is no other_files. The text report
    counts the files it does not show."""
    d = churn_files(ctx, 300, "rows")
    paths = [os.path.join(d, f"f{i}") for i in range(300)]
    argv = ["cat"] + paths

    def report(extra, fmt="json"):
        reports = ctx.fresh("reports")
        env = rl.preload_env(ctx.lib, reports, extra, fmt=fmt)
        r = rl.run(argv, env, cwd=ctx.fresh("cwd"))
        if r.returncode != 0:
            raise rl.Failure(f"cat: {rl.status_text(r.returncode)} {r.stderr[-300:]!r}")
        if fmt == "text":
            names = os.listdir(reports)
            with open(os.path.join(reports, names[0]), encoding="utf-8") as f:
                return f.read()
        return report_of(reports)

    def rows(rep):
        """Rows with each run's own pipes (the captured output) named alike."""
        return [dict(f, path=re.sub(r"pipe:\[\d+\]", "pipe", f["path"])) for f in rep["files"]]

    full = report({"SEEKTRACE_REPORT_FILES": "all"})
    bounded = report({"SEEKTRACE_REPORT_FILES": "50"})
    default = report({})
    text = report({}, fmt="text")
    problems = []
    data_bytes = sum(f["kernel_read_bytes"] for f in full["files"] if f["path"] in paths)
    if data_bytes != sum(os.path.getsize(p) for p in paths):
        problems.append(f"full report: {data_bytes} kernel bytes of the 300 files, "
                        f"{sum(os.path.getsize(p) for p in paths)} in them")
    n = len(full["files"])
    print(f"{n} files in the full report; bounded: {len(bounded['files'])} rows, other_files "
          f"{bounded.get('other_files', {}).get('files')}")
    kept, rest = rows(bounded), rows(full)[50:]
    if kept[:50] != rows(full)[:50]:
        problems.append("the 50 rows kept are not the full report's first 50")
    for f in kept[50:]:
        if f in rest:
            rest.remove(f)
    if len(rest) + len(kept) != n or len(kept) > 50 + 5:
        problems.append(f"rows past the 50 worst that the full report has not, or more than "
                        f"the findings can name: {[f['path'] for f in kept[50:]]}")
    other = bounded.get("other_files")
    if not other or other["files"] != n - len(kept):
        problems.append(f"other_files {other and other['files']}, expected {n - len(kept)} files")
    else:
        # The device figures are the process's, not a sum of files (storage.md).
        counted = [k for k in full["totals"]
                   if k not in ("amplification", "write_amplification", "calls", "by_call")
                   and not k.startswith("device_")]
        for key in counted:
            if other[key] != sum(f[key] for f in rest):
                problems.append(f"other_files.{key} {other[key]}, the rest sum to "
                                f"{sum(f[key] for f in rest)}")
        for call in other["by_call"]:
            for key, value in other["by_call"][call].items():
                want = sum(f["by_call"].get(call, {}).get(key, 0) for f in rest)
                if value != want:
                    problems.append(f"other_files.by_call.{call}.{key} {value}, the rest: {want}")
    def files_only(totals):  # two runs: their device figures may differ
        return {k: v for k, v in totals.items() if not k.startswith("device_")}
    if files_only(bounded["totals"]) != files_only(full["totals"]):
        problems.append("totals differ between the bounded and the full report")
    if "other_files" in default or rows(default) != rows(full):
        problems.append(f"by default a report of {n} files does not list them all")
    want = f"  ... and {n - 10} more files (SEEKTRACE_FORMAT=json lists all)\n"
    if want not in text:
        problems.append(f"the text report lacks {want!r}")
    return problems


def peak_run(argv, env, cwd, out_path):
    """Runs argv with stdout to out_path (stderr beside it); its own peak
    resident size, kB: wait4's ru_maxrss of that child alone (the
    test's other children do not count)."""
    with open(out_path, "wb") as out, open(out_path + ".err", "wb") as err:
        p = subprocess.Popen(argv, env=env, cwd=cwd, stdin=subprocess.DEVNULL, stdout=out,
                             stderr=err)
        _, status, ru = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        with open(out_path + ".err", "rb") as f:
            raise rl.Failure(f"{argv[0]}: {rl.status_text(p.returncode)} {f.read()[-300:]!r}")
    return ru.ru_maxrss


# What the exit report of a traced process may add to its resident size,
# what `seektrace report` may use beyond its report of one file, and what
# its JSON report (the worst 1000 rows) may grow by from MANY_FILES / 2
# files to MANY_FILES: bounds that do not grow with the files, or by 64
# bytes a file (the exit's ranks), 512 (the footer's bytes, read whole)
# (issue 21). Keeping a full row per file (counts by call, streams, 7
# sites) took about 16 KiB a file.
TRACED_EXIT_KB = 2048 + MANY_FILES * 64 // 1024
REPORT_KB = 4096
JSON_GROWTH_KB = 2048 + MANY_FILES // 2 * 512 // 1024
# What `seektrace check` and `export` may grow by from MANY_FILES / 2 files
# to MANY_FILES: 1 KiB a file (the footer's bytes; a JUnit test case's
# name; export's definitions: a file's path and objects, about 600 bytes).
STREAM_GROWTH_KB = 2048 + MANY_FILES // 2 * 1024 // 1024


def many_files_traced(ctx):
    """rl_churn reading 4,000 files once (7 call sites a file), traced. Its
    trace's footer lists every file, yet the process folds closed files
    past the report's 1000 rows as it does untraced (fold.h: their rows go
    into the trace's rows chunks as they fold): its resident memory over
    the second 2,000 files grows by at most the plain program's growth plus
    PER_FILE_BYTES a file (it kept every file before, about 16 KiB each).
    Neither the process's exit (text report) nor `seektrace report` of the
    trace (text, and JSON: the worst 1000 rows) holds a row per file: the
    exit adds at most TRACED_EXIT_KB to what the process held before it,
    the command's text report peaks at most REPORT_KB over its report of a
    one-file trace, its JSON report grows by at most JSON_GROWTH_KB from
    2,000 files. The reports stay exact: the bounded JSON's totals are the
    full one's (--full) and those of the accounts rebuilt from the events
    (--from-events), its rows the full one's first 1000 (and the few the
    findings may name), other_files counts the rest. `seektrace check`
    (text, JSON, JUnit, SARIF) and `seektrace export` (ClickHouse rows, CSV)
    judge and write the files one by one as the footer is decoded: they
    grow by at most STREAM_GROWTH_KB from 2,000 files, and check every
    file, export a row for each."""
    if os.environ.get("SEEKTRACE_TEST_PRELOAD_PREFIX"):
        print("SKIP: ASan's allocator quarantines freed memory; resident size says nothing here")
        return None
    d = many_dir(ctx)
    problems = []
    argv = [os.path.join(ctx.bin, "rl_churn"), d, "1", str(MANY_FILES)]
    p_half, p_last = churn_rss(rl.run(argv, rl.clean_env(), cwd=ctx.fresh("cwd")), "plain")
    allowed = max(p_last - p_half, 0) + PER_FILE_BYTES * MANY_FILES // 2 // 1024
    grown = {}

    def traced(n):
        traces, reports = ctx.fresh("traces"), ctx.fresh("reports")
        env = rl.preload_env(ctx.lib, reports, {"SEEKTRACE_TRACE": traces,
                                                "SEEKTRACE_SYMBOLIZE": "later"}, fmt="text")
        out = os.path.join(ctx.fresh("out"), "stdout")
        peak = peak_run([os.path.join(ctx.bin, "rl_churn"), d, "1", str(n)], env,
                        ctx.fresh("cwd"), out)
        with open(out, "rb") as f:
            half, last = churn_rss(subprocess.CompletedProcess([], 0, f.read()), f"traced {n}")
        grown[n] = last - half
        names = [x for x in os.listdir(traces) if x.endswith(".sktrace")]
        if len(names) != 1:
            raise rl.Failure(f"{len(names)} traces in {traces}, expected 1")
        return peak, last, os.path.join(traces, names[0])

    def command(*args):
        out = os.path.join(ctx.fresh("out"), "stdout")
        return peak_run([ctx.cli, *args], rl.clean_env(), ctx.fresh("cwd"), out), out

    def report(trace, *opts):
        peak, out = command("report", *opts, trace)
        with open(out, encoding="utf-8") as f:
            return peak, f.read()

    peak, last, trace = traced(MANY_FILES)
    _, _, half = traced(MANY_FILES // 2)
    floor, _, small = traced(1)
    # A child's peak starts at what the test held when it forked (the
    # floor, about 15 MB): what the exit adds shows only above it.
    exit_kb = max(peak - max(last, floor), 0)
    print(f"second half of {MANY_FILES} files: plain +{p_last - p_half} kB, traced "
          f"+{grown[MANY_FILES]} kB (allowed {allowed} kB)")
    if grown[MANY_FILES] > allowed:
        problems.append(f"traced, resident memory grew by {grown[MANY_FILES]} kB over "
                        f"{MANY_FILES // 2} files (at most {allowed} kB: {PER_FILE_BYTES} bytes "
                        f"a file)")
    # First, and the outputs left in their files, while the test is small:
    # a child's peak counts what the test held when it forked.
    streamed = {}
    for args in (("check", "--max-amplification", "1000"),
                 ("check", "--max-amplification", "1000", "--format", "json"),
                 ("check", "--max-amplification", "1000", "--format", "junit"),
                 ("check", "--max-amplification", "1000", "--format", "sarif"),
                 ("export", "--format", "clickhouse"), ("export", "--format", "csv")):
        half_kb, _ = command(*args, half)
        all_kb, streamed[args[-1]] = command(*args, trace)
        print(f"seektrace {' '.join(args)}: {half_kb} kB for {MANY_FILES // 2} files, {all_kb} kB "
              f"for {MANY_FILES} (at most {half_kb + STREAM_GROWTH_KB})")
        if all_kb > half_kb + STREAM_GROWTH_KB:
            problems.append(f"seektrace {' '.join(args)} peaked at {all_kb} kB for {MANY_FILES} "
                            f"files, over {STREAM_GROWTH_KB} kB more than for {MANY_FILES // 2} "
                            f"({half_kb} kB)")
    # Measured before any report is read in: a child's peak counts the
    # test's own high-water mark when it forks, and reading the 17 MB JSON
    # of the half trace first would be the full trace's measure.
    small_kb, _ = command("report", small)
    text_kb, text_out = command("report", trace)
    half_kb, _ = command("report", "--json", half)
    json_kb, bounded_out = command("report", "--json", trace)
    full_kb, full_out = command("report", "--json", "--full", trace)
    with open(text_out, encoding="utf-8") as f:
        text = f.read()
    with open(bounded_out, encoding="utf-8") as f:
        bounded = f.read()
    with open(full_out, encoding="utf-8") as f:
        full = f.read()
    print(f"traced exit: +{exit_kb} kB (at most {TRACED_EXIT_KB}); seektrace report: one file "
          f"{small_kb} kB, {MANY_FILES} files {text_kb} kB (at most {small_kb + REPORT_KB}); "
          f"--json {half_kb} kB for {MANY_FILES // 2} files, {json_kb} kB for {MANY_FILES} (at "
          f"most {half_kb + JSON_GROWTH_KB}), --json --full {full_kb} kB")
    if exit_kb > TRACED_EXIT_KB:
        problems.append(f"the traced process's exit added {exit_kb} kB, more than "
                        f"{TRACED_EXIT_KB} kB")
    if text_kb > small_kb + REPORT_KB:
        problems.append(f"seektrace report of {MANY_FILES} files peaked at {text_kb} kB, over "
                        f"{REPORT_KB} kB more than of one file ({small_kb} kB)")
    if json_kb > half_kb + JSON_GROWTH_KB:
        problems.append(f"seektrace report --json peaked at {json_kb} kB for {MANY_FILES} files, "
                        f"over {JSON_GROWTH_KB} kB more than for {MANY_FILES // 2} ({half_kb} kB)")
    if full_kb <= json_kb + JSON_GROWTH_KB:
        problems.append(f"--json --full, every row, peaked at only {full_kb} kB: the bound "
                        f"cannot tell keeping the rows printed from keeping every row")
    bounded, full = json.loads(bounded), json.loads(full)
    kept = bounded["files"]
    n = len(full["files"])
    if bounded["totals"] != full["totals"]:
        problems.append("the bounded report's totals are not the full report's")
    _, events = report(trace, "--json", "--from-events")
    if json.loads(events)["totals"] != full["totals"]:
        problems.append("the totals of the accounts rebuilt from the events are not the footer's")
    problems += damaged_rows(ctx, half)
    if kept[:1000] != full["files"][:1000] or len(kept) > 1000 + 5 or \
            any(f not in full["files"][1000:] for f in kept[1000:]):
        problems.append(f"{len(kept)} rows kept, not the full report's first 1000 (and the "
                        f"rows the findings name)")
    if bounded.get("other_files", {}).get("files") != n - len(kept):
        problems.append(f"other_files.files {bounded.get('other_files', {}).get('files')}, "
                        f"expected {n - len(kept)}")
    want = f"more files (--top N shows more, --json lists the worst 1000, --json --full every one)"
    if want not in text:
        problems.append(f"the text report lacks {want!r}")
    paths = sorted(f["path"] for f in full["files"])
    with open(streamed["json"], encoding="utf-8") as f:
        checked = json.load(f)
    if checked["checked"]["processes"] != 1 or checked["checked"]["files"] != n or \
            not checked["passed"]:
        problems.append(f"check --format json checked {checked['checked']}, not the {n} files")
    with open(streamed["junit"], encoding="utf-8") as f:
        cases = sum(line.lstrip().startswith("<testcase ") for line in f)
    # A file folded, then opened again (/proc/PID/statm, read half way and
    # at the end), is two rows of one path (trace-files.md): one test case.
    if cases != len(set(paths)):
        problems.append(f"check --format junit: {cases} test cases, not one for each of "
                        f"{len(set(paths))} paths")
    rows, table = [], None
    with open(streamed["clickhouse"], encoding="utf-8") as f:
        for line in f:
            if line.startswith("INSERT INTO"):
                table = line.split(" ")[2]
            elif table == "seektrace.files" and line.strip():
                rows.append(json.loads(line)["path"])
    rows.sort()
    if rows != paths:
        problems.append(f"export --format clickhouse: {len(rows)} file rows, not the {n} files")
    return problems


def damaged_rows(ctx, trace):
    """A byte of a rows chunk (the rows of files folded while traced,
    trace_format.h) changed: `seektrace report` says so on one line and
    exits 2."""
    with open(trace, "rb") as f:
        data = bytearray(f.read())
    header_size, chunk_size = struct.unpack_from("<II", data, 16)
    chunks, _, footer = struct.unpack_from("<QQQ", data, 88)
    rows = [i for i in range(chunks) if header_size + (i + 1) * chunk_size <= footer and
            struct.unpack_from("<I", data, header_size + i * chunk_size + 20)[0] & 1]
    if not rows:
        return [f"{trace}: no rows chunk, though the process folded files"]
    data[header_size + rows[0] * chunk_size + 40] ^= 0x55
    bad = os.path.join(ctx.fresh("damaged"), "rows.sktrace")
    with open(bad, "wb") as f:
        f.write(data)
    p = subprocess.run([ctx.cli, "report", bad], capture_output=True, timeout=60)
    err = p.stderr.decode(errors="replace")
    print(f"a rows chunk damaged: exit {p.returncode}, {err.strip()}")
    if p.returncode != 2 or f"corrupt rows chunk {rows[0]}" not in err or err.count("\n") != 1:
        return [f"a damaged rows chunk: exit {p.returncode}, stderr {err!r}"]
    return []


# --- the trace file's own limits -------------------------------------------------

def demo_argv(ctx):
    """The demo with 50,000 seeks (about 1.7 MB of trace events), its 4 MiB
    file made beforehand, without limits."""
    data = os.path.join(ctx.root, "demo.dat")
    subprocess.run([ctx.demo, data, "--seeks", "0"], check=True, capture_output=True)
    return [ctx.demo, data, "--seeks", "50000"]


def same_behaviour(label, plain, pre):
    """Identical status and stdout; stderr the same but for the library's
    warnings (a trace that could not be finished says so)."""
    warned = b"".join(line for line in pre.stderr.splitlines(keepends=True)
                      if not line.startswith(b"seektrace: warning: "))
    print(f"{label}: plain {rl.status_text(plain.returncode)}, "
          f"with seektrace {rl.status_text(pre.returncode)}, stderr {pre.stderr[-300:]!r}")
    if plain.returncode != 0:
        return [f"{label} fails plainly: {plain.stderr[-300:]!r}"]
    return rl.diff_behaviour(label, plain, subprocess.CompletedProcess(
        pre.args, pre.returncode, pre.stdout, warned))


def stop_reported(ctx, traces, name, words):
    """seektrace report on the stopped trace says why, in text and JSON."""
    problems = []
    text = subprocess.run([ctx.cli, "report", traces], capture_output=True, timeout=60)
    js = subprocess.run([ctx.cli, "report", "--json", traces], capture_output=True, timeout=60)
    note = text.stderr.decode(errors="replace")
    print(f"report says: {note.strip()}")
    if text.returncode != 0 or words not in note or "size cap" in note:
        problems.append(f"report does not say '{words}': {text.returncode} {note!r}")
    j = json.loads(js.stdout) if js.returncode == 0 else {}
    if j.get("trace", {}).get("stopped") != name:
        problems.append(f"report --json: trace {j.get('trace')}, expected stopped={name!r}")
    return problems


def trace_no_space(ctx):
    """The trace's directory is a 512 KiB tmpfs: the disk fills up under a
    program that traces a few MB of events."""
    if os.geteuid() != 0 or not shutil.which("unshare"):
        print("SKIP: mounting a small tmpfs needs root and unshare(1); ENOSPC not tested")
        return None
    mnt, traces = ctx.fresh("mnt"), ctx.fresh("traces")
    probe = subprocess.run(["unshare", "-m", "--propagation", "private", "sh", "-c",
                            'mount -t tmpfs -o size=512k none "$1"', "sh", mnt],
                           capture_output=True)
    if probe.returncode != 0:
        print(f"SKIP: cannot mount a tmpfs here ({probe.stderr.decode().strip()}); "
              "ENOSPC not tested")
        return None
    # Inside a private mount namespace: mount, run the demo (alone with the
    # preload), copy its trace out.
    wrapper = ["unshare", "-m", "--propagation", "private", "sh", "-c",
               'm=$1; o=$2; shift 2; mount -t tmpfs -o size=512k none "$m" || exit 99; '
               '"$@"; s=$?; cp -p "$m"/*.sktrace "$o"/; exit $s', "sh", mnt, traces]
    argv = demo_argv(ctx)
    cwd = ctx.fresh("cwd")
    plain = run(argv, rl.clean_env(), cwd)
    env = rl.preload_env(ctx.lib, ctx.fresh("reports"), {"SEEKTRACE_TRACE": mnt})
    pre = subprocess.run(wrapper + ["env"] + [f"{k}={v}" for k, v in env.items()] + argv,
                         env=rl.clean_env(), cwd=cwd, capture_output=True, timeout=60,
                         stdin=subprocess.DEVNULL)
    problems = same_behaviour("demo, traced on a full tmpfs", plain, pre)
    if problems:
        return problems
    if len(os.listdir(traces)) != 1:
        return [f"no trace left on the tmpfs: {os.listdir(traces)}"]
    return stop_reported(ctx, traces, "no_space", "the disk was full")


def trace_file_size_limit(ctx):
    """`ulimit -f 100` (102,400 bytes) under a program that traces more:
    the program is not killed by SIGXFSZ, and the trace says why it
    stopped."""
    traces, argv, cwd = ctx.fresh("traces"), demo_argv(ctx), ctx.fresh("cwd")
    fsize = 100 * 1024
    plain = run(argv, rl.clean_env(), cwd, fsize=fsize)
    pre = run(argv, rl.preload_env(ctx.lib, ctx.fresh("reports"), {"SEEKTRACE_TRACE": traces}),
              cwd, fsize=fsize)
    problems = same_behaviour("demo under ulimit -f 100", plain, pre)
    if problems:
        return problems
    return stop_reported(ctx, traces, "file_size_limit", "file size limit")


# --- names longer than PATH_MAX --------------------------------------------------

COMPONENT = "d" * 200


def deep_dir(root, depth=25):
    """root/d.../d... (depth components of 200 bytes: past PATH_MAX), made
    relative to each parent, since no single name reaches it."""
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    for _ in range(depth):
        os.mkdir(COMPONENT, dir_fd=fd)
        nfd = os.open(COMPONENT, os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
        os.close(fd)
        fd = nfd
    return fd


def strace_openings(log, names):
    """{name: {read_syscalls, kernel_read_bytes}} for each name openat'd in
    the log, counting reads on its descriptor until it is closed."""
    call = re.compile(r"\d+\s+(\w+)\((.*)\)\s+=\s+(-?\d+)")
    out, open_fd = {}, {}
    with open(log, encoding="utf-8", errors="surrogateescape") as f:
        for line in f:
            m = call.match(line)
            if not m:
                continue
            name, args, ret = m[1], m[2], int(m[3])
            fd = re.match(r"(-?\d+|AT_FDCWD)", args)[1]
            if name == "openat":
                opened = re.search(r'"([^"]*)"', args)[1]
                if ret >= 0 and opened in names:
                    open_fd[ret] = opened
                    out[opened] = {"read_syscalls": 0, "kernel_read_bytes": 0}
            elif name == "close":
                open_fd.pop(int(fd), None)
            elif name == "read" and int(fd) in open_fd:
                fig = out[open_fd[int(fd)]]
                fig["read_syscalls"] += 1
                fig["kernel_read_bytes"] += max(ret, 0)
    return out


def path_max(ctx):
    """`cat one two` in a directory whose name is longer than PATH_MAX:
    /proc cannot name either file, both are opened on fd 3, one after the
    other. Each opening keeps a record of its own, with strace's figures."""
    if not rl.have_strace():
        print("SKIP: strace not installed")
        return None
    base = ctx.fresh("deep")
    fd = deep_dir(base)
    for name, size in (("one", 3000), ("two", 200000)):
        with os.fdopen(os.open(name, os.O_WRONLY | os.O_CREAT, 0o600, dir_fd=fd), "w") as f:
            f.write(name[0] * size)

    def into_deep():
        os.chdir(base)
        for _ in range(25):
            os.chdir(COMPONENT)

    argv = ["cat", "one", "two"]
    reports = ctx.fresh("reports")
    log = os.path.join(ctx.fresh("strace"), "strace.log")
    env = rl.preload_env(ctx.lib, reports)
    st_argv = ["strace", "-f", "-y", "-qq", "-s", "0", "-e", "signal=none",
               "-e", "trace=openat,read,close", "-o", log]
    for k, v in env.items():
        st_argv += ["-E", f"{k}={v}"]
    r = subprocess.run(st_argv + ["--"] + argv, env=rl.clean_env(), capture_output=True,
                       timeout=60, stdin=subprocess.DEVNULL, preexec_fn=into_deep)
    os.close(fd)
    if r.returncode != 0 or r.stdout != b"o" * 3000 + b"t" * 200000:
        return [f"cat under strace: {rl.status_text(r.returncode)} {r.stderr[-300:]!r}"]
    want = strace_openings(log, ("one", "two"))
    rep = report_of(reports)
    unnamed = sorted((f for f in rep["files"] if f["path"].startswith("fd:")),
                     key=lambda f: f["path"])
    print("strace, per opening: " + ", ".join(f"{n}: {want[n]}" for n in sorted(want)))
    print("seektrace: " + ", ".join(
        f"{f['path']}: {{'read_syscalls': {f['read_syscalls']}, "
        f"'kernel_read_bytes': {f['kernel_read_bytes']}}}" for f in unnamed))
    problems = []
    if sorted(want) != ["one", "two"]:
        return [f"strace shows openings of {sorted(want)}, expected one and two"]
    if [f["path"] for f in unnamed] != ["fd:3 (opening 1)", "fd:3 (opening 2)"]:
        problems.append(f"records {[f['path'] for f in unnamed]}, expected "
                        "'fd:3 (opening 1)' and 'fd:3 (opening 2)'")
    for f, name in zip(unnamed, ("one", "two")):
        for fig in ("read_syscalls", "kernel_read_bytes"):
            if f[fig] != want[name][fig]:
                problems.append(f"{f['path']} ({name}) {fig}: seektrace={f[fig]} "
                                f"strace={want[name][fig]}")
    return problems


def trace_ids(ctx):
    """A traced process that names more files, streams and cells than the
    writer's id tables held (32,768 before they went into the records):
    rl_churn's 10 files, 1,500 rounds, a new stream record each fopen and 5
    cells each (about 60,000 ids). The trace is complete, no event lost, and
    the accounts rebuilt from its events equal its footer's."""
    d = churn_files(ctx, 10, "ids")
    rounds = 1500
    traces = ctx.fresh("traces")
    argv = [os.path.join(ctx.bin, "rl_churn"), d, str(rounds), "10"]
    env = rl.preload_env(ctx.lib, ctx.fresh("reports"), {"SEEKTRACE_TRACE": traces,
                                                           "SEEKTRACE_REPORT": "off"})
    r = rl.run(argv, env, cwd=ctx.fresh("cwd"), timeout=120)
    if r.returncode != 0:
        return [f"rl_churn: {rl.status_text(r.returncode)}, stderr {r.stderr[-300:]!r}"]
    (trace,) = glob.glob(os.path.join(traces, "*.sktrace"))

    def report(*more):
        p = subprocess.run([ctx.cli, "report", "--json", *more, trace], capture_output=True,
                           timeout=120)
        if p.returncode != 0:
            raise rl.Failure(f"report {more}: exit {p.returncode}: {p.stderr[-300:]!r}")
        return json.loads(p.stdout)

    footer, events = report(), report("--from-events")
    streams = sum(len(f["streams"]) for f in footer["files"])
    print(f"{streams} stream records, fopen {footer['totals']['calls'].get('fopen')}, "
          f"trace {footer.get('trace', 'complete')}")
    problems = []
    if "trace" in footer:
        problems.append(f"the trace is not whole: {footer['trace']}")
    if footer["totals"]["calls"].get("fopen") != 10 * rounds:
        problems.append(f"fopen {footer['totals']['calls'].get('fopen')}, expected {10 * rounds}")
    if events["totals"] != footer["totals"]:
        problems.append("the events' accounts differ from the footer's")
    return problems


CASES = {
    "vmsize": lambda c: vmsize(c, traced=False),
    "vmsize_traced": lambda c: vmsize(c, traced=True),
    "ulimit_v_sort": ulimit_v_sort,
    "ulimit_v_traced": ulimit_v_traced,
    "trace_no_space": trace_no_space,
    "trace_file_size_limit": trace_file_size_limit,
    "path_max": path_max,
    "churn_constant": churn_constant,
    "report_rows": report_rows,
    "many_files": many_files,
    "many_files_traced": many_files_traced,
    "trace_ids": trace_ids,
}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", required=True)
    ap.add_argument("--bin", required=True)
    ap.add_argument("--seektrace", required=True)
    ap.add_argument("--demo", required=True)
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("case", choices=sorted(CASES))
    args = ap.parse_args()
    ctx = Ctx(args)
    try:
        return rl.main_wrapper(lambda: CASES[args.case](ctx))
    finally:
        if args.keep:
            print(f"kept {ctx.root}")
        else:
            shutil.rmtree(ctx.root, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
