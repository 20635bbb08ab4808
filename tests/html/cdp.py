"""A minimal client of Chromium's DevTools protocol over --remote-debugging-pipe.

No websocket, no selenium, no npm: Chromium reads commands on fd 3 and
writes replies and events on fd 4, each a JSON object ended by a NUL byte.
The browser runs headless in a private profile and is killed on close,
whatever happened before (use it as a context manager).

    python3 cdp.py --chromium PATH PAGE.html OUT.png [WIDTH]

writes a full-page screenshot of a page (how docs/ got the demo's).
"""
import base64
import ctypes
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time


class CdpError(Exception):
    pass


class Browser:
    def __init__(self, chromium, timeout=15.0):
        self.timeout = timeout
        self.profile = tempfile.mkdtemp(prefix="seektrace-chromium-")
        to_chrome_r, self._w = os.pipe()
        self._r, from_chrome_w = os.pipe()
        # The child's fd 3 and 4: dup them there before exec. The browser
        # dies with this process too (PR_SET_PDEATHSIG, SIGKILL): a test
        # killed by its timeout leaves no browser behind.
        def fds():
            os.dup2(to_chrome_r, 3)
            os.dup2(from_chrome_w, 4)
            ctypes.CDLL(None, use_errno=True).prctl(1, 9, 0, 0, 0)
        self._log = open(os.path.join(self.profile, "stderr.log"), "wb")
        self.proc = subprocess.Popen(
            [chromium, "--headless=new", "--remote-debugging-pipe", "--no-sandbox",
             "--disable-gpu", "--no-first-run", "--no-default-browser-check",
             "--disable-extensions", "--disable-background-networking",
             "--disable-component-update", "--disable-sync", "--disable-breakpad",
             "--disable-dev-shm-usage", "--mute-audio", "--hide-scrollbars",
             f"--user-data-dir={self.profile}", "about:blank"],
            preexec_fn=fds, pass_fds=(3, 4),  # kept open: fds() made them
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=self._log,
            # Chromium puts its singleton socket in a directory of its own
            # under TMPDIR and leaves it when killed: inside the profile,
            # it goes with it.
            env=dict(os.environ, TMPDIR=self.profile))
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self._buf = b""
        self._id = 0
        self.events = []  # (method, params) of every event received
        self.session = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        if self.proc.poll() is None:
            self.proc.kill()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass
        self._log.close()
        for fd in (self._w, self._r):
            try:
                os.close(fd)
            except OSError:
                pass
        shutil.rmtree(self.profile, ignore_errors=True)

    def _read_message(self, deadline):
        while b"\0" not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise CdpError("no answer from the browser in time")
            ready, _, _ = select.select([self._r], [], [], left)
            if ready:
                chunk = os.read(self._r, 1 << 20)
                if not chunk:
                    raise CdpError(f"the browser closed its pipe (exit {self.proc.poll()})")
                self._buf += chunk
        msg, self._buf = self._buf.split(b"\0", 1)
        return json.loads(msg)

    def send(self, method, params=None, session=True):
        """Sends a command (to the attached page unless session=False);
        returns its result, keeping the events that came meanwhile."""
        self._id += 1
        msg = {"id": self._id, "method": method, "params": params or {}}
        if session and self.session:
            msg["sessionId"] = self.session
        data = json.dumps(msg).encode() + b"\0"
        while data:
            data = data[os.write(self._w, data):]
        deadline = time.monotonic() + self.timeout
        while True:
            m = self._read_message(deadline)
            if m.get("id") == self._id:
                if "error" in m:
                    raise CdpError(f"{method}: {m['error']}")
                return m.get("result", {})
            if "method" in m:
                self.events.append((m["method"], m.get("params", {})))

    def wait_event(self, method):
        deadline = time.monotonic() + self.timeout
        for i, (name, _) in enumerate(self.events):
            if name == method:
                return self.events[i][1]
        while True:
            m = self._read_message(deadline)
            if "method" in m:
                self.events.append((m["method"], m.get("params", {})))
                if m["method"] == method:
                    return m.get("params", {})

    def open_page(self, width=1100, height=1200):
        """A new tab, attached, its console, log, network and page events on."""
        target = self.send("Target.createTarget", {"url": "about:blank"}, session=False)
        self.session = self.send("Target.attachToTarget",
                                 {"targetId": target["targetId"], "flatten": True},
                                 session=False)["sessionId"]
        for domain in ("Runtime", "Log", "Network", "Page"):
            self.send(f"{domain}.enable")
        self.send("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})

    def load(self, path):
        self.events.clear()
        self.send("Page.navigate", {"url": "file://" + os.path.abspath(path)})
        self.wait_event("Page.loadEventFired")

    def evaluate(self, expression):
        r = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True})
        if "exceptionDetails" in r:
            raise CdpError(f"{expression[:60]}: {r['exceptionDetails']}")
        return r["result"].get("value")

    def screenshot(self, full=False):
        """PNG bytes of the viewport, or of the whole page."""
        params = {"format": "png"}
        if full:
            w, h = self.evaluate("[document.documentElement.scrollWidth,"
                                 "document.documentElement.scrollHeight]")
            params.update(captureBeyondViewport=True,
                          clip={"x": 0, "y": 0, "width": w, "height": h, "scale": 1})
        return base64.b64decode(self.send("Page.captureScreenshot", params)["data"])


def main():
    args = sys.argv[1:]
    if len(args) < 4 or args[0] != "--chromium":
        print(__doc__, file=sys.stderr)
        return 2
    chromium, page, out = args[1:4]
    width = int(args[4]) if len(args) > 4 else 1100
    with Browser(chromium) as b:
        b.open_page(width=width, height=900)
        b.load(page)
        png = b.screenshot(full=True)
    with open(out, "wb") as f:
        f.write(png)
    return 0


if __name__ == "__main__":
    sys.exit(main())
