"""The persona's apps at one query's time as an MCP server over stdio: one process per
persona and query time, serving exactly `session.AppSession.functions()` (one server for
every app, where the authors start one per app: `evaluation/mcp_servers/`@1549bc98,
`mcp_config_builder.py`@02263749):

    python -m inspect_personamem.datasets.v3.agent.server --backend DIR --user UID \\
        --at T --allowed MCP_TOOLS_ALLOWED --policy STATE_WRITE_POLICY [--writes PATH]

(run so, `errors.py` imports Inspect; a client starts it with `server_command`'s line,
which does not: see below). `DIR` is a release's `backend/` folder (the persona's files
in `DIR/UID/`), `T` the query's time (unix seconds), `--allowed` and `--policy` the
row's `mcp_tools_allowed` and `state_write_policy` (which writes are offered:
`catalogue.allowed_writes`).
A tool's result is the same text as `AppSession.call`'s (canonical JSON); a refused call is an
MCP tool error (`isError`) whose text is the `AppToolError`'s message. Arguments the
listed schema does not take are the SDK's to handle before the session sees them: one of
the wrong JSON type is refused with the SDK's message (as Inspect refuses it in-process,
with its own), and one the tool does not take is dropped (the SDK's argument model
ignores extra keys; the session, called directly, refuses it). With `--writes PATH`,
each write's record is appended to PATH as one JSON line as it is made (the authors'
`writes.jsonl`), so that a client reads the records back. Bad arguments (a missing
folder, an unknown persona, a time that is no integer, a policy or tool name not known)
exit with status 2 and one line on stderr naming what is wrong, before the server
starts.

The `mcp` package comes with the `memory` extra; it is imported in `main` only, so
`server_command` (what a client starts, for a sample) works without it. The server
imports no Inspect: an `apps_transport=mcp` run starts one per sample, and Inspect's import was
most of a start. The apps' modules serve without it (only `inspect_tools.py` imports
it), and the command `server_command` gives makes Inspect unimportable in the process
(`sys.modules["inspect_ai"] = None`), so that `errors.py` takes its plain errors (the
server prints its errors itself, as one line, never through Inspect) and a later import
of Inspect on this path fails loudly instead of slowing every start. Measured with
`benchmarks/app_server_start.py`: see `docs/personamem-v3.md`, "The persona's apps as
tools".
"""

from __future__ import annotations

import argparse
import inspect
import re
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Annotated, Any, NoReturn

from pydantic import Field

from inspect_personamem.datasets.v3.agent.catalogue import TOOLS, AppToolError, dumps
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


def served(
    session: AppSession, writes: Path | None, name: str, function: Callable[..., str]
) -> Callable[..., Any]:
    """`function` as the MCP tool `name`: its signature with each parameter's
    description, its text as the result, an `AppToolError` as an error result; the
    call's new writes appended to `writes`."""
    from mcp.types import CallToolResult, TextContent

    def tool(**arguments: Any) -> CallToolResult:
        made = len(session.writes)
        try:
            text, failed = function(**arguments), False
        except AppToolError as error:
            text, failed = error.message, True
        if writes is not None and len(session.writes) > made:
            with writes.open("a", encoding="utf-8") as file:
                file.writelines(dumps(r) + "\n" for r in session.writes[made:])
        return CallToolResult(content=[TextContent(type="text", text=text)], is_error=failed)

    docs = {p.name: p.doc for p in TOOLS[name].params}
    signature = inspect.signature(function)
    parameters = [
        p.replace(annotation=Annotated[p.annotation, Field(description=docs[p.name])])
        for p in signature.parameters.values()
    ]
    typed: Any = tool
    typed.__name__ = name
    typed.__doc__ = function.__doc__
    typed.__signature__ = signature.replace(parameters=parameters, return_annotation=CallToolResult)
    typed.__annotations__ = {p.name: p.annotation for p in parameters}
    return tool


def main(argv: Sequence[str] | None = None) -> None:
    session, writes = session_from(argv)
    try:
        from mcp.server.mcpserver import MCPServer
    except ImportError:
        _fail("the mcp package is missing: pip install 'inspect-personamem[memory]'")
    server = MCPServer(NAME, log_level="WARNING")
    for name, function in session.functions().items():
        server.add_tool(served(session, writes, name, function), name=name, structured_output=False)
    server.run()


if __name__ == "__main__":
    main()
