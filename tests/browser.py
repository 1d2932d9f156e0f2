"""Headless Chromium over the DevTools protocol (through a pipe: no extra packages), to test HTML pages.

`visit` opens a page, waits until a script says it is ready, and returns what happened: console
errors, uncaught exceptions, every network request, a probe's value and a full-page screenshot.
`png_pixels` decodes that screenshot with zlib and numpy so tests can look at the pixels.
"""

from __future__ import annotations

import base64
import fcntl
import json
import os
import select
import shutil
import struct
import subprocess
import tempfile
import time
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pytest

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run",
         "--disable-component-update", "--disable-sync", "--disable-extensions", "--disable-default-apps",
         "--mute-audio", "--hide-scrollbars", "--remote-debugging-pipe"]


def find_chromium() -> str | None:
    """The path of a Chromium (or Chrome) executable, or None."""
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        path = shutil.which(name)
        if path:
            return path
    return None


needs_browser = pytest.mark.needs(
    "browser", None if find_chromium() else "Chromium is not installed (Debian: apt-get install chromium)")
"""A test that opens pages in Chromium (a failure where it is missing under ARENA_REQUIRE_BROWSER=1: conftest.py)."""


@dataclass
class Visit:
    """What happened while a page was open."""

    exceptions: list[str] = field(default_factory=list)
    """Uncaught JavaScript exceptions."""
    console_errors: list[str] = field(default_factory=list)
    """console.error / console.assert messages and browser log entries of level error."""
    requests: list[str] = field(default_factory=list)
    """The URL of every request the page made, the page's own included."""
    ready: bool = False
    """Whether the ready script returned true before the timeout."""
    probe: Any = None
    """The value the probe script returned."""
    screenshot: bytes = b""
    """A PNG of the whole page."""
    dialogs: list[str] = field(default_factory=list)
    """The message of every JavaScript dialog (alert, confirm, prompt) the page opened; each is dismissed at once,
    so the page goes on."""


class DevTools:
    """A Chromium process and its DevTools pipe (fd 3: commands in, fd 4: replies and events out)."""

    def __init__(self, executable: str, profile: str, timeout: float) -> None:
        self.deadline = time.monotonic() + timeout
        commands_read, self._commands = os.pipe()
        self._replies, replies_write = os.pipe()

        def child_fds() -> None:
            # Copy both ends above 10 first: one of them may itself be fd 3 or 4.
            a = fcntl.fcntl(commands_read, fcntl.F_DUPFD_CLOEXEC, 10)
            b = fcntl.fcntl(replies_write, fcntl.F_DUPFD_CLOEXEC, 10)
            os.dup2(a, 3)
            os.dup2(b, 4)

        self.log = tempfile.TemporaryFile()
        self.process = subprocess.Popen([executable, *FLAGS, f"--user-data-dir={profile}", "about:blank"],
                                        stdin=subprocess.DEVNULL, stdout=self.log, stderr=self.log,
                                        close_fds=False, preexec_fn=child_fds)
        os.close(commands_read)
        os.close(replies_write)
        self._buffer = b""
        self._next_id = 0
        self.events: list[dict] = []

    def call(self, method: str, params: dict | None = None, session: str | None = None) -> dict:
        """Sends one command and returns its result, keeping the events that arrive meanwhile."""
        self._next_id += 1
        expected = self._next_id  # a dialog dismissed meanwhile takes the next id
        message = {"id": expected, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self._commands, json.dumps(message).encode() + b"\0")
        while True:
            reply = self._receive()
            if reply.get("id") == expected:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self._keep(reply)

    def wait_for(self, method: str, session: str | None = None) -> dict:
        """Waits for an event (or finds it among those already received)."""
        for event in self.events:
            if event.get("method") == method and event.get("sessionId") == session:
                return event
        while True:
            event = self._receive()
            self._keep(event)
            if event.get("method") == method and event.get("sessionId") == session:
                return event

    def _keep(self, event: dict) -> None:
        """Keeps an event; a dialog is dismissed at once (an open one would stop the page, and its load event)."""
        self.events.append(event)
        if event.get("method") == "Page.javascriptDialogOpening":
            self._next_id += 1  # its reply is kept as an event: nobody waits for it
            message = {"id": self._next_id, "method": "Page.handleJavaScriptDialog", "params": {"accept": False},
                       "sessionId": event.get("sessionId")}
            os.write(self._commands, json.dumps(message).encode() + b"\0")

    def _receive(self) -> dict:
        """The next message from the browser; TimeoutError past the deadline."""
        while b"\0" not in self._buffer:
            left = self.deadline - time.monotonic()
            if left <= 0 or not select.select([self._replies], [], [], left)[0]:
                raise TimeoutError(f"Chromium did not answer in time; its log:\n{self.browser_log()}")
            chunk = os.read(self._replies, 1 << 20)
            if not chunk:
                raise RuntimeError(f"Chromium closed the DevTools pipe; its log:\n{self.browser_log()}")
            self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(message)

    def browser_log(self) -> str:
        """The last lines Chromium wrote to stdout/stderr."""
        self.log.seek(0)
        return "\n".join(self.log.read().decode(errors="replace").splitlines()[-40:])

    def close(self) -> None:
        """Closes the browser (killing it if it does not go) and the pipes."""
        try:
            os.write(self._commands, json.dumps({"id": 0, "method": "Browser.close"}).encode() + b"\0")
        except OSError:
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        os.close(self._commands)
        os.close(self._replies)
        self.log.close()


