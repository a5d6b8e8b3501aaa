"""Finished prompts freed by size (`answer/garbage.py`): a full collection once the
budget of long prompts is sent, none for short prompts, and the answering solver
telling it each prompt's size."""

from __future__ import annotations

import gc
import sys
import weakref
from collections.abc import Iterator

import pytest
from inspect_ai.model import ChatMessageUser
from support.reply import QUESTION, answered

from inspect_personamem.answer import garbage
from inspect_personamem.answer.garbage import Collector
from inspect_personamem.history.seen import Seen


class Node:
    """A cycle member holding a prompt, as a finished sample's transcript does."""

    def __init__(self, prompt: str) -> None:
        self.prompt = prompt
        self.me = self


@pytest.fixture
def no_automatic_collection() -> Iterator[None]:
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def cyclic_garbage() -> weakref.ref[Node]:
    return weakref.ref(Node("x" * 1000))


@pytest.mark.usefixtures("no_automatic_collection")
def test_a_cycle_holding_a_prompt_is_freed_once_the_budget_is_sent() -> None:
    collector = Collector(budget=300, small=100)
    dead = cyclic_garbage()
    collector.sent(200)
    assert dead() is not None and collector.collections == 0
    collector.sent(200)
    assert dead() is None and collector.collections == 1
    assert collector.since == 0


@pytest.mark.usefixtures("no_automatic_collection")
def test_short_prompts_leave_pythons_schedule_alone() -> None:
    collector = Collector(budget=300, small=100)
    dead = cyclic_garbage()
    for _ in range(50):
        collector.sent(99)
    assert dead() is not None
    assert (collector.collections, collector.since) == (0, 0)


def test_the_answering_solver_counts_the_prompt_it_sends(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    collector = Collector(budget=10**9, small=0)
    monkeypatch.setattr(garbage.COLLECTOR, "sent", collector.sent)
    history = [ChatMessageUser(content="h" * 5000)]
    answered(Seen(history, prefix=True))
    assert collector.since == 5000 + len(QUESTION[0].text)


@pytest.mark.usefixtures("no_automatic_collection")
def test_the_default_collection_frees_cycles_then_hands_pages_back(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    trimmed: list[int] = []

    def trim(pad: int) -> int:
        trimmed.append(pad)
        return 1

    monkeypatch.setattr(garbage, "TRIM", trim)
    dead = cyclic_garbage()
    Collector(budget=1, small=0).sent(1)
    assert dead() is None
    assert trimmed == [0]


def test_glibcs_trim_is_found_on_linux() -> None:
    if sys.platform != "linux":
        pytest.skip("malloc_trim is glibc's")
    assert garbage.TRIM is not None
