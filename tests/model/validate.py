#!/usr/bin/env python3
"""Check the stdio model's predictions against strace, exactly.

For every workload of st_model_workload and every buffer configuration, run
the workload under strace and count the read, lseek and fstat syscalls and
the bytes read on the data file. Compare them with the model's predictions
(st_model_replay) from two recordings of the workload's calls:
  same    the log of that very run;
  whatif  the log of a run with glibc's default buffer, replayed at this
          buffer, as `seektrace whatif` does. Skipped for the workloads whose
          calls return different things at different buffer sizes (glibc's
          ungetc quirks, see workload.c).
A replay also fails when a call's recorded result differs from the model's.
Prints one table per check and, for each difference, the buffer, the metric,
the predicted and the measured value.

Exit status: 0 when everything matches, 1 on any difference, 2 on a broken
run, 77 (CTest's SKIP_RETURN_CODE) when strace cannot trace here.
Standard library only.
"""
import argparse
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile

POW2_SIZES = [512 << i for i in range(12)]  # 512 .. 1 MiB
ODD_SIZES = [1, 100, 1000, 3000, 5000]  # under 128 (no rounding), not powers of 2
BUFFERS = ([str(s) for s in POW2_SIZES] + [str(s) for s in ODD_SIZES]
           + ["default", "none"])

# workload -> data file it runs on
WORKLOADS = {
    "demo": "data.bin",
    "getc": "small.bin",
    "fgets": "text.txt",
    "getline": "text.txt",
    "fread10k": "odd.bin",
    "mixed": "odd.bin",
    "ftell": "small.bin",
    "eof": "small.bin",
    "ungetc": "small.bin",
    "fresh": "small.bin",
    "random": "small.bin",
    "random_backup": "small.bin",
}
# Workloads whose recordings differ between buffer sizes: no whatif check.
BUFFER_DEPENDENT = {"fresh", "random_backup"}

METRICS = ["reads", "bytes", "lseeks", "fstats"]
TRACED = "read,lseek,newfstatat,fstat"
LINE_RE = re.compile(r"^(read|lseek|newfstatat|fstat)\(\d+<([^>]*)>.* = (-?\d+)")


def make_files(d):
    """Deterministic data files. None holds a NUL byte (fgets lengths are
    taken with strlen); the sizes are not multiples of any buffer size except
    data.bin's 4 MiB."""
    rnd = random.Random(20240601)

    def binary(name, size):
        data = rnd.randbytes(size).replace(b"\0", b"\1")
        with open(os.path.join(d, name), "wb") as f:
            f.write(data)

    binary("data.bin", 4 << 20)
    binary("odd.bin", 1_000_003)
    binary("small.bin", 60_001)
    # Mostly short lines, a few longer than fgets' n and than small buffers.
    # Kept near 100 KB: unbuffered, each byte is a traced read.
    lines = []
    for _ in range(1000):
        r = rnd.random()
        n = (rnd.randrange(0, 100) if r < 0.96 else rnd.randrange(100, 2000)
             if r < 0.995 else rnd.randrange(2000, 6000))
        lines.append("".join(rnd.choice("abcdefghij ") for _ in range(n)))
    with open(os.path.join(d, "text.txt"), "w") as f:
        f.write("\n".join(lines))  # the last line has no '\n'


def strace_counts(trace, path):
    counts = dict.fromkeys(METRICS, 0)
    with open(trace) as f:
        for line in f:
            m = LINE_RE.match(line)
            if not m or m.group(2) != path:
                continue
            call, result = m.group(1), int(m.group(3))
            if call == "read":
                counts["reads"] += 1
                counts["bytes"] += max(result, 0)
            elif call == "lseek":
                counts["lseeks"] += 1
            else:
                counts["fstats"] += 1
    return counts


def model_counts(replay, log, size, buffer, default_bufsize, glibc):
    if buffer == "default":
        mode, bufsize = "default", default_bufsize
    elif buffer == "none":
        mode, bufsize = "none", 1
    else:
        mode, bufsize = "user", int(buffer)
    p = subprocess.run([replay, log, str(size), mode, str(bufsize), glibc],
                       capture_output=True, text=True, check=True)
    words = p.stdout.split()
    values = dict(zip(words[::2], (int(w) for w in words[1::2])))
    return values, p.stderr


def compare(predicted, measured):
    diffs = [(metric, predicted[metric], measured[metric])
             for metric in METRICS if predicted[metric] != measured[metric]]
    if predicted["mismatches"]:
        diffs.append(("results", predicted["mismatches"], 0))
    return diffs


