"""`history=tools`: the model searches and reads its own history through tools.

The model is sent no history before the question. It is offered tools over exactly the
history it may see, `context[:end_index]` (`data.contexts.sample_messages`, the messages
the memory pool's positions count; for PersonaMem-v2 the persona's history, never a label
column; for PersonaMem-v3 one message per event, whatever its `history_layout`), calls
them up to `tool_budget` times and then answers (`answer/tool_loop.py`); the answer is
scored as every other run's.

- `search_history(query)`: the `top_k` messages most relevant to the query, from a
  `MemoryPool` built as `history=rag` builds its (`search=bm25`, the default, or
  `dense`) or as `history=memory` does (`search=memory`): leak-free by construction,
  and in the default order each history's messages are added once. An item that
  names a history position is shown as the message there (never as the text it
  carries); one that names none (a memory system's fact), as its text.
- `read_history(first, last)`: the messages at positions `first` to `last`.
- `read_session(session)`: one session, where the history has several (PersonaMem's
  open at its `system` persona messages: `data.contexts.session_starts`); not offered
  where it has one (PersonaMem-v2).

A result holds at most `tool_result_chars` characters; a cut says which message it
fell in. A position outside the visible history, a reversed range, a session that
does not exist, or a call past the budget gets an error back (`ToolError`, which the
model reads), never a message past the end.

What the model read goes to the sample's metadata as it happens: `tools` (each call:
its tool, arguments, characters returned, the positions shown, its error; and the
counts), `retrieval` (the items it was shown, in the order it first saw them, checked
against the evidence by `recall.py`), `memory` (its searches, kept as `rag` keeps its
one) and `evidence`.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from inspect_ai.model import ChatMessage
from inspect_ai.solver import TaskState
from inspect_ai.tool import Tool, ToolDef, ToolError

from inspect_personamem.data.asked import AskedAt
from inspect_personamem.data.contexts import Contexts, sample_messages, session_starts
from inspect_personamem.data.evidence import Evidence
from inspect_personamem.errors import PersonaMemArgumentError
from inspect_personamem.history.memory.embeddings import CachedEmbedder
from inspect_personamem.history.memory.interface import MemoryItem
from inspect_personamem.history.memory.pool import MemoryPool, Retrieval
from inspect_personamem.history.recall import recall_of
from inspect_personamem.history.retrieved import (
    DEFAULT_EMBEDDER,
    memory_pool,
    memory_record,
    retriever_pool,
)
from inspect_personamem.history.seen import Past, See, Seen, ToolUse
from inspect_personamem.types import ToolSearch

SEARCH: Final = "search_history"
READ: Final = "read_history"
READ_SESSION: Final = "read_session"

_SHOWN = re.compile(r"^\[(\d+)\]", re.MULTILINE)


def tools_history(
    past: Past,
    search: ToolSearch = "bm25",
    embedder: str = DEFAULT_EMBEDDER,
    embedding_cache: str | None = None,
    memory: str | None = None,
    memory_config: str | None = None,
    top_k: int = 5,
    tool_budget: int = 6,
    tool_result_chars: int = 6000,
) -> See:
    """Tools over the question's visible history, the model searching and reading it.

    Args:
        past: The run's histories and its evidence rule.
        search: What `search_history` searches with: "bm25" (no model), "dense"
            (`embedder`) or "memory" (the memory system `memory` names).
        embedder: search="dense": as `history=rag`'s.
        embedding_cache: search="dense": as `history=rag`'s.
        memory: search="memory": as `history=memory`'s.
        memory_config: search="memory": as `history=memory`'s.
        top_k: Items a search returns.
        tool_budget: Tool calls the model may make before it must answer.
        tool_result_chars: The most characters a tool's result holds.
    """
    pool, embeddings = search_pool(
        past.contexts, search, embedder, embedding_cache, memory, memory_config
    )

    async def see(state: TaskState) -> Seen:
        question = QuestionTools(
            state,
            sample_messages(past.contexts, state.metadata),
            past.evidence(state),
            Searcher(pool, embeddings, top_k),
            tool_budget,
            tool_result_chars,
        )
        question.write()
        return Seen((), tools=ToolUse(question.tools(), tool_budget, question.turn))

    return see


def search_pool(
    contexts: Contexts,
    search: ToolSearch,
    embedder: str,
    embedding_cache: str | None,
    memory: str | None,
    memory_config: str | None,
) -> tuple[MemoryPool, CachedEmbedder | None]:
    """The pool `search_history` searches, built as `rag` and `memory` build theirs; a
    one-line error for a parameter the chosen search does not read."""
    reads = {
        "bm25": (),
        "dense": ("embedder", "embedding_cache"),
        "memory": ("memory", "memory_config"),
    }
    given = {
        "embedder": (embedder, DEFAULT_EMBEDDER),
        "embedding_cache": (embedding_cache, None),
        "memory": (memory, None),
        "memory_config": (memory_config, None),
    }
    for name, (value, default) in given.items():
        if value != default and name not in reads[search]:
            raise PersonaMemArgumentError(
                f"PersonaMem task parameter {name}={value!r} has no effect with "
                f"search={search!r}: leave it out"
            )
    if search == "memory":
        return memory_pool(contexts, memory, memory_config, "search='memory'"), None
    return retriever_pool(contexts, search, embedder, embedding_cache)


@dataclass(frozen=True)
class Searcher:
    """What `search_history` searches: the run's pool, its embedder, items a search."""

    pool: MemoryPool
    embeddings: CachedEmbedder | None
    top_k: int


