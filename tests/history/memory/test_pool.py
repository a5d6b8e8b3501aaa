"""What a memory plug-in can and cannot do to a run: the pool's guarantees at its boundary
(`memory/interface.py`): positions inside the visible history, bounded items,
cancellation that leaves no partial memory, blocking calls measured and named, and
memories closed when dropped or released."""

from __future__ import annotations

import asyncio
import gc
import json
import logging
import math
import re
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from inspect_ai.log import EvalLog
from support.helpers import mock_model, run_task
from support.memories import ClosingMemory, HangOnceMemory, SpyMemory, split_with_markers

from inspect_personamem.datasets.v1.contexts import ContextStore
from inspect_personamem.history.memory import pool as pool_module
from inspect_personamem.history.memory.interface import LOOP_BLOCK_WARNING_SECONDS, MemorySystem
from inspect_personamem.history.memory.pool import DROPPED, RAN_AHEAD, MemoryPool

TASK = "inspect_personamem/personamem_32k"


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return split_with_markers(tmp_path_factory.mktemp("markers"))


def run_memory(
    data: Path, log_dir: Path, memory: str, config: dict[str, Any] | None = None,
    order: str | None = None, **eval_args: Any,
) -> EvalLog:  # fmt: skip
    task_args: dict[str, Any] = {
        "data_dir": str(data), "history": "memory", "memory": memory, "order": order,
    }  # fmt: skip
    if config is not None:
        path = log_dir / "memory.json"
        log_dir.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(config), encoding="utf-8")
        task_args["memory_config"] = str(path)
    model = mock_model(lambda messages: "<final_answer>(a)")
    return run_task(TASK, model, log_dir, task_args, **eval_args)


def no_model_call(log: EvalLog) -> bool:
    return all(event.event != "model" for sample in log.samples or [] for event in sample.events)


@pytest.mark.parametrize(
    ("position", "problem"),
    [
        (-1, "names history position -1, outside the"),
        ("end", "names history position \\d+, outside the \\d+ messages before the question"),
        (10**6, "names history position 1000000, outside the"),
        ("3", "names position '3', not an integer"),
        (True, "names position True, not an integer"),
    ],
)
@pytest.mark.slow  # an end-to-end run
def test_an_item_outside_the_visible_history_stops_the_run_naming_it(
    data: Path, tmp_path: Path, position: object, problem: str
) -> None:
    memory = "support.memories:WrongPositionMemory"
    log = run_memory(data, tmp_path, memory, {"position": position}, limit=3)
    assert log.status == "error" and log.error is not None
    first_line = log.error.message.splitlines()[0]
    assert re.search(
        rf"question_id [0-9a-f-]+: memory system {memory}: search result 0 {problem}", first_line
    ), first_line
    assert no_model_call(log)


@pytest.mark.slow  # an end-to-end run
def test_an_item_too_long_stops_the_run_naming_it(data: Path, tmp_path: Path) -> None:
    log = run_memory(data, tmp_path, "support.memories:HugeItemMemory", limit=3)
    assert log.status == "error" and log.error is not None
    assert "search result 0 has 10,000,000 characters, more than the 32,768" in log.error.message
    assert no_model_call(log)


