"""A stand-in for the apps' MCP server (`datasets/v3/agent/server.py`) that misbehaves on
purpose, run as its own process over stdio:

    python mcp_apps.py MODE --source DIR --after N -- APP_SERVER_ARGUMENTS

It serves the same session and tools as the package's server (`server.session_from`,
`tools` and `tool_call`, over `mcp_stdio.serve`), with `DIR`, the package's source
folder, put first on the path as the package's own command does, until its N-th call:

MODE: `well` behaves; `fail` exits before it serves (status 3, a line on stderr);
`hang` never answers a call after the first N; `die` exits in its (N+1)-th call;
`malformed` answers each call after the first N with text that is not JSON.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # run as a script: the package is imported from `--source`, in `main`
    from inspect_personamem.datasets.v3.agent.mcp_stdio import ToolCall

SCRIPT = Path(__file__).resolve()


def stand_in_command(
    command: tuple[str, list[str]], mode: str, after: int = 0
) -> tuple[str, list[str]]:
    """The package's server command (`server.server_command`'s) run by this stand-in
    in `mode`, misbehaving after `after` calls."""
    from inspect_personamem.datasets.v3.agent.server import SOURCE

    _, args = command
    served = args[2:]  # past `-c CODE`: the server's own options
    options = [mode, "--source", str(SOURCE), "--after", str(after), "--"]
    return sys.executable, [str(SCRIPT), *options, *served]


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
                os._exit(1)
            if mode == "malformed":
                return "not json {", False
        return call(name, arguments)

    return misbehaved


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=["well", "fail", "hang", "die", "malformed"])
    parser.add_argument("--source", required=True)
    parser.add_argument("--after", type=int, default=0)
    split = sys.argv.index("--")
    options = parser.parse_args(sys.argv[1:split])
    if options.mode == "fail":
        print("mcp_apps: told to fail at start", file=sys.stderr)
        raise SystemExit(3)
    sys.path.insert(0, options.source)
    from inspect_personamem.datasets.v3.agent.mcp_stdio import serve
    from inspect_personamem.datasets.v3.agent.server import NAME, session_from, tool_call, tools

    session, writes = session_from(sys.argv[split + 1 :])
    call = misbehaving(tool_call(session, writes), options.mode, options.after)
    serve(NAME, tools(session), call)


if __name__ == "__main__":
    main()
