"""`memory=mcp` against stand-in MCP servers (`support/servers/mcp_memory.py`, the `mcp`
package's server API, started over stdio, or over HTTP, by the test): what the server
is sent, its tools checked at first connect, every fault one line naming the server
and the question, and no server left running after a close, a cancellation or Ctrl-C."""

from __future__ import annotations

import asyncio
import builtins
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from inspect_ai.model import ChatMessage
from inspect_ai.tool import ToolChoice, ToolInfo
from support.helpers import run_task, tool_calling_model
from support.memories import run_mcp_memory, split_with_markers
from support.servers.mcp_memory import SCRIPT, hung, records, stand_in_config

from inspect_personamem.datasets.v1.contexts import ContextStore
from inspect_personamem.errors import PersonaMemArgumentError
from inspect_personamem.history.memory import mcp as mcp_module
from inspect_personamem.history.memory.interface import HistoryMessage, MemoryComponentError
from inspect_personamem.history.memory.mcp import McpMemory
from inspect_personamem.history.memory.mcp_config import McpConfigError, parse_mcp_config
from inspect_personamem.history.memory.pool import DROPPED, MemoryPool
from inspect_personamem.run.tasks import TASKS

pytestmark = pytest.mark.memory  # the mcp package
TASK = "inspect_personamem/personamem_32k"
SESSION = [
    HistoryMessage(0, "system", "Current user persona: likes tea"),
    HistoryMessage(1, "user", "User: I drink green tea every morning"),
    HistoryMessage(2, "assistant", "Assistant: Green tea is a fine habit"),
]


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return split_with_markers(tmp_path_factory.mktemp("markers"))


def memory(record: Path, **config: Any) -> McpMemory:
    return McpMemory("context-1", parse_mcp_config(stand_in_config(record, **config)))


def alive(pid: int) -> bool:
    """Whether a process is still running (a zombie, exited but not reaped, is not).
    A process reaped between the open and the read makes the read fail with ESRCH
    (`ProcessLookupError`): it is not running either."""
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError):
        return False


