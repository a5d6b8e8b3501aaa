"""The rag, memory and tools methods: leak-free, incremental, their prompts, caches and
failures."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from inspect_ai.log import EvalLog, resolve_sample_attachments
from inspect_ai.model import ChatMessage
from inspect_ai.tool import ToolChoice, ToolInfo
from support.helpers import mock_model, run_task, tool_calling_model
from support.memories import (
    MARKER,
    SpyMemory,
    context_numbers,
    split_with_markers,
    tiny_sentence_transformer,
)
from support.servers.mcp_memory import records, stand_in_config
from support.servers.openai_api import serve_openai

from inspect_personamem.data.order import ORDERS
from inspect_personamem.datasets.v1.contexts import ContextStore
from inspect_personamem.errors import PersonaMemArgumentError
from inspect_personamem.history.memory.interface import (
    HistoryMessage,
    MemoryComponentError,
)
from inspect_personamem.history.memory.pool import MemoryPool
from inspect_personamem.history.memory.retrievers import embedded_text

TASK = "inspect_personamem/personamem_32k"


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return split_with_markers(tmp_path_factory.mktemp("markers"))


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory: pytest.TempPathFactory) -> str:
    return str(tiny_sentence_transformer(tmp_path_factory.mktemp("st")))


def run(data: Path, log_dir: Path, limit: int | None = None, **task_args: Any) -> EvalLog:
    tools = task_args.get("history") == "tools"
    return run_task(
        TASK,
        tool_calling_model(prober) if tools else mock_model(lambda messages: "<final_answer>(a)"),
        log_dir,
        {"data_dir": str(data), **task_args},
        limit=limit,
    )


def prober(
    messages: list[ChatMessage], tools: list[ToolInfo], tool_choice: ToolChoice
) -> str | list[tuple[str, Any]]:
    """A model that asks the history tools for everything at once: the whole history,
    three ranges that end past it, every session and the one after the last, and a
    search; then answers."""
    if any(message.role == "tool" for message in messages):
        return "<final_answer>(a)"
    described = {tool.name: tool.description for tool in tools}
    end = visible(tools)
    calls: list[tuple[str, Any]] = [
        ("read_history", {"first": first, "last": last})
        for first, last in ((0, end - 1), (end - 1, end), (end, end), (0, end + 5))
    ]
    if "read_session" in described:
        sessions = int(re.findall(r"numbered 1 to (\d+)", described["read_session"])[0])
        calls += [("read_session", {"session": s}) for s in range(1, sessions + 2)]
    return [*calls, ("search_history", {"query": "marker"})]


def visible(tools: list[ToolInfo]) -> int:
    """The messages before the question, as the read tool's description says."""
    [read] = [tool for tool in tools if tool.name == "read_history"]
    counted = re.findall(r"The conversation has (\d+) messages", read.description)
    return int(counted[0]) if counted else 0


def sent_markers(log: EvalLog) -> dict[str, set[tuple[int, int]]]:
    """Per sample, every marker in what the model was sent."""
    found: dict[str, set[tuple[int, int]]] = {}
    assert log.samples
    for sample in map(resolve_sample_attachments, log.samples):
        texts = [
            message.text
            for event in sample.events
            if event.event == "model"
            for message in event.input
        ]
        found[str(sample.id)] = {(int(c), int(p)) for c, p in MARKER.findall("\n".join(texts))}
    return found


METHODS: dict[str, dict[str, Any]] = {
    "generate": {},
    "evidence": {"history": "evidence"},
    "rag-bm25": {"history": "rag", "retriever": "bm25", "top_k": 4},
    "rag-dense": {"history": "rag", "top_k": 4, "embedding_cache": "none"},
    "memory": {"history": "memory", "memory": "support.memories:SpyMemory"},
    "memory-mcp": {"history": "memory", "memory": "mcp"},  # the stand-in MCP server
    "tools": {"history": "tools", "tool_budget": 20, "tool_result_chars": 100_000},
}
NEEDS_MEMORY_EXTRA = {"rag-dense", "memory-mcp"}


def mcp_records(log: EvalLog) -> list[list[dict[str, Any]]]:
    """What the stand-in MCP servers of a `memory-mcp` run recorded (`logged` has them
    record beside the run's log)."""
    return records(Path(log.location).parent / "mcp-records")


