#!/usr/bin/env python3
"""Tests of seektrace html (issue 24): the page of real runs.

    html_tests.py --seektrace BIN --lib LIB --demo FSEEK2006 --forker FORKER
                  [--chromium PATH] [--preload-prefix LIBASAN] CASE

Three runs, made fresh: the demo's workload (200,000 random fseek + 16-byte
fread with a 128 KiB buffer), a multi-process run (cli_forker: 1,000
processes for static, 100 for browser) and an empty run (a command that
reads nothing). Cases:
  static   each page offline (CSP, no URL, no external resource), under
           5 MB, and every total, file row and site row equal to report
           --json of the same traces; JSON reports as inputs; bad usage.
  browser  headless Chromium (cdp.py, the DevTools pipe) renders each page:
           the DOM carries report --json's totals, no console message of
           level error, no request leaves the page, the screenshot is not
           blank, it prints (a PDF of a few pages), and the site table sorts
           when its header is clicked.
Exit 0 pass, 1 fail.
"""
import argparse
import base64
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import time
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from page_check import Failure, Page, check_against_json, check_offline, expect  # noqa: E402
import cdp  # noqa: E402

MAX_PAGE = 5 * 1024 * 1024
COST = "400,150,300,0.1"  # fixed: no calibration measured during the tests


class Runs:
    def __init__(self, a, tmp):
        self.a, self.tmp = a, tmp

    def traced_env(self, env=None):
        """A sanitized build's library needs the ASan runtime first in each
        traced process, and ASan must leave the programs' leaks alone."""
        e = dict(env if env is not None else os.environ)
        if self.a.preload_prefix:
            e["ASAN_OPTIONS"] = "detect_leaks=0"
        return e

    def preload(self):
        return f"{self.a.preload_prefix}:{self.a.lib}" if self.a.preload_prefix else self.a.lib

    def st(self, *args, check=True):
        env = None
        if args[0] in ("run", "sweep") and self.a.preload_prefix:
            # What they start is traced: the runtime first (they keep it so).
            env = self.traced_env()
            env["LD_PRELOAD"] = self.a.preload_prefix
        p = subprocess.run([self.a.seektrace, *args], capture_output=True, text=True, timeout=60,
                           env=env)
        if check and p.returncode != 0:
            raise Failure(f"seektrace {' '.join(args)} exited {p.returncode}: {p.stderr[-800:]}")
        return p

    def demo(self):
        d = os.path.join(self.tmp, "demo")
        env = self.traced_env(dict(os.environ, LD_PRELOAD=self.preload(), SEEKTRACE_TRACE=d,
                                   SEEKTRACE_OUTPUT="/dev/null"))
        subprocess.run([self.a.demo, os.path.join(self.tmp, "demo.dat"), "--buffer", "131072"],
                       env=env, check=True, stdout=subprocess.DEVNULL, timeout=60)
        return d

    def fan(self, processes):
        d = os.path.join(self.tmp, "fan")
        self.st("run", "-q", "--trace", d, "--", self.a.forker,
                os.path.join(self.tmp, "demo.dat"), str(processes - 1))
        return d

    def page(self, name, inputs):
        out = os.path.join(self.tmp, name + ".html")
        self.st("html", "--cost", COST, *inputs, "-o", out)
        return out

    def all(self, processes):
        """(name, page, report --json, processes) of the three runs."""
        demo = self.demo()
        fan = self.fan(processes)
        empty = os.path.join(self.tmp, "empty.html")
        self.st("run", "-q", "--html", empty, "--", "true")
        return [
            ("demo", self.page("demo", [demo]), json.loads(self.st("report", "--json", demo).stdout), 1),
            ("fan", self.page("fan", [fan]), json.loads(self.st("report", "--json", fan).stdout),
             processes),
            ("empty", empty, None, 0),
        ]


def empty_json():
    zero = {k: 0 for k in ("read_syscalls", "kernel_read_bytes", "delivered_bytes")}
    return {"merged": {"totals": zero, "files": []}}


