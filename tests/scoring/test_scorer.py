"""`scoring/scorer.py`: the official scorer of a chosen letter (its value, answer,
explanation and record) and `answered`, the one wrapper of every scorer: a question
without a reply is not scored, each other score carries the question's history record,
and the scorer keeps its own name (the key of its scores in a log, and what `inspect
score` makes again)."""

from __future__ import annotations

import math
from typing import Any

import anyio
import pytest
from inspect_ai.model import ModelName, ModelOutput
from inspect_ai.scorer import CORRECT, INCORRECT, Score, Target
from inspect_ai.solver import TaskState
from inspect_ai.util import registry_info

from inspect_personamem.datasets.v2.judged import preference_scorer
from inspect_personamem.datasets.v2.scorer import v2_choice_scorer
from inspect_personamem.scoring.grader.scorer import graded_scorer
from inspect_personamem.scoring.scorer import (
    UNANSWERED,
    correct_option,
    personamem_scorer,
    replied,
)

EVIDENCE = {"located": True, "sessions": [[0, 4]]}


def state(
    reply: str | None, metadata: dict[str, Any] | None = None, choices: list[str] | None = None
) -> TaskState:
    """A question whose history source recorded its evidence (or `metadata`), replied to
    with `reply` (None: never replied to), showing `choices` where given."""
    asked = TaskState(
        model=ModelName("m/m"),
        sample_id="q1",
        epoch=1,
        input="?",
        messages=[],
        choices=choices,
        metadata={"evidence": EVIDENCE, "category": "c"} if metadata is None else metadata,
    )
    if reply is not None:
        asked.output = ModelOutput.from_content("m/m", reply)
    return asked


def test_a_reply_s_score_carries_the_history_record() -> None:
    score = anyio.run(personamem_scorer(), state("<final_answer>(b)"), Target("(b)"))
    assert score is not None and score.value == CORRECT
    assert score.metadata is not None and score.metadata["evidence"] == EVIDENCE
    assert score.metadata["status"] == "single"  # the scorer's own record is kept


def test_a_question_without_a_reply_is_not_scored() -> None:
    score = anyio.run(personamem_scorer(), state(None), Target("(b)"))
    assert score is not None and isinstance(score.value, float) and math.isnan(score.value)
    assert score.metadata == {"status": UNANSWERED}


def test_each_scorer_keeps_its_own_name() -> None:
    names = [
        registry_info(made).name
        for made in (personamem_scorer(), graded_scorer(grader="self"), v2_choice_scorer(),
                     preference_scorer())
    ]  # fmt: skip
    assert names == [
        f"inspect_personamem/{name}"
        for name in ("personamem_scorer", "graded_scorer", "v2_choice_scorer", "preference_scorer")
    ]


def scored(reply: str | None, target: str, **kwargs: Any) -> Score:
    score = anyio.run(personamem_scorer(), state(reply, **kwargs), Target(target))
    assert score is not None
    return score


@pytest.mark.parametrize(
    ("reply", "value", "answer", "status", "segment", "response"),
    [
        ("<final_answer>(c)", CORRECT, "(c)", "single", ["c"], ["c"]),
        ("(a) no. <final_answer>(b)", INCORRECT, "(b)", "single", ["b"], ["a", "b"]),
        ("I cannot tell.", INCORRECT, "", "none", [], []),
        ("<final_answer>(a) or (d)", INCORRECT, "(a)(d)", "multiple", ["a", "d"], ["a", "d"]),
    ],
)
def test_a_reply_is_scored_by_the_letters_the_official_extraction_reads(
    reply: str, value: str, answer: str, status: str, segment: list[str], response: list[str]
) -> None:
    """Against the target (c): the letters read, sorted, in the score and its record."""
    score = scored(reply, "(c)")
    assert score.value == value
    assert score.answer == answer
    assert score.metadata is not None
    assert score.metadata["status"] == status
    assert score.metadata["final_answer_letters"] == segment
    assert score.metadata["response_letters"] == response


def test_the_target_s_parentheses_and_spaces_are_not_part_of_its_letter() -> None:
    for target in ("(b)", " b ", "b"):
        assert scored("<final_answer>(b)", target).value == CORRECT


def test_the_explanation_names_the_verdict_and_the_correct_option_as_shown() -> None:
    choices = ["tea", "coffee", "juice", "water"]
    score = scored("<final_answer>(a)", "(c)", choices=choices)
    assert score.explanation == (
        "Incorrect: answered (a), expected (c). The correct option (c): juice"
    )
    assert scored("<final_answer>(a)", "(a)").explanation == (
        "Correct: the final answer names only (a)."  # no choices: no option named
    )


@pytest.mark.parametrize(("letter", "shown"), [("a", " The correct option (a): x"), ("c", "")])
def test_the_correct_option_is_named_only_where_the_sample_shows_it(
    letter: str, shown: str
) -> None:
    assert correct_option(state("", choices=["x", "y"]), letter) == shown


@pytest.mark.parametrize(
    ("reply", "tools", "answered"),
    [
        ("(a)", None, True),
        (None, None, False),
        ("(a)", {"finished": True}, True),
        ("(a)", {"finished": False}, False),  # stopped between its tool calls
    ],
)
def test_a_question_is_replied_to_once_the_model_has_output_and_its_tools_are_done(
    reply: str | None, tools: dict[str, Any] | None, answered: bool
) -> None:
    metadata = {} if tools is None else {"tools": tools}
    assert replied(state(reply, metadata=metadata)) is answered


def test_a_question_stopped_among_its_tool_calls_is_not_scored() -> None:
    counts = {"budget": 6, "asked": 2, "errors": 0, "chars_read": 10, "positions_read": 1}
    stopped = state("<final_answer>(b)", metadata={"tools": {**counts, "finished": False}})
    score = anyio.run(personamem_scorer(), stopped, Target("(b)"))
    assert score is not None and isinstance(score.value, float) and math.isnan(score.value)
    done = state("<final_answer>(b)", metadata={"tools": {**counts, "finished": True}})
    score = anyio.run(personamem_scorer(), done, Target("(b)"))
    assert score is not None and score.value == CORRECT
    assert score.metadata is not None and score.metadata["tools"] == {**counts, "finished": True}
