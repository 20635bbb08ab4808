#!/usr/bin/env python3
"""Tests of the write half of `seektrace whatif` (issue 22): predicted against strace.

    write_whatif_tests.py --seektrace BIN --lib LIB --small-write DIAG_SMALL_WRITE
                          --writes WL_WRITES CASE

Each case records one trace of tests/diagnosis/small_write (3,000 records of
40 bytes, handed over by fwrite, fprintf or putc) at glibc's default buffer,
under strace, and asks `whatif` what unbuffered and fully buffered streams of
512 B to 64 KiB would write. Then it runs the program for real under strace:
at each size with SEEKTRACE_BUFSIZE, unbuffered (the same records on a
stream set _IONBF) and line buffered (_IOLBF; each record ends in its only
newline); the predicted write syscalls and kernel bytes must equal what
strace counts on the file, and the recorded run's replay what strace
counted for it. Exit 0 pass, 1 fail.
"""
import json
import os
import subprocess
import sys

from harness import expect
import harness

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "integration"))
import strace_log  # noqa: E402

SIZES = [512, 1024, 4096, 16384, 65536]
RECORDS, SIZE = "3000", "40"
COST = "400,150,300,0.1"  # fixed, so that no calibration runs inside tests


def strace_run(a, tmp, mode, name, **env):
    """small_write MODE under strace (and the library, with env); strace's
    counts on its output file."""
    out = os.path.join(tmp, "records.out")
    log = os.path.join(tmp, f"strace.{name}")
    tracee = dict(LD_PRELOAD=a.lib, SEEKTRACE_OUTPUT=os.path.join(tmp, f"report.{name}.%p"), **env)
    clean = {k: v for k, v in os.environ.items()
             if k != "LD_PRELOAD" and not k.startswith("SEEKTRACE_")}
    p = subprocess.run(strace_log.command(log, tracee, [a.small_write, out, RECORDS, SIZE, mode]),
                       env=clean, capture_output=True, text=True)
    expect(p.returncode == 0, f"{mode}: rc {p.returncode}: {p.stderr[-1000:]}")
    return out, strace_log.parse(log)[1].get(out, strace_log.FileSyscalls())


def whatif_writes(a, trace, out):
    p = subprocess.run([a.seektrace, "whatif", "--json", "--cost", COST, "--sizes",
                        ",".join(map(str, SIZES)), trace], capture_output=True, text=True)
    expect(p.returncode == 0, f"whatif: rc {p.returncode}: {p.stderr[-1000:]}")
    files = [f for f in json.loads(p.stdout)["writes"] if f["path"] == out]
    expect(len(files) == 1, f"{out} not among the written files: {p.stdout[-1500:]}")
    return files[0]


def same(what, predicted, measured):
    got = (predicted["write_syscalls"], predicted["kernel_write_bytes"])
    want = (measured.write_syscalls, measured.kernel_write_bytes)
    expect(got == want, f"{what}: predicted {got} writes/bytes, strace {want}")


def check(a, tmp, buffered, unbuffered, line=None):
    trace = os.path.join(tmp, "trace")
    out, recorded = strace_run(a, tmp, buffered, "recorded", SEEKTRACE_TRACE=trace)
    f = whatif_writes(a, trace, out)
    expect(f["streams"] == 1 and f["written_bytes"] == int(RECORDS) * int(SIZE), f"{f}")
    expect(f["recorded"]["model_agrees"] is True, f"the model disagrees with the recording: {f}")
    same("the recorded run", f["recorded"]["predicted"], recorded)
    predicted = {r["size"]: r for r in f["sizes"]}
    for size in SIZES:
        _, measured = strace_run(a, tmp, buffered, f"at{size}", SEEKTRACE_BUFSIZE=str(size))
        same(f"{size} B", predicted[size], measured)
    _, measured = strace_run(a, tmp, unbuffered, "unbuffered")
    same("unbuffered", f["unbuffered"], measured)
    if line:
        _, measured = strace_run(a, tmp, line, "line")
        expect(f["line"]["buffer_size"] == f["recorded"]["buffer_size"], f"{f}")
        same("line buffered", f["line"], measured)
    # Not a test that cannot fail: the sizes predict different counts.
    counts = {predicted[s]["write_syscalls"] for s in SIZES} | {f["unbuffered"]["write_syscalls"]}
    expect(len(counts) == len(SIZES) + 1, f"{counts}")


def case_sweep(a, tmp):
    """sweep measures write syscalls and bytes: at each size the sum over the
    run equals strace's (every file but the library's own: its report, and
    /proc/self/mem, through which it patches stdio's jump table)."""
    p = subprocess.run([a.seektrace, "sweep", "--json", "--reps", "1", "--sizes", "512,4k",
                        "--", a.small_write, os.path.join(tmp, "records.out"), RECORDS, SIZE,
                        "printf"], capture_output=True, text=True)
    expect(p.returncode == 0, f"sweep: rc {p.returncode}: {p.stderr[-1000:]}")
    rows = {r["size"]: r for r in json.loads(p.stdout)["sizes"]}
    for size in (512, 4096):
        strace_run(a, tmp, "printf", f"sweep{size}", SEEKTRACE_BUFSIZE=str(size))
        theirs = [c for path, c in strace_log.parse(os.path.join(tmp, f"strace.sweep{size}"))[1]
                  .items() if not (path or "").startswith((os.path.join(tmp, "report."), "/proc/"))]
        want = (sum(c.write_syscalls for c in theirs), sum(c.kernel_write_bytes for c in theirs))
        got = (rows[size]["write_syscalls"], rows[size]["kernel_write_bytes"])
        expect(got == want, f"sweep at {size}: {got} writes/bytes, strace {want}")
        expect(rows[size]["written_bytes"] >= int(RECORDS) * int(SIZE), f"{rows[size]}")
    expect(rows[512]["write_syscalls"] > rows[4096]["write_syscalls"], f"{rows}")