def case_static(a, tmp):
    r = Runs(a, tmp)
    for name, page, j, nproc in r.all(1000):
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
    # The demo's JSON report: no events, but the library's 4 KiB prediction.
    djson = os.path.join(tmp, "demo.json")
    with open(djson, "w") as f:
        f.write(r.st("report", "--json", os.path.join(tmp, "demo")).stdout)
    dj = check_offline(open(r.page("demo-json", [djson]), encoding="utf-8").read(), "demo-json")
    check_against_json(dj, json.load(open(djson)), 1)
    expect("whatif-4k" in dj.ids and "map-0" not in dj.ids, "demo-json: what it holds")
    # A sweep's measurements beside the replay, at the sweep's sizes: the
    # table holds both, and the kernel figures agree (the model is exact on
    # this workload).
    small = os.path.join(tmp, "small")
    env = r.traced_env(dict(os.environ, LD_PRELOAD=r.preload(), SEEKTRACE_TRACE=small,
                            SEEKTRACE_OUTPUT="/dev/null"))
    work = [a.demo, os.path.join(tmp, "demo.dat"), "--seeks", "2000"]
    subprocess.run(work + ["--buffer", "131072"], env=env, check=True,
                   stdout=subprocess.DEVNULL, timeout=60)
    sweep = os.path.join(tmp, "sweep.json")
    with open(sweep, "w") as f:
        f.write(r.st("sweep", "--reps", "1", "--sizes", "4k,128k", "--json", "--", *work).stdout)
    sj = json.load(open(sweep))["sizes"]
    ps = Page(open(r.page("sweep", ["--sweep", sweep, small]), encoding="utf-8").read())
    rows = ps.tables.get("whatif-table", [])
    expect(len(rows) == 3 and rows[0][0][1].startswith("exact"), f"what-if rows {rows}")
    for row, m in zip(rows[1:], sj):
        got = [int(c[2]) for c in row]
        # size | model reads, lseeks, bytes, ns | measured reads, lseeks, bytes, wall
        expect(got[0] == m["size"] and got[5:9] == [m["read_syscalls"], m["lseek_syscalls"],
                                                     m["kernel_read_bytes"], m["wall_ns"]],
               f"sweep row {got} != {m}")
        expect(got[1:4] == got[5:8], f"the replay and the sweep disagree at {m['size']}: {got}")
    # run --html writes the same page as html on the run's traces.
    kept_dir, run_page = os.path.join(tmp, "run-traces"), os.path.join(tmp, "run.html")
    r.st("run", "-q", "--trace", kept_dir, "--html", run_page, "--", *work)
    check_against_json(check_offline(open(run_page, encoding="utf-8").read(), "run --html"),
                       json.loads(r.st("report", "--json", kept_dir).stdout), 1)
    p = r.st("html", "--sweep", rep, small, "-o", os.path.join(tmp, "x.html"), check=False)
    expect(p.returncode == 2 and "sweep" in p.stderr and p.stderr.count("\n") == 1, p.stderr)
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
    # --keep-going: the page of what could be read, the skipped input named
    # on it, exit 3.
    traces = os.path.join(tmp, "demo")
    p = r.st("html", "--cost", COST, "--keep-going", traces, bad, "-o", out, check=False)
    expect(p.returncode == 3, f"--keep-going: exit {p.returncode}: {p.stderr}")
    kept = check_offline(open(out, encoding="utf-8").read(), "keep-going")
    expect("skipped" in kept.ids and "bad.sktrace" in open(out, encoding="utf-8").read(),
           "--keep-going: the skipped input is not named")
    check_against_json(kept, json.loads(r.st("report", "--json", traces).stdout), 1)