@pytest.mark.slow  # one question runs out a ten-second time limit
def test_a_question_cancelled_while_adding_leaves_no_partial_memory(
    data: Path, tmp_path: Path
) -> None:
    """The run's first memory hangs in its first add until the time limit cancels the
    question: the next question of that context gets a new memory, fed once from the
    start, and says it was rebuilt and why; the other contexts' memories are untouched.
    A question here takes about 10 ms, so only the hung one comes near the limit, however
    loaded the machine (a one-second limit once cut a second question under CI's load)."""
    SpyMemory.instances.clear()
    HangOnceMemory.hung.clear()
    log = run_memory(
        data,
        tmp_path,
        "support.memories:HangOnceMemory",
        order="grouped",
        time_limit=10,
        max_samples=1,  # one question at a time: the others do not wait on the hung one
    )
    assert log.status == "success", log.error
    assert log.samples
    [hung_context] = HangOnceMemory.hung
    [cancelled] = [s for s in log.samples if s.limit is not None]
    assert cancelled.limit is not None and cancelled.limit.type == "time"
    assert cancelled.metadata["shared_context_id"] == hung_context
    assert cancelled.scores is not None
    value = cancelled.scores["personamem_scorer"].value
    assert isinstance(value, float) and math.isnan(value)
    answered = [s for s in log.samples if s.limit is None]
    rebuilt = {
        s.metadata["shared_context_id"]: s.metadata["memory"]["rebuilt_because"]
        for s in answered
        if s.metadata["memory"]["rebuilt_because"] is not None
    }
    assert rebuilt == {hung_context: DROPPED}
    assert max(s.metadata["memory"]["run_rebuilds"] for s in answered) == 1
    by_context: dict[str, list[SpyMemory]] = {}
    for spy in SpyMemory.instances:
        by_context.setdefault(spy.context_id, []).append(spy)
    assert len(by_context) > 1  # other contexts ran beside the hung one
    for context, memories in by_context.items():
        if context == hung_context:
            first, *memories = memories
            assert first.positions  # it took messages before it hung: a partial memory
        assert len(memories) == 1  # dropped and rebuilt once, or never dropped
        assert memories[0].positions == list(range(len(memories[0].positions)))


def retrieve(pool: MemoryPool, question: str, context: str, end: int) -> Any:
    return asyncio.run(pool.retrieve(question, context, end, "q", 1))


def test_a_memory_that_blocks_the_event_loop_is_measured_and_named(
    data: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Time spent while yielding is not blocking, however long; a call that holds the
    loop is measured, and past the threshold named once a run, with its question. The
    pool reads a fake clock that the memories move, so every number is exact."""
    from support.memories import BlockingMemory, FakeClock, YieldingMemory

    clock = FakeClock()
    monkeypatch.setattr(pool_module, "time", SimpleNamespace(perf_counter=clock.perf_counter))
    threshold = LOOP_BLOCK_WARNING_SECONDS  # the real one: no wait makes it costly
    store = ContextStore(data / "shared_contexts_32k.jsonl")
    context = next(iter(store._offsets))

    def pool(memory: type[SpyMemory], seconds: float, name: str) -> MemoryPool:
        return MemoryPool(store, lambda c: memory(c, {"clock": clock, "seconds": seconds}), name)

    polite = pool(YieldingMemory, 5 * threshold, "polite memory")
    brief = pool(BlockingMemory, threshold / 2, "brief memory")
    rude = pool(BlockingMemory, threshold + 0.5, "rude memory")
    with caplog.at_level(logging.WARNING, logger=pool_module.__name__):
        waited = retrieve(polite, "q1", context, 10)
        short = retrieve(brief, "q2", context, 10)
        assert not caplog.records
        blocked = retrieve(rude, "q3", context, 10)
        again = retrieve(rude, "q4", context, 12)
    exactly = pytest.approx  # a float's rounding in the clock's sums, nothing more
    assert (waited.search_seconds, waited.loop_blocked_seconds) == (exactly(5 * threshold), 0.0)
    assert (short.search_seconds, short.loop_blocked_seconds) == exactly((threshold / 2,) * 2)
    assert (blocked.search_seconds, blocked.loop_blocked_seconds) == exactly((threshold + 0.5,) * 2)
    assert again.loop_blocked_seconds == exactly(threshold + 0.5)  # measured every time...
    [warning] = caplog.records  # ...but warned once a run
    assert warning.getMessage().startswith(
        f"rude memory held Inspect's event loop for {threshold + 0.5:.1f} s without yielding "
        "(question_id q3; warned once a run)"
    )


def test_memories_are_closed_when_dropped_and_when_the_pool_is_released(data: Path) -> None:
    ClosingMemory.closed.clear()
    store = ContextStore(data / "shared_contexts_32k.jsonl")
    first, second = list(store._offsets)[:2]

    def factory(context_id: str) -> MemorySystem:
        return ClosingMemory(context_id, {})

    pool = MemoryPool(store, factory, "closing memory")
    assert retrieve(pool, "q1", first, 20).rebuilt is None
    assert retrieve(pool, "q2", first, 10).rebuilt == RAN_AHEAD  # ran ahead: dropped
    assert ClosingMemory.closed == [first]
    retrieve(pool, "q3", second, 10)
    del pool
    gc.collect()
    assert sorted(ClosingMemory.closed) == sorted([first, first, second])