Logged = Callable[[str, str | None], tuple[EvalLog, list[SpyMemory]]]


@pytest.fixture(scope="module")
def logged(data: Path, tmp_path_factory: pytest.TempPathFactory) -> Logged:
    """The run of a method (`METHODS`) in an order (None: the default), made once for the
    tests that read it, with the `SpyMemory` instances it made."""
    runs: dict[tuple[str, str | None], tuple[EvalLog, list[SpyMemory]]] = {}

    def logged(method: str, order: str | None) -> tuple[EvalLog, list[SpyMemory]]:
        if (method, order) not in runs:
            SpyMemory.instances.clear()
            arguments = {**METHODS[method], **({"order": order} if order else {})}
            log_dir = tmp_path_factory.mktemp("logs")
            if method == "memory-mcp":
                (log_dir / "mcp-records").mkdir()
                config = stand_in_config(log_dir / "mcp-records")
                (log_dir / "mcp.json").write_text(json.dumps(config), encoding="utf-8")
                arguments["memory_config"] = str(log_dir / "mcp.json")
            log = run(data, log_dir, **arguments)
            runs[method, order] = log, list(SpyMemory.instances)
        return runs[method, order]

    return logged


@pytest.mark.parametrize(
    "order",  # the default (interleaved) first, then the one that rebuilds memories
    [pytest.param(None, id="default"), pytest.param("random", marks=pytest.mark.slow)]
    + [
        pytest.param(o, marks=pytest.mark.slow)
        for o in ORDERS
        if o not in ("interleaved", "random")
    ],
)
@pytest.mark.parametrize(
    "method",
    [  # the fast suite runs the whole history in the default order; the rest end to end
        pytest.param(method, marks=pytest.mark.memory)
        if method in NEEDS_MEMORY_EXTRA
        else method
        if method == "generate"
        else pytest.param(method, marks=pytest.mark.slow)
        for method in sorted(METHODS)
    ],  # fmt: skip
)
def test_nothing_past_the_end_index_reaches_the_model(
    data: Path, tmp_path: Path, method: str, order: str | None, request: pytest.FixtureRequest,
    logged: Logged,
) -> None:  # fmt: skip
    if method == "rag-dense":  # a local model: the memory extra
        arguments: dict[str, Any] = {
            **METHODS[method], "embedder": request.getfixturevalue("tiny_model"),
            **({"order": order} if order else {}),
        }  # fmt: skip
        log = run(data, tmp_path, **arguments)
    else:
        log, _ = logged(method, order)
    assert log.status == "success", log.error
    numbers = context_numbers(data)
    sent = sent_markers(log)
    servers = [server[1:] for server in mcp_records(log)] if method == "memory-mcp" else []
    checked = [server for server in servers if not server]  # sent no call: its tools listed
    assert len(checked) == (method == "memory-mcp")  # once, as the task was built
    servers = [server for server in servers if server]
    calls = [call for server in servers for call in server]
    for server in servers:  # fed one context, in order from its start, each message as itself
        added = [c["arguments"] for c in server if c["tool"] == "remember"]
        tagged = [MARKER.findall(a["messages"][0]["content"]) for a in added]
        assert [[int(p)] for [(_, p)] in tagged] == [[a["position"]] for a in added]
        assert len({c for [(c, _)] in tagged}) == 1
        assert all(c["held"] == list(range(len(c["held"]))) for c in server)
    seen_any = False
    assert log.samples
    for sample in log.samples:
        context = numbers[sample.metadata["shared_context_id"]]
        end = sample.metadata["end_index_in_shared_context"]
        markers = sent[str(sample.id)]
        seen_any |= bool(markers)
        assert all(c == context and p < end for c, p in markers), (sample.id, end, markers)
        if method == "memory":  # the memory held nothing past the end when searched
            [item] = sample.metadata["memory"]["items"]
            assert int(item["text"].split()[1]) == end - 1
        elif method == "memory-mcp":  # the server held exactly the history when searched
            question = sample.metadata["user_question_or_message"]
            held = [r["held"] for r in calls if r["tool"] == "recall"
                    and r["arguments"]["query"] == question]  # fmt: skip
            assert list(range(end)) in held, (sample.id, end)
            positions = [item["position"] for item in sample.metadata["memory"]["items"]]
            assert all(p < end for p in positions)
        elif method.startswith("rag"):
            positions = [item["position"] for item in sample.metadata["memory"]["items"]]
            assert positions and all(p < end for p in positions)
            assert len(positions) == min(4, end)
        elif method == "evidence":  # exactly the located session, or nothing
            spans = sample.metadata["evidence"]["spans"]
            assert markers == {(context, p) for start, stop in spans for p in range(start, stop)}
        elif method == "tools":  # every message it may see, each call past the end refused
            assert markers == {(context, p) for p in range(end)}
            made = sample.metadata["tools"]["calls"]
            refused = [c for c in made if c["error"]]
            assert all(p < end for c in made for p in c.get("positions", ()))
            assert len(refused) == 3 + any(c["tool"] == "read_session" for c in made)
            assert all("outside the conversation" in c["error"] for c in refused[:3])
    assert seen_any or method == "memory"
    assert calls or method != "memory-mcp"


