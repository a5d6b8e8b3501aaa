"""A stand-in for the apps' MCP server (`datasets/v3/agent/server.py`) that misbehaves on
purpose, run as its own process over stdio:

    python mcp_apps.py MODE --source DIR --after N -- APP_SERVER_ARGUMENTS

It serves the same session and tools as the package's server (`server.session_from`
and `served`, with `DIR`, the package's source folder, put first on the path as the
package's own command does), until its N-th call:

MODE: `well` behaves; `fail` exits before it serves (status 3, a line on stderr);
`hang` never answers a call after the first N; `die` exits in its (N+1)-th call;
`malformed` answers each call after the first N with text that is not JSON.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

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


def misbehaving(
    tool: Callable[..., Any], mode: str, after: int, calls: list[int]
) -> Callable[..., Any]:
    """`tool` (an MCP tool function, its signature kept), misbehaving as `mode` says once
    `after` calls have been answered."""
    from mcp.types import CallToolResult, TextContent

    def call(**arguments: Any) -> Any:
        calls[0] += 1
        if calls[0] > after:
            if mode == "hang":
                time.sleep(3600)
            if mode == "die":
                os._exit(1)
            if mode == "malformed":
                return CallToolResult(content=[TextContent(type="text", text="not json {")])
        return tool(**arguments)

    wrapped: Any = call
    for name in ("__name__", "__doc__", "__signature__", "__annotations__"):
        setattr(wrapped, name, getattr(tool, name))
    return call


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
    from mcp.server.mcpserver import MCPServer

    from inspect_personamem.datasets.v3.agent.server import NAME, served, session_from

    session, writes = session_from(sys.argv[split + 1 :])
    server = MCPServer(NAME, log_level="WARNING")
    calls = [0]
    functions: Mapping[str, Callable[..., str]] = session.functions()
    for name, function in functions.items():
        tool = served(session, writes, name, function)
        tool = misbehaving(tool, options.mode, options.after, calls)
        server.add_tool(tool, name=name, structured_output=False)
    server.run()


if __name__ == "__main__":
    main()
