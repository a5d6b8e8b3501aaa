"""A stand-in MCP memory server, written with the `mcp` package's server API and run as
its own process (over stdio, or streamable HTTP with `--http-socket FD`):

    python mcp_memory.py MODE --record DIR [--after N] [--http-socket FD]

Tools: `remember(role, content, position)` (one message), `remember_session(messages,
position)` (a session: its messages from `position` on) and `recall(query, limit)`
(the messages sharing the most words with the query, as `{"results": [{"text",
"score", "position"}]}`). Each takes an optional `user`, under which a server reached
over HTTP keeps one memory per user. It writes a line to `DIR/<user or pid>.jsonl`
as it starts (`{"pid"}`), for every call (`{"tool", "arguments", "held"}`, `held`
the positions it holds after the call), so a test reads exactly what it was sent, and
as it hangs (`{"hung": tool}`), so a test waits for that and not for a time.

MODE: `well` behaves; `hang` never answers a call after the first N (`--after`);
`die` exits after N calls; `malformed` answers `recall` with text that is not JSON;
`slow-start` sleeps an hour before it serves.

Over HTTP it serves on a loopback socket that the test opened, is listening and
passed down (its file descriptor `FD`): no port is chosen and then bound later, where
another process could take it in between, and a request sent before the server is up
waits in the socket's queue instead of being refused.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import re
import sys
import time
from pathlib import Path
from typing import Any

import yaml

WORD = re.compile(r"\w+")
SCRIPT = Path(__file__).resolve()


def stand_in_config(
    record: Path, mode: str = "well", after: int = 0, per: str = "message", **more: Any
) -> dict[str, Any]:
    """A `memory=mcp` config that starts this server over stdio in `mode`, recording to
    `record`, its messages added one per call (`per="message"`) or a session per call;
    `more` adds or replaces top-level keys."""
    add = (
        {"tool": "remember", "arguments": {
            "role": "{role}", "content": "{content}", "position": "{position}"}}
        if per == "message"
        else {"tool": "remember_session", "per": "session",
              "arguments": {"messages": "{messages}", "position": "{position}"}}
    )  # fmt: skip
    return {
        "server": {
            "command": sys.executable,
            "args": [str(SCRIPT), mode, "--record", str(record), "--after", str(after)],
        },
        "add": add,
        "search": {
            "tool": "recall",
            "arguments": {"query": "{query}", "limit": "{top_k}"},
            "results": "json",
            "items": "results",
        },
        **more,
    }


GOOD_CONFIG = stand_in_config(Path("/records"))
"""A valid config, for tests that change one key of it (`changed_config`)."""


def changed_config(path: str, value: Any) -> dict[str, Any]:
    """`GOOD_CONFIG` with the key at a dotted `path` set to `value` (deleted where it
    is ...)."""
    config = copy.deepcopy(GOOD_CONFIG)
    *parents, last = path.split(".")
    section = config
    for key in parents:
        section = section[key]
    if value is ...:
        del section[last]
    else:
        section[last] = value
    return config


def documented_config() -> dict[str, Any]:
    """The complete config for the reference knowledge-graph server, as the memory docs
    give it."""
    docs = SCRIPT.parents[3] / "docs" / "memory-and-retrieval.md"
    text = docs.read_text(encoding="utf-8")
    [block] = re.findall(r"```yaml\n(# server-memory\.yaml.*?)```", text, re.DOTALL)
    value = yaml.safe_load(block)
    assert isinstance(value, dict)
    return value


def records(record: Path) -> list[list[dict[str, Any]]]:
    """What each server process recorded, in the order of its lines: its pid first.
    Read while servers still write, a file holds only what is written so far: a line
    not yet ended is left out, and a server that has written no whole line yet too."""
    recorded = []
    for path in sorted(record.glob("*.jsonl")):
        *lines, _unfinished = path.read_text(encoding="utf-8").split("\n")
        if lines:
            recorded.append([json.loads(line) for line in lines])
    return recorded


def hung(record: Path) -> bool:
    """Whether a server recording to `record` has hung in a call."""
    return any("hung" in line for server in records(record) for line in server[1:])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=["well", "hang", "die", "malformed", "slow-start"])
    parser.add_argument("--record", type=Path, required=True)
    parser.add_argument("--after", type=int, default=0)
    parser.add_argument("--http-socket", type=int)
    options = parser.parse_args()
    from mcp.server.mcpserver import MCPServer  # here: the tests import the helpers above

    memories: dict[str, dict[int, str]] = {}
    calls = 0

    def record(user: str, line: dict[str, Any]) -> None:
        name = user or str(os.getpid())
        with open(options.record / f"{name}.jsonl", "a", encoding="utf-8") as file:
            file.write(json.dumps(line) + "\n")

    def called(tool: str, user: str, arguments: dict[str, Any]) -> dict[int, str]:
        nonlocal calls
        calls += 1
        if options.mode == "die" and calls > options.after:
            os._exit(3)
        if options.mode == "hang" and calls > options.after:
            record(user, {"hung": tool})
            time.sleep(3600)
        memory = memories.setdefault(user, {})
        if tool != "recall":
            for offset, message in enumerate(arguments["messages"]):
                memory[arguments["position"] + offset] = message["content"]
        record(user, {"tool": tool, "arguments": arguments, "held": sorted(memory)})
        return memory

    server = MCPServer("personamem-stand-in")

    @server.tool()
    def remember(role: str, content: str, position: int, user: str = "") -> str:
        """Keep one message."""
        message = {"role": role, "content": content}
        called("remember", user, {"messages": [message], "position": position})
        return "kept"

    @server.tool()
    def remember_session(messages: list[dict[str, str]], position: int, user: str = "") -> str:
        """Keep a session's messages, the first at `position`."""
        called("remember_session", user, {"messages": messages, "position": position})
        return f"kept {len(messages)}"

    @server.tool()
    def recall(query: str, limit: int, user: str = "") -> Any:
        """The messages sharing the most words with the query, most first."""
        memory = called("recall", user, {"query": query, "limit": limit})
        if options.mode == "malformed":
            return "these are not results"
        words = set(WORD.findall(query.lower()))
        scored = [
            (len(words & set(WORD.findall(text.lower()))), position, text)
            for position, text in memory.items()
        ]
        best = sorted((s for s in scored if s[0]), key=lambda s: (-s[0], s[1]))[:limit]
        return {"results": [{"text": t, "score": float(s), "position": p} for s, p, t in best]}

    record("", {"pid": os.getpid()})  # first: a test checks that even a slow start is stopped
    if options.mode == "slow-start":
        time.sleep(3600)
    if options.http_socket is not None:
        import socket

        import anyio
        import uvicorn

        served = uvicorn.Server(uvicorn.Config(server.streamable_http_app(), log_level="warning"))
        anyio.run(served.serve, [socket.socket(fileno=options.http_socket)])
    else:
        server.run()


if __name__ == "__main__":
    main()
