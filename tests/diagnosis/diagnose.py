#!/usr/bin/env python3
"""Diagnosis tests: each rule of src/core/findings.c, and the call sites.

usage: diagnose.py --lib LIBSEEKTRACE --bin DIR --src DIR --demo FSEEK2006
                   --demo-src FSEEK2006_C [--keep] [-v] CASE
       diagnose.py --list

A case runs one small program of this directory (built as DIR/diag_NAME)
under the preloaded library with JSON output (SEEKTRACE_FORMAT=json), on a
data file made fresh for it, and checks:

  - that the finding's rule is in the report's `findings` for the data file,
    or, for a near-twin below a threshold or with the fix applied, that it is
    not;
  - its numbers: the file's counts in the report against what the program
    itself says it did (the JSON line it prints), and the numbers in the
    finding's sentence against those counts, formatted as the report formats
    them;
  - its site: `function`, `source` and `line` must be the program's own line
    that makes the offending call. Those lines carry a comment SITE:<name>;
    the line number is found by searching the source for the comment
    "/* SITE:<name>" or "// SITE:<name>", never written here.

Exit status: 0 every check passed, 1 a check failed or a run broke, 77 skipped.
"""
import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "integration"))
import strace_log  # noqa: E402

SKIP = 77
TIMEOUT = 60
DATA_SIZE = 4 << 20
MIB = 1 << 20

CASES = {}


def case(name):
    def register(fn):
        CASES[name] = fn
        return fn
    return register


class Failed(Exception):
    pass


class Skip(Exception):
    pass


# --- the report's number formats (src/core/units.c) ---------------------------

def fmt_count(n):
    return f"{n:,}"


def fmt_bytes(n):
    if n < 1024:
        return f"{n} B"
    units = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"]
    v, u = float(n), 0
    while v >= 1024.0 and u < 5:
        v /= 1024.0
        u += 1
    if v < 10.0:
        return f"{v:.2f} {units[u]}"
    if v < 100.0:
        return f"{v:.1f} {units[u]}"
    return f"{v:.0f} {units[u]}"


def fmt_ratio(r):
    if r <= 0.0:
        return "-"
    if r < 10.0:
        return f"{r:.2f}x"
    if r < 1000.0:
        return f"{r:.0f}x"
    return f"{int(r + 0.5):,}x"


# --- a case's context ---------------------------------------------------------

