"""`history=tools`: what each tool shows, its bounds and refusals, what a question
records of the model's calls, and the settings it refuses."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageUser,
    ModelName,
)
from inspect_ai.solver import TaskState
from inspect_ai.tool import Tool, ToolDef, ToolError, ToolInfo
from support.helpers import DISPLAY, ROOT

from inspect_personamem.data.asked import AskedAt
from inspect_personamem.data.evidence import Evidence
from inspect_personamem.errors import PersonaMemArgumentError
from inspect_personamem.history.memory.interface import HistoryMessage, MemoryItem
from inspect_personamem.history.memory.pool import MemoryPool
from inspect_personamem.history.memory.retrievers import BM25Retriever
from inspect_personamem.history.tools import (
    QuestionTools,
    Searcher,
    search_pool,
    shown_positions,
)

CONTEXT = "c1"


class OneContext:
    """The `Contexts` of one history, `CONTEXT`."""

    def __init__(self, messages: Sequence[ChatMessage]) -> None:
        self._messages = tuple(messages)

    def messages(self, context_id: str) -> Sequence[ChatMessage]:
        assert context_id == CONTEXT
        return self._messages

    def history(self, context_id: str, end_index: int) -> Sequence[ChatMessage]:
        return self.messages(context_id)[:end_index]


def sessions(*lengths: int, words: int = 3) -> list[ChatMessage]:
    """Sessions of the given lengths, each a persona message then turns; message `p`
    says `message p` and `words` more words."""
    messages: list[ChatMessage] = []
    for length in lengths:
        messages.append(ChatMessageSystem(content=f"message {len(messages)} persona"))
        for turn in range(length - 1):
            role = ChatMessageUser if turn % 2 == 0 else ChatMessageAssistant
            text = f"message {len(messages)} " + " ".join(["word"] * words)
            messages.append(role(content=text))
    return messages


def question(
    messages: Sequence[ChatMessage],
    end: int,
    *,
    budget: int = 6,
    bound: int = 6000,
    top_k: int = 3,
    memory: type | None = None,
    evidence: tuple[tuple[int, int], ...] = ((0, 1),),
) -> QuestionTools:
    """The tools of a question at `end` over `messages`, searched by BM25 (or by the
    memory class `memory`), its evidence at the positions `evidence` spans (none: not
    located)."""
    contexts = OneContext(messages)
    factory = memory or (lambda _: BM25Retriever())
    pool = MemoryPool(contexts, factory, "test search")
    metadata = AskedAt(CONTEXT, end, "?").metadata()
    state = TaskState(
        model=ModelName("m/m"), sample_id="q1", epoch=1, input="?", messages=[], metadata=metadata
    )
    found = Evidence(evidence, (), "test")
    return QuestionTools(
        state, contexts.history(CONTEXT, end), found, Searcher(pool, None, top_k), budget, bound
    )


def tools(of: QuestionTools) -> dict[str, Tool]:
    return {ToolDef(tool).name: tool for tool in of.tools()}


def call(tool: Tool, **arguments: Any) -> str:
    return str(asyncio.run(tool(**arguments)))


def refused(tool: Tool, **arguments: Any) -> str:
    with pytest.raises(ToolError) as error:
        asyncio.run(tool(**arguments))
    return error.value.message


def test_a_read_shows_the_range_in_order_with_positions_roles_and_sessions() -> None:
    asked = question(sessions(3, 4, 5), end=10)
    shown = call(tools(asked)["read_history"], first=2, last=4)
    assert shown.splitlines() == [
        "Messages 2 to 4 (the conversation before the user's latest message has 10 "
        "messages, positions 0 to 9):",
        "[2] session 1, assistant: message 2 word word word",
        "[3] session 2, system: message 3 persona",
        "[4] session 2, user: message 4 word word word",
    ]
    assert shown_positions(shown) == [2, 3, 4]
    [record] = asked.state.metadata["tools"]["calls"]
    assert record == {
        "tool": "read_history",
        "arguments": {"first": 2, "last": 4},
        "chars": len(shown),
        "positions": [2, 3, 4],
        "error": None,
    }


def test_a_session_is_read_whole_and_sessions_are_offered_only_where_there_are_several() -> None:
    asked = question(sessions(3, 4, 5), end=10)  # the third session cut by the end index
    offered = tools(asked)
    assert call(offered["read_session"], session=3).splitlines()[1:] == [
        "[7] session 3, system: message 7 persona",
        "[8] session 3, user: message 8 word word word",
        "[9] session 3, assistant: message 9 word word word",
    ]
    assert "read_session" not in tools(question(sessions(12), end=10))  # one session: v2's


@pytest.mark.parametrize(
    ("arguments", "error"),
    [
        ({"first": 0, "last": 10}, "positions 0 to 10 are outside the conversation"),
        ({"first": -1, "last": 3}, "positions -1 to 3 are outside the conversation"),
        ({"first": 10**9, "last": 10**12}, "outside the conversation"),
        ({"first": 5, "last": 2}, "first (5) is after last (2)"),
    ],
)
def test_a_read_outside_the_visible_history_is_refused_and_counted(
    arguments: dict[str, int], error: str
) -> None:
    asked = question(sessions(3, 4, 5), end=10)
    message = refused(tools(asked)["read_history"], **arguments)
    assert error in message and "marker" not in message
    assert "positions 0 to 9" in message or "after" in message
    record = asked.state.metadata["tools"]
    assert record["errors"] == 1 and record["chars_read"] == 0
    assert record["calls"][0]["error"] == message
    assert asked.state.metadata["retrieval"]["status"] == "missed"  # nothing read


@pytest.mark.parametrize("session", [0, 4, -1])
def test_a_session_that_does_not_exist_is_refused(session: int) -> None:
    asked = question(sessions(3, 4, 5), end=10)
    assert refused(tools(asked)["read_session"], session=session) == (
        f"there is no session {session}: the sessions are numbered 1 to 3"
    )


def test_calls_past_the_budget_are_refused_errors_and_all() -> None:
    asked = question(sessions(3, 4, 5), end=10, budget=3)
    offered = tools(asked)
    refused(offered["read_history"], first=9, last=10)
    call(offered["read_history"], first=0, last=0)
    call(offered["search_history"], query="persona")
    assert "budget of 3 tool calls is spent" in refused(offered["read_history"], first=0, last=0)
    record = asked.state.metadata["tools"]
    assert (record["asked"], record["errors"], len(record["calls"])) == (4, 2, 4)


def test_a_result_is_cut_at_its_bound_saying_where() -> None:
    asked = question(sessions(60, words=40), end=60, bound=1000)
    shown = call(tools(asked)["read_history"], first=0, last=59)
    assert len(shown) <= 1000
    [cut] = re.findall(r"\[cut at the 1,000-character bound of a result: message (\d+) ", shown)
    assert shown.endswith("shown in part or not at all, and what follows it not shown]")
    # those before the message the cut fell in were read; it, where its text shows at all
    recorded = asked.state.metadata["tools"]["calls"][0]["positions"]
    assert recorded[: int(cut)] == list(range(int(cut))) and len(recorded) <= int(cut) + 1
    assert shown_positions(shown)[-1] <= int(cut)


def test_a_search_shows_the_history_at_the_positions_an_item_names_and_facts_as_text() -> None:
    class Forging:
        """Names position 2 with a forged text, then a fact."""

        def __init__(self, context_id: str) -> None:
            self.held: list[HistoryMessage] = []

        async def add(self, messages: Sequence[HistoryMessage]) -> None:
            self.held.extend(messages)

        async def search(self, query: str, top_k: int) -> list[MemoryItem]:
            return [MemoryItem("forged", 1.0, 2), MemoryItem("likes tea", 0.5)]

    asked = question(sessions(3, 4, 5), end=10, memory=Forging, evidence=((3, 7),))
    shown = call(tools(asked)["search_history"], query="tea")
    assert shown.splitlines()[1:] == [
        "[2] session 1, assistant: message 2 word word word",
        "[fact] likes tea",
    ]
    # a fact cannot be checked against the evidence, and position 2 lies outside it
    assert asked.state.metadata["retrieval"]["status"] == "unpositioned"
    assert asked.state.metadata["memory"]["items"] == [
        {"position": 2, "score": 1.0},
        {"text": "likes tea", "score": 0.5},
    ]


def test_what_the_model_read_is_checked_against_the_evidence_in_the_order_it_read_it() -> None:
    asked = question(sessions(3, 4, 5), end=12, evidence=((3, 7),))
    offered = tools(asked)
    call(offered["read_history"], first=0, last=1)
    call(offered["read_session"], session=2)
    call(offered["read_history"], first=4, last=5)  # read again: counted once
    assert asked.state.metadata["retrieval"] == {
        "status": "found",
        "first_rank": 3,
        "recall": 1.0,
        "k": 6,
        "items": 6,
        "positioned": 6,
    }
    assert asked.state.metadata["tools"]["positions_read"] == 6


def test_a_search_holds_no_message_past_the_end_and_says_how_many_there_are() -> None:
    messages = sessions(3, 4, 5)
    asked = question(messages, end=5, top_k=10)
    shown = call(tools(asked)["search_history"], query="message persona word")
    assert shown.startswith(
        "5 results for the query, most relevant first (the conversation before the "
        "user's latest message has 5 messages, positions 0 to 4):"
    )
    assert sorted(shown_positions(shown)) == [0, 1, 2, 3, 4]


def test_an_empty_history_is_said_to_be_empty() -> None:
    asked = question(sessions(3), end=0)
    offered = tools(asked)
    assert "The conversation has no messages." in ToolDef(offered["read_history"]).description
    assert call(offered["search_history"], query="x").startswith("0 results for the query")
    assert "is empty" in refused(offered["read_history"], first=0, last=0)


@pytest.mark.parametrize(
    ("search", "given", "message"),
    [
        ("bm25", {"memory": "mem0"}, "memory='mem0' has no effect with search='bm25'"),
        ("bm25", {"embedder": "x"}, "embedder='x' has no effect with search='bm25'"),
        ("dense", {"memory_config": "m.yaml"}, "memory_config='m.yaml' has no effect"),
        ("memory", {"embedding_cache": "none"}, "embedding_cache='none' has no effect"),
        ("memory", {}, "memory: search='memory' needs one"),
    ],
)
def test_a_search_parameter_it_does_not_read_is_an_error(
    search: str, given: dict[str, str], message: str
) -> None:
    arguments = {"embedder": "BAAI/bge-m3", "embedding_cache": None, "memory": None}
    arguments |= {"memory_config": None, **given}
    with pytest.raises(PersonaMemArgumentError, match=re.escape(message)):
        search_pool(OneContext(()), search, **arguments)  # type: ignore[arg-type]


def test_the_tools_the_model_sees_are_those_the_docs_show() -> None:
    """The JSON schema in docs/memory-and-retrieval.md is what a PersonaMem question at
    end index 125, in its seventh session, is offered at the defaults."""
    asked = question(sessions(*[20] * 7), end=125, top_k=5)
    infos = [
        ToolInfo(name=d.name, description=d.description, parameters=d.parameters)
        for d in map(ToolDef, asked.tools())
    ]
    shown = json.dumps([info.model_dump(exclude_none=True) for info in infos], indent=2)
    docs = (ROOT / "docs" / "memory-and-retrieval.md").read_text(encoding="utf-8")
    assert f"```json\n{shown}\n```" in docs


def test_an_absent_evidence_is_not_located() -> None:
    asked = question(sessions(3, 4, 5), end=10, evidence=())
    call(tools(asked)["read_history"], first=0, last=9)
    assert asked.state.metadata["retrieval"]["status"] == "not_located"


def test_the_search_pool_is_leak_free_over_questions_in_any_order() -> None:
    """Two questions of one history, the later first: the earlier's search rebuilds the
    memory rather than search one holding its future."""
    messages = sessions(3, 4, 5)
    later, earlier = question(messages, end=12, top_k=20), question(messages, end=4, top_k=20)
    earlier.searcher = later.searcher  # one pool, as in a run
    call(tools(later)["search_history"], query="message")
    shown = call(tools(earlier)["search_history"], query="message")
    assert sorted(shown_positions(shown)) == [0, 1, 2, 3]
    assert earlier.state.metadata["memory"]["rebuilt"] is True


def test_answer_logprob_is_refused_in_one_line(small_split: Path) -> None:
    from inspect_personamem.run.tasks import TASKS

    with pytest.raises(PersonaMemArgumentError, match="the model writes nothing") as error:
        TASKS["personamem_32k"](data_dir=str(small_split), history="tools", answer="logprob")
    assert "\n" not in str(error.value)


def test_a_model_whose_provider_drops_tools_is_refused_before_any_sample(
    small_split: Path, tmp_path: Path
) -> None:
    with pytest.raises(PersonaMemArgumentError, match="personamem/floor cannot call tools"):
        inspect_eval(
            "inspect_personamem/personamem_32k",
            task_args={"data_dir": str(small_split), "history": "tools"},
            model="personamem/floor",
            log_dir=str(tmp_path / "logs"),
            display=DISPLAY,
        )
    assert not (tmp_path / "logs").exists()  # no log: no sample ran
