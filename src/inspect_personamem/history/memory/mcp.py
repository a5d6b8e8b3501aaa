"""`memory=mcp`: an MCP server as the memory of one shared context (the `mcp` package,
the `memory` extra).

The pool makes one `McpMemory` per shared context (and a new one at each rebuild), so
its guarantees hold unchanged: the server is given `context[:end_index]` and nothing
past it, incrementally, and a memory that ran ahead, failed or was cancelled is closed
and replaced. Each memory starts its own server over stdio (`server.command`), or
opens its own session with one reached over streamable HTTP (`server.url`), with a
fresh `{memory_id}` and `{scratch}` folder (`mcp_templates.py`); `close()` stops it.

Why the `mcp` package's own client and not Inspect's `mcp_server_stdio()`: Inspect's
MCP servers are tools for a model; they open a connection per asyncio task (each
question is a task of its own), which for a stdio server means a new, empty server
per question, and they hand a tool's error back to the model as text. The harness
needs one session that outlives its questions, a deadline per call, and errors that
stop the run.

That session lives on an event loop of its own, in a thread per server: anyio's task
groups (the stdio transport's, the session's) must be entered and exited in one
task, while the pool awaits `add` and `search` from each question's task on Inspect's
loop. Calls cross over with anyio's `BlockingPortal.call_async`, so a cancelled
question (an Inspect limit, Ctrl-C) cancels its call on the server's loop too.
Stopping is handed to that loop and never blocks Inspect's (a server that ignores
its closed stdin takes the stdio transport's 4 s to be terminated and killed); the
servers still running when the process exits are stopped and waited for then.

Each memory, as it connects, fits the config's calls to the tools the server lists
(`McpConfig.fitted`); `check_server` connects once as the task is made, before any
data are read, so a server that cannot be started or reached, or whose tools do not
take the config's templates, stops the run with one line before any sample
(`McpConfigError`, naming the config file). A fault later is one line naming the
server (its command line or URL) and, through the pool, the question: a server that
does not answer within `call_timeout`, one that closes the connection (dies), a tool
that returns an error, and a search result that is not what `search.results` says.
"""

from __future__ import annotations

import atexit
import contextlib
import shutil
import tempfile
import threading
import uuid
from collections.abc import AsyncIterator, Callable, Sequence
from concurrent.futures import Future
from contextlib import AbstractAsyncContextManager, AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import Any, Final, TextIO

import anyio
from anyio.abc import TaskStatus
from anyio.from_thread import BlockingPortal

from inspect_personamem.history.memory.interface import (
    HistoryMessage,
    MemoryComponentError,
    MemoryItem,
)
from inspect_personamem.history.memory.mcp_config import McpConfig, McpConfigError, ToolCall
from inspect_personamem.history.memory.mcp_results import read_items
from inspect_personamem.history.memory.mcp_templates import add_values, fill

STOP_WAIT_SECONDS: Final = 10.0
"""How long the process waits, as it exits, for each server still running to stop (the
stdio transport gives a server 2 s after its stdin closes, then 2 s after SIGTERM)."""

Client = Callable[[TextIO], AbstractAsyncContextManager[Any]]
"""Opens a session (an entered `ClientSession`, not yet initialized), given the file a
stdio server's stderr goes to."""

_live: set[_Connection] = set()
_live_lock = threading.Lock()


def mcp_memory_class() -> type[McpMemory]:
    """`McpMemory`, once the `mcp` package is known to be there (a one-line error
    otherwise, raised when the task is made)."""
    try:
        import mcp  # noqa: F401
    except ImportError as ex:
        raise MemoryComponentError(
            "memory=mcp needs the mcp package: pip install 'inspect-personamem[memory]'"
        ) from ex
    return McpMemory


def check_server(config: McpConfig) -> None:
    """Start (or reach) the server once, fit the config's calls to its tools, and stop
    it: as the task is made, so that a fault stops the run before any sample. An
    `McpConfigError`, one line naming the config file, where it fails."""
    try:
        McpMemory("personamem-check", config).close()
    except MemoryComponentError as ex:
        raise McpConfigError("server", str(ex), config.file) from ex


