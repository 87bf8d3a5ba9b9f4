"""Headless Chromium (Debian's package, installed by `make test`) driven over the Chrome DevTools protocol, so the
output tests look at a page as a reader's browser shows it: laid out at a real width, scripts run, pictures
decoded. The protocol goes over a pipe (--remote-debugging-pipe: NUL-terminated JSON on fds 3 and 4), so no
port and no websocket library are needed.
"""

from __future__ import annotations

import base64
import fcntl
import json
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-extensions", "--hide-scrollbars", "--remote-debugging-pipe"]


class BrowserError(RuntimeError):
    pass


class Browser:
    """One Chromium process with one page of `width` x `height` CSS pixels."""

    def __init__(self, width: int = 1280, height: int = 900, timeout: float = 60.0) -> None:
        self.timeout = timeout
        self._profile = tempfile.mkdtemp(prefix="blockpact-chromium-")
        to_child_r, self._to_child = os.pipe()
        self._from_child, from_child_w = os.pipe()
        # Chromium reads commands on fd 3 and writes replies on fd 4 (moved out of the way first, in case the pipe's
        # own numbers are 3 or 4).
        def wire() -> None:
            r, w = fcntl.fcntl(to_child_r, fcntl.F_DUPFD, 10), fcntl.fcntl(from_child_w, fcntl.F_DUPFD, 10)
            os.dup2(r, 3)
            os.dup2(w, 4)
        self.proc = subprocess.Popen([CHROMIUM, *FLAGS, f"--user-data-dir={self._profile}",
                                      f"--window-size={width},{height}", "about:blank"],
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                     preexec_fn=wire, pass_fds=(3, 4, to_child_r, from_child_w), start_new_session=True)
        os.close(to_child_r)
        os.close(from_child_w)
        self._buffer = b""
        self._next = 0
        self.events: list[dict[str, Any]] = []
        target = self.call("Target.createTarget", url="about:blank")["targetId"]
        self.session = self.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        for domain in ("Page", "Runtime"):
            self.call(f"{domain}.enable", session=True)
        self.call("Emulation.setDeviceMetricsOverride", session=True, width=width, height=height,
                  deviceScaleFactor=1, mobile=False)
        self.console_errors: list[str] = []

    # -- the protocol --------------------------------------------------------------------------
    def call(self, method: str, session: bool = False, **params: Any) -> dict[str, Any]:
        self._next += 1
        message: dict[str, Any] = {"id": self._next, "method": method, "params": params}
        if session:
            message["sessionId"] = self.session
        os.write(self._to_child, json.dumps(message).encode() + b"\0")
        while True:
            reply = self._read()
            if reply.get("id") == self._next:
                if "error" in reply:
                    raise BrowserError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self._note(reply)

    def _note(self, event: dict[str, Any]) -> None:
        self.events.append(event)
        if event.get("method") == "Runtime.exceptionThrown":
            self.console_errors.append(json.dumps(event["params"]["exceptionDetails"])[:2000])
        if event.get("method") == "Runtime.consoleAPICalled" and event["params"].get("type") == "error":
            self.console_errors.append(json.dumps(event["params"]["args"])[:2000])

    def _read(self) -> dict[str, Any]:
        deadline = time.monotonic() + self.timeout
        while b"\0" not in self._buffer:
            if time.monotonic() > deadline or self.proc.poll() is not None:
                raise BrowserError("chromium did not answer" if self.proc.poll() is None
                                   else f"chromium exited ({self.proc.returncode})")
            chunk = os.read(self._from_child, 1 << 20)
            if not chunk:
                raise BrowserError("chromium closed the pipe")
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(line)

    def _wait_event(self, method: str) -> dict[str, Any]:
        for i, event in enumerate(self.events):
            if event.get("method") == method:
                del self.events[: i + 1]
                return event
        while True:
            event = self._read()
            self._note(event)
            if event.get("method") == method:
                self.events.clear()
                return event

    # -- what a test uses ----------------------------------------------------------------------
    def open(self, path: Path | str) -> None:
        """Load a file (or URL) and wait for its load event."""
        url = path if isinstance(path, str) else Path(path).resolve().as_uri()
        self.events.clear()
        self.call("Page.navigate", session=True, url=url)
        self._wait_event("Page.loadEventFired")

    def eval(self, expression: str) -> Any:
        """The value of a JavaScript expression in the page (a promise is awaited)."""
        result = self.call("Runtime.evaluate", session=True, expression=expression, returnByValue=True,
                           awaitPromise=True)
        if "exceptionDetails" in result:
            raise BrowserError(f"{expression[:200]}: {json.dumps(result['exceptionDetails'])[:1500]}")
        return result["result"].get("value")

    def screenshot(self, path: Path, full_page: bool = True) -> Path:
        params: dict[str, Any] = {"format": "png", "captureBeyondViewport": full_page}
        if full_page:
            size = self.eval("[document.documentElement.scrollWidth, document.documentElement.scrollHeight]")
            params["clip"] = {"x": 0, "y": 0, "width": size[0], "height": min(size[1], 16000), "scale": 1}
        data = self.call("Page.captureScreenshot", session=True, **params)["data"]
        path.write_bytes(base64.b64decode(data))
        return path

    def close(self) -> None:
        try:
            os.write(self._to_child, json.dumps({"id": 0, "method": "Browser.close"}).encode() + b"\0")
            self.proc.wait(timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()
            self.proc.wait()
        finally:
            for fd in (self._to_child, self._from_child):
                try:
                    os.close(fd)
                except OSError:
                    pass
            shutil.rmtree(self._profile, ignore_errors=True)


# Measures of what a reader sees, run in the page.
OVERFLOW_JS = "document.documentElement.scrollWidth - document.documentElement.clientWidth"
IMAGES_JS = """(() => [...document.querySelectorAll('img')].map(i => ({
    alt: i.alt, complete: i.complete, w: i.naturalWidth, h: i.naturalHeight, shown: i.getBoundingClientRect().width,
    src: i.getAttribute('src').slice(0, 30)})))()"""
# Whether a picture has ink: draw it on a canvas and count the pixels that are not white (or transparent).
INK_JS = """(async () => {
  const out = [];
  for (const img of document.querySelectorAll('img')) {
    const c = document.createElement('canvas'); c.width = img.naturalWidth; c.height = img.naturalHeight;
    const g = c.getContext('2d'); g.drawImage(img, 0, 0);
    const d = g.getImageData(0, 0, c.width, c.height).data; let ink = 0;
    for (let i = 0; i < d.length; i += 4) if (d[i + 3] > 0 && (d[i] < 235 || d[i + 1] < 235 || d[i + 2] < 235)) ink++;
    out.push({alt: img.alt, ink: ink / (c.width * c.height)});
  }
  return out;
})()"""


def chromium_or_fail() -> None:
    if not Path(CHROMIUM).is_file():
        pytest.fail(f"{CHROMIUM} is missing: `make test` installs Debian's chromium (or apt-get install chromium)")


@pytest.fixture
def browser():
    chromium_or_fail()
    b = Browser()
    try:
        yield b
    finally:
        b.close()
