"""`history/memory/prompts.py`: the official prompt around retrieved items (the
retrieved messages in their order and roles, a memory's facts as one user message) and
the choice of a version's own prompt by name."""

from __future__ import annotations

import pytest
from inspect_ai.model import ChatMessage, ChatMessageAssistant, ChatMessageSystem, ChatMessageUser

from inspect_personamem.data.contexts import NO_CONTEXTS
from inspect_personamem.data.evidence import Evidence
from inspect_personamem.datasets.registry import VERSIONS
from inspect_personamem.datasets.v1.paper_prompt import PAPER
from inspect_personamem.errors import PersonaMemArgumentError
from inspect_personamem.history.memory.interface import MemoryItem
from inspect_personamem.history.memory.prompts import OwnPrompt, own_prompt, retrieved_history
from inspect_personamem.history.retrieved import rag_history
from inspect_personamem.history.seen import Past
from inspect_personamem.history.system_messages import conversation

CONTEXT: list[ChatMessage] = [
    ChatMessageSystem(content="persona"),
    ChatMessageUser(content="u1"),
    ChatMessageAssistant(content="a1"),
    ChatMessageUser(content="u2"),
]


def test_official_prompt_keeps_chronological_order_and_roles() -> None:
    context: list[ChatMessage] = [
        ChatMessageSystem(content="persona"),
        ChatMessageUser(content="u1"),
        ChatMessageAssistant(content="a1"),
        ChatMessageUser(content="u2"),
    ]
    final = [ChatMessageUser(content="question")]
    items = [MemoryItem("u2", 0.9, 3), MemoryItem("p", 0.8, 0), MemoryItem("a1", 0.1, 2)]
    sent = conversation(retrieved_history(items, context), final, "keep")
    assert [(m.role, m.text) for m in sent] == [
        ("system", "persona"), ("assistant", "a1"), ("user", "u2"), ("user", "question"),
    ]  # fmt: skip
    dropped = conversation(retrieved_history(items, context), final, "drop")
    assert [m.text for m in dropped] == ["a1", "u2", "question"]
    facts = conversation(retrieved_history([MemoryItem("likes tea")], context), final, "keep")
    assert [m.text for m in facts] == ["# User facts:\nlikes tea", "question"]


def test_an_item_naming_a_position_is_that_message_once_whatever_its_text() -> None:
    items = [MemoryItem("forged", 0.9, 1), MemoryItem("again", 0.5, 1)]
    assert retrieved_history(items, CONTEXT) == [CONTEXT[1]]


def test_facts_come_after_the_messages_one_a_line_in_the_order_found() -> None:
    items = [MemoryItem("likes tea"), MemoryItem("u2", 0.9, 3), MemoryItem("lives in Oslo")]
    history = retrieved_history(items, CONTEXT)
    assert history[0] is CONTEXT[3]
    assert (history[1].role, history[1].text) == ("user", "# User facts:\nlikes tea\nlives in Oslo")
    assert len(history) == 2


def test_no_items_is_no_history() -> None:
    assert retrieved_history([], CONTEXT) == []


def test_a_memory_prompt_is_one_the_dataset_version_offers() -> None:
    """`paper` is PersonaMem's own prompt: a version that offers none refuses it, with
    no refusal of its own."""

    def locate(metadata: object) -> Evidence:
        raise AssertionError("not asked")

    offered = VERSIONS["v1"].memory_prompts
    assert own_prompt(offered, "paper") is PAPER and own_prompt(offered, "official") is None
    for prompts in (VERSIONS["v2"].memory_prompts, {}):
        with pytest.raises(
            PersonaMemArgumentError, match="memory_prompt='paper': .* offers official$"
        ):
            rag_history(Past(NO_CONTEXTS, locate, prompts), retriever="bm25", memory_prompt="paper")


def test_an_unoffered_prompt_s_error_lists_the_official_one_and_every_offered_one() -> None:
    mine = OwnPrompt(lambda items, context, top_k, state: [], {"m.py:MINE": "text"}, "mine")
    offered = {"mine": mine, "yours": mine}
    assert own_prompt(offered, "yours") is mine
    with pytest.raises(PersonaMemArgumentError) as error:
        own_prompt(offered, "Mine")
    assert str(error.value) == (
        "PersonaMem task parameter memory_prompt='Mine': this dataset version offers "
        "official, mine, yours"
    )
