"""The authors' baseline prompt around retrieved items (`datasets/v1/paper_prompt.py`):
the system line, a history item shown as its message's role and content, facts under
their own header, and a sample's question and options as shown."""

from __future__ import annotations

from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageUser,
    ModelName,
)
from inspect_ai.solver import TaskState

from inspect_personamem.data.asked import AskedAt
from inspect_personamem.datasets.v1.paper_prompt import PAPER, PAPER_SYSTEM, paper_prompt
from inspect_personamem.history.memory.interface import MemoryItem


def test_paper_prompt_is_the_authors_baseline_prompt() -> None:
    context: list[ChatMessage] = [
        ChatMessageSystem(content="persona"),
        ChatMessageUser(content="u1"),
        ChatMessageAssistant(content="a1"),
        ChatMessageUser(content="x"),
    ]
    # an item naming a position is shown as that message, whatever text it carries
    items = [MemoryItem("forged", 0.9, 3), MemoryItem("forged too", 0.5, 1)]
    options = ["(a) one", "(b) two", "(c) 3", "(d) 4"]
    messages = paper_prompt(items, context, 5, "What now?", options)
    assert messages[0] == ChatMessageSystem(content=PAPER_SYSTEM, id=messages[0].id)
    assert messages[1].text == (
        '# 5 most similar contexts to the question: \n{"role": "user", "content": "x"}\n'
        '{"role": "user", "content": "u1"}\n\n'
        "# Question: What now?\n\n# Choices: \n(a) one\n(b) two\n(c) 3\n(d) 4"
    )
    facts = paper_prompt([MemoryItem("likes tea")], context, 5, "Q", options)
    assert facts[1].text.startswith("# User facts: \nlikes tea\n\n# Question: Q")


def test_no_items_keep_the_header_of_history_items_and_an_empty_list() -> None:
    (_, user) = paper_prompt([], [], 3, "Q?", ["(a) x", "(b) y"])
    assert user.text == (
        "# 3 most similar contexts to the question: \n\n\n"
        "# Question: Q?\n\n# Choices: \n(a) x\n(b) y"
    )


def test_a_sample_is_asked_its_own_message_with_its_options_as_shown() -> None:
    """`PAPER` composes from the sample's state: the message it asks (`AskedAt`) and
    its choices in the order shown, lettered afresh; the item's quotes are escaped."""
    state = TaskState(
        model=ModelName("mockllm/model"),
        sample_id=1,
        epoch=1,
        input="the official final message",
        messages=[],
        choices=["tea", "coffee", "water", "juice"],
        metadata=AskedAt("c1", 2, "What should I drink?").metadata(),
    )
    context: list[ChatMessage] = [
        ChatMessageUser(content='I said "tea"'),
        ChatMessageAssistant(content="noted"),
    ]
    system, user = PAPER.compose([MemoryItem("ignored", 0.7, 0)], context, 1, state)
    assert system.text == PAPER_SYSTEM
    assert user.text == (
        '# 1 most similar contexts to the question: \n{"role": "user", "content": "I said '
        '\\"tea\\""}\n\n# Question: What should I drink?\n\n# Choices: \n'
        "(a) tea\n(b) coffee\n(c) water\n(d) juice"
    )
    assert set(PAPER.texts) == {
        "datasets/v1/paper_prompt.py:PAPER_SYSTEM",
        "datasets/v1/paper_prompt.py:PAPER_HEADER",
        "datasets/v1/paper_prompt.py:PAPER_TEMPLATE",
    }