@pytest.mark.slow  # an end-to-end run
def test_ascending_order_adds_each_message_once(logged: Logged) -> None:
    log, spies = logged("memory", None)  # the default order: by end index in each context
    assert log.samples
    longest: dict[str, int] = {}
    for sample in log.samples:
        context = sample.metadata["shared_context_id"]
        longest[context] = max(
            longest.get(context, 0), sample.metadata["end_index_in_shared_context"]
        )
        assert sample.metadata["memory"]["rebuilt"] is False
    assert len(spies) == len(longest)  # one memory per context
    for spy in spies:
        assert spy.positions == list(range(longest[spy.context_id]))
    assert sum(s.metadata["memory"]["added_messages"] for s in log.samples) == sum(longest.values())


@pytest.mark.slow  # an end-to-end run
def test_a_lower_end_index_rebuilds_the_memory(logged: Logged) -> None:
    log, spies = logged("memory", "random")
    assert log.samples
    rebuilt = [s for s in log.samples if s.metadata["memory"]["rebuilt"]]
    assert rebuilt and len(spies) > 3
    for spy in spies:  # every memory was fed in order from the start
        assert spy.positions == list(range(len(spy.positions)))


@pytest.mark.memory
def test_embeddings_computed_once_and_cached_on_disk(
    data: Path, tiny_model: str, tmp_path: Path
) -> None:
    cache = tmp_path / "cache"
    args: dict[str, Any] = {"history": "rag", "embedder": tiny_model, "embedding_cache": str(cache)}
    first = run(data, tmp_path / "a", **args)
    assert first.samples
    counts = max(
        (s.metadata["memory"]["embedding_counts"] for s in first.samples),
        key=lambda c: c["requested"],
    )
    store = ContextStore(data / "shared_contexts_32k.jsonl")
    longest: dict[str, int] = {}
    for s in first.samples:
        c = s.metadata["shared_context_id"]
        longest[c] = max(longest.get(c, 0), s.metadata["end_index_in_shared_context"])
    texts = {
        embedded_text(HistoryMessage(p, m.role, m.text))
        for c, end in longest.items()
        for p, m in enumerate(store.messages(c)[:end])
    } | {s.metadata["user_question_or_message"] for s in first.samples}
    per_question = sum(s.metadata["end_index_in_shared_context"] + 1 for s in first.samples)
    assert counts["embedded"] == len(texts) < per_question
    second = run(data, tmp_path / "b", **args)
    assert second.samples
    again = max(s.metadata["memory"]["embedding_counts"]["embedded"] for s in second.samples)
    assert again == 0
    assert [s.metadata["memory"]["items"] for s in second.samples] == [
        s.metadata["memory"]["items"] for s in first.samples
    ]


@pytest.mark.parametrize(
    ("memory", "expected"),
    [
        ("support.memories:FailingMemory", "failed while adding messages .*store is down"),
        ("support.memories:MalformedMemory", "search result 0 is dict, not a str or MemoryItem"),
    ],
)
@pytest.mark.slow  # an end-to-end run
def test_a_failing_memory_names_the_question_and_the_component(
    data: Path, tmp_path: Path, memory: str, expected: str
) -> None:
    log = run(data, tmp_path, limit=3, history="memory", memory=memory)  # a few fail as all
    assert log.status == "error" and log.error is not None
    assert re.search(f"question_id [0-9a-f-]+: .*{expected}", log.error.message), log.error.message
    assert f"memory system {memory}" in log.error.message or "MalformedMemory" in memory