def case_line_recorded(a, tmp):
    """A line-buffered run replays exactly, and predicts full buffering."""
    trace = os.path.join(tmp, "trace")
    out, recorded = strace_run(a, tmp, "line", "recorded", SEEKTRACE_TRACE=trace)
    f = whatif_writes(a, trace, out)
    expect(f["recorded"]["line_buffered"] is True and f["recorded"]["model_agrees"] is True, f"{f}")
    same("the recorded line-buffered run", f["recorded"]["predicted"], recorded)
    expect(recorded.write_syscalls == int(RECORDS), f"strace: {recorded}")
    _, measured = strace_run(a, tmp, "full", "full", SEEKTRACE_BUFSIZE="4096")
    same("4 KiB, full", {r["size"]: r for r in f["sizes"]}[4096], measured)
    # What the line replay reads: each fwrite's op says its record ended a line.
    p = subprocess.run([a.seektrace, "export", "--format", "jsonl", "--file", out, trace],
                       capture_output=True, text=True)
    expect(p.returncode == 0, p.stderr[-1000:])
    ops = [json.loads(l) for l in p.stdout.splitlines() if '"op":"other"' in l]
    expect(len(ops) == int(RECORDS) and all(o.get("call") == "fwrite" and o.get("ends_line")
                                            for o in ops), f"{len(ops)} ops: {ops[:2]}")


def case_recorded_workloads(a, tmp):
    """The recorded run of each of tests/workloads/writes.c's ways to write
    replays exactly: the same writes and bytes as strace counted on the file."""
    clean = {k: v for k, v in os.environ.items()
             if k != "LD_PRELOAD" and not k.startswith("SEEKTRACE_")}
    for mode in ("unbuffered", "linebuf", "fflush", "fputc", "putc_unlocked", "bigwrite",
                 "wplus", "stdout"):
        out = os.path.join(tmp, f"{mode}.out")
        log = os.path.join(tmp, f"strace.{mode}")
        trace = os.path.join(tmp, f"trace.{mode}")
        tracee = dict(LD_PRELOAD=a.lib, SEEKTRACE_TRACE=trace,
                      SEEKTRACE_OUTPUT=os.path.join(tmp, f"report.{mode}.%p"))
        p = subprocess.run(strace_log.command(log, tracee, [a.writes, mode, out, "3000"]),
                           env=clean, capture_output=True, text=True)
        expect(p.returncode == 0, f"{mode}: rc {p.returncode}: {p.stderr[-1000:]}")
        theirs = strace_log.parse(log)[1].get(out, strace_log.FileSyscalls())
        f = whatif_writes(a, trace, out)
        expect(f["recorded"]["model_agrees"] is True, f"{mode}: {f['recorded']}")
        same(f"{mode}: the recorded run", f["recorded"]["predicted"], theirs)


def case_wplus(a, tmp):
    """The read-modify-write program (tests/diagnosis/rmw.c): 2,000 seeks and
    8-byte fwrites on a "w+" stream, where each seek reads the block it lands
    in and the next record is put inside it; a record crossing the block's
    end is written in two. Predicted at each size, equal to strace's count
    with SEEKTRACE_BUFSIZE."""
    rmw = os.path.join(os.path.dirname(a.small_write), "diag_rmw")
    out = os.path.join(tmp, "rmw.out")
    clean = {k: v for k, v in os.environ.items()
             if k != "LD_PRELOAD" and not k.startswith("SEEKTRACE_")}
    trace = os.path.join(tmp, "trace")
    counted = {}
    for name, env in [("recorded", {"SEEKTRACE_TRACE": trace})] + [
            (str(size), {"SEEKTRACE_BUFSIZE": str(size)}) for size in SIZES]:
        log = os.path.join(tmp, f"strace.{name}")
        tracee = dict(LD_PRELOAD=a.lib, SEEKTRACE_OUTPUT=os.path.join(tmp, f"report.{name}.%p"),
                      **env)
        p = subprocess.run(strace_log.command(log, tracee, [rmw, out, "w+", "2000"]), env=clean,
                           capture_output=True, text=True)
        expect(p.returncode == 0, f"{name}: rc {p.returncode}: {p.stderr[-1000:]}")
        counted[name] = strace_log.parse(log)[1].get(out, strace_log.FileSyscalls())
    f = whatif_writes(a, trace, out)
    expect(f["recorded"]["model_agrees"] is True, f"{f['recorded']}")
    same("the recorded run", f["recorded"]["predicted"], counted["recorded"])
    predicted = {r["size"]: r for r in f["sizes"]}
    for size in SIZES:
        same(f"{size} B", predicted[size], counted[str(size)])
    expect(predicted[512]["write_syscalls"] > predicted[65536]["write_syscalls"], f"{predicted}")


CASES = {
    "sweep_writes": case_sweep,
    "write_wplus": case_wplus,
    "write_recorded_workloads": case_recorded_workloads,
    "write_line_recorded": case_line_recorded,
    "write_fwrite": lambda a, tmp: check(a, tmp, "full", "unbuffered", "line"),
    "write_printf": lambda a, tmp: check(a, tmp, "printf", "printf_unbuffered", "printf_line"),
    "write_putc": lambda a, tmp: check(a, tmp, "putc", "putc_unbuffered"),
}

if __name__ == "__main__":
    sys.exit(harness.main(CASES, ["--seektrace", "--lib", "--small-write", "--writes"],
                          "st-whatif-w-"))