def visit(path: Path | str, ready: str, probe: str, *, settle: str | None = None, width: int = 1280,
          height: int = 900, timeout: float = 60, executable: str | None = None) -> Visit:
    """Opens a local file (or an http:// address), waits until `ready` is true, evaluates `probe`, takes a
    full-page PNG.

    For the screenshot the viewport grows to the page's full height, and the `settle` expression
    (a promise, e.g. plotly redrawing at the new size) is awaited first.
    """
    executable = executable or find_chromium()
    if executable is None:
        raise FileNotFoundError("no Chromium found")
    with tempfile.TemporaryDirectory(prefix="arena-chromium-") as profile:
        tools = DevTools(executable, profile, timeout)
        try:
            url = path if str(path).startswith("http://") else Path(path).resolve().as_uri()
            return _visit(tools, url, ready, probe, settle, width, height)
        finally:
            tools.close()


def _visit(tools: DevTools, url: str, ready: str, probe: str, settle: str | None, width: int, height: int) -> Visit:
    target = tools.call("Target.createTarget", {"url": "about:blank"})["targetId"]
    session = tools.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
    for domain in ("Runtime", "Log", "Network", "Page"):
        tools.call(f"{domain}.enable", session=session)
    tools.call("Emulation.setDeviceMetricsOverride",
               {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False}, session)
    start = len(tools.events)
    tools.call("Page.navigate", {"url": url}, session)
    tools.wait_for("Page.loadEventFired", session)
    result = Visit()
    while not result.ready and time.monotonic() < tools.deadline - 5:
        value = _evaluate(tools, ready, session)
        if value and not isinstance(value, bool):  # never `true`: the visit would wait out its whole timeout
            raise TypeError(f"the ready script {ready!r} gave {value!r}, not a boolean")
        result.ready = value is True
        if not result.ready:
            time.sleep(0.1)
    result.probe = _evaluate(tools, probe, session)
    # A viewport as tall as the page (capped below Chromium's texture limit): capturing beyond the
    # viewport instead resizes the page mid-capture, and charts caught redrawing come out torn.
    full = min(int(_evaluate(tools, "document.documentElement.scrollHeight", session)), 16000)
    tools.call("Emulation.setDeviceMetricsOverride",
               {"width": width, "height": max(height, full), "deviceScaleFactor": 1, "mobile": False}, session)
    if settle:
        _evaluate(tools, settle, session)
    shot = tools.call("Page.captureScreenshot", {"format": "png"}, session)
    result.screenshot = base64.b64decode(shot["data"])
    for event in tools.events[start:]:
        method, params = event.get("method"), event.get("params", {})
        if method == "Runtime.exceptionThrown":
            details = params["exceptionDetails"]
            result.exceptions.append(details.get("exception", {}).get("description") or details.get("text", ""))
        elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            result.console_errors.append(" ".join(str(a.get("value", a.get("description", "")))
                                                  for a in params.get("args", [])))
        elif method == "Log.entryAdded" and params["entry"].get("level") == "error":
            result.console_errors.append(f"{params['entry'].get('url', '')}: {params['entry'].get('text', '')}")
        elif method == "Page.javascriptDialogOpening":
            result.dialogs.append(params.get("message", ""))
        elif method == "Network.requestWillBeSent":
            result.requests.append(params["request"]["url"][:200])
    return result


