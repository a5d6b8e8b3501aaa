"""One memory per shared context, fed incrementally and never past a question's end.

For a question with end index `e`, the memory of its context must hold exactly
`context[:e]`. The pool keeps, per context, the memory and how many messages it
holds. A question first takes its context's lock (questions of one context never
overlap; contexts run in parallel), then:

- if the memory holds no more than `e` messages, only `context[held:e]` is added,
  split at the sessions' `system` messages, so over a run in ascending end index
  each message is added once;
- if it holds more (another order, a retry), the memory is dropped and a new one
  is built from `context[:e]`: rebuilt, never leaky;
- if adding fails or is cancelled (an Inspect limit, Ctrl-C), the memory is dropped,
  so no later question reads a memory that is missing messages, or holds some twice,
  as if it were complete; the next question rebuilds it (counted as a rebuild).

Then it searches, still under the lock, and checks the items at the boundary
(`interface.checked_items`). Every call into the memory is timed for how long it held
the event loop without yielding (`interface.py` says why).
"""

from __future__ import annotations

import logging
import time
import weakref
from collections import Counter
from collections.abc import Awaitable, Generator, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar, cast

import anyio
from inspect_ai.model import ChatMessage

from inspect_personamem.data.contexts import Contexts, session_starts
from inspect_personamem.history.memory.interface import (
    LOOP_BLOCK_WARNING_SECONDS,
    HistoryMessage,
    MemoryComponentError,
    MemoryFactory,
    MemoryItem,
    MemorySystem,
    checked_items,
    usage_of,
)

logger = logging.getLogger(__name__)
T = TypeVar("T")

RAN_AHEAD = "the memory held messages past this question's end index"
DROPPED = "the previous memory was dropped after a failed or cancelled add"


@dataclass(frozen=True)
class Retrieval:
    """What one question's retrieval did and found."""

    items: list[MemoryItem]
    visible: int
    """Messages of the context before the question: `len(context[:end_index])`."""
    added: int
    """Messages added to the memory for this question."""
    rebuilt: str | None
    """Why the memory was built anew for this question (`RAN_AHEAD`, `DROPPED`), or None."""
    ingest_seconds: float
    ingest_calls: tuple[float, ...]
    """The wall time of each `add` call for this question (a session, or part of one)."""
    search_seconds: float
    loop_blocked_seconds: float
    """The longest stretch any call into the memory held the event loop without yielding."""
    memory_usage: dict[str, int]
    """What this question's ingestion and search added to the memory system's own
    counts (`usage()`: LLM calls, tokens), where it reports them."""


@dataclass
class _Slot:
    lock: anyio.Lock = field(default_factory=anyio.Lock)
    memory: MemorySystem | None = None
    held: int = 0
    dropped: bool = False
    """The last memory was dropped after a failed or cancelled add."""


def session_parts(messages: Sequence[HistoryMessage]) -> Iterator[list[HistoryMessage]]:
    """Consecutive runs of messages, a new run at each `system` (persona) message: the
    sessions as `data.contexts.session_starts` opens them (the first run is whatever
    the messages open with)."""
    if not messages:
        return
    starts = session_starts([message.role for message in messages])
    for start, end in zip(starts, [*starts[1:], len(messages)], strict=True):
        yield list(messages[start:end])


class LoopTimer:
    """The longest stretch the awaitables it ran held the event loop without yielding."""

    def __init__(self) -> None:
        self.longest = 0.0

    async def run(self, awaitable: Awaitable[T]) -> T:
        return await _Timed(awaitable, self)

    def note(self, seconds: float) -> None:
        self.longest = max(self.longest, seconds)


class _Timed(Generic[T]):
    """An awaitable that passes every step of another through, timing each one: a step
    is code that runs without yielding, so its length is time the loop was held."""

    def __init__(self, awaitable: Awaitable[T], timer: LoopTimer) -> None:
        self.awaitable = awaitable
        self.timer = timer

    def __await__(self) -> Generator[Any, Any, T]:
        steps = self.awaitable.__await__()
        sent: Any = None
        error: BaseException | None = None
        while True:
            started = time.perf_counter()
            try:
                yielded = steps.send(sent) if error is None else steps.throw(error)
            except StopIteration as stop:
                return cast(T, stop.value)
            finally:
                self.timer.note(time.perf_counter() - started)
            try:
                sent, error = (yield yielded), None
            except BaseException as ex:  # a cancellation, passed on to the inner steps
                sent, error = None, ex


