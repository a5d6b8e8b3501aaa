"""PersonaMem-v2's open answers judged as its authors judge them (`datasets/v2/judged.py`):
the judge through the grader role, re-judging a log, an unread score counted apart,
and the judge's figures computed from the scores' metadata."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, cast

import pytest
from inspect_ai import score
from inspect_ai.event import ModelEvent
from inspect_ai.log import EvalLog, read_eval_log
from inspect_ai.model import ChatMessage
from inspect_ai.scorer import SampleScore, Score
from support.helpers import DISPLAY, Reply, mock_model, run_task

from inspect_personamem.datasets.v2.files import load_questions
from inspect_personamem.datasets.v2.judge import judge_prompt
from inspect_personamem.datasets.v2.judged import judge_figures, preference_scorer
from inspect_personamem.datasets.v2.prompt import APPENDED_SENTENCE
from inspect_personamem.datasets.v2.spec import V2Source
from inspect_personamem.scoring.grader.scorer import GRADER_RECORD

TASK = "inspect_personamem/personamem_v2_32k"


def judge_run(
    data: Path, log_dir: Path, judge: Reply, reply: str = "Sure, happy to help."
) -> EvalLog:
    log = run_task(
        TASK,
        mock_model(lambda messages: reply),
        log_dir,
        {"data_dir": str(data), "answer": "open", "judge": "preference", "grader_calibration": 4},
        model_roles={"grader": mock_model(judge, name="mockllm/judge")},
    )
    assert log.status == "success", log.error
    return log


@pytest.mark.slow  # an end-to-end run
def test_the_authors_judge_scores_through_the_grader_role(small_v2: Path, tmp_path: Path) -> None:
    correct = {r.correct_answer for r in load_questions(V2Source(data_dir=small_v2)).records}
    prompts: list[str] = []

    def judge(messages: list[ChatMessage]) -> str:
        prompt = messages[-1].text
        prompts.append(prompt)
        reply = prompt.split("Model's response to evaluate:\n", 1)[1].split("\n\nIn this case")[0]
        reply = reply.split("\n\nTask:")[0]
        return "Reasoning.\n\\boxed{1.0}" if reply in correct else "\\boxed{0.25}"

    log = judge_run(small_v2, tmp_path, judge)
    assert log.results is not None and log.samples is not None
    metrics = {name: m.value for name, m in log.results.scores[0].metrics.items()}
    assert metrics["accuracy"] == 0.25  # the mean score of the model's replies
    assert metrics["judge_separates"] == 1.0 and metrics["judge_calibrated"] == 4
    assert metrics["judge_unread"] == 0.0 and metrics["empty_reply"] == 0.0
    for sample in log.samples:
        assert sample.scores is not None
        meta = sample.scores["preference_scorer"].metadata or {}
        query, preference = sample.metadata["query"], sample.metadata["preference"]
        assert meta["judge_prompt"] == judge_prompt(query, preference, "Sure, happy to help.")
        assert APPENDED_SENTENCE not in meta["judge_prompt"]  # the query as the authors judge it
    assert len(prompts) == len(log.samples) + 4 * 4


@pytest.mark.slow  # an end-to-end run
def test_a_judged_run_is_rejudged_by_another_judge(small_v2: Path, tmp_path: Path) -> None:
    """Inspect's `score` with the judge's scorer and no argument: each question's
    calibration comes from its sample; the model under test is not asked again."""
    log = judge_run(small_v2, tmp_path, lambda messages: "\\boxed{0.25}")
    regraded = score(
        read_eval_log(str(log.location)),
        preference_scorer(),
        model_roles={"grader": mock_model(lambda messages: "\\boxed{1.0}", name="mockllm/other")},
        action="overwrite",
        display=DISPLAY,
    )
    assert regraded.results is not None and regraded.samples is not None
    metrics = {name: m.value for name, m in regraded.results.scores[0].metrics.items()}
    assert metrics["accuracy"] == 1.0 and metrics["judge_calibrated"] == 4
    for sample in regraded.samples:
        assert sample.scores is not None
        meta = sample.scores["preference_scorer"].metadata or {}
        assert meta[GRADER_RECORD]["model"] == "mockllm/other"
        assert sum(isinstance(e, ModelEvent) and e.role != "grader" for e in sample.events) == 1


@pytest.mark.slow  # an end-to-end run
def test_a_judge_without_a_score_counts_zero_and_apart(small_v2: Path, tmp_path: Path) -> None:
    log = judge_run(small_v2, tmp_path, lambda messages: "It is rather personal.")
    assert log.results is not None
    metrics = {name: m.value for name, m in log.results.scores[0].metrics.items()}
    assert metrics["accuracy"] == 0.0 and metrics["judge_unread"] == 1.0
    assert metrics["judge_separates"] == 0.0


def scored(value: float, **metadata: object) -> SampleScore:
    return SampleScore(score=Score(value=value, metadata=metadata))


def test_the_judges_figures_are_shares_of_all_answers_and_of_the_calibrated() -> None:
    compute = cast(Any, judge_figures())
    figures = compute(
        [
            scored(0.5, status="read", calibration_separates=1),
            scored(0.0, status="judge_unread", calibration_separates=0),
            scored(0.0, status="empty_reply"),
            scored(1.0, status="read", calibration_separates=1),
        ]
    )
    assert figures == {
        "judge_unread": 0.25,
        "empty_reply": 0.25,
        "judge_separates": 2 / 3,
        "judge_calibrated": 3,
    }


def test_without_calibrated_questions_the_separation_is_not_a_number() -> None:
    figures = cast(Any, judge_figures())([scored(1.0, status="read")])
    assert figures["judge_calibrated"] == 0 and figures["judge_unread"] == 0.0
    assert math.isnan(float(figures["judge_separates"]))