def png_pixels(data):
    """(width, height, rows of RGB(A) bytes) of an 8-bit RGB or RGBA PNG."""
    expect(data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG")
    pos, idat, w = 8, b"", 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, color = struct.unpack(">IIBB", body[:10])
            expect(depth == 8 and color in (2, 6), f"PNG depth {depth} color {color}")
            bpp = 3 if color == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw = zlib.decompress(idat)
    stride = w * bpp
    rows, prev = [], bytearray(stride)
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return w, h, bpp, rows


def screenshot_says(png, name, orange):
    """The screenshot is not blank: ink on a share of it, several colours,
    and (orange) the kernel bytes' colour of the page's bars (#f0a35e)."""
    w, h, bpp, rows = png_pixels(png)
    colours, ink, kern = set(), 0, 0
    for line in rows[::2]:
        for x in range(0, w * bpp, bpp * 2):
            px = line[x:x + 3]
            colours.add(px)
            ink += px != b"\xff\xff\xff"
            kern += abs(px[0] - 0xf0) < 12 and abs(px[1] - 0xa3) < 12 and abs(px[2] - 0x5e) < 12
    sampled = (h // 2 + h % 2) * ((w + 1) // 2)
    expect(ink > sampled // 50 and len(colours) > 8,
           f"{name}: screenshot looks blank ({ink} of {sampled} pixels inked, {len(colours)} colours)")
    expect(not orange or kern > 200, f"{name}: no bar drawn in the screenshot ({kern} orange pixels)")
    return ink * 100 // sampled


def browser_problems(events, page_url):
    """Console errors, exceptions and any request for something but the
    page itself."""
    bad = []
    for method, p in events:
        if method == "Runtime.exceptionThrown":
            bad.append(f"exception: {p.get('exceptionDetails', {}).get('text')}")
        elif method == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
            bad.append(f"console.{p['type']}: {[a.get('value') for a in p.get('args', [])]}")
        elif method == "Log.entryAdded" and p["entry"].get("level") == "error":
            bad.append(f"log: {p['entry'].get('text')}")
        elif method == "Network.requestWillBeSent":
            url = p["request"]["url"]
            if url != page_url and not url.startswith(("data:", "about:")):
                bad.append(f"request: {url}")
    return bad


SORT_CHECK = """(function(){
  var th=document.querySelector('#sites thead th:nth-child(4)');
  var col=function(){return Array.from(document.querySelectorAll('#sites tbody tr'))
    .map(function(r){return Number(r.cells[3].dataset.v);});};
  th.click(); var down=col(); th.click(); var up=col();
  return [down, up];
})()"""


def case_browser(a, tmp):
    chromium = a.chromium or shutil.which("chromium") or shutil.which("chromium-browser")
    expect(chromium, "no chromium: scripts/test.sh installs Debian's chromium")
    pages = Runs(a, tmp).all(100)  # the size bound is static's: fewer processes here
    with cdp.Browser(chromium) as b:
        b.open_page(width=1100, height=1200)
        for name, page, j, nproc in pages:
            url = "file://" + os.path.abspath(page)
            t = time.monotonic()
            b.load(page)
            took = time.monotonic() - t
            dom = b.evaluate("document.documentElement.outerHTML")
            p = Page(dom)
            if j is None:
                expect(p.totals and all(v == 0 for v in p.totals.values()), f"empty: {p.totals}")
            else:
                check_against_json(p, j, nproc)
            ink = screenshot_says(b.screenshot(), name, j is not None)
            bad = browser_problems(b.events, url)
            expect(not bad, f"{name}: {bad[:5]}")
            if name == "demo":
                # It prints: a PDF of a few pages, every section's SVG kept.
                pdf = base64.b64decode(b.send("Page.printToPDF", {"printBackground": True})["data"])
                pages = pdf.count(b"/Type /Page") - pdf.count(b"/Type /Pages")
                expect(pdf[:5] == b"%PDF-" and 1 < pages < 20, f"demo: printed {pages} pages")
                down, up = b.evaluate(SORT_CHECK)
                expect(len(down) > 2 and down == sorted(down, reverse=True) and up == sorted(up),
                       f"sorting the site table by kernel bytes: {down} then {up}")
            print(f"{name}: loaded in {took:.2f} s, DOM totals equal report --json's, "
                  f"{ink}% of the screenshot inked, no console error, no request")


CASES = {"static": case_static, "browser": case_browser}


def main():
    ap = argparse.ArgumentParser()
    for opt in ("--seektrace", "--lib", "--demo", "--forker"):
        ap.add_argument(opt, required=True)
    ap.add_argument("--chromium")
    ap.add_argument("--preload-prefix", default="")
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
