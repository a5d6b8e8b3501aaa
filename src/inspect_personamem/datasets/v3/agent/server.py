"""The persona's apps at one query's time as an MCP server over stdio: one process per
persona and query time, serving exactly the session's offered tools
(`session.AppSession.offered()`; one server for every app, where the authors start one
per app: `evaluation/mcp_servers/`@1549bc98, `mcp_config_builder.py`@02263749):

    python -m inspect_personamem.datasets.v3.agent.server --backend DIR --user UID \\
        --at T --allowed MCP_TOOLS_ALLOWED --policy STATE_WRITE_POLICY [--writes PATH]

(run so, `errors.py` imports Inspect; a client starts it with `server_command`'s line,
which does not: see below). `DIR` is a release's `backend/` folder (the persona's files
in `DIR/UID/`), `T` the query's time (unix seconds), `--allowed` and `--policy` the
row's `mcp_tools_allowed` and `state_write_policy` (which writes are offered:
`catalogue.allowed_writes`).
A tool's result is the same text as `AppSession.call`'s (canonical JSON); a refused call
is an MCP tool error (`isError`) whose text is the `AppToolError`'s message, whatever
the arguments: the session checks them itself (an unknown one, a missing one, one of the
wrong JSON type, each refused with its own message). With `--writes PATH`, each write's
record is appended to PATH as one JSON line as it is made (the authors'
`writes.jsonl`), so that a client reads the records back. Bad arguments (a missing
folder, an unknown persona, a time that is no integer, a policy or tool name not known)
exit with status 2 and one line on stderr naming what is wrong, before the server
starts.

A start costs what serving needs (an `apps_transport=mcp` run starts one per sample,
about 22,000 for the release): the protocol is `mcp_stdio.py`'s, in the standard
library, not the `mcp` SDK's (whose import was most of a start), and the server imports
no Inspect (only `inspect_tools.py` of the apps' modules imports it). The command
`server_command` gives makes Inspect unimportable in the process
(`sys.modules["inspect_ai"] = None`), so that `errors.py` takes its plain errors (the
server prints its errors itself, as one line, never through Inspect) and a later import
of Inspect on this path fails loudly instead of slowing every start. Measured with
`benchmarks/app_server_start.py`: see `docs/personamem-v3.md`, "The persona's apps as
tools".
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Final, NoReturn

from inspect_personamem.datasets.v3.agent.catalogue import TOOLS, AppToolError, Kind, Param, dumps
from inspect_personamem.datasets.v3.agent.mcp_stdio import ToolCall, serve
from inspect_personamem.datasets.v3.agent.session import AppSession
from inspect_personamem.datasets.v3.persona.streams import PersonaStreams
from inspect_personamem.errors import PersonaMemDataError

MODULE = "inspect_personamem.datasets.v3.agent.server"
NAME = "personamem-v3-apps"
SOURCE = Path(__file__).resolve().parents[4]
"""The folder `inspect_personamem` was imported from."""


def server_command(
    backend: Path, metadata: Mapping[str, Any], writes: Path | None = None
) -> tuple[str, list[str]]:
    """The command line (executable, arguments) that serves a sample's apps: its
    persona (`user_id`), time (`ts`) and allowed writes (`mcp_tools_allowed`,
    `state_write_policy`) from its metadata; `writes`, where to append the records.
    It runs `main` of this very copy of the package (its folder first on the path, as
    an MCP client starts a server with a bare environment), so client and server are
    one implementation, without Inspect (unimportable there)."""
    args = [
        "-c",
        f"import sys; sys.path.insert(0, {str(SOURCE)!r}); sys.modules['inspect_ai'] = None; "
        f"from {MODULE} import main; main()",
        "--backend",
        str(backend),
        "--user",
        str(metadata["user_id"]),
        "--at",
        str(metadata["ts"]),
        "--allowed",
        str(metadata["mcp_tools_allowed"]),
        "--policy",
        str(metadata["state_write_policy"]),
    ]
    return sys.executable, args + (["--writes", str(writes)] if writes is not None else [])


class _OneLineParser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        _fail(message)


def _fail(message: str) -> NoReturn:
    print(f"app_server: {message}", file=sys.stderr)
    raise SystemExit(2)


def session_from(argv: Sequence[str] | None = None) -> tuple[AppSession, Path | None]:
    """The session the command line names, and where its writes go; a bad argument
    exits (status 2) with one line on stderr."""
    parser = _OneLineParser(prog="app_server", description=__doc__)
    parser.add_argument("--backend", required=True, type=Path)
    parser.add_argument("--user", required=True)
    parser.add_argument("--at", required=True)
    parser.add_argument("--allowed", required=True)
    parser.add_argument("--policy", required=True)
    parser.add_argument("--writes", type=Path)
    options = parser.parse_args(argv)
    if not options.backend.is_dir():
        _fail(f"--backend {options.backend}: no such folder")
    if not (options.backend / options.user).is_dir():
        _fail(f"--user {options.user}: no persona folder {options.backend / options.user}")
    at = options.at.strip()
    if not re.fullmatch(r"-?[0-9]+", at):
        _fail(f"--at {options.at!r}: not an integer (the query's time, unix seconds)")
    try:
        view = PersonaStreams(options.backend).visible(options.user, int(at))
        session = AppSession(
            view, mcp_tools_allowed=options.allowed, state_write_policy=options.policy
        )
    except PersonaMemDataError as error:
        _fail(str(error))
    return session, options.writes


def tools(session: AppSession) -> list[dict[str, Any]]:
    """The session's offered tools as MCP lists them: each one's name, its docstring
    (its text and its arguments') as the description, and its arguments' JSON schema
    (each one's type, description and default; an optional one without a default may
    be null)."""
    return [
        {
            "name": name,
            "description": TOOLS[name].docstring(),
            "inputSchema": {
                "type": "object",
                "properties": {p.name: _schema(p) for p in TOOLS[name].params},
                "required": [p.name for p in TOOLS[name].params if p.required],
            },
        }
        for name in session.offered()
    ]


def _schema(param: Param) -> dict[str, Any]:
    schema: dict[str, Any] = dict(_JSON_TYPES[param.kind])
    if param.default is None:
        schema = {"anyOf": [schema, {"type": "null"}]}
    if not param.required:
        schema["default"] = param.default
    return schema | {"description": param.doc}


_JSON_TYPES: Final[dict[Kind, dict[str, Any]]] = {
    "str": {"type": "string"},
    "int": {"type": "integer"},
    "strs": {"type": "array", "items": {"type": "string"}},
}


def tool_call(session: AppSession, writes: Path | None) -> ToolCall:
    """A call to the session's tool: `AppSession.call`'s text, or an `AppToolError`'s
    message as a refusal; the call's new writes appended to `writes`."""

    def call(name: str, arguments: Mapping[str, Any]) -> tuple[str, bool]:
        made = len(session.writes)
        try:
            text, refused = session.call(name, arguments), False
        except AppToolError as error:
            text, refused = error.message, True
        if writes is not None and len(session.writes) > made:
            with writes.open("a", encoding="utf-8") as file:
                file.writelines(dumps(r) + "\n" for r in session.writes[made:])
        return text, refused

    return call


def main(argv: Sequence[str] | None = None) -> None:
    session, writes = session_from(argv)
    serve(NAME, tools(session), tool_call(session, writes))


if __name__ == "__main__":
    main()