class Context:
    def __init__(self, args, tmp):
        self.args = args
        self.tmp = tmp
        self.failures = []
        self.checks = 0
        self.data = os.path.join(tmp, "data.bin")
        with open(self.data, "wb") as f:
            f.write(bytes(range(256)) * (DATA_SIZE // 256))
        self.nrun = 0

    # Failures are printed and collected, not raised, so that one run shows
    # every number that is off (-v prints the checks that pass too).
    def check(self, what, ok, detail=""):
        self.checks += 1
        if ok:
            if self.args.verbose:
                print(f"ok       {what}")
        else:
            print(f"FAIL     {what}{': ' + detail if detail else ''}")
            self.failures.append(what)
        return ok

    def eq(self, what, got, want):
        return self.check(f"{what} == {want!r}", got == want, f"got {got!r}")

    def prog(self, name):
        path = os.path.join(self.args.bin, "diag_" + name)
        if not os.path.isfile(path):
            raise Failed(f"no test program at {path}")
        return path

    def marker_line(self, source, marker):
        """The line of `source` carrying the comment SITE:<marker>."""
        path = source if os.path.isabs(source) else os.path.join(self.args.src, source)
        return grep_line(path, re.compile(r"(/\*|//) SITE:" + re.escape(marker) + r"\b"))

    def run(self, argv, stack=None, fmt="json", strace_log_to=None):
        """Runs argv under the library; returns (the program's JSON line, report).

        With strace_log_to, the run is also strace's (strace_log.command), and
        `self.strace(path)` then gives the file's syscalls from that log."""
        self.nrun += 1
        out = os.path.join(self.tmp, f"report{self.nrun}.%p.{fmt}")
        env = {k: v for k, v in os.environ.items()
               if k != "LD_PRELOAD" and not k.startswith("SEEKTRACE_")}
        tracee = dict(LD_PRELOAD=self.args.lib, SEEKTRACE_FORMAT=fmt, SEEKTRACE_OUTPUT=out)
        if stack is not None:
            tracee["SEEKTRACE_STACK"] = str(stack)
        print("run:", ("SEEKTRACE_STACK=%s " % stack if stack is not None else "")
              + " ".join(os.path.basename(a) if a.startswith(self.tmp) else a for a in argv)
              + (" (under strace)" if strace_log_to else ""))
        if strace_log_to:
            argv = strace_log.command(strace_log_to, tracee, argv)
        else:
            env.update(tracee)
        p = subprocess.run(argv, env=env, capture_output=True, timeout=TIMEOUT, cwd=self.tmp)
        if p.returncode != 0:
            raise Failed(f"{argv[0]} exited with status {p.returncode}: "
                         f"{p.stderr.decode(errors='replace')}")
        if p.stderr:
            raise Failed(f"unexpected stderr: {p.stderr.decode(errors='replace')}")
        line = p.stdout.decode().strip().splitlines()
        try:
            own = json.loads(line[-1]) if line else {}
        except ValueError:
            raise Failed(f"the program printed no JSON line: {p.stdout!r}") from None
        reports = glob.glob(os.path.join(self.tmp, f"report{self.nrun}.*.{fmt}"))
        if len(reports) != 1:
            raise Failed(f"expected one report, found {reports}")
        with open(reports[0], encoding="utf-8") as f:
            if fmt == "text":
                return own, f.read()
            report = json.load(f)
        if report.get("schema") != "seektrace.report/2":
            raise Failed(f"report schema {report.get('schema')!r}")
        if report.get("capture") != "exact":
            raise Failed(f"capture {report.get('capture')!r} ({report.get('capture_reason')}): "
                         "stdio's own syscalls are not seen, nothing to check")
        return own, report


def grep_line(path, pattern):
    with open(path, encoding="utf-8") as f:
        hits = [n for n, text in enumerate(f, 1) if pattern.search(text)]
    if len(hits) != 1:
        raise Failed(f"{path}: {len(hits)} lines match {pattern.pattern!r}, expected one")
    return hits[0]


# --- reading the report -------------------------------------------------------

def file_entry(ctx, report, path=None):
    path = os.path.realpath(path or ctx.data)
    for f in report["files"]:
        if f["path"] == path:
            return f
    raise Failed(f"no entry for {path} in the report (files: {[f['path'] for f in report['files']]})")


def findings_for(report, path):
    return [x for x in report["findings"] if x["path"] == path]


def finding(ctx, report, rule, path=None):
    """The rule's finding on the data file; a failed check if it is missing."""
    path = os.path.realpath(path or ctx.data)
    hits = [x for x in findings_for(report, path) if x["rule"] == rule]
    rules = [x["rule"] for x in findings_for(report, path)]
    if not ctx.check(f"finding {rule} on the data file (findings: {rules})", len(hits) == 1):
        raise Failed(f"no {rule} finding: nothing more to check")
    x = hits[0]
    ctx.check("the finding says what to change", bool(x["change"].strip()))
    return x


def no_finding(ctx, report, rule, path=None):
    path = os.path.realpath(path or ctx.data)
    rules = [x["rule"] for x in findings_for(report, path)]
    ctx.check(f"no {rule} finding on the data file (findings: {rules})", rule not in rules)


def says(ctx, x, *numbers):
    """Each number, as the report formats it, stands in the finding's sentence."""
    for n in numbers:
        found = re.search(r"(?<![\d.,])" + re.escape(n) + r"(?![\d,]|\.\d)", x["what"])
        ctx.check(f"the sentence says {n!r}", found is not None, repr(x["what"]))


def frame_is(ctx, what, frame, source, marker, function, module=None):
    """frame is the line of `source` marked SITE:<marker>, in `function`: a
    name, a tuple of names, or a compiled pattern."""
    line = ctx.marker_line(source, marker)
    if not ctx.check(f"{what} is known", frame is not None, "site is null"):
        return
    ctx.eq(f"{what} line (SITE:{marker})", frame["line"], line)
    ctx.eq(f"{what} source", os.path.basename(frame["source"] or ""), os.path.basename(source))
    if isinstance(function, str):
        ctx.eq(f"{what} function", frame["function"], function)
    elif isinstance(function, re.Pattern):
        ctx.check(f"{what} function matches {function.pattern!r}",
                  function.search(frame["function"] or "") is not None,
                  f"got {frame['function']!r}")
    else:
        ctx.check(f"{what} function is one of {function}", frame["function"] in function,
                  f"got {frame['function']!r}")
    if module:
        ctx.check(f"{what} module ends with {module}",
                  (frame["module"] or "").endswith(module), f"got {frame['module']!r}")


def site_at(entry, source, line):
    """The file's site whose own frame is source:line."""
    hits = [s for s in entry["sites"]
            if s["line"] == line and os.path.basename(s["source"] or "") == os.path.basename(source)]
    return hits[0] if len(hits) == 1 else None


def no_runtime_frames0(ctx, entry):
    """No site of the file may be a frame of libc, libstdc++ or seektrace."""
    bad = [(s["function"], s["module"]) for s in entry["sites"]
           if re.search(r"/(libc|libstdc\+\+|libgcc_s|ld-linux[^/]*|libseektrace)\.so", s["module"] or "")]
    ctx.check("every site of the file is in the program, not the runtime", not bad, repr(bad))


# --- fseek-discards-buffer ----------------------------------------------------

def check_fseek_discards(ctx, argv, user_buffer):
    log = os.path.join(ctx.tmp, f"strace{ctx.nrun + 1}.log")
    own, report = ctx.run(argv, strace_log_to=log)
    f = file_entry(ctx, report)
    theirs = strace_log.parse(log)[1].get(f["path"], strace_log.FileSyscalls())
    x = finding(ctx, report, "fseek-discards-buffer")
    seeks = own["fseeks"]
    buf = f["streams"][0]["buffer_size"]
    if user_buffer:
        ctx.eq("stream buffer_size (the program's setvbuf)", buf, user_buffer)
    ctx.eq("calls.fseek", f["calls"].get("fseek"), seeks)
    ctx.eq("calls.fread", f["calls"].get("fread"), own["freads"])
    ctx.eq("seeks_discarding_buffer (every fseek leaves the buffer)",
           f["seeks_discarding_buffer"], seeks)
    ctx.eq("seeks_in_buffer", f["seeks_in_buffer"], 0)
    ctx.eq("requested_bytes", f["requested_bytes"], own["requested"])
    ctx.eq("delivered_bytes", f["delivered_bytes"], own["delivered"])
    # One refill per fseek: glibc reads a whole buffer inside fseek, except
    # the first, made before any buffer existed, which reads to the target
    # and leaves the refill to fread.
    # The kernel's side, from strace of the same run: a refill per fseek
    # (glibc reads a whole buffer inside fseek, except the first, made before
    # any buffer existed, which leaves the refill to fread).
    ctx.eq("read_syscalls (strace)", f["read_syscalls"], theirs.read_syscalls)
    ctx.eq("kernel_read_bytes (strace)", f["kernel_read_bytes"], theirs.kernel_read_bytes)
    ctx.eq("lseek_syscalls (strace)", f["lseek_syscalls"], theirs.lseek_syscalls)
    ctx.check(f"a refill per fseek: {seeks}..{seeks + 1} reads of at most {buf} B",
              seeks <= theirs.read_syscalls <= seeks + 1 and
              theirs.kernel_read_bytes <= theirs.read_syscalls * buf,
              f"strace: {theirs}")
    says(ctx, x, fmt_bytes(buf), fmt_count(f["read_syscalls"]), fmt_bytes(f["kernel_read_bytes"]),
         fmt_bytes(own["delivered"]), fmt_ratio(f["kernel_read_bytes"] / own["delivered"]))
    ctx.check("the sentence says every fseek discarded the buffer", "every fseek" in x["what"],
              repr(x["what"]))
    frame_is(ctx, "finding site", x["site"], "fseek_discards.c", "fseek", "read_records")
    frame_is(ctx, "the file's worst site (sites[0])", f["sites"][0], "fseek_discards.c", "fseek",
             "read_records")
    no_finding(ctx, report, "reread")  # said once, by fseek-discards-buffer
    return own, report, f


@case("fseek-discards-buffer.default_buffer")
def _(ctx):
    own, report, f = check_fseek_discards(ctx, [ctx.prog("fseek_discards"), ctx.data, "2000", "0"],
                                          None)
    x = finding(ctx, report, "fseek-discards-buffer")
    if f["streams"][0]["buffer_size"] <= 4096:
        ctx.check("the change names pread and the bytes needed",
                  "pread()" in x["change"] and fmt_bytes(own["requested"]) in x["change"],
                  repr(x["change"]))


@case("fseek-discards-buffer.at_threshold")
def _(ctx):
    # 100 fseeks (the threshold), each discarding a 128 KiB buffer of the program's own.
    own, report, f = check_fseek_discards(ctx, [ctx.prog("fseek_discards"), ctx.data, "100",
                                                "131072"], 131072)
    x = finding(ctx, report, "fseek-discards-buffer")
    # The bytes are the model's prediction (whatif_4k_kernel_read_bytes): what
    # the same program really reads with a 4 KiB buffer of its own.
    _, at4k = ctx.run([ctx.prog("fseek_discards"), ctx.data, "100", "4096"])
    measured = file_entry(ctx, at4k)["kernel_read_bytes"]
    ctx.check("the change proposes a 4 KiB buffer, with the predicted bytes",
              "4 KiB buffer" in x["change"] and "predicted" in x["change"] and
              fmt_bytes(f["whatif_4k_kernel_read_bytes"]) in x["change"] and
              f["whatif_4k_kernel_read_bytes"] == measured,
              f"{x['change']!r}: predicted {f['whatif_4k_kernel_read_bytes']}, measured {measured}")


@case("fseek-discards-buffer.below_threshold")
def _(ctx):
    # 99 discarding fseeks: 12 MiB wasted, 8,000x, but fewer than 100 seeks.
    own, report = ctx.run([ctx.prog("fseek_discards"), ctx.data, "99", "131072"])
    f = file_entry(ctx, report)
    ctx.eq("seeks_discarding_buffer", f["seeks_discarding_buffer"], 99)
    no_finding(ctx, report, "fseek-discards-buffer")
    # The waste is still there, so the re-read rule says it instead, at the fseek.
    x = finding(ctx, report, "reread")
    frame_is(ctx, "reread finding site", x["site"], "fseek_discards.c", "fseek", "read_records")


@case("fseek-discards-buffer.attribution_off")
def _(ctx):
    own, report = ctx.run([ctx.prog("fseek_discards"), ctx.data, "2000", "0"], stack=0)
    f = file_entry(ctx, report)
    x = finding(ctx, report, "fseek-discards-buffer")
    ctx.eq("SEEKTRACE_STACK=0: finding site", x["site"], None)
    ctx.eq("SEEKTRACE_STACK=0: the file's sites", f["sites"], [])
    ctx.eq("SEEKTRACE_STACK=0: the report's sites", report["sites"], [])
    ctx.eq("seeks_discarding_buffer", f["seeks_discarding_buffer"], own["fseeks"])


# --- fseek-resync-lseek -------------------------------------------------------

def resync(ctx, records, mode):
    own, report = ctx.run([ctx.prog("resync_lseek"), ctx.data, str(records), mode])
    f = file_entry(ctx, report)
    ctx.eq("calls.fseek", f["calls"].get("fseek"), own["fseeks"])
    ctx.eq("seeks_in_buffer (the fseeks inside the 64 KiB block)", f["seeks_in_buffer"], own["kept"])
    ctx.eq("seeks_discarding_buffer", f["seeks_discarding_buffer"], own["fseeks"] - own["kept"])
    ctx.eq("resync_lseeks (one per kept fseek)", f["resync_lseeks"], own["kept"])
    ctx.eq("lseek_syscalls (one per fseek)", f["lseek_syscalls"], own["fseeks"])
    ctx.eq("delivered_bytes", f["delivered_bytes"], own["delivered"])
    return own, report, f


def check_resync_finding(ctx, own, report):
    x = finding(ctx, report, "fseek-resync-lseek")
    says(ctx, x, fmt_count(own["kept"]))
    ctx.eq("the sentence's two counts (in-buffer fseeks, lseeks)",
           re.findall(r"[\d,]+(?= fseeks| lseek)", x["what"]), [fmt_count(own["kept"])] * 2)
    frame_is(ctx, "finding site", x["site"], "resync_lseek.c", "fseek", "main")


@case("fseek-resync-lseek.trigger")
def _(ctx):
    own, report, f = resync(ctx, 5000, "seek")
    ctx.eq("the program's count of in-buffer fseeks", own["kept"], 4999)
    check_resync_finding(ctx, own, report)


@case("fseek-resync-lseek.at_threshold")
def _(ctx):
    own, report, f = resync(ctx, 1000, "seek")
    ctx.eq("the program's count of in-buffer fseeks", own["kept"], 1000)
    check_resync_finding(ctx, own, report)


@case("fseek-resync-lseek.below_threshold")
def _(ctx):
    own, report, f = resync(ctx, 999, "seek")
    ctx.eq("the program's count of in-buffer fseeks", own["kept"], 999)
    no_finding(ctx, report, "fseek-resync-lseek")


@case("fseek-resync-lseek.fixed")
def _(ctx):
    own, report, f = resync(ctx, 5000, "read")
    ctx.eq("seeks_in_buffer (no skipping fseeks)", f["seeks_in_buffer"], 0)
    no_finding(ctx, report, "fseek-resync-lseek")


# --- small-buffer-reads -------------------------------------------------------

def small_buffer(ctx, count, buffer, how="fread"):
    own, report = ctx.run([ctx.prog("small_buffer"), ctx.data, str(count), str(buffer), how])
    f = file_entry(ctx, report)
    ctx.eq("requested_bytes", f["requested_bytes"], own["requested"])
    ctx.eq("delivered_bytes", f["delivered_bytes"], own["delivered"])
    if how == "fread":
        ctx.eq("calls.fread", f["calls"].get("fread"), own["calls"])
    if buffer < 0:
        ctx.eq("unbuffered: one read syscall per call", f["read_syscalls"], own["calls"])
        ctx.eq("unbuffered: kernel_read_bytes", f["kernel_read_bytes"], own["delivered"])
    else:
        # Sequential reads through a BUFFER-byte buffer: a refill per BUFFER bytes.
        fills = -(-own["delivered"] // buffer)
        ctx.eq("read syscalls (a refill per buffer)", f["read_syscalls"], fills)
        ctx.eq("kernel_read_bytes", f["kernel_read_bytes"], fills * buffer)
    return own, report, f


def check_small_finding(ctx, report, f, rule, source, marker):
    x = finding(ctx, report, rule)
    avg = f["kernel_read_bytes"] // f["read_syscalls"]
    says(ctx, x, fmt_count(f["read_syscalls"]), fmt_bytes(avg), fmt_bytes(f["kernel_read_bytes"]))
    frame_is(ctx, "finding site", x["site"], source, marker, "main")
    return x


@case("small-buffer-reads.unbuffered")
def _(ctx):
    own, report, f = small_buffer(ctx, 2000, -1)
    check_small_finding(ctx, report, f, "small-buffer-reads", "small_buffer.c", "fread")
    no_finding(ctx, report, "small-direct-reads")


@case("small-buffer-reads.getc_unbuffered")
def _(ctx):
    # getc is not wrapped: each refill's site is found by unwinding from inside glibc.
    own, report, f = small_buffer(ctx, 2000, -1, "getc")
    check_small_finding(ctx, report, f, "small-buffer-reads", "small_buffer.c", "getc")


@case("small-buffer-reads.tiny_buffer")
def _(ctx):
    # A 1023-byte buffer: 1,001 reads averaging 1023 B, just under the 1 KiB bar.
    own, report, f = small_buffer(ctx, 64000, 1023)
    check_small_finding(ctx, report, f, "small-buffer-reads", "small_buffer.c", "fread")


@case("small-buffer-reads.below_threshold")
def _(ctx):
    own, report, f = small_buffer(ctx, 999, -1)  # 999 reads: under 1,000
    no_finding(ctx, report, "small-buffer-reads")


@case("small-buffer-reads.average_1KiB")
def _(ctx):
    own, report, f = small_buffer(ctx, 64000, 1024)  # 1,000 reads of exactly 1 KiB
    ctx.eq("read_syscalls", f["read_syscalls"], 1000)
    no_finding(ctx, report, "small-buffer-reads")


@case("small-buffer-reads.fixed")
def _(ctx):
    own, report, f = small_buffer(ctx, 2000, 4096)  # the advice: a 4 KiB buffer
    no_finding(ctx, report, "small-buffer-reads")


# --- small-direct-reads -------------------------------------------------------

def small_direct(ctx, calls, size, how):
    own, report = ctx.run([ctx.prog("small_direct"), ctx.data, str(calls), str(size), how])
    f = file_entry(ctx, report)
    ctx.eq(f"calls.{how}", f["calls"].get(how), own["calls"])
    ctx.eq("read_syscalls (one per call)", f["read_syscalls"], own["calls"])
    ctx.eq("kernel_read_bytes", f["kernel_read_bytes"], own["delivered"])
    ctx.eq("requested_bytes", f["requested_bytes"], own["requested"])
    ctx.eq("delivered_bytes", f["delivered_bytes"], own["delivered"])
    return own, report, f


@case("small-direct-reads.read")
def _(ctx):
    own, report, f = small_direct(ctx, 2000, 16, "read")
    check_small_finding(ctx, report, f, "small-direct-reads", "small_direct.c", "read")
    no_finding(ctx, report, "small-buffer-reads")


@case("small-direct-reads.pread")
def _(ctx):
    own, report, f = small_direct(ctx, 2000, 16, "pread")
    check_small_finding(ctx, report, f, "small-direct-reads", "small_direct.c", "pread")


@case("small-direct-reads.just_under_1KiB")
def _(ctx):
    own, report, f = small_direct(ctx, 1000, 1023, "pread")
    check_small_finding(ctx, report, f, "small-direct-reads", "small_direct.c", "pread")


@case("small-direct-reads.below_threshold")
def _(ctx):
    own, report, f = small_direct(ctx, 999, 16, "read")
    no_finding(ctx, report, "small-direct-reads")


@case("small-direct-reads.average_1KiB")
def _(ctx):
    own, report, f = small_direct(ctx, 1000, 1024, "pread")
    no_finding(ctx, report, "small-direct-reads")


@case("small-direct-reads.fixed")
def _(ctx):
    own, report, f = small_direct(ctx, 64, 65536, "read")  # the whole file in 64 KiB blocks
    no_finding(ctx, report, "small-direct-reads")


# --- setvbuf-size-ignored -----------------------------------------------------

def setvbuf_run(ctx, size, mode):
    own, report = ctx.run([ctx.prog("setvbuf_ignored"), ctx.data, str(size), mode])
    f = file_entry(ctx, report)
    s = f["streams"][0]
    ctx.eq("requested_buffer_size", s["requested_buffer_size"], size)
    ctx.eq("delivered_bytes", f["delivered_bytes"], own["delivered"])
    # 64 records of 16 bytes from the start: one refill, of the buffer's size.
    ctx.eq("read_syscalls", f["read_syscalls"], 1)
    ctx.eq("kernel_read_bytes (the buffer glibc really used)", f["kernel_read_bytes"],
           s["buffer_size"])
    return own, report, f, s


@case("setvbuf-size-ignored.null_1MiB")
def _(ctx):
    own, report, f, s = setvbuf_run(ctx, MIB, "null")
    ctx.eq("buffer_origin", s["buffer_origin"], "setvbuf-size-ignored")
    ctx.check("glibc's buffer is not the 1 MiB asked for", 0 < s["buffer_size"] < MIB,
              f"buffer_size {s['buffer_size']}")
    x = finding(ctx, report, "setvbuf-size-ignored")
    says(ctx, x, fmt_bytes(MIB), fmt_bytes(s["buffer_size"]))
    frame_is(ctx, "finding site", x["site"], "setvbuf_ignored.c", "setvbuf", "main")


@case("setvbuf-size-ignored.own_buffer")
def _(ctx):
    own, report, f, s = setvbuf_run(ctx, MIB, "own")
    ctx.eq("buffer_origin", s["buffer_origin"], "user")
    ctx.eq("buffer_size", s["buffer_size"], MIB)
    no_finding(ctx, report, "setvbuf-size-ignored")


@case("setvbuf-size-ignored.null_same_size")
def _(ctx):
    # Asking, with NULL, for the size glibc picks anyway: nothing is lost.
    own, report, f, s = setvbuf_run(ctx, MIB, "null")
    default = s["buffer_size"]
    own, report, f, s = setvbuf_run(ctx, default, "null")
    ctx.eq("buffer_size", s["buffer_size"], default)
    no_finding(ctx, report, "setvbuf-size-ignored")


# --- ftell-lseek --------------------------------------------------------------

def ftell_run(ctx, records, mode):
    own, report = ctx.run([ctx.prog("ftell_lseek"), ctx.data, str(records), mode])
    f = file_entry(ctx, report)
    ctx.eq("calls.ftell", f["calls"].get("ftell"), own["ftells"])
    ctx.eq("delivered_bytes", f["delivered_bytes"], own["delivered"])
    return own, report, f


@case("ftell-lseek.plain")
def _(ctx):
    own, report, f = ftell_run(ctx, 2000, "plain")
    ctx.eq("by_call.ftell.lseek_syscalls (one per ftell)",
           f["by_call"]["ftell"]["lseek_syscalls"], own["ftells"])
    x = finding(ctx, report, "ftell-lseek")
    ctx.eq("the sentence's two counts (ftell calls, lseeks)",
           re.findall(r"[\d,]+(?= ftell| lseek)", x["what"]), [fmt_count(own["ftells"])] * 2)
    frame_is(ctx, "finding site", x["site"], "ftell_lseek.c", "ftell", "main")


@case("ftell-lseek.at_threshold")
def _(ctx):
    own, report, f = ftell_run(ctx, 1000, "plain")
    ctx.eq("by_call.ftell.lseek_syscalls", f["by_call"]["ftell"]["lseek_syscalls"], 1000)
    x = finding(ctx, report, "ftell-lseek")
    frame_is(ctx, "finding site", x["site"], "ftell_lseek.c", "ftell", "main")


@case("ftell-lseek.below_threshold")
def _(ctx):
    own, report, f = ftell_run(ctx, 999, "plain")
    ctx.eq("by_call.ftell.lseek_syscalls", f["by_call"]["ftell"]["lseek_syscalls"], 999)
    no_finding(ctx, report, "ftell-lseek")


@case("ftell-lseek.fixed")
def _(ctx):
    own, report, f = ftell_run(ctx, 2000, "fixed")
    ctx.eq("by_call.ftell.lseek_syscalls (glibc knows the offset)",
           f["by_call"].get("ftell", {}).get("lseek_syscalls"), 0)
    no_finding(ctx, report, "ftell-lseek")


# --- reread -------------------------------------------------------------------

def reread_run(ctx, *lengths, block=65536):
    own, report = ctx.run([ctx.prog("reread"), ctx.data, str(block)] + [str(n) for n in lengths])
    f = file_entry(ctx, report)
    ctx.eq("calls.pread", f["calls"].get("pread"), own["calls"])
    ctx.eq("kernel_read_bytes", f["kernel_read_bytes"], own["delivered"])
    ctx.eq("reread_bytes (all but the first reading)", f["reread_bytes"],
           own["delivered"] - own["first_time"])
    return own, report, f


def check_reread_finding(ctx, own, report):
    x = finding(ctx, report, "reread")
    says(ctx, x, fmt_bytes(own["delivered"] - own["first_time"]), fmt_bytes(own["delivered"]))
    frame_is(ctx, "finding site", x["site"], "reread.c", "pread", "main")


@case("reread.four_passes")
def _(ctx):
    own, report, f = reread_run(ctx, MIB, MIB, MIB, MIB)
    check_reread_finding(ctx, own, report)
    no_finding(ctx, report, "small-direct-reads")


@case("reread.at_threshold")
def _(ctx):
    own, report, f = reread_run(ctx, MIB, MIB)  # 1 MiB re-read, half of all
    check_reread_finding(ctx, own, report)


@case("reread.below_threshold")
def _(ctx):
    own, report, f = reread_run(ctx, MIB - 65536, MIB - 65536)  # 960 KiB re-read
    no_finding(ctx, report, "reread")


@case("reread.mostly_new")
def _(ctx):
    own, report, f = reread_run(ctx, 2 * MIB, MIB)  # 1 MiB re-read of 3 MiB
    no_finding(ctx, report, "reread")


@case("reread.once")
def _(ctx):
    own, report, f = reread_run(ctx, DATA_SIZE)
    ctx.eq("reread_bytes", f["reread_bytes"], 0)
    no_finding(ctx, report, "reread")


# --- read-modify-write --------------------------------------------------------

def rmw_run(ctx, mode, seeks):
    out = os.path.join(ctx.tmp, "rmw.out")
    own, report = ctx.run([ctx.prog("rmw"), out, mode, str(seeks)])
    f = file_entry(ctx, report, out)
    ctx.eq("written_bytes (what fwrite was handed)", f["written_bytes"], own["written"])
    ctx.eq("calls.fwrite", f["calls"].get("fwrite"), seeks + 1)
    return own, report, f, out


@case("read-modify-write.w_plus")
def _(ctx):
    own, report, f, out = rmw_run(ctx, "w+", 2000)
    ctx.eq("flushes_seek (each seek but the first writes a record back)", f["flushes_seek"], 1999)
    x = finding(ctx, report, "read-modify-write", out)
    says(ctx, x, fmt_count(1999), fmt_count(f["read_syscalls"]),
         fmt_bytes(f["kernel_read_bytes"]), fmt_bytes(own["written"]))
    frame_is(ctx, "finding site", x["site"], "rmw.c", "fseek", "main")
    no_finding(ctx, report, "reread", out)  # the reads are this rule's, said once


@case("read-modify-write.write_only")
def _(ctx):
    own, report, f, out = rmw_run(ctx, "w", 2000)
    ctx.eq("read_syscalls (a write-only stream reads nothing)", f["read_syscalls"], 0)
    no_finding(ctx, report, "read-modify-write", out)


@case("read-modify-write.few_seeks")
def _(ctx):
    own, report, f, out = rmw_run(ctx, "w+", 99)
    no_finding(ctx, report, "read-modify-write", out)


# --- the write rules ----------------------------------------------------------

def small_write(ctx, records, size, mode):
    """small_write under strace: (own line, report, the file's entry, strace's counts)."""
    out = os.path.join(ctx.tmp, f"written{ctx.nrun + 1}.txt")
    log = os.path.join(ctx.tmp, f"strace{ctx.nrun + 1}.log")
    own, report = ctx.run([ctx.prog("small_write"), out, str(records), str(size), mode],
                          strace_log_to=log)
    f = file_entry(ctx, report, out)
    theirs = strace_log.parse(log)[1].get(f["path"], strace_log.FileSyscalls())
    ctx.eq("written_bytes (what the program handed over)", f["written_bytes"], own["written"])
    ctx.eq("write_syscalls (strace)", f["write_syscalls"], theirs.write_syscalls)
    ctx.eq("kernel_write_bytes (strace)", f["kernel_write_bytes"], theirs.kernel_write_bytes)
    ctx.eq("kernel_write_bytes (all handed over reached the file)", f["kernel_write_bytes"],
           own["written"])
    return own, report, f, out


def write_finding(ctx, report, rule, out, f, *numbers):
    x = finding(ctx, report, rule, out)
    says(ctx, x, *numbers)
    return x


def predicted_count(ctx, x, what):
    """The count the change predicts ("about N write syscalls")."""
    m = re.search(r"about ([\d,]+) write syscalls?\b", x["change"])
    ctx.check(f"the change predicts {what}", m is not None, repr(x["change"]))
    return int(m.group(1).replace(",", "")) if m else None


def check_fix_measured(ctx, predicted, records, size, mode):
    """The change's predicted count is what the fixed program makes, per strace."""
    own, report, f, out = small_write(ctx, records, size, mode)
    if f["streams"] and f["streams"][0]["buffer_size"] != 4096:
        raise Skip(f"the fixed stream's buffer is {f['streams'][0]['buffer_size']} B, not 4 KiB")
    ctx.eq(f"the predicted write syscalls, measured with {mode}", f["write_syscalls"], predicted)
    return report, f, out


@case("unbuffered-writes.trigger")
def _(ctx):
    own, report, f, out = small_write(ctx, 2000, 32, "unbuffered")
    ctx.eq("write_syscalls (one per fwrite)", f["write_syscalls"], 2000)
    ctx.eq("flushes_unbuffered", f["flushes_unbuffered"], 2000)
    x = write_finding(ctx, report, "unbuffered-writes", out, f, fmt_count(2000), fmt_bytes(32),
                      fmt_bytes(64000))
    frame_is(ctx, "finding site", x["site"], "small_write.c", "fwrite", "put")
    n = predicted_count(ctx, x, "the writes with a full 4 KiB buffer")
    ctx.eq("the prediction", n, 16)
    report, f, out = check_fix_measured(ctx, n, 2000, 32, "full")
    no_finding(ctx, report, "unbuffered-writes", out)


@case("unbuffered-writes.at_threshold")
def _(ctx):
    own, report, f, out = small_write(ctx, 1000, 32, "unbuffered")
    write_finding(ctx, report, "unbuffered-writes", out, f, fmt_count(1000))


@case("unbuffered-writes.below_threshold")
def _(ctx):
    own, report, f, out = small_write(ctx, 999, 32, "unbuffered")
    ctx.eq("write_syscalls", f["write_syscalls"], 999)
    no_finding(ctx, report, "unbuffered-writes", out)


@case("unbuffered-writes.records_1KiB")
def _(ctx):
    own, report, f, out = small_write(ctx, 1000, 1024, "unbuffered")  # averages exactly 1 KiB
    ctx.eq("write_syscalls", f["write_syscalls"], 1000)
    no_finding(ctx, report, "unbuffered-writes", out)


@case("fflush-per-record.trigger")
def _(ctx):
    own, report, f, out = small_write(ctx, 2000, 32, "fflush")
    ctx.eq("calls.fflush", f["calls"].get("fflush"), 2000)
    ctx.eq("by_call.fflush.write_syscalls (one per record)",
           f["by_call"]["fflush"]["write_syscalls"], 2000)
    ctx.eq("flushes_fflush", f["flushes_fflush"], 2000)
    x = write_finding(ctx, report, "fflush-per-record", out, f, fmt_count(2000), fmt_bytes(32),
                      fmt_bytes(64000))
    frame_is(ctx, "finding site", x["site"], "small_write.c", "fflush", "with_stdio")
    no_finding(ctx, report, "unbuffered-writes", out)
    n = predicted_count(ctx, x, "the writes without the fflush")
    report, f, out = check_fix_measured(ctx, n, 2000, 32, "full")
    no_finding(ctx, report, "fflush-per-record", out)


@case("fflush-per-record.every_100")
def _(ctx):
    own, report, f, out = small_write(ctx, 2000, 32, "fflush100")
    ctx.eq("by_call.fflush.write_syscalls", f["by_call"]["fflush"]["write_syscalls"], 20)
    no_finding(ctx, report, "fflush-per-record", out)


@case("fflush-per-record.below_threshold")
def _(ctx):
    own, report, f, out = small_write(ctx, 999, 32, "fflush")
    ctx.eq("by_call.fflush.write_syscalls", f["by_call"]["fflush"]["write_syscalls"], 999)
    no_finding(ctx, report, "fflush-per-record", out)


@case("line-buffered-file.trigger")
def _(ctx):
    own, report, f, out = small_write(ctx, 2000, 32, "line")
    ctx.eq("stream mode", f["streams"][0]["buffer_mode"], "line")
    ctx.eq("flushes_newline (one per record)", f["flushes_newline"], 2000)
    x = write_finding(ctx, report, "line-buffered-file", out, f, fmt_count(2000),
                      fmt_bytes(64000))
    frame_is(ctx, "finding site", x["site"], "small_write.c", "fwrite", "put")
    n = predicted_count(ctx, x, "the writes with full buffering")
    report, f, out = check_fix_measured(ctx, n, 2000, 32, "full")
    no_finding(ctx, report, "line-buffered-file", out)


def to_dev_null(ctx, mode):
    """small_write's 2,000 records of 32 B to /dev/null: not a regular file."""
    own, report = ctx.run([ctx.prog("small_write"), "/dev/null", "2000", "32", mode])
    return own, report, file_entry(ctx, report, "/dev/null")


@case("line-buffered-file.not_a_file")
def _(ctx):
    own, report, f = to_dev_null(ctx, "line")
    ctx.eq("flushes_newline (one per record)", f["flushes_newline"], 2000)
    no_finding(ctx, report, "line-buffered-file", "/dev/null")


@case("fflush-per-record.not_a_file")
def _(ctx):
    own, report, f = to_dev_null(ctx, "fflush")
    ctx.eq("by_call.fflush.write_syscalls (one per record)",
           f["by_call"]["fflush"]["write_syscalls"], 2000)
    no_finding(ctx, report, "fflush-per-record", "/dev/null")


@case("line-buffered-file.below_threshold")
def _(ctx):
    own, report, f, out = small_write(ctx, 999, 32, "line")
    ctx.eq("flushes_newline", f["flushes_newline"], 999)
    no_finding(ctx, report, "line-buffered-file", out)


@case("small-direct-writes.write")
def _(ctx):
    own, report, f, out = small_write(ctx, 2000, 32, "write")
    ctx.eq("calls.write", f["calls"].get("write"), 2000)
    ctx.eq("by_call.write.write_syscalls", f["by_call"]["write"]["write_syscalls"], 2000)
    x = write_finding(ctx, report, "small-direct-writes", out, f, fmt_count(2000), fmt_bytes(32),
                      fmt_bytes(64000))
    frame_is(ctx, "finding site", x["site"], "small_write.c", "write", "with_write")
    n = predicted_count(ctx, x, "the writes in 64 KiB blocks")
    own, report, f, out = small_write(ctx, 2000, 32, "block")
    ctx.eq("the predicted write syscalls, measured in 64 KiB blocks", f["write_syscalls"], n)
    no_finding(ctx, report, "small-direct-writes", out)


def endl_run(ctx, lines, how):
    out = os.path.join(ctx.tmp, "endl.out")
    log = os.path.join(ctx.tmp, f"strace{ctx.nrun + 1}.log")
    own, report = ctx.run([ctx.prog("ofstream_endl"), out, str(lines), how], strace_log_to=log)
    f = file_entry(ctx, report, out)
    theirs = strace_log.parse(log)[1].get(f["path"], strace_log.FileSyscalls())
    ctx.eq("write_syscalls (strace)", f["write_syscalls"], theirs.write_syscalls)
    ctx.eq("kernel_write_bytes (strace)", f["kernel_write_bytes"], theirs.kernel_write_bytes)
    ctx.eq("kernel_write_bytes (the lines)", f["kernel_write_bytes"], own["written"])
    return own, report, f, out


@case("small-direct-writes.cxx_endl")
def _(ctx):
    # libstdc++ makes the write() calls; std::endl flushes each line.
    own, report, f, out = endl_run(ctx, 2000, "endl")
    ctx.eq("calls.write (one per line)", f["calls"].get("write"), 2000)
    x = finding(ctx, report, "small-direct-writes", out)
    says(ctx, x, fmt_count(2000), fmt_bytes(f["kernel_write_bytes"] // 2000),
         fmt_bytes(own["written"]))
    frame_is(ctx, "finding site", x["site"], "ofstream_endl.cpp", "endl",
             re.compile("write_lines"))
    no_runtime_frames0(ctx, f)


@case("small-direct-writes.cxx_newline")
def _(ctx):
    # '\n' instead of std::endl: a write() per full filebuf buffer.
    own, report, f, out = endl_run(ctx, 2000, "newline")
    ctx.check("a few writes, not one per line", 0 < f["write_syscalls"] < 20,
              f"{f['write_syscalls']} writes")
    no_finding(ctx, report, "small-direct-writes", out)


@case("small-direct-writes.below_threshold")
def _(ctx):
    own, report, f, out = small_write(ctx, 999, 32, "write")
    no_finding(ctx, report, "small-direct-writes", out)


@case("small-direct-writes.records_1KiB")
def _(ctx):
    own, report, f, out = small_write(ctx, 1000, 1024, "write")
    no_finding(ctx, report, "small-direct-writes", out)


@case("seek-flushes-buffer.write_only")
def _(ctx):
    own, report, f, out = rmw_run(ctx, "w", 2000)
    ctx.eq("by_call.fseek.write_syscalls (each seek but the first writes a record back)",
           f["by_call"]["fseek"]["write_syscalls"], 1999)
    ctx.eq("by_call.fseek.kernel_write_bytes", f["by_call"]["fseek"]["kernel_write_bytes"],
           1999 * 8)
    x = finding(ctx, report, "seek-flushes-buffer", out)
    says(ctx, x, fmt_count(1999), fmt_count(2000), fmt_bytes(8), fmt_bytes(1999 * 8))
    want = (f"({fmt_count(1999)} write syscalls and no lseeks, against "
            f"{fmt_count(f['write_syscalls'])} writes and {fmt_count(f['lseek_syscalls'])} lseeks)")
    ctx.check(f"the change says {want!r}", want in x["change"], repr(x["change"]))
    frame_is(ctx, "finding site", x["site"], "rmw.c", "fseek", "main")


@case("seek-flushes-buffer.few_seeks")
def _(ctx):
    own, report, f, out = rmw_run(ctx, "w", 100)
    ctx.eq("by_call.fseek.write_syscalls", f["by_call"]["fseek"]["write_syscalls"], 99)
    no_finding(ctx, report, "seek-flushes-buffer", out)


@case("seek-flushes-buffer.read_write")
def _(ctx):
    # "w+": the reads before each write make it read-modify-write, said once there.
    own, report, f, out = rmw_run(ctx, "w+", 2000)
    finding(ctx, report, "read-modify-write", out)
    no_finding(ctx, report, "seek-flushes-buffer", out)


# --- the demo -----------------------------------------------------------------

DEMO_SEEKS = 5000


def demo_line(ctx):
    return grep_line(ctx.args.demo_src, re.compile(r"fseek\(fp, at, SEEK_SET\)"))


def demo_has_debug_info(ctx):
    with open(ctx.args.demo, "rb") as f:
        return b".debug_line" in f.read()


@case("demo.json")
def _(ctx):
    if not demo_has_debug_info(ctx):
        raise Skip("the demo was built without -g (CMAKE_BUILD_TYPE=Release?): no lines to check")
    own, report = ctx.run([ctx.args.demo, ctx.data, "--seeks", str(DEMO_SEEKS), "--buffer", "131072"])
    f = file_entry(ctx, report)
    ctx.eq("calls.fseek (the demo's own count)", f["calls"].get("fseek"), own["calls"])
    ctx.eq("fseeks kept + discarded", f["seeks_in_buffer"] + f["seeks_discarding_buffer"],
           own["calls"])
    ctx.eq("delivered_bytes", f["delivered_bytes"], own["delivered"])
    ctx.eq("top finding", report["findings"][0]["rule"] if report["findings"] else None,
           "fseek-discards-buffer")
    x = finding(ctx, report, "fseek-discards-buffer")
    says(ctx, x, fmt_count(f["seeks_discarding_buffer"]), fmt_count(own["calls"]),
         fmt_bytes(f["kernel_read_bytes"]), fmt_bytes(own["delivered"]), "128 KiB")
    line = demo_line(ctx)
    for what, frame in (("finding site", x["site"]), ("the file's top site (sites[0])", f["sites"][0]),
                        ("the report's top site (sites[0])", report["sites"][0])):
        ctx.eq(f"{what} line", frame and frame["line"], line)
        ctx.eq(f"{what} function", frame and frame["function"], "main")
        ctx.eq(f"{what} source", frame and os.path.basename(frame["source"] or ""), "fseek2006.c")


@case("demo.text")
def _(ctx):
    if not demo_has_debug_info(ctx):
        raise Skip("the demo was built without -g (CMAKE_BUILD_TYPE=Release?): no lines to check")
    own, text = ctx.run([ctx.args.demo, ctx.data, "--seeks", str(DEMO_SEEKS), "--buffer", "131072"],
                        fmt="text")
    where = f"main (fseek2006.c:{demo_line(ctx)})"
    problem = [l for l in text.splitlines() if l.strip().startswith("problem:")]
    ctx.check(f"the text report has a problem line naming {where}",
              len(problem) == 1 and where in problem[0] and "threw away" in problem[0],
              repr(problem))
    lines = text.splitlines()
    i = lines.index(problem[0]) if problem else -1
    ctx.check("the next line says what to change",
              0 <= i < len(lines) - 1 and lines[i + 1].strip().startswith("change:")
              and "buffer" in lines[i + 1], repr(lines[i + 1] if 0 <= i < len(lines) - 1 else None))
    table = [l for l in lines if "call site -> file" in l]
    ok = bool(table) and lines.index(table[0]) + 1 < len(lines)
    first = lines[lines.index(table[0]) + 1] if ok else ""
    ctx.check(f"the first row of the site table is {where}", where in first, repr(first))


# --- C++, shared libraries, dlopen, inlining ----------------------------------

@case("sites.cxx_ifstream")
def _(ctx):
    own, report = ctx.run([ctx.prog("ifstream_seek"), ctx.data, "1000"])
    f = file_entry(ctx, report)
    ctx.eq("lseek_syscalls (one per seekg)", f["lseek_syscalls"], own["seeks"])
    ctx.eq("read_syscalls (one refill per read after a seekg)", f["read_syscalls"], own["seeks"])
    no_runtime_frames0(ctx, f)
    x = finding(ctx, report, "reread")
    # libstdc++ makes the syscalls; the site is the program's line, in its
    # function (a C++ name: mangled or not, it names read_records).
    frame_is(ctx, "finding site", x["site"], "ifstream_seek.cpp", "read", re.compile("read_records"))
    read_site = site_at(f, "ifstream_seek.cpp", ctx.marker_line("ifstream_seek.cpp", "read"))
    seek_site = site_at(f, "ifstream_seek.cpp", ctx.marker_line("ifstream_seek.cpp", "seekg"))
    ctx.check("a site at the read line", read_site is not None)
    ctx.check("a site at the seekg line", seek_site is not None)
    if read_site and seek_site:
        ctx.eq("read line: read_syscalls", read_site["read_syscalls"], own["seeks"])
        ctx.eq("seekg line: lseek_syscalls", seek_site["lseek_syscalls"], own["seeks"])
        ctx.eq("seekg line: read_syscalls", seek_site["read_syscalls"], 0)


def check_lib_site(ctx, report, module, caller_source, stack):
    f = file_entry(ctx, report)
    x = finding(ctx, report, "fseek-discards-buffer")
    frame_is(ctx, "finding site", x["site"], "libreader.c", "lib_fseek", "reader_fetch", module)
    top = f["sites"][0]
    frame_is(ctx, "the file's top site", top, "libreader.c", "lib_fseek", "reader_fetch", module)
    if stack <= 1:
        ctx.eq("frames with SEEKTRACE_STACK=1", len(top["frames"]), 1)
        return f
    ctx.check(f"2..{stack} frames with SEEKTRACE_STACK={stack}", 2 <= len(top["frames"]) <= stack,
              f"{len(top['frames'])} frames")
    if len(top["frames"]) >= 2:
        frame_is(ctx, "the caller frame (frames[1])", top["frames"][1], caller_source, "call",
                 "main")
    return f


@case("sites.shared_library")
def _(ctx):
    own, report = ctx.run([ctx.prog("uses_lib"), ctx.data, "2000"])
    f = check_lib_site(ctx, report, "/libdiagreader.so", "uses_lib.c", 1)
    ctx.eq("seeks_discarding_buffer", f["seeks_discarding_buffer"], own["fseeks"])


@case("sites.shared_library_stack3")
def _(ctx):
    own, report = ctx.run([ctx.prog("uses_lib"), ctx.data, "2000"], stack=3)
    check_lib_site(ctx, report, "/libdiagreader.so", "uses_lib.c", 3)


@case("sites.dlopen_module_stack3")
def _(ctx):
    module = os.path.join(ctx.args.bin, "diag_reader_module.so")
    own, report = ctx.run([ctx.prog("uses_module"), module, ctx.data, "2000"], stack=3)
    check_lib_site(ctx, report, "/diag_reader_module.so", "uses_module.c", 3)


def two_callers(ctx, extra, stack):
    own, report = ctx.run([ctx.prog("uses_lib"), ctx.data, "2000", *extra], stack=stack)
    f = file_entry(ctx, report)
    lib_line = ctx.marker_line("libreader.c", "lib_fseek")
    by_caller = {}
    for s in f["sites"]:
        if s["line"] == lib_line and len(s["frames"]) >= 2:
            by_caller[s["frames"][1]["line"]] = s["seeks_discarding_buffer"]
    heavy, light = ctx.marker_line("uses_lib.c", "call"), ctx.marker_line("uses_lib.c", "first")
    ctx.eq(f"fseeks charged to libreader.c:{lib_line} called from uses_lib.c:{heavy} (SITE:call)",
           by_caller.get(heavy), own["fseeks"] - own["first"])
    ctx.eq(f"fseeks charged to libreader.c:{lib_line} called from uses_lib.c:{light} (SITE:first)",
           by_caller.get(light), own["first"])
    x = finding(ctx, report, "fseek-discards-buffer")
    frame_is(ctx, "finding site", x["site"], "libreader.c", "lib_fseek", "reader_fetch")


@case("sites.two_callers_stack3")
def _(ctx):
    # The library's fseek line is reached from two lines of main: 10 calls
    # from SITE:first, then 2,000 from SITE:call. With SEEKTRACE_STACK=3 the
    # report must not charge all 2,010 to whichever caller came first.
    two_callers(ctx, ["10"], 3)


@case("sites.two_callers_alternate")
def _(ctx):
    # The same line from the two callers in turn, 500 times each, then 1,500
    # more from SITE:call: the wrappers' fast path finds a call's site from
    # its return address and, with more than one frame per site, checks the
    # stack above it; a check that let one stack's entry serve the other
    # would charge the calls to the wrong caller. STACK=2: the frame above
    # the site is the caller; STACK=4: the fast path for deeper sites.
    for stack in (2, 4):
        two_callers(ctx, ["500", "alternate"], stack)


@case("sites.inlined")
def _(ctx):
    # -O2: fetch() is inlined into main. The line is fetch's fseek line; the
    # function may be the caller's name (docs/findings.md, "Limits").
    own, report = ctx.run([ctx.prog("inlined"), ctx.data, "2000"])
    x = finding(ctx, report, "fseek-discards-buffer")
    frame_is(ctx, "finding site", x["site"], "inlined.c", "fseek", ("main", "fetch"))


@case("sites.getc_bytes_stay_at_getc_line")
def _(ctx):
    # 10,000 getc through a default buffer: every byte delivered was taken by
    # the getc line, including those of the last refill, which glibc hands
    # out without calling into anything seektrace sees until fclose.
    own, report = ctx.run([ctx.prog("small_buffer"), ctx.data, "10000", "0", "getc"])
    f = file_entry(ctx, report)
    ctx.eq("delivered_bytes", f["delivered_bytes"], own["delivered"])
    line = ctx.marker_line("small_buffer.c", "getc")
    s = site_at(f, "small_buffer.c", line)
    ctx.check(f"a site at the getc line ({line})", s is not None)
    if s:
        ctx.eq("getc line: delivered_bytes", s["delivered_bytes"], own["delivered"])
        ctx.eq("getc line: read_syscalls", s["read_syscalls"], f["read_syscalls"])
    elsewhere = {f"{x['function']}:{x['line']}": x["delivered_bytes"] for x in f["sites"]
                 if x is not s and x["delivered_bytes"]}
    ctx.eq("delivered bytes charged to other lines", elsewhere, {})


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--list", action="store_true", help="print the case names and exit")
    parser.add_argument("--lib", help="path of libseektrace.so")
    parser.add_argument("--bin", help="directory of the diag_* programs")
    parser.add_argument("--src", default=os.path.dirname(os.path.abspath(__file__)),
                        help="directory of their sources (default: this script's)")
    parser.add_argument("--demo", help="the fseek2006 demo binary")
    parser.add_argument("--demo-src", help="demo/fseek2006.c")
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory")
    parser.add_argument("-v", "--verbose", action="store_true", help="print passed checks too")
    parser.add_argument("case", nargs="?")
    args = parser.parse_args()
    if not args.list:
        missing = [o for o in ("lib", "bin", "demo", "demo_src", "case") if not getattr(args, o)]
        if missing:
            parser.error("missing: " + ", ".join(missing))
    return args


def main():
    args = parse_args()
    if args.list:
        print("\n".join(CASES))
        return 0
    if args.case not in CASES:
        print(f"FAIL: no case {args.case!r}; --list shows them")
        return 1
    for path in ("lib", "bin", "src", "demo", "demo_src"):
        setattr(args, path, os.path.realpath(getattr(args, path)))
    tmp = os.path.realpath(tempfile.mkdtemp(prefix="seektrace-diag-"))
    ctx = Context(args, tmp)
    status = 0
    try:
        CASES[args.case](ctx)
    except Skip as e:
        print(f"SKIP: {e}")
        status = SKIP
    except (Failed, subprocess.TimeoutExpired, OSError) as e:
        print(f"FAIL: {e}")
        status = 1
    except (KeyError, IndexError, TypeError) as e:
        print(f"FAIL: the report or the program's line lacks what the case reads: {e!r}")
        status = 1
    finally:
        if args.keep:
            print("kept:", tmp)
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    if status == 0 and ctx.failures:
        print(f"FAIL: {len(ctx.failures)} of {ctx.checks} checks failed")
        status = 1
    elif status == 0:
        print(f"ok: {ctx.checks} checks passed")
    return status


if __name__ == "__main__":
    sys.exit(main())
