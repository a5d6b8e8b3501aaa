"""The apps agent's tools and its record (`Recorded`), in process or served by the
package's MCP server over stdio (`apps_transport=mcp`: `server.py`, one process per
persona and query time, through Inspect's `mcp_server_stdio()`).

A fault of the MCP server (it does not start, dies, does not answer a call within
`tool_timeout`, answers what is not one JSON text, or fails as it stops) is never handed
to the model as a tool's error, which it could read as "no results": the try ends, and
the query is tried again from its start on a fresh server (a fresh session at its time:
no write of the failed try is seen), up to `RETRIES` times. Each fault is one line
naming the server, the persona and the query, kept in the record (`faults`, `retries`).
A query whose server failed on every try ends without a reply, never an error of the
sample: the scorer leaves it unscored (`scoring.scorer.SERVER_FAILED`) and the run goes
on, whatever Inspect's `fail_on_error` says. An Inspect limit, a cancellation or the
model's own error is no fault of the server: it is not retried. Whether the server
starts and lists the tools the apps offer is checked once as the task is made, for its
first query (`check_server`, its start tried as often): a server that starts on no try,
or lists other tools, stops the run before any sample.
"""

from __future__ import annotations

import json
import math
import shlex
import tempfile
import threading
from collections.abc import Awaitable, Callable, Mapping, Sequence
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import anyio
from inspect_ai.solver import TaskState
from inspect_ai.tool import ContentText, Tool, ToolDef, ToolError, mcp_server_stdio

from inspect_personamem.datasets.v3.agent.catalogue import is_write
from inspect_personamem.datasets.v3.agent.inspect_tools import inspect_tools
from inspect_personamem.datasets.v3.agent.server import server_command
from inspect_personamem.datasets.v3.agent.session import session_for
from inspect_personamem.datasets.v3.persona.streams import PersonaStreams
from inspect_personamem.errors import PersonaMemDataError
from inspect_personamem.scoring.actions import ACTIONS, Actions, Budget

START_TIMEOUT: Final = 120
"""Seconds the MCP server has to start and list its tools (a Python process importing
the package, several at once on a busy machine), or `tool_timeout` where longer."""
RETRIES: Final = 2
"""Times a query is tried again, each on a fresh server, after its server's fault."""


class AppServerError(RuntimeError):
    """A fault of the apps' MCP server during a query: one line naming the server, the
    persona and the query; it ends the query's try (`over_mcp`), never the sample."""


@dataclass
class Recorded(Actions):
    """A query's record (`scoring.actions.Actions`), kept in its state's metadata as it
    changes."""

    state: TaskState | None = field(default=None, kw_only=True, repr=False)

    def call(self, tool: str, arguments: Mapping[str, Any], error: str | None) -> None:
        self.calls.append({"tool": tool, "arguments": dict(arguments), "error": error})
        self.reads += error is None and not is_write(tool)
        self.write()

    def write(self) -> None:
        assert self.state is not None
        self.state.metadata[ACTIONS] = self.json()


Run = Callable[[TaskState, Sequence[Tool], Recorded], Awaitable[TaskState]]
"""The agent's turns over its tools, within the record's budget."""


async def in_process(
    state: TaskState, streams: PersonaStreams, budget: Budget, run: Run
) -> TaskState:
    """The query answered with the apps in process."""
    session = session_for(streams, state.metadata)
    actions = Recorded("apps", None, budget, writes=session.writes, state=state)
    actions.write()
    tools = [recorded(tool, actions, None) for tool in inspect_tools(session)]
    return await run(state, tools, actions)


async def over_mcp(
    state: TaskState, streams: PersonaStreams, budget: Budget, timeout: int, run: Run
) -> TaskState:
    """The query answered with the apps its own MCP server serves, tried again from its
    start on a fresh server after a fault (`RETRIES`); where every try failed, the state
    without a reply, its record saying why (`Actions.server_failed`)."""
    asked, output = list(state.messages), state.output
    faults: list[str] = []
    while True:
        state.messages, state.output = list(asked), output
        actions = Recorded("mcp", None, budget, state=state, retries=len(faults), faults=faults)
        try:
            return await _tried(state, streams, timeout, run, actions)
        except AppServerError as fault:
            faults.append(str(fault))
            if len(faults) > RETRIES:  # a try with a fault is no answer, even one replied
                actions.finished = False
                actions.stopped = f"its server failed on each of its {len(faults)} tries: {fault}"
                actions.write()
                return state