@dataclass(frozen=True)
class Shown:
    """A tool's result: its text, and the items it showed (a message by its position,
    a memory system's fact by its text)."""

    text: str
    items: tuple[MemoryItem, ...]


@dataclass
class QuestionTools:
    """One question's tools, and what its model did with them."""

    state: TaskState
    history: Sequence[ChatMessage]
    """`context[:end_index]`: every message a tool may show."""
    evidence: Evidence
    searcher: Searcher
    budget: int
    bound: int
    """The most characters a result holds."""
    calls: list[dict[str, Any]] = field(default_factory=list)
    read: dict[Any, MemoryItem] = field(default_factory=dict)
    """What the model was shown, by position (or a fact's text), in the order first seen."""
    searches: list[Retrieval] = field(default_factory=list)
    asked: int = 0
    """Tool calls the model made (those Inspect refused as malformed too)."""
    finished: bool = False

    def __post_init__(self) -> None:
        self.starts = session_starts([message.role for message in self.history])

    def tools(self) -> list[Tool]:
        """The tools offered: search and read, and sessions where there are several."""
        visible = len(self.history)
        where = (
            f"The conversation has {visible} messages, at positions 0 to {visible - 1}."
            if visible
            else "The conversation has no messages."
        )

        async def search_history(query: str) -> str:
            return await self._call(SEARCH, {"query": query}, lambda: self._search(query))

        async def read_history(first: int, last: int) -> str:
            arguments = {"first": first, "last": last}
            return await self._call(READ, arguments, lambda: self._read(first, last))

        async def read_session(session: int) -> str:
            arguments = {"session": session}
            return await self._call(READ_SESSION, arguments, lambda: self._session(session))

        tools = [
            ToolDef(
                search_history,
                name=SEARCH,
                description=(
                    "Search your earlier conversation with this user (every message "
                    "before their latest one) for the messages most relevant to a query. "
                    f"Returns at most {self.searcher.top_k}, most relevant first, each "
                    f"with its position. {where} You may make {self.budget} calls to the "
                    "conversation's tools in all."
                ),
                parameters={"query": "What to look for, in words."},
                max_output=0,
            ),
            ToolDef(
                read_history,
                name=READ,
                description=(
                    "Read the messages of your earlier conversation with this user at "
                    f"positions first to last, in order. {where}"
                ),
                parameters={
                    "first": "The position of the first message to read.",
                    "last": "The position of the last message to read (inclusive).",
                },
                max_output=0,
            ),
        ]
        if len(self.starts) > 1:
            tools.append(
                ToolDef(
                    read_session,
                    name=READ_SESSION,
                    description=(
                        "Read one session of your earlier conversation with this user, "
                        "in order (each session opens with a system message). Sessions "
                        f"are numbered 1 to {len(self.starts)}."
                    ),
                    parameters={"session": "The number of the session to read."},
                    max_output=0,
                )
            )
        return [tool.as_tool() for tool in tools]

    def turn(self, asked: int, finished: bool) -> None:
        """The model's calls so far, and whether its turns have ended, its last output
        the reply scored (`ToolUse.record`)."""
        self.asked, self.finished = asked, finished
        self.write()

    async def _call(
        self, tool: str, arguments: dict[str, Any], run: Callable[[], Awaitable[Shown]]
    ) -> str:
        """Run one call within the budget, record it, and return its text; an error goes
        back to the model as a `ToolError`."""
        try:
            if len(self.calls) >= self.budget:
                raise ToolError(
                    f"the budget of {self.budget} tool calls is spent: answer without "
                    "calling a tool"
                )
            shown = await run()
        except ToolError as error:
            self.calls.append({"tool": tool, "arguments": arguments, "error": error.message})
            self.write()
            raise
        for item in shown.items:
            self.read.setdefault(item.position if item.position is not None else item.text, item)
        self.calls.append(
            {
                "tool": tool,
                "arguments": arguments,
                "chars": len(shown.text),
                "positions": [i.position for i in shown.items if i.position is not None],
                "error": None,
            }
        )
        self.write()
        return shown.text

    async def _search(self, query: str) -> Shown:
        searcher = self.searcher
        asked = AskedAt.of(self.state.metadata)
        retrieval = await searcher.pool.retrieve(
            str(self.state.sample_id), asked.history, asked.end_index, query, searcher.top_k
        )
        self.searches.append(retrieval)
        header = (
            f"{len(retrieval.items)} results for the query, most relevant first ({self._extent()}):"
        )
        return self._bounded(header, retrieval.items)

    async def _read(self, first: int, last: int) -> Shown:
        visible = len(self.history)
        if first > last:
            raise ToolError(f"first ({first}) is after last ({last})")
        if first < 0 or last >= visible:
            raise ToolError(
                f"positions {first} to {last} are outside the conversation: {self._extent()}"
            )
        items = [self._message(position) for position in range(first, last + 1)]
        return self._bounded(f"Messages {first} to {last} ({self._extent()}):", items)

    async def _session(self, session: int) -> Shown:
        if not 1 <= session <= len(self.starts):
            raise ToolError(
                f"there is no session {session}: the sessions are numbered 1 to {len(self.starts)}"
            )
        start = self.starts[session - 1]
        end = self.starts[session] if session < len(self.starts) else len(self.history)
        items = [self._message(position) for position in range(start, end)]
        header = f"Session {session} of {len(self.starts)}, messages {start} to {end - 1}:"
        return self._bounded(header, items)

    def _extent(self) -> str:
        visible = len(self.history)
        if not visible:
            return "the conversation before the user's latest message is empty"
        return (
            f"the conversation before the user's latest message has {visible} messages, "
            f"positions 0 to {visible - 1}"
        )

    def _message(self, position: int) -> MemoryItem:
        return MemoryItem(self.history[position].text, position=position)

    def _entry(self, item: MemoryItem) -> tuple[str, str]:
        """An item as a result shows it, as its label and its text: a message at its
        position (the history's own, whatever text the item carries), a fact as its
        text."""
        if item.position is None:
            return "[fact] ", item.text
        message = self.history[item.position]
        session = ""
        if len(self.starts) > 1:
            session = f" session {sum(s <= item.position for s in self.starts)},"
        return f"[{item.position}]{session} {message.role}: ", message.text

    def _bounded(self, header: str, items: Sequence[MemoryItem]) -> Shown:
        """The result: the header, then an entry per item, at most `bound` characters.
        Where they do not fit, the entry that does not is cut and the rest left out,
        and a note says where; an item counts as shown where some of its text is."""
        entries = [self._entry(item) for item in items]
        text = header + "".join(f"\n{label}{body}" for label, body in entries)
        if len(text) <= self.bound:
            return Shown(text, tuple(items))
        room = self.bound - len(self._cut_note(len(self.history)))  # the longest note
        text = header
        for number, (label, body) in enumerate(entries):
            entry = f"\n{label}{body}"
            if len(text) + len(entry) > room:
                left = max(room - len(text), 0)
                shown = number + (left > len(label) + 1)
                note = self._cut_note(items[number].position)
                return Shown(text + entry[:left] + note, tuple(items[:shown]))
            text += entry
        raise AssertionError("a result longer than its bound fitted")  # pragma: no cover

    def _cut_note(self, position: int | None) -> str:
        """What a cut result ends with: where it was cut (a message, or a fact)."""
        what = "a fact" if position is None else f"message {position}"
        return (
            f"\n[cut at the {self.bound:,}-character bound of a result: {what} shown in "
            "part or not at all, and what follows it not shown]"
        )

    def write(self) -> None:
        """Keep what the model did in the sample's metadata (`tools`, `retrieval` and,
        once it searched, `memory`), so that a run cut short keeps it too."""
        errors = sum(call["error"] is not None for call in self.calls)
        self.state.metadata["tools"] = {
            "budget": self.budget,
            "result_chars": self.bound,
            "asked": max(self.asked, len(self.calls)),
            "errors": errors + max(0, self.asked - len(self.calls)),
            "chars_read": sum(call.get("chars", 0) for call in self.calls),
            "positions_read": sum(item.position is not None for item in self.read.values()),
            "finished": self.finished,
            "calls": self.calls,
        }
        items = list(self.read.values())
        positioned = sum(item.position is not None for item in items)
        self.state.metadata["retrieval"] = recall_of(items, self.evidence, positioned).record()
        if self.searches:
            self.state.metadata["memory"] = memory_record(
                combined(self.searches), self.searcher.embeddings, self.searcher.pool
            )


def combined(searches: Sequence[Retrieval]) -> Retrieval:
    """A question's searches as one retrieval: their items in order, what was added
    and the times summed, the longest loop block, why the memory was first rebuilt."""
    usage: Counter[str] = Counter()
    for search in searches:
        usage.update(search.memory_usage)
    return Retrieval(
        items=[item for search in searches for item in search.items],
        visible=searches[0].visible,
        added=sum(search.added for search in searches),
        rebuilt=next((s.rebuilt for s in searches if s.rebuilt is not None), None),
        ingest_seconds=sum(search.ingest_seconds for search in searches),
        ingest_calls=tuple(call for search in searches for call in search.ingest_calls),
        search_seconds=sum(search.search_seconds for search in searches),
        loop_blocked_seconds=max(search.loop_blocked_seconds for search in searches),
        memory_usage=dict(usage),
    )


def shown_positions(result: str) -> list[int]:
    """The history positions a result of these tools shows, in its order (for a model
    that reads what it found: the offline oracle)."""
    return [int(position) for position in _SHOWN.findall(result)]
