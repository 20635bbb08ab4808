#!/usr/bin/env python3
"""Tests of `seektrace sweep` (issue 5).

    sweep_tests.py --seektrace BIN --lib LIB --demo FSEEK2006 CASE

The sweep's figures are checked against what is independently known:
strace's log of the demo run with the same SEEKTRACE_BUFSIZE the sweep sets
(its syscalls and bytes on the data file), the workload's own parameters
(16 bytes asked for per seek), and the 2006 shape (a 128 KiB buffer reads
~32x the kernel bytes of a 4 KiB one on random seeks). Exit 0 pass, 1 fail.
"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "integration"))
from harness import expect  # noqa: E402
import harness  # noqa: E402
import strace_log  # noqa: E402

SEEKS = "2000"


def demo_cmd(a, data):
    return [a.demo, data, "--seeks", SEEKS]


def make_data(a, tmp):
    # Created before any run: the demo writes it through stdio otherwise,
    # and those writes would land in the first run's figures.
    data = os.path.join(tmp, "demo.dat")
    subprocess.run(demo_cmd(a, data), check=True, stdout=subprocess.DEVNULL)
    return data


def sweep(a, *args, rc=0):
    p = subprocess.run([a.seektrace, "sweep", *args], capture_output=True, text=True)
    expect(p.returncode == rc, f"sweep {args}: rc {p.returncode}, stderr {p.stderr}")
    return p.stdout, p.stderr


def strace_figures(a, tmp, data, size):
    """What strace logs on the data file for one preloaded run at SEEKTRACE_BUFSIZE=size."""
    log = os.path.join(tmp, f"strace.{size}")
    tracee = {"LD_PRELOAD": a.lib, "SEEKTRACE_BUFSIZE": str(size),
              "SEEKTRACE_OUTPUT": os.path.join(tmp, f"report.{size}")}
    env = {k: v for k, v in os.environ.items() if not k.startswith("SEEKTRACE_")}
    p = strace_log.run(log, env, tracee, demo_cmd(a, data), b"", 300)
    expect(p.returncode == 0, f"strace run at {size}: rc {p.returncode} {p.stderr!r}")
    _, per_path = strace_log.parse(log)
    return per_path[os.path.realpath(data)]


def case_demo_2006(a, tmp):
    data = make_data(a, tmp)
    out, _ = sweep(a, "--sizes", "4k,128k", "--reps", "3", "--json", "--", *demo_cmd(a, data))
    j = json.loads(out)
    expect(j["schema"] == "seektrace.sweep/1" and j["reps"] == 3, out)
    rows = {r["size"]: r for r in j["sizes"]}
    expect(sorted(rows) == [4096, 131072], out)
    for size, r in rows.items():
        strace = strace_figures(a, tmp, data, size)
        for key in ("read_syscalls", "lseek_syscalls", "kernel_read_bytes"):
            expect(r[key] == getattr(strace, key), f"{size}: sweep {key} {r[key]} != strace "
                                                   f"{getattr(strace, key)}")
        expect(r["delivered_bytes"] == 16 * int(SEEKS), f"{r}")
        expect(len(r["runs_wall_ns"]) == 3 and r["wall_ns"] in r["runs_wall_ns"], f"{r}")
    ratio = rows[131072]["kernel_read_bytes"] / rows[4096]["kernel_read_bytes"]
    print(f"128 KiB / 4 KiB kernel bytes: {ratio:.1f}")
    expect(25 <= ratio <= 40, f"ratio {ratio}")
    expect(rows[4096]["fewest_kernel_bytes"] and not rows[131072]["fewest_kernel_bytes"], out)


def case_text_table(a, tmp):
    data = make_data(a, tmp)
    out, _ = sweep(a, "--sizes", "512,4k", "--reps", "1", "--", *demo_cmd(a, data))
    lines = out.splitlines()
    expect(lines[0].startswith("sweep of: " + a.demo), out)
    rows = [l for l in lines if "KiB " in l or " B " in l]
    expect(len(rows) == 2 and "512 B" in rows[0] and "4.00 KiB" in rows[1], out)
    expect(sum(l.startswith("*") for l in rows) == 1, out)
    expect("2,000" in rows[0], out)  # one lseek per fseek


def case_usage(a, tmp):
    out, _ = sweep(a, "--help")
    expect(out.startswith("usage: seektrace sweep") and "Exit status" in out, out)
    for bad in (["--sizes", "4q", "--", "true"], ["--reps", "0", "--", "true"], ["--json"],
                ["--frob", "--", "true"]):
        _, err = sweep(a, *bad, rc=2)
        expect(len(err.strip().splitlines()) == 1, err)
    _, err = sweep(a, "--reps", "1", "--sizes", "4k", "--", "/no/such/program", rc=2)
    expect("cannot run" in err, err)
    # A failing command still gives its table, and exit 1.
    out, err = sweep(a, "--reps", "1", "--sizes", "4k", "--", "sh", "-c",
                     "head -c 100 " + a.demo + " >/dev/null; exit 3", rc=1)
    expect("status 3" in err and "4.00 KiB" in out, out + err)
    # Killed before writing a report: 128+9, its row counts zero.
    out, err = sweep(a, "--reps", "1", "--sizes", "4k", "--", "sh", "-c", "kill -9 $$", rc=1)
    expect("status 137" in err and "4.00 KiB" in out, out + err)


CASES = {n[5:]: f for n, f in globals().items() if n.startswith("case_")}


if __name__ == "__main__":
    sys.exit(harness.main(CASES, ["--seektrace", "--lib", "--demo"], "st-sweep-"))
