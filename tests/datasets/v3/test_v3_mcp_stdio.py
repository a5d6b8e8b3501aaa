"""The apps' server's own MCP stdio protocol (`datasets/v3/agent/mcp_stdio.py`), message
by message: the handshake's version, requests and notifications, refusals as tool
errors, the JSON-RPC errors, a defect answered as an internal error and served on.
(That the SDK's and Inspect's clients speak to it: `test_v3_app_server.py`.)"""

from __future__ import annotations

import io
import json
from collections.abc import Mapping
from typing import Any

import pytest

from inspect_personamem.datasets.v3.agent.mcp_stdio import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    PARSE_ERROR,
    PROTOCOL_VERSIONS,
    answer,
    serve,
)

TOOLS = [{"name": "echo", "description": "Echo.", "inputSchema": {"type": "object"}}]


def call(name: str, arguments: Mapping[str, Any]) -> tuple[str, bool]:
    if name == "boom":
        raise ValueError("bad\nvalue")
    if name != "echo":
        return f"unknown tool {name!r}", True
    return json.dumps(arguments), False


def ask(message: Any) -> dict[str, Any] | None:
    return answer("srv", TOOLS, call, json.dumps(message).encode())


def request(method: str, params: Any = None, id: Any = 7) -> dict[str, Any]:
    message = {"jsonrpc": "2.0", "id": id, "method": method}
    return message if params is None else message | {"params": params}


@pytest.mark.parametrize(
    ("asked", "given"),
    [(v, v) for v in PROTOCOL_VERSIONS] + [("2026-07-28", "2025-11-25"), (None, "2025-11-25")],
)
def test_the_handshake_answers_the_clients_version_where_it_knows_it(
    asked: str | None, given: str
) -> None:
    reply = ask(request("initialize", {"protocolVersion": asked, "capabilities": {}}))
    assert reply == {
        "jsonrpc": "2.0",
        "id": 7,
        "result": {
            "protocolVersion": given,
            "capabilities": {"tools": {"listChanged": False}},
            "serverInfo": {"name": "srv", "version": ""},
        },
    }


def test_requests_are_answered_and_notifications_and_replies_are_not() -> None:
    assert ask(request("ping")) == {"jsonrpc": "2.0", "id": 7, "result": {}}
    assert ask(request("tools/list", {"cursor": None}, id="a")) == {
        "jsonrpc": "2.0",
        "id": "a",
        "result": {"tools": TOOLS},
    }
    assert ask(request("tools/call", {"name": "echo", "arguments": {"b": 1}})) == {
        "jsonrpc": "2.0",
        "id": 7,
        "result": {"content": [{"type": "text", "text": '{"b": 1}'}], "isError": False},
    }
    refused = ask(request("tools/call", {"name": "nope"}))
    assert refused is not None
    assert refused["result"] == {
        "content": [{"type": "text", "text": "unknown tool 'nope'"}],
        "isError": True,
    }
    assert ask({"jsonrpc": "2.0", "method": "notifications/initialized"}) is None
    assert ask({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {}}) is None
    assert ask({"jsonrpc": "2.0", "id": 3, "result": {}}) is None


def code(reply: dict[str, Any] | None) -> tuple[Any, int]:
    assert reply is not None and "result" not in reply
    return reply["id"], reply["error"]["code"]


def test_what_is_not_a_request_it_serves_is_a_json_rpc_error() -> None:
    assert code(answer("srv", TOOLS, call, b"{not json")) == (None, PARSE_ERROR)
    assert code(ask([request("ping")])) == (None, INVALID_REQUEST)
    assert code(ask({"id": 1, "method": "ping"})) == (1, INVALID_REQUEST)
    assert code(ask(request("server/discover"))) == (7, METHOD_NOT_FOUND)
    assert code(ask(request("resources/list"))) == (7, METHOD_NOT_FOUND)
    assert code(ask(request("tools/call", [1]))) == (7, INVALID_PARAMS)
    assert code(ask(request("tools/call", {"arguments": {}}))) == (7, INVALID_PARAMS)
    assert code(ask(request("tools/call", {"name": "echo", "arguments": [1]}))) == (
        7,
        INVALID_PARAMS,
    )


def test_a_defect_is_an_internal_error_in_one_line_and_the_server_serves_on(
    capsys: pytest.CaptureFixture[str],
) -> None:
    lines = [
        json.dumps(request("tools/call", {"name": "boom"}, id=1)).encode() + b"\n",
        b"\n",
        json.dumps(request("ping", id=2)).encode() + b"\n",
    ]
    out = io.BytesIO()
    serve("srv", TOOLS, call, lines, out)
    failed, pinged = (json.loads(line) for line in out.getvalue().splitlines())
    said = "boom failed: ValueError: bad value"
    assert failed["error"] == {"code": INTERNAL_ERROR, "message": said}
    assert pinged == {"jsonrpc": "2.0", "id": 2, "result": {}}
    assert capsys.readouterr().err == f"srv: {said}\n"
