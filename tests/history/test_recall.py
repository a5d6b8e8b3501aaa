from __future__ import annotations

from inspect_personamem.data.evidence import Evidence
from inspect_personamem.history.memory.interface import MemoryItem
from inspect_personamem.history.recall import recall_of

SESSION = Evidence(((10, 20),), (), "session 2 of 3")


def items(*positions: int | None) -> list[MemoryItem]:
    return [MemoryItem(text=f"item {p}", position=p) for p in positions]


def test_found_gives_the_first_rank_and_the_share_retrieved() -> None:
    recall = recall_of(items(3, 12, 15, 12, 25), SESSION, 5)
    assert (recall.status, recall.first_rank) == ("found", 2)
    assert recall.recall == 2 / 5  # two distinct evidence messages of five retrieved
    assert recall.record()["items"] == 5 and recall.record()["positioned"] == 5


def test_a_retriever_returning_only_evidence_has_recall_one() -> None:
    assert recall_of(items(10, 11, 12), SESSION, 3).recall == 1.0
    snippet = Evidence(((4, 6),), (), "two messages")
    assert recall_of(items(5, 4, 30), snippet, 3).recall == 1.0  # all the evidence there is


def test_positions_outside_the_evidence_are_a_miss() -> None:
    missed = recall_of(items(1, 2, 25), SESSION, 3)
    assert (missed.status, missed.first_rank, missed.recall) == ("missed", None, 0.0)
    assert recall_of([], SESSION, 3).status == "missed"


def test_items_without_positions_are_counted_apart() -> None:
    facts = recall_of([MemoryItem(text="likes jazz")], SESSION, 3)
    assert (facts.status, facts.recall, facts.positioned) == ("unpositioned", None, 0)
    mixed = recall_of([MemoryItem(text="a fact"), *items(1)], SESSION, 3)
    assert mixed.status == "unpositioned"
    assert recall_of([MemoryItem(text="a fact"), *items(11)], SESSION, 3).status == "found"


def test_evidence_not_located_is_counted_apart() -> None:
    nowhere = recall_of(items(1, 2), Evidence((), (), "not located"), 2)
    assert (nowhere.status, nowhere.recall) == ("not_located", None)