def test_a_failed_add_never_leaves_a_partial_memory(data: Path) -> None:
    from support.memories import FailingMemory

    store = ContextStore(data / "shared_contexts_32k.jsonl")
    context_id = next(iter(context_numbers(data)))
    first = store.messages(context_id)
    sessions = [i for i, m in enumerate(first) if m.role == "system"]
    assert len(sessions) >= 2
    calls: list[str] = []

    def factory(cid: str) -> SpyMemory:
        calls.append(cid)
        return FailingMemory(cid, {}) if len(calls) == 1 else SpyMemory(cid, {})

    pool = MemoryPool(store, factory, "test memory")
    with pytest.raises(MemoryComponentError, match="question_id q1: test memory failed"):
        asyncio.run(pool.retrieve("q1", context_id, len(first), "q", 3))
    found = asyncio.run(pool.retrieve("q2", context_id, len(first), "q", 3))
    assert len(calls) == 2 and found.added == len(first)
    assert found.items[0].text == f"held {len(first) - 1}"


@pytest.mark.slow  # an end-to-end run
def test_a_failing_embedding_endpoint_names_the_question(
    data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with serve_openai(fail_embeddings=True) as (url, _):
        monkeypatch.setenv("STANDIN_BASE_URL", url)
        log = run(
            data, tmp_path, limit=3, history="rag", embedder="openai-api/standin/e5",
            embedding_cache="none",
        )  # fmt: skip
    assert log.status == "error" and log.error is not None
    assert re.search(
        r"question_id \S+: dense retriever \(openai-api/standin/e5\) failed", log.error.message
    )
    assert "HTTP 503" in log.error.message


@pytest.mark.slow  # an end-to-end run
def test_dense_retrieval_through_an_openai_compatible_endpoint(
    data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with serve_openai() as (url, requests):
        monkeypatch.setenv("STANDIN_BASE_URL", url)
        log = run(
            data, tmp_path, history="rag", embedder="openai-api/standin/e5", embedding_cache="none"
        )
    assert log.status == "success", log.error
    embedded = [text for r in requests for text in r["input"]]
    assert len(embedded) == len(set(embedded))  # no text sent twice
    assert all(r["model"] == "e5" for r in requests)


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"history": "rag", "retriever": "tfidf"}, "retriever='tfidf': choose one of dense, bm25"),
        ({"history": "rag", "top_k": 0}, "top_k=0: must be at least 1"),
        (
            {"history": "rag", "retriever": "bm25", "embedder": "x"},
            "no effect with retriever='bm25'",
        ),
        ({"history": "memory"}, "history='memory' needs one"),
        ({"history": "memory", "memory": "nowhere.at_all:Memory"}, "cannot import it"),
        ({"history": "memory", "memory": "mem1"}, "expected 'mem0', 'mcp' or 'package.module:"),
        ({"history": "memory", "memory": "mcp"}, "memory=mcp needs -T memory_config=FILE naming"),
        ({"top_k": 3}, "top_k have no effect with history='full'"),
    ],
)
def test_bad_memory_arguments_fail_before_any_sample(
    data: Path, arguments: dict[str, Any], message: str
) -> None:
    from inspect_personamem.run.tasks import TASKS

    with pytest.raises(ValueError, match=re.escape(message)):
        TASKS["personamem_32k"](data_dir=str(data), **arguments)


def test_a_dense_embedder_that_cannot_be_had_fails_at_once_naming_what_to_pass(
    data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Not a folder, not in the (empty) cache, and the hub offline: an error before any
    sample, where loading would retry the hub for minutes."""
    import huggingface_hub.constants

    from inspect_personamem.run.tasks import TASKS

    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", True)
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_CACHE", str(tmp_path))
    with pytest.raises(PersonaMemArgumentError, match="HF_HUB_OFFLINE is set") as error:
        TASKS["personamem_32k"](data_dir=str(data), history="rag")
    assert "-T retriever=bm25 (no model)" in str(error.value)