async def _tried(
    state: TaskState, streams: PersonaStreams, timeout: int, run: Run, actions: Recorded
) -> TaskState:
    """One try: the query's server started, the agent's turns with its tools, and the
    writes the server made read back into the record after."""
    with tempfile.TemporaryDirectory(prefix="personamem-apps-") as folder:
        writes = Path(folder) / "writes.jsonl"
        command, args = server_command(streams.backend, state.metadata, writes)
        server = Server(shlex.join([command, *args]), state.metadata, timeout)
        actions.server = server.line
        actions.write()
        try:
            client = mcp_server_stdio(command=command, args=args)
            return await _served(state, client, server, actions, run)
        finally:
            actions.writes[:] = _written(writes, server)
            actions.write()


async def _served(
    state: TaskState, client: Any, server: Server, actions: Recorded, run: Run
) -> TaskState:
    """Start the query's server (within its start deadline), list its tools and answer
    with them; the server stopped after. What the agent's turns raise is theirs (an
    Inspect limit, the model's error) unless it holds a fault of the server; anything
    else raised while the server is up, or as it stops, is a fault (`AppServerError`)."""
    theirs: list[Exception] = []
    try:
        with anyio.CancelScope() as scope:
            scope.deadline = anyio.current_time() + server.start_timeout
            async with AsyncExitStack() as stack:
                try:
                    await stack.enter_async_context(client)
                    listed = await client.tools()
                except Exception as ex:
                    raise server.fault(actions, "did not start", ex) from ex
                scope.deadline = math.inf
                tools = [recorded(tool, actions, server) for tool in listed]
                try:
                    return await run(state, tools, actions)
                except Exception as ex:
                    theirs.append(ex)
                    raise
        raise server.fault(actions, f"did not start within {server.start_timeout} s")
    except Exception as ex:
        fault = found(ex)
        if fault is ex or (fault is None and any(ex is one for one in theirs)):
            raise
        if fault is not None:
            raise fault from None
        raise server.fault(actions, "failed", ex) from ex


@dataclass(frozen=True)
class Server:
    """One query's MCP server: its command line, whom it serves, its deadline."""

    line: str
    metadata: Mapping[str, Any]
    timeout: int

    @property
    def start_timeout(self) -> int:
        return max(START_TIMEOUT, self.timeout)

    def where(self) -> str:
        return (
            f"PersonaMem-v3 app server `{self.line}` (persona {self.metadata['user_id']}, "
            f"query {self.metadata['query_id']})"
        )

    def fault(
        self, actions: Recorded, what: str, cause: BaseException | None = None
    ) -> AppServerError:
        """The fault, one line, also kept in the query's record."""
        detail = "" if cause is None else ": " + _said(cause).rstrip(": ")
        actions.stopped = f"{self.where()} {what}{detail}"
        actions.write()
        return AppServerError(actions.stopped)


def recorded(tool: Tool, actions: Recorded, server: Server | None) -> Tool:
    """`tool`, each call kept in the record; served by `server`, each call within its
    deadline, a fault of the server raised (`AppServerError`), never handed to the model."""
    spec = ToolDef(tool)
    name = spec.name

    async def execute(**arguments: Any) -> Any:
        try:
            if server is None:
                result = await tool(**arguments)
            else:
                result = await _served_call(tool, name, arguments, actions, server)
        except ToolError as error:
            actions.call(name, arguments, error.message)
            raise
        actions.call(name, arguments, None)
        return result

    return ToolDef(
        execute,
        name=name,
        description=spec.description,
        parameters=spec.parameters,
        max_output=0,  # the apps' text whole, as `inspect_tools` gives it
    ).as_tool()