def glibc_loader(glibc_dir):
    """The words that run a program under the glibc in glibc_dir, or none."""
    if not glibc_dir:
        return []
    return [os.path.join(glibc_dir, "ld-linux-x86-64.so.2"), "--library-path", glibc_dir]


def glibc_version(glibc_dir):
    """The version of the glibc the workloads run under: "2.36"."""
    if glibc_dir:
        with open(os.path.join(glibc_dir, ".version"), encoding="utf-8") as f:
            return f.read().strip().split("-")[0]
    return os.confstr("CS_GNU_LIBC_VERSION").split()[-1]


def run_workload(args, d, workload, buffer, log, trace=None):
    cmd = glibc_loader(args.glibc) + [args.workload, workload,
                                      os.path.join(d, WORKLOADS[workload]), buffer, log]
    if trace:
        cmd = ["strace", "-o", trace, "-y", "-e", "trace=" + TRACED] + cmd
    subprocess.run(cmd, check=True)


def run_one(args, d, workload, buffer, reference_log):
    """Returns {check: (diffs, replay notes)} for one workload and buffer."""
    data = os.path.join(d, WORKLOADS[workload])
    log = os.path.join(d, "calls.log")
    trace = os.path.join(d, "strace.out")
    run_workload(args, d, workload, buffer, log, trace)
    measured = strace_counts(trace, data)
    st = os.stat(data)
    default_bufsize = min(st.st_blksize, 8192) if st.st_blksize > 0 else 8192
    results = {}
    for check, recording in (("same", log), ("whatif", reference_log)):
        if recording is None:
            continue
        predicted, notes = model_counts(args.replay, recording, st.st_size,
                                        buffer, default_bufsize, glibc_version(args.glibc))
        results[check] = (compare(predicted, measured), notes)
    return results


def print_table(check, buffers, rows):
    width = max(len(b) for b in buffers)
    print(f"\n[{check}]")
    print("workload      " + " ".join(b.rjust(width) for b in buffers))
    for workload, cells, report in rows:
        print(workload.ljust(13) + " " + " ".join(c.rjust(width) for c in cells))
        for line in report:
            print(line)


def strace_works():
    try:
        return subprocess.run(["strace", "-o", os.devnull, "true"],
                              capture_output=True).returncode == 0
    except OSError:
        return False


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workload", required=True, help="st_model_workload binary")
    ap.add_argument("--replay", required=True, help="st_model_replay binary")
    ap.add_argument("--only", nargs="*", default=list(WORKLOADS),
                    help="workloads to run (default: all)")
    ap.add_argument("--buffers", nargs="*", default=BUFFERS,
                    help="buffer sizes, 'default' or 'none' (default: all)")
    ap.add_argument("--keep", action="store_true", help="keep the scratch dir")
    ap.add_argument("--glibc", metavar="DIR",
                    help="run the workloads under the glibc extracted to DIR (tests/glibc/fetch.sh)")
    args = ap.parse_args()
    if not strace_works():
        print("strace cannot trace here: skipped")
        return 77

    d = os.path.realpath(tempfile.mkdtemp(prefix="st-model-"))
    tables = {"same": [], "whatif": []}
    failures = 0
    try:
        make_files(d)
        for workload in args.only:
            reference = None
            if workload not in BUFFER_DEPENDENT:
                reference = os.path.join(d, "reference.log")
                run_workload(args, d, workload, "default", reference)
            rows = {check: (workload, [], []) for check in tables}
            for buffer in args.buffers:
                results = run_one(args, d, workload, buffer, reference)
                for check, (_, cells, report) in rows.items():
                    if check not in results:
                        cells.append("-")
                        continue
                    diffs, notes = results[check]
                    cells.append("FAIL" if diffs else "ok")
                    failures += bool(diffs)
                    report.extend(f"  {workload} buffer={buffer} {metric}: "
                                  f"predicted {pred}, measured {meas}"
                                  for metric, pred, meas in diffs)
                    if notes:
                        report.append("  " + notes.strip().replace("\n", "\n  "))
            for check in tables:
                tables[check].append(rows[check])
    except subprocess.CalledProcessError as e:
        print(f"broken run: {e}", file=sys.stderr)
        return 2
    finally:
        if args.keep:
            print(f"scratch files in {d}")
        else:
            shutil.rmtree(d, ignore_errors=True)
    for check, rows in tables.items():
        print_table(check, args.buffers, rows)
    print("\nall match" if not failures else f"\n{failures} mismatching checks")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