class McpMemory:
    """An MCP server's memory of one shared context."""

    def __init__(self, context_id: str, config: McpConfig) -> None:
        self.config = config
        self.name = config.server.name
        self.adds = 0
        self.searches = 0
        folder = Path(tempfile.mkdtemp(prefix="personamem-mcp-"))
        (folder / "scratch").mkdir()
        self.values = {
            "context_id": context_id,
            "memory_id": f"personamem-{uuid.uuid4().hex[:16]}",
            "scratch": str(folder / "scratch"),
        }
        self._connection = _Connection(self._client(), folder, self.name)
        try:
            tools = self._connection.start(config.start_timeout)
            self._add, self._search = config.fitted(
                {name: tool.input_schema for name, tool in tools.items()}
            )
        except BaseException as ex:
            # said before the stop, which removes the folder holding the server's stderr
            known = isinstance(ex, MemoryComponentError | McpConfigError)
            fault = (
                self._fault("could not be started", ex, "start_timeout")
                if isinstance(ex, Exception) and not known
                else None
            )
            self._connection.stop()
            if fault is None:
                raise
            raise fault from ex

    async def add(self, messages: Sequence[HistoryMessage]) -> None:
        for values in add_values(messages, self.config.add_per):
            await self._call(self._add, values)
            self.adds += 1

    async def search(self, query: str, top_k: int) -> list[MemoryItem]:
        """The first `top_k` items the search tool returns (it may return more: not every
        server takes a limit)."""
        result = await self._call(self._search, {"query": query, "top_k": top_k})
        self.searches += 1
        texts = [block.text for block in result.content if block.type == "text"]
        if len(texts) < len(result.content):
            kinds = sorted({block.type for block in result.content} - {"text"})
            raise MemoryComponentError(
                f"{self.name}: tool {self.config.search.tool!r} returned {', '.join(kinds)} "
                "content, not text"
            )
        try:
            items = read_items(texts, result.structured_content, self.config.reading)
        except ValueError as ex:
            raise MemoryComponentError(
                f"{self.name}: tool {self.config.search.tool!r} returned {ex} (search.results: "
                f"{self.config.reading.results})"
            ) from None
        return items[:top_k]

    def usage(self) -> dict[str, int]:
        """The tool calls made to the server."""
        return {"mcp_add_calls": self.adds, "mcp_search_calls": self.searches}

    def close(self) -> None:
        """Stop the server (or end the session with it), without waiting."""
        self._connection.stop()

    async def _call(self, call: ToolCall, values: dict[str, Any]) -> Any:
        """Call a tool with its arguments filled; its result, or a one-line error."""
        arguments = fill(call.arguments, {**self.values, **values})
        try:
            result = await self._connection.call(call.tool, arguments, self.config.call_timeout)
        except Exception as ex:
            raise self._fault(f"failed in tool {call.tool!r}", ex, "call_timeout") from None
        if result.is_error:
            text = " ".join(b.text for b in result.content if b.type == "text")
            raise MemoryComponentError(
                f"{self.name}: tool {call.tool!r} returned an error: {_one_line(text)}"
            )
        return result

    def _fault(self, what: str, ex: BaseException, deadline: str) -> MemoryComponentError:
        """An error naming the server, what failed, why (a timeout: the `deadline` it ran
        out, `start_timeout` or `call_timeout`) and the end of its stderr."""
        cause = _leaf(ex)
        if isinstance(cause, TimeoutError):
            detail = f"no answer within {getattr(self.config, deadline):g} s ({deadline})"
        else:
            detail = f"{type(cause).__name__}: {_one_line(str(cause))}".rstrip(": ")
        stderr = self._connection.stderr_tail()
        said = f"; its stderr ends: {stderr}" if stderr else ""
        return MemoryComponentError(f"{self.name} {what}: {detail}{said}")

    def _client(self) -> Client:
        """What opens this memory's session: the transport and `ClientSession`."""
        server, values = self.config.server, self.values
        if server.url is not None:
            url = fill(server.url, values)
            headers = fill(server.headers, values)
            return lambda errlog: _http_session(url, headers)
        from mcp import StdioServerParameters

        parameters = StdioServerParameters(
            command=fill(server.command, values),
            args=fill(list(server.args), values),
            env=fill(server.env, values) or None,
            cwd=fill(server.cwd, values),
        )
        return lambda errlog: _stdio_session(parameters, errlog)


@asynccontextmanager
async def _stdio_session(parameters: Any, errlog: TextIO) -> AsyncIterator[Any]:
    from mcp import ClientSession
    from mcp.client.stdio import stdio_client

    async with (
        stdio_client(parameters, errlog=errlog) as (read, write),
        ClientSession(read, write) as session,
    ):
        yield session


@asynccontextmanager
async def _http_session(url: str, headers: dict[str, str]) -> AsyncIterator[Any]:
    import httpx2
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    async with AsyncExitStack() as stack:
        # no read timeout of the client's own: `call_timeout` bounds each call
        client = httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30.0, read=None))
        await stack.enter_async_context(client)
        streams = await stack.enter_async_context(streamable_http_client(url, http_client=client))
        yield await stack.enter_async_context(ClientSession(streams[0], streams[1]))