def gone(pids: list[int], within: float = 120.0) -> bool:
    """Whether every process has ended within `within` seconds (a guard, not a wait: a
    hung server is given seconds to stop, and a loaded machine stretches them)."""
    deadline = time.monotonic() + within
    while any(map(alive, pids)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return not any(map(alive, pids))


def pids(record: Path) -> list[int]:
    return [int(server[0]["pid"]) for server in records(record) if "pid" in server[0]]


def test_a_process_reaped_between_the_open_and_the_read_of_its_stat_is_not_alive(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The race a busy machine hit: `alive` opens the process's stat file, the process
    ends and is reaped, then the read fails (ESRCH). Forced here with a real process,
    killed and reaped by the `open` that `alive` calls."""
    process = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])

    def open_then_reap(*args: Any, **kwargs: Any) -> Any:
        opened = builtins.open(*args, **kwargs)  # noqa: SIM115 (`alive` closes it)
        process.kill()
        process.wait()
        return opened

    monkeypatch.setitem(globals(), "open", open_then_reap)
    try:
        assert not alive(process.pid)
    finally:
        process.kill()
        process.wait()


def test_records_read_while_servers_write_hold_whole_lines_only(tmp_path: Path) -> None:
    """A test polls the records as servers write them (`pids` until two have started):
    one server has created its file and written nothing yet, another is part way
    through a line."""
    (tmp_path / "1.jsonl").write_text("", encoding="utf-8")
    (tmp_path / "2.jsonl").write_text('{"pid": 2}\n{"tool": "reme', encoding="utf-8")
    assert records(tmp_path) == [[{"pid": 2}]]
    assert pids(tmp_path) == [2]


@pytest.mark.parametrize("per", ["message", "session"])
def test_the_server_is_sent_each_message_once_searched_and_stopped(
    tmp_path: Path, per: str
) -> None:
    store = memory(tmp_path, per=per)
    later = [HistoryMessage(3, "system", "Current user persona: likes tea"),
             HistoryMessage(4, "user", "User: Now I prefer black coffee")]  # fmt: skip

    async def use() -> Any:
        await store.add(SESSION)
        await store.add(later)
        return await store.search("Do I still drink green tea?", 2)

    items = asyncio.run(use())
    assert [(i.position, i.score) for i in items] == [(1, 4.0), (2, 2.0)]  # most words shared
    assert store.usage() == {
        "mcp_add_calls": 5 if per == "message" else 2, "mcp_search_calls": 1,
    }  # fmt: skip
    [[started, *calls]] = records(tmp_path)
    sent = [(m["role"], m["content"]) for c in calls[:-1] for m in c["arguments"]["messages"]]
    assert sent == [(m.role, m.content) for m in [*SESSION, *later]]
    assert calls[-1] == {
        "tool": "recall", "held": [0, 1, 2, 3, 4],
        "arguments": {"query": "Do I still drink green tea?", "limit": 2},
    }  # fmt: skip
    folder = Path(store.values["scratch"]).parent
    assert folder.is_dir()
    store.close()
    assert gone([started["pid"]])
    deadline = time.monotonic() + 120  # its folder is removed once its thread has ended
    while folder.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not folder.exists()


@pytest.mark.parametrize(
    ("section", "change", "problem"),
    [
        ("search", {"tool": "recal"}, "search.tool: 'recal': the {name} has no such tool (its "
         "tools: recall, remember, remember_session)"),
        ("search", {"arguments": {"query": "{query}", "limt": "{top_k}"}},
         "search.arguments.limt: tool 'recall' of the {name} takes no such field (it takes: "
         "limit, query, user)"),
        ("search", {"arguments": {"query": "{query}"}}, "search.arguments: tool 'recall' of the "
         "{name} requires 'limit', which the config does not give"),
        ("add", {"arguments": {"role": "{role}", "content": "{content}", "position": "{role}"}},
         "add.arguments.position: tool 'remember' of the {name} takes an integer here, and "
         "'{{role}}' is a string"),
    ],
)  # fmt: skip
def test_the_server_s_tools_are_checked_when_it_first_connects(
    tmp_path: Path, section: str, change: dict[str, Any], problem: str
) -> None:
    config = stand_in_config(tmp_path)
    config[section].update(change)
    with pytest.raises(McpConfigError) as error:
        McpMemory("context-1", parse_mcp_config(config, "mcp.json"))
    name = f"MCP server '{sys.executable} {SCRIPT} well --record {tmp_path} --after 0'"
    prefix = "PersonaMem task parameter memory_config=mcp.json (memory=mcp): "
    assert str(error.value) == prefix + problem.format(name=name)
    assert gone(pids(tmp_path))  # stopped, not left running


EXITS = [sys.executable, "-c", "import sys; sys.exit('the store is locked')"]
"""A server that exits at once, saying why on its stderr."""
SERVER_FAULTS = [
    ({"server": {"command": "no-such-mcp-server"}}, r"server: MCP server 'no-such-mcp-server' "
     r"could not be started: FileNotFoundError: .*No such file or directory: "
     r"'no-such-mcp-server'"),
    ({"server": {"command": EXITS[0], "args": EXITS[1:]}}, r"server: MCP server '.* -c import "
     r"sys; sys.exit\('the store is locked'\)' could not be started: .*; its stderr ends: the "
     r"store is locked"),
    ({"search": {"tool": "recal", "arguments": {"query": "{query}"}}}, r"search.tool: 'recal': "
     r"the MCP server '.* well .*' has no such tool \(its tools: recall, remember, "
     r"remember_session\)"),
    ({"add": {"tool": "remember", "arguments": {"role": "{role}", "content": "{content}",
                                                "position": "{content}"}}},
     r"add.arguments.position: tool 'remember' of the MCP server '.*' takes an integer here, "
     r"and '\{content\}' is a string"),
]  # fmt: skip
"""A config whose server cannot be started, exits at once, lacks the tool named, or
whose tool takes another type than a template gives; what the user is told."""


def test_a_server_that_exits_at_once_is_named_with_its_stderr_however_soon_it_is_stopped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The server's stderr is read before it is stopped: a stop that has already removed
    the memory's folder (forced here by waiting for it) leaves the reason in the error."""
    stop = mcp_module._Connection.stop

    def stop_and_wait(connection: Any) -> None:
        stop(connection)
        connection.wait(30)

    monkeypatch.setattr(mcp_module._Connection, "stop", stop_and_wait)
    change, problem = SERVER_FAULTS[1]
    assert isinstance(change, dict) and isinstance(problem, str)
    config = parse_mcp_config(json.loads(faulty_config(tmp_path, change).read_text()))
    with pytest.raises(MemoryComponentError, match=problem.removeprefix("server: ")):
        McpMemory("c0", config)


def faulty_config(folder: Path, change: dict[str, Any], **more: Any) -> Path:
    """The stand-in's config, with `change` replacing its sections, written to a file."""
    (folder / "records").mkdir()
    config = {**stand_in_config(folder / "records", **more), **change}
    path = folder / "mcp.json"
    path.write_text(json.dumps(config), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("history", "change", "problem"),
    [
        *(("memory", change, problem) for change, problem in SERVER_FAULTS),
        ("memory", {"start_timeout": 1}, r"server: MCP server '.* slow-start .*' could not be "
         r"started: no answer within 1 s \(start_timeout\)"),
        ("tools", *SERVER_FAULTS[2]),
    ],
)  # fmt: skip
def test_a_server_at_fault_stops_the_task_before_any_data_are_read(
    tmp_path: Path, history: str, change: dict[str, Any], problem: str
) -> None:
    """The server is started, and its tools checked, as the task is built: a fault is
    one line naming the config file, raised before the data are read (there are none
    here), and the server is stopped."""
    mode = "slow-start" if "start_timeout" in change else "well"
    path = faulty_config(tmp_path, change, mode=mode)
    searched = {"search": "memory"} if history == "tools" else {}
    with pytest.raises(PersonaMemArgumentError) as error:
        TASKS["personamem_32k"](
            data_dir=str(tmp_path / "no data here"), history=history, memory="mcp",
            memory_config=str(path), **searched,
        )  # fmt: skip
    message = str(error.value)
    assert "\n" not in message
    assert re.fullmatch(
        rf"PersonaMem task parameters history='{history}', answer='choice': "
        rf"memory_config={re.escape(str(path))} \(memory=mcp\): {problem}",
        message,
    ), message
    assert gone(pids(tmp_path / "records"))


@pytest.mark.slow
@pytest.mark.parametrize(("change", "problem"), SERVER_FAULTS)
def test_a_server_at_fault_is_one_line_from_inspect(
    small_split: Path, tmp_path: Path, change: dict[str, Any], problem: str
) -> None:
    """What `inspect eval` prints of each fault: one line, no traceback, a non-zero
    exit, and no run begun."""
    path = faulty_config(tmp_path, change)
    done = subprocess.run(
        [str(Path(sys.executable).parent / "inspect"), "eval", TASK, "--model", "mockllm/model",
         "-T", f"data_dir={small_split}", "-T", "history=memory", "-T", "memory=mcp",
         "-T", f"memory_config={path}", "--log-dir", str(tmp_path / "logs")],
        capture_output=True, text=True, timeout=300, cwd=tmp_path,
        env={**os.environ, "COLUMNS": "1000"},
    )  # fmt: skip
    output = (done.stdout + done.stderr).strip()
    assert done.returncode != 0
    assert len(output.splitlines()) == 1, output
    assert re.search(problem, output) and "Traceback" not in output, output
    assert not (tmp_path / "logs").exists()  # no run began


@pytest.mark.parametrize(
    ("mode", "config", "problem"),
    [
        ("die", {}, r"failed while adding messages 0-\d+: MemoryComponentError: "
         r"MCP server '.* die --record .*' failed in tool 'remember': MCPError: Connection closed"),
        # five seconds: the hung call is the only one near it, however loaded the machine
        ("hang", {"call_timeout": 5}, r"failed while adding messages 0-\d+: MemoryComponentError: "
         r"MCP server '.* hang .*' failed in tool 'remember': no answer within 5 s "
         r"\(call_timeout\)"),
        ("malformed", {}, r"failed while search: MemoryComponentError: MCP server '.*': tool "
         r"'recall' returned text that is not JSON: 'these are not results' \(search.results: "
         r"json\)"),
    ],
)  # fmt: skip
def test_a_faulty_server_stops_the_run_naming_the_server_and_the_question(
    data: Path, tmp_path: Path, mode: str, config: dict[str, Any], problem: str
) -> None:
    """A server that dies mid-run (after 5 calls), hangs (after 5), or answers a search
    with text where JSON was configured: one line, no model call; a server that failed
    to add is stopped."""
    record = tmp_path / "records"
    record.mkdir()
    log = run_mcp_memory(
        data, tmp_path, {**stand_in_config(record, mode, after=5), **config}, limit=1
    )
    assert log.status == "error" and log.error is not None
    message = log.error.message  # the exception's repr: its text is one line
    assert "\n" not in message
    assert re.search(rf"question_id [0-9a-f-]+: memory system mcp {problem}", message), message
    assert all(e.event != "model" for s in log.samples or [] for e in s.events)
    if mode != "malformed":  # a failed search leaves a whole memory, released with the run's
        assert gone(pids(record))  # a failed add: stopped at once


def test_a_question_cancelled_while_adding_stops_its_server_and_the_next_rebuilds(
    data: Path, tmp_path: Path
) -> None:
    """The first server hangs on its fourth call; the question is cancelled (as an
    Inspect time limit cancels it); its memory is dropped and the server stopped; the
    next question gets a new server, fed from the start."""
    store = ContextStore(data / "shared_contexts_32k.jsonl")
    context = next(iter(store._offsets))
    configs = [
        stand_in_config(tmp_path / "hung", "hang", after=3),
        stand_in_config(tmp_path / "ok"),
    ]
    for config in configs:
        Path(config["server"]["args"][3]).mkdir()
    pool = MemoryPool(
        store, lambda c: McpMemory(c, parse_mcp_config(configs.pop(0))), "memory system mcp"
    )

    async def cancel_once_hung(scope: anyio.CancelScope) -> None:
        while not hung(tmp_path / "hung"):  # the server's record, not a time: it may be slow
            await anyio.sleep(0.05)
        scope.cancel()

    async def cancelled_then_answered() -> Any:
        async with anyio.create_task_group() as group:
            with anyio.CancelScope() as scope:
                group.start_soon(cancel_once_hung, scope)
                await pool.retrieve("q1", context, 10, "green tea", 3)
        assert scope.cancelled_caught
        return await pool.retrieve("q2", context, 10, "green tea", 3)

    second = asyncio.run(cancelled_then_answered())
    assert second.rebuilt == DROPPED and second.added == 10
    assert gone(pids(tmp_path / "hung"))
    [[_, *calls]] = records(tmp_path / "ok")
    assert calls[-1]["held"] == list(range(10))


@pytest.fixture
def http_server(tmp_path: Path) -> Iterator[str]:
    """The stand-in served over streamable HTTP on a loopback socket opened here and
    handed to it already listening (`--http-socket`); its URL."""
    with socket.create_server(("127.0.0.1", 0)) as listening:
        port = listening.getsockname()[1]
        process = subprocess.Popen(
            [sys.executable, str(SCRIPT), "well", "--record", str(tmp_path),
             "--http-socket", str(listening.fileno())],
            pass_fds=[listening.fileno()], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
    # only the server holds the socket now: if it dies, a request is refused, not queued
    try:
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()  # it waits for open connections, which its clients may hold
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def test_a_server_reached_over_http_keeps_each_memory_apart(http_server: str) -> None:
    config = stand_in_config(Path("unused"))
    config["server"] = {"url": http_server}
    for section in ("add", "search"):
        config[section]["arguments"]["user"] = "{memory_id}"
    parsed = parse_mcp_config(config)
    first, second = McpMemory("context-1", parsed), McpMemory("context-1", parsed)

    async def use() -> tuple[Any, Any]:
        await first.add(SESSION)
        return await first.search("green tea", 5), await second.search("green tea", 5)

    try:
        found, nothing = asyncio.run(use())
    finally:
        first.close()
        second.close()
    assert [item.position for item in found] == [1, 2, 0] and nothing == []
    assert first.values["memory_id"] != second.values["memory_id"]


RUN = """
import json, sys
from inspect_ai import eval
[log] = eval("inspect_personamem/personamem_32k", model="personamem/oracle",
             model_args={"questions": sys.argv[3]}, task_args=json.loads(sys.argv[1]),
             display="none", log_dir=sys.argv[2], **json.loads(sys.argv[4]))
print(log.status, sum(s.limit is not None for s in log.samples or []))
"""


@pytest.mark.slow
@pytest.mark.parametrize("stop", ["time limit", "ctrl-c"])
def test_no_server_outlives_a_run_cut_short(data: Path, tmp_path: Path, stop: str) -> None:
    """A whole `inspect eval` process whose servers hang on their fourth call, with a
    call timeout no run waits for: cut short by a sample time limit (each question
    cancelled while adding) or by Ctrl-C, it ends, and leaves no server running."""
    record = tmp_path / "records"
    record.mkdir()
    config = stand_in_config(record, "hang", after=3, call_timeout=3600)
    (tmp_path / "mcp.json").write_text(json.dumps(config), encoding="utf-8")
    task_args = {
        "data_dir": str(data), "history": "memory", "memory": "mcp",
        "memory_config": str(tmp_path / "mcp.json"),
    }  # fmt: skip
    # the limit must find the servers started and hung: on a loaded two-core machine a
    # server took more than 2 s to start, and the run then had none to stop
    eval_args = {"time_limit": 20, "limit": 3} if stop == "time limit" else {}
    process = subprocess.Popen(
        [sys.executable, "-c", RUN, json.dumps(task_args), str(tmp_path / "logs"),
         str(data / "questions_32k.csv"), json.dumps(eval_args)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        if stop == "ctrl-c":
            deadline = time.monotonic() + 300  # a guard against a hang, not a wait
            while len(pids(record)) < 2 and time.monotonic() < deadline:
                time.sleep(0.1)
            process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=300)
    finally:
        process.kill()
    if stop == "time limit":  # every question ran out its time limit, none failed
        assert out.split()[-2:] == ["success", "3"], err[-2000:]
    started = pids(record)
    assert len(started) >= 2, err[-2000:]
    assert gone(started), err[-2000:]


EXIT = """
import asyncio, json, sys, time
from pathlib import Path
from inspect_personamem.history.memory.interface import HistoryMessage
from inspect_personamem.history.memory.mcp import McpMemory
from inspect_personamem.history.memory.mcp_config import parse_mcp_config
from support.servers.mcp_memory import hung
memory = McpMemory("context-1", parse_mcp_config(json.loads(sys.argv[1])))

async def until_hung():
    adding = asyncio.ensure_future(memory.add([HistoryMessage(0, "user", "hi")]))
    deadline = time.monotonic() + 120  # a guard against a server never started, not a wait
    while time.monotonic() < deadline and not adding.done():
        if hung(Path(sys.argv[2])):
            return "hung"
        await asyncio.sleep(0.05)
    return "not hung"

print(asyncio.run(until_hung()))  # the add still pending: the run cancels it, as it ends
"""


@pytest.mark.slow
def test_a_process_that_exits_without_closing_stops_its_servers(tmp_path: Path) -> None:
    """A server stuck in a call (it reads no more of its stdin, so it would not see the
    pipe close) and never closed: the process stops it as it exits."""
    config = stand_in_config(tmp_path, "hang", call_timeout=3600)
    root = Path(__file__).resolve().parents[3]
    paths = [str(root / "src"), str(root / "tests"), os.environ.get("PYTHONPATH", "")]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(paths)}
    done = subprocess.run(
        [sys.executable, "-c", EXIT, json.dumps(config), str(tmp_path)],
        capture_output=True, text=True, timeout=300, env=env,
    )  # fmt: skip
    assert done.stdout.strip() == "hung", done.stderr[-2000:]
    [started] = pids(tmp_path)
    assert gone([started])


def test_an_mcp_server_is_the_search_of_history_tools(data: Path, tmp_path: Path) -> None:
    """`history=tools -T search=memory -T memory=mcp`: the model's searches go to the
    stand-in server, which holds the question's history and nothing past it."""

    def turn(messages: list[ChatMessage], tools: list[ToolInfo], choice: ToolChoice) -> Any:
        searched = any(m.role == "tool" for m in messages)
        return "<final_answer>(a)" if searched else [("search_history", {"query": "marker"})]

    record = tmp_path / "record"
    record.mkdir()
    (tmp_path / "mcp.json").write_text(json.dumps(stand_in_config(record)), encoding="utf-8")
    task_args = {
        "data_dir": str(data), "history": "tools", "search": "memory", "memory": "mcp",
        "memory_config": str(tmp_path / "mcp.json"),
    }  # fmt: skip
    log = run_task(TASK, tool_calling_model(turn), tmp_path / "logs", task_args)
    assert log.status == "success", log.error
    assert log.samples
    searches = [c for server in records(record) for c in server[1:] if c["tool"] == "recall"]
    assert len(searches) == len(log.samples)
    for sample in log.samples:
        [call] = sample.metadata["tools"]["calls"]
        assert call["tool"] == "search_history" and not call["error"]
        end = sample.metadata["end_index_in_shared_context"]
        assert all(p < end for p in call.get("positions", ()))
    ends = {sample.metadata["end_index_in_shared_context"] for sample in log.samples}
    assert all(r["held"] == list(range(len(r["held"]))) for r in searches)  # a prefix
    assert {len(r["held"]) for r in searches} <= ends  # a question's history, no more
