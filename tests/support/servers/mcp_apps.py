"""A stand-in for the apps' MCP server (`datasets/v3/agent/server.py`) that misbehaves on
purpose, run as its own process over stdio:

    python mcp_apps.py MODE --source DIR --after N [--once MARK] [--pid PATH] -- \
        APP_SERVER_ARGUMENTS

It serves the same session and tools as the package's server (`server.session_from`,
`tools` and `tool_call`, over `mcp_stdio.serve`), with `DIR`, the package's source
folder, put first on the path as the package's own command does, until its N-th call:

MODE: `well` behaves; `fail` exits before it serves (status 3, a line on stderr);
`killed` is killed (SIGKILL, as `kill -9`) during its start, its session read and the
client waiting for its answer; `hang` never answers a call after the first N; `die` is
killed (SIGKILL) in its (N+1)-th call; `malformed` answers each call after the first N
with text that is not JSON.

With `--once MARK`, only the first server to find no file MARK misbehaves (it makes
MARK): a restarted one behaves. With `--pid PATH`, it appends its process id to PATH as
it starts, so that a test kills it when it chooses (`killed_now`).
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # run as a script: the package is imported from `--source`, in `main`
    from inspect_personamem.datasets.v3.agent.mcp_stdio import ToolCall

SCRIPT = Path(__file__).resolve()


def stand_in_command(
    command: tuple[str, list[str]],
    mode: str,
    after: int = 0,
    once: Path | None = None,
    pid: Path | None = None,
) -> tuple[str, list[str]]:
    """The package's server command (`server.server_command`'s) run by this stand-in
    in `mode`, misbehaving after `after` calls (only the first server, with `once`),
    its process id appended to `pid`."""
    from inspect_personamem.datasets.v3.agent.server import SOURCE

    _, args = command
    served = args[2:]  # past `-c CODE`: the server's own options
    options = [mode, "--source", str(SOURCE), "--after", str(after)]
    options += ["--once", str(once)] if once is not None else []
    options += ["--pid", str(pid)] if pid is not None else []
    return sys.executable, [str(SCRIPT), *options, "--", *served]


def killed_now(pid: Path, wait: float = 10.0) -> int:
    """SIGKILL the last server that wrote its id to `pid` and wait until it is dead (its
    pipes closed: gone or a zombie); its id."""
    number = int(pid.read_text().split()[-1])
    os.kill(number, signal.SIGKILL)
    status = Path(f"/proc/{number}/stat")
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        try:
            state = status.read_text().rsplit(")", 1)[1].split()[0]
        except (FileNotFoundError, IndexError):
            return number
        if state in ("Z", "X"):
            return number
        time.sleep(0.01)
    raise TimeoutError(f"server {number} still alive {wait} s after SIGKILL")


def misbehaving(call: ToolCall, mode: str, after: int) -> ToolCall:
    """`call` (the server's `tool_call`), misbehaving as `mode` says once `after` calls
    have been answered."""
    calls = 0

    def misbehaved(name: str, arguments: Mapping[str, Any]) -> tuple[str, bool]:
        nonlocal calls
        calls += 1
        if calls > after:
            if mode == "hang":
                time.sleep(3600)
            if mode == "die":
                os.kill(os.getpid(), signal.SIGKILL)
            if mode == "malformed":
                return "not json {", False
        return call(name, arguments)

    return misbehaved


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=["well", "fail", "killed", "hang", "die", "malformed"])
    parser.add_argument("--source", required=True)
    parser.add_argument("--after", type=int, default=0)
    parser.add_argument("--once", type=Path)
    parser.add_argument("--pid", type=Path)
    split = sys.argv.index("--")
    options = parser.parse_args(sys.argv[1:split])
    if options.pid is not None:
        with options.pid.open("a") as file:
            file.write(f"{os.getpid()}\n")
    if options.once is not None:
        try:
            options.once.touch(exist_ok=False)
        except FileExistsError:
            options.mode = "well"  # a restarted server behaves
    if options.mode == "fail":
        print("mcp_apps: told to fail at start", file=sys.stderr)
        raise SystemExit(3)
    sys.path.insert(0, options.source)
    from inspect_personamem.datasets.v3.agent.mcp_stdio import serve
    from inspect_personamem.datasets.v3.agent.server import NAME, session_from, tool_call, tools

    session, writes = session_from(sys.argv[split + 1 :])
    if options.mode == "killed":  # its start under way: the client waits for its answer
        os.kill(os.getpid(), signal.SIGKILL)
    call = misbehaving(tool_call(session, writes), options.mode, options.after)
    serve(NAME, tools(session), call)


if __name__ == "__main__":
    main()