async def _served_call(
    tool: Tool, name: str, arguments: Mapping[str, Any], actions: Recorded, server: Server
) -> str:
    """One call to the server: its JSON text. A tool's own error (the apps' message)
    reaches the model; no answer within the deadline, a lost connection or anything but
    one JSON text is a fault."""
    try:
        with anyio.fail_after(server.timeout):
            result = await tool(**arguments)
    except TimeoutError as ex:
        raise server.fault(
            actions, f"gave no answer to {name} within {server.timeout} s (tool_timeout)"
        ) from ex
    except ToolError as ex:
        if ex.__cause__ is None:  # the tool's own error (the MCP result's isError)
            raise
        raise server.fault(actions, f"failed on {name}", ex.__cause__) from ex
    except Exception as ex:
        raise server.fault(actions, f"failed on {name}", ex) from ex
    content = result if isinstance(result, list) else [result]
    texts = [c.text if isinstance(c, ContentText) else c for c in content]
    if len(texts) == 1 and isinstance(texts[0], str):
        try:
            json.loads(texts[0])
            return texts[0]
        except ValueError:
            pass
    raise server.fault(actions, f"answered {name} with what is not one JSON text")


def _written(path: Path, server: Server) -> list[dict[str, Any]]:
    """The write records the server appended to its `--writes` file, in order."""
    if not path.is_file():
        return []
    records = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        try:
            records.append(json.loads(line))
        except ValueError as ex:
            raise AppServerError(
                f"{server.where()}: its writes file, line {number}, is not JSON"
            ) from ex
    return records


def _leaf(ex: BaseException) -> BaseException:
    """The first exception inside nested exception groups (anyio's task groups)."""
    while getattr(ex, "exceptions", None):
        ex = ex.exceptions[0]  # type: ignore[attr-defined]
    return ex


def _said(ex: BaseException) -> str:
    """The first exception inside `ex`, as one line: its type and its text."""
    leaf = _leaf(ex)
    return " ".join(f"{type(leaf).__name__}: {leaf}".split())


def found(ex: BaseException) -> AppServerError | None:
    """The server fault that `ex` is, or holds in its exception groups."""
    held: list[BaseException] = [ex]
    while held:
        one = held.pop()
        if isinstance(one, AppServerError):
            return one
        held.extend(getattr(one, "exceptions", ()))
    return None


def check_server(backend: Path, metadata: Mapping[str, Any], timeout: int) -> None:
    """Start the server of a query (the run's first), list its tools and stop it, as the
    task is made, started again where it fails (`RETRIES` times, as a query's): one line
    naming the server command, the persona and the query where it does not start within
    `START_TIMEOUT` seconds (or `timeout`, where longer) on any try, or lists other tools
    than the apps offer."""
    command, args = server_command(backend, metadata)
    server = Server(shlex.join([command, *args]), metadata, timeout)
    where, deadline = server.where(), server.start_timeout
    listed: list[str] = []
    failure: list[BaseException] = []

    async def start() -> None:
        with anyio.fail_after(deadline):
            async with mcp_server_stdio(command=command, args=args) as server:
                listed.extend(ToolDef(tool).name for tool in await server.tools())

    def thread() -> None:  # a loop of its own: the task may be made inside Inspect's
        for _ in range(1 + RETRIES):
            failure.clear()
            listed.clear()
            try:
                anyio.run(start)
                return
            except BaseException as ex:  # noqa: BLE001 - said in one line below
                failure.append(ex)

    runner = threading.Thread(target=thread, name="personamem-v3 app server check")
    runner.start()
    runner.join()
    if failure:
        timed_out = isinstance(_leaf(failure[0]), TimeoutError)
        why = f"within {deadline} s" if timed_out else _said(failure[0])
        raise PersonaMemDataError(f"{where} did not start on any of {1 + RETRIES} tries: {why}")
    offered = set(session_for(PersonaStreams(backend), metadata).offered())
    if set(listed) != offered:
        raise PersonaMemDataError(
            f"{where} lists other tools than the apps offer: "
            f"{', '.join(sorted(set(listed) ^ offered))}"
        )
