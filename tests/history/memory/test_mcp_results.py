"""A search result of `memory=mcp` read into items as the config says, and a malformed
one named (`memory/mcp_results.py`)."""

from __future__ import annotations

from typing import Any

import pytest

from inspect_personamem.history.memory.interface import MemoryItem
from inspect_personamem.history.memory.mcp_config import Reading
from inspect_personamem.history.memory.mcp_results import read_items

JSON = Reading(results="json", items="graph.entities", text="observations", position="name")


@pytest.mark.parametrize(
    ("texts", "structured", "reading", "items"),
    [
        (["one", "two"], None, Reading(), [MemoryItem("one"), MemoryItem("two")]),
        ([], None, Reading(results="json"), []),
        (['["a", {"text": "b", "score": 0.5, "position": 3}]'], None, Reading(results="json"),
         [MemoryItem("a"), MemoryItem("b", 0.5, 3)]),
        (["ignored when structured"], {"graph": {"entities": [
            {"name": "12", "observations": ["likes tea", "hates rain"], "score": 2}]}}, JSON,
         [MemoryItem("likes tea\nhates rain", 2, 12)]),
        ([], {"results": [{"text": "t", "position": None}]},
         Reading(results="json", items="results", score=None), [MemoryItem("t")]),
    ],
)  # fmt: skip
def test_a_search_result_is_read_as_configured(
    texts: list[str], structured: Any, reading: Reading, items: list[MemoryItem]
) -> None:
    assert read_items(texts, structured, reading) == items


@pytest.mark.parametrize(
    ("texts", "structured", "reading", "problem"),
    [
        (["not json"], None, Reading(results="json"), "text that is not JSON: 'not json'"),
        (["[]", "[]"], None, Reading(results="json"), "2 text blocks and no structured content"),
        ([], {"results": []}, JSON, "no key 'graph.entities' in an object with keys ['results']"),
        ([], {"graph": {"entities": {}}}, JSON, "an object with keys [] at 'graph.entities', not"),
        (['{"a": 1}'], None, Reading(results="json"), "an object with keys ['a'] at 'the top"),
        (["[3]"], None, Reading(results="json"), "item 0 is a int, not a string or an object"),
        (['[{"txt": "x"}]'], None, Reading(results="json"), "item 0 has no text in field 'text'"),
        (['[{"text": "x", "score": "high"}]'], None, Reading(results="json"),
         "item 0's 'score' is 'high', not a number"),
        (['[{"text": "x", "position": "3a"}]'], None, Reading(results="json"),
         "item 0's 'position' is '3a', not an integer"),
        (['[{"text": "x", "position": 2.0}]'], None, Reading(results="json"),
         "item 0's 'position' is 2.0, not an integer"),
    ],
)  # fmt: skip
def test_a_malformed_search_result_is_named(
    texts: list[str], structured: Any, reading: Reading, problem: str
) -> None:
    with pytest.raises(ValueError) as error:
        read_items(texts, structured, reading)
    assert problem in str(error.value)