def _evaluate(tools: DevTools, expression: str, session: str) -> Any:
    """The value of a JavaScript expression in the page (awaited if it is a promise)."""
    reply = tools.call("Runtime.evaluate", {"expression": expression, "returnByValue": True, "awaitPromise": True},
                       session)
    if "exceptionDetails" in reply:
        raise RuntimeError(f"{expression!r} threw: {reply['exceptionDetails']}")
    return reply["result"].get("value")


def png_pixels(data: bytes) -> np.ndarray:
    """The pixels of an 8-bit, non-interlaced RGB or RGBA PNG as a (height, width, channels) uint8 array."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    position, chunks, header = 8, [], None
    while position < len(data):
        length, kind = struct.unpack(">I4s", data[position:position + 8])
        body = data[position + 8:position + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            chunks.append(body)
        position += 12 + length
    width, height, depth, colour, _, _, interlace = header
    if depth != 8 or colour not in (2, 6) or interlace:
        raise ValueError(f"unsupported PNG: bit depth {depth}, colour type {colour}, interlace {interlace}")
    channels = 3 if colour == 2 else 4
    stride = width * channels
    raw = np.frombuffer(zlib.decompress(b"".join(chunks)), np.uint8).reshape(height, stride + 1)
    out = np.zeros((height, stride), np.uint8)
    previous = np.zeros(stride, np.int64)
    for y in range(height):
        kind, line = raw[y, 0], raw[y, 1:].astype(np.int64)
        if kind == 0:
            row = line
        elif kind == 1:  # Sub: a running sum per channel, mod 256
            row = np.cumsum(line.reshape(width, channels), axis=0).reshape(-1) & 255
        elif kind == 2:  # Up
            row = (line + previous) & 255
        else:  # Average and Paeth depend on the pixel just decoded: byte by byte
            row = _unfilter_sequential(kind, line.tolist(), previous.tolist(), channels)
        out[y] = row
        previous = np.asarray(row, np.int64)
    return out.reshape(height, width, channels)


def _unfilter_sequential(kind: int, line: list[int], above: list[int], channels: int) -> np.ndarray:
    """One Average (3) or Paeth (4) filtered scanline, decoded."""
    row = [0] * len(line)
    for x, value in enumerate(line):
        left = row[x - channels] if x >= channels else 0
        up = above[x]
        if kind == 3:
            row[x] = (value + (left + up) // 2) & 255
        elif kind == 4:
            upper_left = above[x - channels] if x >= channels else 0
            estimate = left + up - upper_left
            pa, pb, pc = abs(estimate - left), abs(estimate - up), abs(estimate - upper_left)
            row[x] = (value + (left if pa <= pb and pa <= pc else up if pb <= pc else upper_left)) & 255
        else:
            raise ValueError(f"bad PNG filter type {kind}")
    return np.asarray(row, np.int64)
