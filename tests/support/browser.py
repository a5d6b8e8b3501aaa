"""A page in headless Chromium, driven over the DevTools protocol on a pipe, and
`inspect view` served on a free loopback port: for tests that read what a page shows
once its scripts have run (the log viewer loads a log in a worker, which Chromium's
`--virtual-time-budget` does not wait for, so `--dump-dom` alone sees "Loading log")."""

from __future__ import annotations

import base64
import itertools
import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--hide-scrollbars",
)
"""What every test's Chromium runs with: no window, no GPU, nothing fetched of its own."""


class Page:
    """One tab of a Chromium started with `--remote-debugging-pipe`: commands go in on
    its fd 3, replies and events come out on its fd 4, each a JSON text ended by NUL."""

    def __init__(self, process: subprocess.Popen[bytes], to_chromium: int, from_chromium: int):
        self.process = process
        self.to_chromium = to_chromium
        self.reader = os.fdopen(from_chromium, "rb")
        self.ids = itertools.count(1)
        self.session: str | None = None

    def send(self, method: str, **params: Any) -> dict[str, Any]:
        """Send a command (to the tab, once attached) and return its result."""
        number = next(self.ids)
        message: dict[str, Any] = {"id": number, "method": method, "params": params}
        if self.session is not None:
            message["sessionId"] = self.session
        os.write(self.to_chromium, json.dumps(message).encode() + b"\0")
        while True:
            reply = json.loads(self._read())
            if reply.get("id") == number:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return dict(reply.get("result", {}))

    def _read(self) -> bytes:
        chunks = bytearray()
        while (byte := self.reader.read(1)) != b"\0":
            if not byte:
                raise RuntimeError("chromium closed its DevTools pipe")
            chunks += byte
        return bytes(chunks)

    def open(self, url: str, width: int, height: int) -> None:
        """Open `url` in a new tab `width` by `height` CSS pixels, and attach to it."""
        target = self.send("Target.createTarget", url="about:blank")["targetId"]
        self.session = self.send("Target.attachToTarget", targetId=target, flatten=True)[
            "sessionId"
        ]
        self.send(
            "Emulation.setDeviceMetricsOverride",
            width=width,
            height=height,
            deviceScaleFactor=1,
            mobile=False,
        )
        self.send("Page.navigate", url=url)

    def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression in the page."""
        result = self.send("Runtime.evaluate", expression=expression, returnByValue=True)
        return result["result"].get("value")

    def text(self) -> str:
        """What the page shows as text (`document.body.innerText`)."""
        return str(self.evaluate("document.body ? document.body.innerText : ''"))

    def wait_for_text(self, *texts: str, timeout: float = 60.0) -> str:
        """The page's text, lower case, once it shows every one of `texts` in any case
        (a style may capitalise a label); an error naming the ones missing, with the
        text it shows, after `timeout` seconds."""
        deadline = time.monotonic() + timeout
        while True:
            shown = self.text().lower()
            missing = [t for t in texts if t.lower() not in shown]
            if not missing:
                return shown
            if time.monotonic() > deadline:
                raise AssertionError(f"not shown after {timeout:.0f} s: {missing}\n{shown[:3000]}")
            time.sleep(0.25)

    def screenshot(self, path: Path) -> Path:
        """A PNG of the page's viewport at `path`."""
        data = self.send("Page.captureScreenshot", format="png")["data"]
        path.write_bytes(base64.b64decode(data))
        return path


@contextmanager
def chromium_page(chromium: str, profile: Path) -> Iterator[Page]:
    """A headless Chromium with its own `profile` folder, closed on leaving."""
    commands_read, commands_write = os.pipe()
    replies_read, replies_write = os.pipe()

    def pipes_as_3_and_4() -> None:
        os.dup2(commands_read, 3)
        os.dup2(replies_write, 4)

    process = subprocess.Popen(
        [chromium, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", "--remote-debugging-pipe"],
        close_fds=False,  # keeps 3 and 4, which closing would close after `preexec_fn`
        preexec_fn=pipes_as_3_and_4,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    os.close(commands_read)
    os.close(replies_write)
    page = Page(process, commands_write, replies_read)
    try:
        yield page
    finally:
        process.kill()
        process.wait(timeout=30)
        os.close(commands_write)
        page.reader.close()


DIRECT = urllib.request.build_opener(urllib.request.ProxyHandler({}))
"""Requests to the loopback server, past any proxy the environment names."""


def free_port() -> int:
    """A loopback port free now (another process may take it before it is bound:
    `inspect_view` tries again)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def inspect_view(log_dir: Path, env: dict[str, str], timeout: float = 90.0) -> Iterator[str]:
    """`inspect view` on `log_dir`, served on a free loopback port; yields its address
    once it answers. A server that exits before answering (its port taken meanwhile)
    is started again on another port, three times at most; one that neither answers
    nor exits within `timeout` seconds is an error."""
    inspect = Path(sys.executable).parent / "inspect"
    for _ in range(3):
        port = free_port()
        address = f"http://127.0.0.1:{port}"
        server = subprocess.Popen(
            [str(inspect), "view", "--log-dir", str(log_dir), "--host", "127.0.0.1"]
            + ["--port", str(port), "--display", "plain"],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
        )
        try:
            if _answers(address, server, timeout):
                yield address
                return
        finally:
            server.kill()
            output = server.communicate(timeout=30)[0].decode(errors="replace")
    raise AssertionError(f"inspect view did not start:\n{output[-3000:]}")


def _answers(address: str, server: subprocess.Popen[bytes], timeout: float) -> bool:
    """Whether the server at `address` answers before it exits; an error after
    `timeout` seconds of neither."""
    deadline = time.monotonic() + timeout
    while server.poll() is None:
        try:
            with DIRECT.open(f"{address}/api/logs", timeout=2) as response:
                return int(response.status) == 200
        except OSError:
            if time.monotonic() > deadline:
                raise AssertionError(
                    f"inspect view at {address}: no answer in {timeout} s"
                ) from None
            time.sleep(0.25)
    return False