class _Connection:
    """One server's client session, on an event loop in a thread of its own, reached
    through a blocking portal."""

    def __init__(self, client: Client, folder: Path, name: str) -> None:
        self._client = client
        self._folder = folder
        self._errlog: TextIO | None = None
        self._session: Any = None
        portal: Future[BlockingPortal] = Future()
        self._thread = threading.Thread(
            target=self._run, args=(portal,), daemon=True, name=f"personamem-mcp {name}"[:60]
        )
        with _live_lock:
            _live.add(self)
        self._thread.start()
        self._portal = portal.result()

    def start(self, timeout: float) -> dict[str, Any]:
        """Open the session (starting the server), initialize it and list its tools, all
        within `timeout` seconds; the tools by name. Blocks: the pool calls the factory
        in a worker thread."""
        _, tools = self._portal.start_task(self._serve, timeout)
        return dict(tools)

    async def call(self, tool: str, arguments: dict[str, Any], timeout: float) -> Any:
        """A tool's result (`CallToolResult`), on the server's loop, within `timeout`."""
        return await self._portal.call_async(self._call, tool, arguments, timeout)

    def stop(self) -> None:
        """Stop the session and the server, without waiting: cancelled on its loop, the
        stdio transport closes the server's stdin, then terminates it if need be."""
        with contextlib.suppress(RuntimeError):  # stopped already
            self._portal.start_task_soon(self._portal.stop, True)

    def wait(self, timeout: float) -> None:
        """Wait up to `timeout` seconds for the server to be stopped."""
        self._thread.join(timeout)

    def stderr_tail(self) -> str:
        """The last line the server wrote to its stderr (stdio), or empty."""
        try:
            lines = (self._folder / "stderr.log").read_text(errors="replace").splitlines()
        except OSError:
            return ""
        last = next((line for line in reversed(lines) if line.strip()), "")
        return _one_line(last)[:300]

    async def _serve(self, timeout: float, *, task_status: TaskStatus[Any]) -> None:
        async with self._opened() as session:
            with anyio.fail_after(timeout):
                await session.initialize()
                tools = await _list_tools(session)
            self._session = session
            task_status.started(tools)
            await anyio.sleep_forever()

    @asynccontextmanager
    async def _opened(self) -> AsyncIterator[Any]:
        """The session, a stdio server's stderr going to a file (`stderr_tail`)."""
        self._errlog = open(self._folder / "stderr.log", "w", encoding="utf-8")  # noqa: SIM115
        async with self._client(self._errlog) as session:
            yield session

    async def _call(self, tool: str, arguments: dict[str, Any], timeout: float) -> Any:
        with anyio.fail_after(timeout):
            return await self._session.call_tool(tool, arguments)

    def _run(self, portal: Future[BlockingPortal]) -> None:
        """The thread: a portal until it is stopped, then the memory's folder removed."""

        async def serve_portal() -> None:
            async with BlockingPortal() as running:
                portal.set_result(running)
                await running.sleep_until_stopped()

        try:
            anyio.run(serve_portal)
        except BaseException as ex:  # the portal never ran: say so to who waits for it
            if not portal.done():
                portal.set_exception(ex)
            raise
        finally:
            if self._errlog is not None:
                self._errlog.close()
            shutil.rmtree(self._folder, ignore_errors=True)
            with _live_lock:
                _live.discard(self)


async def _list_tools(session: Any) -> list[tuple[str, Any]]:
    """Every tool the server lists, page by page."""
    from mcp.types import PaginatedRequestParams

    tools: list[tuple[str, Any]] = []
    cursor = None
    while True:
        params = PaginatedRequestParams(cursor=cursor) if cursor else None
        page = await session.list_tools(params=params)
        tools += [(tool.name, tool) for tool in page.tools]
        cursor = page.next_cursor
        if not cursor:
            return tools


def _leaf(ex: BaseException) -> BaseException:
    """The first exception inside nested exception groups (anyio's task groups)."""
    while getattr(ex, "exceptions", None):
        ex = ex.exceptions[0]  # type: ignore[attr-defined]
    return ex


def _one_line(text: str) -> str:
    return " ".join(text.split())


@atexit.register
def _stop_all() -> None:
    """Stop every server still running, and wait for each (bounded) as the process
    exits: none is left behind, whether the run ended, failed or was interrupted."""
    with _live_lock:
        connections = list(_live)
    for connection in connections:
        connection.stop()
    for connection in connections:
        connection.wait(STOP_WAIT_SECONDS)
