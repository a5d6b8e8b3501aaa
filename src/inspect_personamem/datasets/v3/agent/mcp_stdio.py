"""The server side of the Model Context Protocol over stdio, for a server of tools and
nothing else: what the apps' server (`server.py`) needs, in the standard library alone.

Why not the `mcp` SDK: `import mcp` loads its client, its servers, pydantic, starlette,
httpx and every protocol revision's types, some 0.75 s of CPU, and an
`apps_transport=mcp` run starts one server per persona and query time (about 22,000
for the release). Serving tools over stdio takes little: newline-delimited JSON-RPC 2.0
messages on standard input, one reply a request on standard output
(https://modelcontextprotocol.io/specification/2025-11-25/basic/transports, "stdio";
the lifecycle's `initialize`, `ping`, `tools/list` without pagination, `tools/call`).
What the SDK's client sends and reads is tested against it (`tests/datasets/v3/
test_v3_app_server.py`, with the SDK's client and Inspect's).

Requests: `initialize` answers the client's protocol version where it is one of
`PROTOCOL_VERSIONS` (else the newest of them, which the client may refuse), offering
tools only; `ping`; `tools/list` every tool at once; `tools/call` the `ToolCall`'s text
as one text content, `isError` where the call was refused. Any other method is
"Method not found" (-32601), as `server/discover`, the newer revisions' probe, whose
clients then fall back to `initialize`. Notifications (`notifications/initialized`,
`notifications/cancelled`) and replies are read and dropped: each call is answered in
turn, none is cancelled. A `ToolCall` that raises (a defect, never a refusal) is an
internal error (-32603) naming the exception, also printed to standard error; the
server serves on, and the client reads the error as the server's fault, not the tool's.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import IO, Any, Final

PROTOCOL_VERSIONS: Final = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
"""The revisions whose `initialize` handshake, `tools/list` and `tools/call` this
serves (the same messages for a server of tools without pagination), oldest first."""

ToolCall = Callable[[str, Mapping[str, Any]], tuple[str, bool]]
"""A tool called by name with its arguments: its text, and whether it was refused."""

PARSE_ERROR: Final = -32700
INVALID_REQUEST: Final = -32600
METHOD_NOT_FOUND: Final = -32601
INVALID_PARAMS: Final = -32602
INTERNAL_ERROR: Final = -32603


class _Refused(Exception):
    """A request answered with a JSON-RPC error."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def serve(
    name: str,
    tools: Sequence[Mapping[str, Any]],
    call: ToolCall,
    lines: Iterable[bytes] | None = None,
    out: IO[bytes] | None = None,
) -> None:
    """Serve `tools` (each a tool's `name`, `description`, `inputSchema`) as the server
    `name`, each call through `call`, reading `lines` (standard input) until they end and
    replying on `out` (standard output)."""
    lines = sys.stdin.buffer if lines is None else lines
    out = sys.stdout.buffer if out is None else out
    for line in lines:
        if line.strip():
            reply = answer(name, tools, call, line)
            if reply is not None:
                out.write(json.dumps(reply, ensure_ascii=False).encode("utf-8") + b"\n")
                out.flush()


def answer(
    name: str, tools: Sequence[Mapping[str, Any]], call: ToolCall, line: bytes
) -> dict[str, Any] | None:
    """The reply to one line: a result or an error for a request, none for a
    notification or a reply."""
    try:
        message = json.loads(line)
    except ValueError:
        return _error(None, PARSE_ERROR, "Parse error")
    if not isinstance(message, dict):
        return _error(None, INVALID_REQUEST, "Invalid Request: not one JSON object")
    if "method" not in message:
        return None  # a reply: this server sends no request
    if "id" not in message:
        return None  # a notification
    try:
        result = _result(name, tools, call, message)
    except _Refused as refused:
        return _error(message["id"], refused.code, refused.message)
    return {"jsonrpc": "2.0", "id": message["id"], "result": result}


def _result(
    name: str, tools: Sequence[Mapping[str, Any]], call: ToolCall, message: Mapping[str, Any]
) -> dict[str, Any]:
    method, params = message["method"], message.get("params") or {}
    if message.get("jsonrpc") != "2.0" or not isinstance(method, str):
        raise _Refused(INVALID_REQUEST, "Invalid Request: not JSON-RPC 2.0")
    if not isinstance(params, dict):
        raise _Refused(INVALID_PARAMS, f"{method}: params must be an object")
    if method == "initialize":
        asked = params.get("protocolVersion")
        return {
            "protocolVersion": asked if asked in PROTOCOL_VERSIONS else PROTOCOL_VERSIONS[-1],
            "capabilities": {"tools": {"listChanged": False}},
            "serverInfo": {"name": name, "version": ""},
        }
    if method == "ping":
        return {}
    if method == "tools/list":
        return {"tools": list(tools)}
    if method == "tools/call":
        tool, arguments = params.get("name"), params.get("arguments") or {}
        if not isinstance(tool, str) or not isinstance(arguments, dict):
            raise _Refused(INVALID_PARAMS, "tools/call: name must be a string, arguments an object")
        try:
            text, refused = call(tool, arguments)
        except Exception as error:  # noqa: BLE001 - a defect, answered and said in one line
            said = " ".join(f"{type(error).__name__}: {error}".split())
            print(f"{name}: {tool} failed: {said}", file=sys.stderr, flush=True)
            raise _Refused(INTERNAL_ERROR, f"{tool} failed: {said}") from error
        return {"content": [{"type": "text", "text": text}], "isError": refused}
    raise _Refused(METHOD_NOT_FOUND, f"Method not found: {method}")


def _error(id: Any, code: int, message: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}}
