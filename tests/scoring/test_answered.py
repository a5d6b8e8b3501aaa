"""`answered`, the one wrapper of every scorer: a question without a reply is not
scored, each other score carries the question's history record, and the scorer keeps
its own name (the key of its scores in a log, and what `inspect score` makes again)."""

from __future__ import annotations

import math

import anyio
from inspect_ai.model import ModelName, ModelOutput
from inspect_ai.scorer import CORRECT, Target
from inspect_ai.solver import TaskState
from inspect_ai.util import registry_info

from inspect_personamem.datasets.v2.judged import preference_scorer
from inspect_personamem.datasets.v2.scorer import v2_choice_scorer
from inspect_personamem.scoring.grader.scorer import graded_scorer
from inspect_personamem.scoring.scorer import UNANSWERED, personamem_scorer

EVIDENCE = {"located": True, "sessions": [[0, 4]]}


def state(reply: str | None) -> TaskState:
    """A question whose history source recorded its evidence, replied to with `reply`
    (None: never replied to)."""
    asked = TaskState(
        model=ModelName("m/m"),
        sample_id="q1",
        epoch=1,
        input="?",
        messages=[],
        metadata={"evidence": EVIDENCE, "category": "c"},
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