class MemoryPool:
    """The memories of one run, one per shared context."""

    def __init__(self, store: Contexts, factory: MemoryFactory, component: str) -> None:
        self.store = store
        self.factory = factory
        self.component = component
        self._slots: dict[str, _Slot] = {}
        self.added_messages = 0
        self.rebuilds = 0
        self.usage: Counter[str] = Counter()
        """The memory systems' own counts over the run so far (dropped memories too)."""
        self._warned = False
        # the memories still held are closed when the pool is released or at exit
        weakref.finalize(self, _close_all, self._slots, component)

    async def retrieve(
        self, question_id: str, context_id: str, end_index: int, query: str, top_k: int
    ) -> Retrieval:
        """The items for a question, from a memory holding exactly its visible history."""
        slot = self._slots.setdefault(context_id, _Slot())
        timer = LoopTimer()
        async with slot.lock:
            messages = self.store.messages(context_id)
            visible = len(range(len(messages))[:end_index])  # as `context[:end_index]`
            rebuilt = _rebuild_reason(slot, visible)
            if rebuilt is not None:
                _drop(slot, self.component)
                self.rebuilds += 1
            if slot.memory is None:
                slot.memory = await self._create(question_id, context_id)
            before = usage_of(slot.memory)
            started = time.perf_counter()
            calls: list[float] = []
            added = await self._add(slot, messages, visible, question_id, before, timer, calls)
            ingested = time.perf_counter()
            try:
                found = await timer.run(slot.memory.search(query, top_k))
            except Exception as ex:
                raise self._error(question_id, "search", ex) from ex
            finally:
                self._warn_if_blocking(question_id, timer)
            used = self._count_usage(slot.memory, before)
            try:
                items = checked_items(found, self.component, top_k, visible)
            except MemoryComponentError as ex:
                raise MemoryComponentError(f"question_id {question_id}: {ex}") from None
            return Retrieval(
                items=items,
                visible=visible,
                added=added,
                rebuilt=rebuilt,
                ingest_seconds=ingested - started,
                ingest_calls=tuple(calls),
                search_seconds=time.perf_counter() - ingested,
                loop_blocked_seconds=timer.longest,
                memory_usage=used,
            )

    async def _create(self, question_id: str, context_id: str) -> MemorySystem:
        """A new memory, made in a worker thread (a factory may block: Mem0 loads its
        stores and models)."""
        try:
            return await anyio.to_thread.run_sync(self.factory, context_id)
        except Exception as ex:
            raise self._error(question_id, "creating the memory", ex) from ex

    def _count_usage(self, memory: MemorySystem, before: dict[str, int]) -> dict[str, int]:
        """What `memory` counted since `before`, added to the run's totals."""
        used = {k: v - before.get(k, 0) for k, v in usage_of(memory).items()}
        self.usage.update(used)
        return used

    async def _add(
        self,
        slot: _Slot,
        messages: Sequence[ChatMessage],
        visible: int,
        question_id: str,
        before: dict[str, int],
        timer: LoopTimer,
        calls: list[float],
    ) -> int:
        """Add the messages the memory lacks, a session (or part) a call, each call's
        wall time appended to `calls`."""
        assert slot.memory is not None
        start = slot.held
        new = [
            HistoryMessage(position, message.role, message.text)
            for position, message in enumerate(messages[start:visible], start=start)
        ]
        for part in session_parts(new):
            started = time.perf_counter()
            try:
                await timer.run(slot.memory.add(part))
                calls.append(time.perf_counter() - started)
            except BaseException as ex:  # cancellation too: the part may be half added
                self._count_usage(slot.memory, before)  # what the failed memory used counts
                _drop(slot, self.component, failed=True)  # never read a partial memory
                self._warn_if_blocking(question_id, timer)
                if isinstance(ex, Exception):
                    step = f"adding messages {part[0].position}-{part[-1].position}"
                    raise self._error(question_id, step, ex) from ex
                raise
            slot.held = part[-1].position + 1
        self.added_messages += len(new)
        return len(new)

    def _warn_if_blocking(self, question_id: str, timer: LoopTimer) -> None:
        if timer.longest < LOOP_BLOCK_WARNING_SECONDS or self._warned:
            return
        self._warned = True
        logger.warning(
            f"{self.component} held Inspect's event loop for {timer.longest:.1f} s without "
            f"yielding (question_id {question_id}; warned once a run): every question in "
            "flight waited. Run blocking work in a thread (anyio.to_thread.run_sync); "
            "each question's loop_blocked_seconds is in its memory evidence."
        )

    def _error(self, question_id: str, step: str, ex: Exception) -> MemoryComponentError:
        return MemoryComponentError(
            f"question_id {question_id}: {self.component} failed while {step}: "
            f"{type(ex).__name__}: {ex}"
        )


def _rebuild_reason(slot: _Slot, visible: int) -> str | None:
    """Why this question needs a new memory for its context, or None."""
    if slot.memory is not None and slot.held > visible:
        return RAN_AHEAD
    if slot.memory is None and slot.dropped:
        return DROPPED
    return None


def _drop(slot: _Slot, component: str, failed: bool = False) -> None:
    """Let go of a slot's memory, closing it."""
    memory, slot.memory, slot.held, slot.dropped = slot.memory, None, 0, failed
    if memory is not None:
        _close(memory, component)


def _close(memory: MemorySystem, component: str) -> None:
    """Call a memory's `close()`, where it has one; a failure is logged, not raised (it
    must not hide the error that made the pool drop the memory)."""
    close = getattr(memory, "close", None)
    if not callable(close):
        return
    try:
        close()
    except Exception as ex:
        logger.warning(f"{component}: close() failed ({type(ex).__name__}: {ex})")


def _close_all(slots: Mapping[str, _Slot], component: str) -> None:
    for slot in slots.values():
        _drop(slot, component)
