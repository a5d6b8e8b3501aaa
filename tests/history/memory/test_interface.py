"""What a memory system returns, checked at the boundary: items, their count, their
length and the history positions they name (`memory/interface.py`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from inspect_personamem.history.memory.interface import (
    MAX_ITEM_CHARACTERS,
    HistoryMessage,
    MemoryComponentError,
    MemoryItem,
    MemorySystem,
    checked_items,
    usage_of,
)


class Counting:
    """A memory system that reports its own usage."""

    def __init__(self, counts: Any) -> None:
        self.counts = counts

    async def add(self, messages: Sequence[HistoryMessage]) -> None:
        pass

    async def search(self, query: str, top_k: int) -> Sequence[MemoryItem | str]:
        return []

    def usage(self) -> Any:
        return self.counts


def test_strings_become_items_and_items_in_reach_pass_unchanged() -> None:
    items = ["a fact", MemoryItem("message", 0.5, 3), MemoryItem("x" * MAX_ITEM_CHARACTERS)]
    assert checked_items(items, "my memory", top_k=3, visible=4) == [
        MemoryItem("a fact"),
        MemoryItem("message", 0.5, 3),
        MemoryItem("x" * MAX_ITEM_CHARACTERS),
    ]


@pytest.mark.parametrize(
    ("items", "problem"),
    [
        ("one string", "search returned str, not a list of items"),
        ({"a": 1}, "search returned dict, not a list of items"),
        ([b"bytes"], "search result 0 is bytes, not a str or MemoryItem"),
        (["a", "b", "c"], "search returned 3 items, more than top_k=2"),
        ([MemoryItem("m", position=4)], "search result 0 names history position 4, outside "
         "the 4 messages before the question (positions 0 to 3)"),
        ([MemoryItem("m", position=-1)], "names history position -1, outside"),
        ([MemoryItem("m", position=True)], "names position True, not an integer"),
        ([MemoryItem("m", position=1.0)], "names position 1.0, not an integer"),  # type: ignore[arg-type]
        ([MemoryItem("x" * (MAX_ITEM_CHARACTERS + 1))], "search result 0 has 32,769 characters, "
         "more than the 32,768 an item may carry"),
    ],
)  # fmt: skip
def test_what_a_memory_must_not_return_is_an_error_naming_it(items: Any, problem: str) -> None:
    with pytest.raises(MemoryComponentError) as error:
        checked_items(items, "my memory", top_k=2, visible=4)
    assert str(error.value).startswith("my memory: ")
    assert problem in str(error.value)


def test_a_long_item_with_a_position_is_the_message_not_its_text() -> None:
    """The prompt shows the message at the position, so the item's text is not bounded."""
    long = MemoryItem("x" * (MAX_ITEM_CHARACTERS + 1), position=0)
    assert checked_items([long], "m", top_k=1, visible=1) == [long]


def test_usage_is_what_the_memory_reports_as_numbers_else_nothing() -> None:
    assert isinstance(Counting({}), MemorySystem)
    assert usage_of(Counting({"llm_calls": 3, "tokens": 12.0, "model": "x"})) == {
        "llm_calls": 3,
        "tokens": 12,
    }
    assert usage_of(Counting(["not", "a", "dict"])) == {}
    memory: Any = object()
    assert usage_of(memory) == {}
