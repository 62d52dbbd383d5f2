"""A minimal Chrome DevTools Protocol client for headless Chromium.

Chromium is started with --remote-debugging-pipe: it reads commands on its
fd 3 and writes replies and events on its fd 4, one JSON message per
NUL-terminated chunk.  No websocket, no npm package: only the standard
library, so the browser tests need nothing but Debian's `chromium`.
"""
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time

FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-extensions", "--disable-dev-shm-usage", "--disable-default-apps",
    "--mute-audio", "--hide-scrollbars",
    # nothing may resolve: a page that tried the network would fail loudly
    "--host-resolver-rules=MAP * ~NOTFOUND",
]


def find_chromium():
    for name in (os.environ.get("CHROMIUM"), "chromium", "chromium-browser", "google-chrome"):
        if name and shutil.which(name):
            return shutil.which(name)
    return None


class CDPError(Exception):
    pass


class Browser:
    def __init__(self, exe=None, timeout=60):
        exe = exe or find_chromium()
        if not exe:
            raise CDPError("chromium not found")
        self.timeout = timeout
        self.udd = tempfile.mkdtemp(prefix="gpuleak-chromium.")
        cmd_r, self.cmd_w = os.pipe()    # we write commands, chromium reads fd 3
        self.ev_r, ev_w = os.pipe()      # chromium writes fd 4, we read
        args = [exe] + FLAGS + ["--user-data-dir=" + self.udd, "--remote-debugging-pipe", "about:blank"]
        # bash puts the pipe ends on fds 3 and 4 and execs chromium
        self.proc = subprocess.Popen(
            ["bash", "-c", 'exec "$0" "$@" 3<&%d 4>&%d' % (cmd_r, ev_w)] + args,
            pass_fds=(cmd_r, ev_w), stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(cmd_r)
        os.close(ev_w)
        self.buf = b""
        self.next_id = 1
        self.events = []   # (method, params, sessionId) not yet consumed
        self.listeners = []

    def close(self):
        try:
            self.send("Browser.close")
        except Exception:
            pass
        try:
            self.proc.wait(timeout=10)
        except Exception:
            self.proc.kill()
            self.proc.wait()
        for fd in (self.cmd_w, self.ev_r):
            try:
                os.close(fd)
            except OSError:
                pass
        shutil.rmtree(self.udd, ignore_errors=True)

    def _read_message(self, deadline):
        while b"\0" not in self.buf:
            left = deadline - time.time()
            if left <= 0:
                raise CDPError("timed out waiting for chromium")
            r, _, _ = select.select([self.ev_r], [], [], left)
            if not r:
                continue
            chunk = os.read(self.ev_r, 1 << 20)
            if not chunk:
                raise CDPError("chromium closed the pipe (exit %s)" % self.proc.poll())
            self.buf += chunk
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def _dispatch(self, m):
        if "method" in m:
            for f in self.listeners:
                f(m["method"], m.get("params", {}), m.get("sessionId"))
            self.events.append((m["method"], m.get("params", {}), m.get("sessionId")))
            return None
        return m

    def send(self, method, params=None, session=None, timeout=None):
        i = self.next_id
        self.next_id += 1
        msg = {"id": i, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        data = json.dumps(msg).encode() + b"\0"
        while data:
            n = os.write(self.cmd_w, data)
            data = data[n:]
        deadline = time.time() + (timeout or self.timeout)
        while True:
            m = self._dispatch(self._read_message(deadline))
            if m is not None and m.get("id") == i:
                if "error" in m:
                    raise CDPError("%s: %s" % (method, m["error"]))
                return m.get("result", {})

    def wait_event(self, method, session=None, timeout=None):
        deadline = time.time() + (timeout or self.timeout)
        while True:
            for k, (meth, params, sid) in enumerate(self.events):
                if meth == method and (session is None or sid == session):
                    del self.events[k]
                    return params
            self._dispatch(self._read_message(deadline))

    def pump(self, seconds):
        """Reads events for a while (so late console messages are seen)."""
        deadline = time.time() + seconds
        try:
            while True:
                self._dispatch(self._read_message(deadline))
        except CDPError:
            pass

    def new_page(self, width=1280, height=900):
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        sid = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        page = Page(self, sid)
        for domain in ("Runtime", "Log", "Network", "Page"):
            self.send(domain + ".enable", session=sid)
        self.send("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False}, session=sid)
        return page


class Page:
    def __init__(self, browser, sid):
        self.b = browser
        self.sid = sid
        self.url = None     # the page's own, once open_ready has opened it
        self.requests = []  # every URL the page asked for
        self.errors = []    # console errors, exceptions, log errors
        browser.listeners.append(self._listen)

    def _listen(self, method, p, sid):
        if sid != self.sid:
            return
        if method == "Network.requestWillBeSent":
            self.requests.append(p["request"]["url"])
        elif method == "Runtime.exceptionThrown":
            d = p.get("exceptionDetails", {})
            self.errors.append("exception: %s %s" % (d.get("text"), d.get("exception", {}).get("description", "")))
        elif method == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
            self.errors.append("console.%s: %s" % (p["type"], " ".join(str(a.get("value", a.get("description")))
                                                                 for a in p.get("args", []))))
        elif method == "Log.entryAdded" and p["entry"].get("level") == "error":
            self.errors.append("log: %s (%s)" % (p["entry"].get("text"), p["entry"].get("url", "")))

    def send(self, method, params=None, timeout=None):
        return self.b.send(method, params, session=self.sid, timeout=timeout)

    def goto(self, url, timeout=None):
        self.send("Page.navigate", {"url": url})
        self.b.wait_event("Page.loadEventFired", session=self.sid, timeout=timeout)

    def open_ready(self, path, max_load_s=10):
        """Opens the file path and waits until the page says it has drawn
        (body[data-ready="1"]), with room for a slow machine (three times
        max_load_s, 30 s at the least); then the console messages that come
        late.  Returns the seconds it took."""
        t = time.time()
        self.url = "file://" + os.path.abspath(path)
        self.goto(self.url, timeout=max(60, max_load_s * 3))
        deadline = time.time() + max(30, max_load_s * 3)
        while self.eval("document.body && document.body.getAttribute('data-ready')") != "1":
            if time.time() > deadline:
                raise CDPError("page never became ready")
            time.sleep(0.05)
        load_s = time.time() - t
        self.b.pump(0.3)  # late console messages
        return load_s

    def other_requests(self):
        """What the page asked for besides itself (after open_ready)."""
        return [u for u in self.requests if u != self.url]

    def eval(self, expr, timeout=None):
        r = self.send("Runtime.evaluate", {"expression": expr, "returnByValue": True, "awaitPromise": True},
                      timeout=timeout)
        if "exceptionDetails" in r:
            raise CDPError("evaluate failed: %s: %s" % (expr[:80], r["exceptionDetails"]))
        return r["result"].get("value")

    def mouse(self, kind, x, y, buttons=0, button="none", clicks=0):
        self.send("Input.dispatchMouseEvent", {"type": kind, "x": x, "y": y, "button": button,
                                               "buttons": buttons, "clickCount": clicks})

    def click(self, x, y):
        self.mouse("mouseMoved", x, y)
        self.mouse("mousePressed", x, y, 1, "left", 1)
        self.mouse("mouseReleased", x, y, 0, "left", 1)

    def drag(self, x0, y0, x1, y1, steps=5):
        self.mouse("mouseMoved", x0, y0)
        self.mouse("mousePressed", x0, y0, 1, "left", 1)
        for k in range(1, steps + 1):
            self.mouse("mouseMoved", x0 + (x1 - x0) * k / steps, y0 + (y1 - y0) * k / steps, 1, "left")
        self.mouse("mouseReleased", x1, y1, 0, "left", 1)

    def center(self, selector):
        """Scrolls the element into view; its centre in viewport pixels."""
        r = self.eval("(function(){var e=document.querySelector(%s); if(!e) return null;"
                      "e.scrollIntoView({block:'center'}); var r=e.getBoundingClientRect();"
                      "return [r.left+r.width/2, r.top+r.height/2, r.width, r.height];})()" % json.dumps(selector))
        if r is None:
            raise CDPError("no element " + selector)
        return r

    def screenshot(self, path, full=False):
        import base64
        params = {"format": "png"}
        if full:
            h = self.eval("document.documentElement.scrollHeight")
            w = self.eval("document.documentElement.scrollWidth")
            params.update({"captureBeyondViewport": True, "clip": {"x": 0, "y": 0, "width": w, "height": h, "scale": 1}})
        data = self.send("Page.captureScreenshot", params)["data"]
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))


def write_page_json(page_path, out, draw, name):
    """The main of a script that opens page_path, once ready, asks
    draw(browser, page) for what it shows and writes that to out as JSON.
    Exits naming name when Chromium or the page fails (CDPError)."""
    try:
        b = Browser()
        try:
            page = b.new_page()
            page.open_ready(page_path)
            shown = draw(b, page)
        finally:
            b.close()
    except CDPError as e:
        sys.exit("%s: %s" % (name, e))
    json.dump(shown, open(out, "w"), indent=1)
