"""What the offline models read of a prompt (`data/known.py`): a question file the
oracle answers from must say how it finds a question, and what it knows of one is a
value (two questions with the same options, answer and place are the same)."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path

import pytest
from inspect_ai.model import ChatMessage, ChatMessageUser

from inspect_personamem.data.known import Asked, ChoicePrompt, Known, KnownQuestions


class OneQuestion(KnownQuestions):
    """Knows one question, asked in the last message."""

    def find(self, input: Sequence[ChatMessage]) -> Asked:
        known = Known(("yes", "no"), 0, decay_steps=2)
        return Asked(known, 1, tuple(f"({x})" for x in "ab"))


def test_a_question_file_must_say_how_it_finds_a_question() -> None:
    with pytest.raises(TypeError, match="abstract"):
        KnownQuestions(Path("q.csv"))  # type: ignore[abstract]
    questions = OneQuestion(Path("q.csv"))
    assert questions.source == Path("q.csv")
    asked = questions.find([ChatMessageUser(content="yes or no?")])
    assert asked.known.options[asked.known.correct] == "yes" and asked.replies == ("(a)", "(b)")


def test_what_is_known_is_a_value() -> None:
    known = Known(("x", "y"), 1, 0)
    assert known.end_index is None
    assert known == Known(("x", "y"), 1, 0) != Known(("x", "y"), 1, 0, end_index=4)
    with pytest.raises(dataclasses.FrozenInstanceError):
        known.correct = 0  # type: ignore[misc]
    prompt = ChoicePrompt("q", ("x", "y"), 2, ("(a)", "(b)"))
    assert dataclasses.astuple(prompt) == ("q", ("x", "y"), 2, ("(a)", "(b)"))
