"""A real headless Chromium driven over the DevTools protocol, for the tests of emc's web page.

The browser is Debian's ``chromium`` (scripts/setup.sh installs it). It talks the protocol over
two pipes (``--remote-debugging-pipe``: it reads commands from its descriptor 3 and writes
answers and events to 4, each message JSON ended by a NUL byte), so no port is opened and no
websocket client is needed. The browser and everything it starts run in a process group of
their own, which :meth:`Chromium.close` ends.
"""

from __future__ import annotations

import base64
import json
import os
import queue
import shutil
import signal
import subprocess
import tempfile
import threading

#: The flags that keep a headless Chromium off the network and quiet on this kind of machine.
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--hide-scrollbars", "--remote-debugging-pipe")

#: Longest wait for one answer (a bound on a hung browser, not a measurement).
ANSWER_SECONDS = 60


def find_chromium() -> str | None:
    for name in ("chromium", "chromium-browser"):
        path = shutil.which(name)
        if path:
            return path
    return None


class ProtocolError(Exception):
    pass


class Chromium:
    """One headless browser with one page; ``send`` runs a DevTools command on the page (or on
    the browser with ``browser=True``) and returns its result; events are kept in ``events``."""

    def __init__(self, executable: str, width: int = 1000, height: int = 900):
        self.profile = tempfile.mkdtemp(prefix="emc-chromium-")
        to_browser_r, to_browser_w = os.pipe()
        from_browser_r, from_browser_w = os.pipe()

        def descriptors() -> None:  # in the child: the pipes become its descriptors 3 and 4
            os.dup2(to_browser_r, 3)
            os.dup2(from_browser_w, 4)

        self.proc = subprocess.Popen(
            [executable, *FLAGS, f"--user-data-dir={self.profile}", f"--window-size={width},{height}", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            preexec_fn=descriptors, pass_fds=(3, 4), start_new_session=True)
        os.close(to_browser_r)
        os.close(from_browser_w)
        self._out = os.fdopen(to_browser_w, "wb", buffering=0)
        self._in = os.fdopen(from_browser_r, "rb", buffering=0)
        self._messages: queue.Queue = queue.Queue()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self._next = 0
        self.events: list[dict] = []
        self.session = None
        target = self.send("Target.createTarget", {"url": "about:blank"}, browser=True)["targetId"]
        self.session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True},
                                 browser=True)["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.send(f"{domain}.enable")
        self.send("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})

    def _read(self) -> None:
        buffer = b""
        while True:
            try:
                data = self._in.read(1 << 16)
            except OSError:
                data = b""
            if not data:
                self._messages.put(None)
                return
            buffer += data
            while b"\0" in buffer:
                message, buffer = buffer.split(b"\0", 1)
                self._messages.put(json.loads(message))

    def _receive(self) -> dict:
        try:
            message = self._messages.get(timeout=ANSWER_SECONDS)
        except queue.Empty:
            raise ProtocolError(f"no word from the browser in {ANSWER_SECONDS} s") from None
        if message is None:
            raise ProtocolError("the browser closed its end of the pipe")
        return message

    def send(self, method: str, params: dict | None = None, browser: bool = False) -> dict:
        self._next += 1
        message = {"id": self._next, "method": method, "params": params or {}}
        if not browser and self.session:
            message["sessionId"] = self.session
        self._out.write(json.dumps(message).encode() + b"\0")
        while True:
            answer = self._receive()
            if answer.get("id") == self._next:
                if "error" in answer:
                    raise ProtocolError(f"{method}: {answer['error']}")
                return answer.get("result", {})
            self.events.append(answer)

    def wait_for(self, method: str) -> dict:
        """The first event ``method`` not yet taken (waiting for it if need be)."""
        while True:
            for i, event in enumerate(self.events):
                if event.get("method") == method:
                    return self.events.pop(i)
            self.events.append(self._receive())

    def open(self, url: str) -> None:
        """Load ``url`` and wait until its load event has fired."""
        self.events.clear()
        self.send("Page.navigate", {"url": url})
        self.wait_for("Page.loadEventFired")

    def evaluate(self, expression: str, gesture: bool = False):
        """The value of a JavaScript expression in the page (promises are awaited)."""
        result = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True,
                                                "awaitPromise": True, "userGesture": gesture})
        if "exceptionDetails" in result:
            raise ProtocolError(f"{expression!r} threw: {result['exceptionDetails']}")
        return result["result"].get("value")

    def mouse(self, kind: str, x: float, y: float) -> None:
        """A real mouse event at page coordinates: kind mouseMoved, mousePressed, mouseReleased."""
        params = {"type": kind, "x": x, "y": y}
        if kind != "mouseMoved":
            params.update(button="left", clickCount=1)
        self.send("Input.dispatchMouseEvent", params)

    def click(self, x: float, y: float) -> None:
        self.mouse("mouseMoved", x, y)
        self.mouse("mousePressed", x, y)
        self.mouse("mouseReleased", x, y)

    def screenshot(self) -> bytes:
        return base64.b64decode(self.send("Page.captureScreenshot", {"format": "png"})["data"])

    def problems(self) -> list[str]:
        """The console errors and warnings, uncaught exceptions and failed loads seen so far."""
        out = []
        for e in self.events:
            m, p = e.get("method"), e.get("params", {})
            if m == "Runtime.exceptionThrown":
                out.append(f"exception: {p['exceptionDetails'].get('text')} "
                           f"{p['exceptionDetails'].get('exception', {}).get('description', '')}")
            elif m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "warning", "assert"):
                out.append(f"console.{p['type']}: {[a.get('value', a.get('description')) for a in p.get('args', [])]}")
            elif m == "Log.entryAdded" and p["entry"].get("level") in ("error", "warning"):
                out.append(f"log {p['entry']['level']}: {p['entry'].get('text')} {p['entry'].get('url', '')}")
            elif m == "Network.loadingFailed":
                out.append(f"failed load: {p.get('errorText')}")
        return out

    def requests(self) -> list[str]:
        """The addresses the page asked for since it was opened."""
        return [e["params"]["request"]["url"] for e in self.events if e.get("method") == "Network.requestWillBeSent"]

    def close(self) -> None:
        try:
            self.send("Browser.close", browser=True)
        except (ProtocolError, OSError):
            pass
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            pass
        # the browser's helpers (zygote, renderers) share its process group: none outlives it
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        if self.proc.poll() is None:
            self.proc.wait()
        for f in (self._out, self._in):
            try:
                f.close()
            except OSError:
                pass
        shutil.rmtree(self.profile, ignore_errors=True)
