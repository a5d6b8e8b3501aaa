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
- if adding fails, the memory is dropped, so no later question reads a memory
  that is missing messages as if it were complete.

Then it searches, still under the lock.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

import anyio
from inspect_ai.model import ChatMessage

from ..contexts import ContextStore
from .interface import (
    HistoryMessage,
    MemoryComponentError,
    MemoryFactory,
    MemoryItem,
    MemorySystem,
    checked_items,
    usage_of,
)


@dataclass(frozen=True)
class Retrieval:
    """What one question's retrieval did and found."""

    items: list[MemoryItem]
    visible: int
    """Messages of the context before the question: `len(context[:end_index])`."""
    added: int
    """Messages added to the memory for this question."""
    rebuilt: bool
    """The memory held messages past this question's end and was built anew."""
    ingest_seconds: float
    search_seconds: float
    memory_usage: dict[str, int]
    """What this question's ingestion and search added to the memory system's own
    counts (`usage()`: LLM calls, tokens), where it reports them."""


@dataclass
class _Slot:
    lock: anyio.Lock = field(default_factory=anyio.Lock)
    memory: MemorySystem | None = None
    held: int = 0


def session_parts(messages: Sequence[HistoryMessage]) -> Iterator[list[HistoryMessage]]:
    """Consecutive runs of messages, a new run at each `system` (persona) message."""
    part: list[HistoryMessage] = []
    for message in messages:
        if message.role == "system" and part:
            yield part
            part = []
        part.append(message)
    if part:
        yield part


class MemoryPool:
    """The memories of one run, one per shared context."""

    def __init__(self, store: ContextStore, factory: MemoryFactory, component: str) -> None:
        self.store = store
        self.factory = factory
        self.component = component
        self._slots: dict[str, _Slot] = {}
        self.added_messages = 0
        self.rebuilds = 0
        self.usage: Counter[str] = Counter()
        """The memory systems' own counts over the run so far (dropped memories too)."""

    async def retrieve(
        self, question_id: str, context_id: str, end_index: int, query: str, top_k: int
    ) -> Retrieval:
        """The items for a question, from a memory holding exactly its visible history."""
        slot = self._slots.setdefault(context_id, _Slot())
        async with slot.lock:
            messages = self.store.messages(context_id)
            visible = len(range(len(messages))[:end_index])  # as `context[:end_index]`
            rebuilt = slot.memory is not None and slot.held > visible
            if slot.memory is None or rebuilt:
                slot.memory, slot.held = None, 0
                slot.memory = self._create(question_id, context_id)
                self.rebuilds += rebuilt
            before = usage_of(slot.memory)
            started = time.perf_counter()
            added = await self._add(slot, messages, visible, question_id, before)
            ingested = time.perf_counter()
            try:
                found = await slot.memory.search(query, top_k)
            except Exception as ex:
                raise self._error(question_id, "search", ex) from ex
            used = self._count_usage(slot.memory, before)
            try:
                items = checked_items(found, self.component, top_k)
            except MemoryComponentError as ex:
                raise MemoryComponentError(f"question_id {question_id}: {ex}") from None
            return Retrieval(
                items=items,
                visible=visible,
                added=added,
                rebuilt=rebuilt,
                ingest_seconds=ingested - started,
                search_seconds=time.perf_counter() - ingested,
                memory_usage=used,
            )

    def _create(self, question_id: str, context_id: str) -> MemorySystem:
        try:
            return self.factory(context_id)
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
    ) -> int:
        assert slot.memory is not None
        start = slot.held
        new = [
            HistoryMessage(position, message.role, message.text)
            for position, message in enumerate(messages[start:visible], start=start)
        ]
        for part in session_parts(new):
            try:
                await slot.memory.add(part)
            except Exception as ex:
                self._count_usage(slot.memory, before)  # what the failed memory used counts
                slot.memory, slot.held = None, 0  # never read a memory missing messages
                step = f"adding messages {part[0].position}-{part[-1].position}"
                raise self._error(question_id, step, ex) from ex
            slot.held = part[-1].position + 1
        self.added_messages += len(new)
        return len(new)

    def _error(self, question_id: str, step: str, ex: Exception) -> MemoryComponentError:
        return MemoryComponentError(
            f"question_id {question_id}: {self.component} failed while {step}: "
            f"{type(ex).__name__}: {ex}"
        )
