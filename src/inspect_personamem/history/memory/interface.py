"""The interface a memory system implements to be measured on PersonaMem.

A memory system is created once per shared context (`MemoryFactory`), given that
context's messages in order, session by session (a session begins at a `system`
persona message; a session may arrive in parts when a question's end index falls
inside it), and asked for the `top_k` items relevant to a question. It never sees a
message the user had not sent by the time of the question: the pool (`pool.py`)
adds only `context[:end_index]` and rebuilds a memory rather than let it run ahead.

    class MyMemory:
        def __init__(self, context_id: str, config: dict[str, Any]) -> None: ...
        async def add(self, messages: Sequence[HistoryMessage]) -> None: ...
        async def search(self, query: str, top_k: int) -> Sequence[MemoryItem | str]: ...

Run it with `-T method=memory -T memory=my_package.memory:MyMemory`
(`-T memory_config=FILE` gives the `config` dict, read from YAML or JSON). A memory
that reports its own cost adds a `usage()` method returning counts (LLM calls, tokens);
one that holds resources (files, clients) adds a `close()` method, called when the
pool drops the memory (a rebuild, a failed or cancelled add) and when the run's
memories are released (at the latest when the process exits).

What the pool guarantees, and checks, at this boundary:
- An item that names a history `position` must name an integer in
  `[0, len(context[:end_index]))`, a message the question may see; anything else is an
  error naming the question and the component. The prompt shows the message at that
  position (its text in the item is not sent), so an item can never widen the history.
- An item without a position (a derived fact) is sent as its text, which may hold at
  most `MAX_ITEM_CHARACTERS` characters; a longer one is an error, not truncated.
- `add` and `search` run on Inspect's event loop, shared by every question in flight:
  blocking work inside them (a synchronous client, `time.sleep`, heavy computation)
  stalls every other question. Run it in a worker thread
  (`await anyio.to_thread.run_sync(...)`, as the Mem0 adapter does). The pool measures
  the longest stretch each call held the loop without yielding, logs it per question
  (`loop_blocked_seconds`) and warns, naming the component, past
  `LOOP_BLOCK_WARNING_SECONDS`.
- A question cancelled (an Inspect limit, Ctrl-C) while its messages are being added
  leaves no partial memory: the memory is dropped and rebuilt for the next question.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

MAX_ITEM_CHARACTERS = 32_768
"""The longest text an item without a history position may carry (about 8k tokens)."""

LOOP_BLOCK_WARNING_SECONDS = 1.0
"""A memory call holding the event loop this long without yielding is warned about."""


class MemoryComponentError(RuntimeError):
    """A retriever, embedder or memory system failed or answered something unusable."""


@dataclass(frozen=True)
class HistoryMessage:
    """One message of a shared context, with its position in the context."""

    position: int
    role: str
    content: str


@dataclass(frozen=True)
class MemoryItem:
    """One retrieved item: its text, and where known its score and history position."""

    text: str
    score: float | None = None
    position: int | None = None
    """Index in the shared context of the message this item is (retrievers over
    messages); None for derived items such as a memory system's facts."""


@runtime_checkable
class MemorySystem(Protocol):
    """A memory of one shared context."""

    async def add(self, messages: Sequence[HistoryMessage]) -> None:
        """Take the next messages of the context (one session, or part of one)."""
        ...

    async def search(self, query: str, top_k: int) -> Sequence[MemoryItem | str]:
        """The `top_k` items most relevant to `query`, most relevant first."""
        ...


MemoryFactory = Callable[[str], MemorySystem]
"""Shared context id -> a new, empty memory for it."""


def usage_of(memory: MemorySystem) -> dict[str, int]:
    """The counts a memory system reports about itself (`usage()`), else none."""
    report = getattr(memory, "usage", None)
    if not callable(report):
        return {}
    counts = report()
    if not isinstance(counts, dict):
        return {}
    return {str(k): int(v) for k, v in counts.items() if isinstance(v, int | float)}


def checked_items(items: Any, component: str, top_k: int, visible: int) -> list[MemoryItem]:
    """The items a memory returned, as MemoryItems; raise naming the component if they are
    malformed, too many, too long, or name a position outside `[0, visible)`."""
    if isinstance(items, str | bytes) or not isinstance(items, Sequence):
        raise MemoryComponentError(
            f"{component}: search returned {type(items).__name__}, not a list of items"
        )
    checked: list[MemoryItem] = []
    for index, item in enumerate(items):
        if isinstance(item, str):
            item = MemoryItem(text=item)
        elif not (isinstance(item, MemoryItem) and isinstance(item.text, str)):
            raise MemoryComponentError(
                f"{component}: search result {index} is {type(item).__name__}, "
                "not a str or MemoryItem"
            )
        problem = _item_problem(item, visible)
        if problem:
            raise MemoryComponentError(f"{component}: search result {index} {problem}")
        checked.append(item)
    if len(checked) > top_k:
        raise MemoryComponentError(
            f"{component}: search returned {len(checked)} items, more than top_k={top_k}"
        )
    return checked


def _item_problem(item: MemoryItem, visible: int) -> str:
    """What is wrong with one item, or empty."""
    position = item.position
    if position is None:
        if len(item.text) > MAX_ITEM_CHARACTERS:
            return (
                f"has {len(item.text):,} characters, more than the {MAX_ITEM_CHARACTERS:,} "
                "an item may carry"
            )
        return ""
    if not isinstance(position, int) or isinstance(position, bool):
        return f"names position {position!r}, not an integer"
    if not 0 <= position < visible:
        return (
            f"names history position {position}, outside the {visible} messages before "
            f"the question (positions 0 to {visible - 1})"
        )
    return ""
