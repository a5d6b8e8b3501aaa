"""PersonaMem-v2's open answers judged as its authors judge them (`judge=preference`).

The judge (the model bound to the `grader` role; the model under test only with
`grader="self"`, as the authors run it) reads the authors' prompt for the reply
(`judge.py`: the query's content, the `preference` label, the reply stripped) and
gives a score from 0 to 1, read by their rule; the question's value is that score.
An answer with no score the rule can read is 0.0, as theirs, and counted apart
(`judge_unread`). An empty reply is 0.0 and counted apart too (`empty_reply`: the
authors leave such rows unjudged).

The judge is measured, not trusted: on the calibration questions (first epoch) it
also judges each of the four candidates as the reply. A judge that tells the user's
preference apart scores the correct candidate above the three others: the share of
calibrated questions where it does is `judge_separates`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from inspect_ai.model import Model
from inspect_ai.scorer import (
    Metric,
    SampleScore,
    Score,
    Target,
    Value,
    accuracy,
    metric,
    scorer,
    stderr,
)
from inspect_ai.solver import TaskState
from inspect_ai.util import collect

from inspect_personamem.data.options import LETTERS, shown_options
from inspect_personamem.datasets.v2.judge import judge_prompt, judge_score
from inspect_personamem.scoring.grader.calibration import grading_of
from inspect_personamem.scoring.grader.scorer import GRADER_RECORD, grader_model, grader_record
from inspect_personamem.scoring.scorer import Scoring, answered
from inspect_personamem.types import GraderSource


@metric
def judge_figures() -> Metric:
    """The preference judge's: shares of answers it gave no readable score
    (`judge_unread`) and of empty replies (`empty_reply`), both 0; on its calibration
    questions, the share where it scored the correct candidate above the three others
    (`judge_separates`) and how many it judged (`judge_calibrated`)."""

    def compute(scores: list[SampleScore]) -> Value:
        meta = [s.score.metadata or {} for s in scores]
        calibrated = [m["calibration_separates"] for m in meta if "calibration_separates" in m]
        share = len(scores) or float("nan")
        return {
            "judge_unread": sum(m.get("status") == "judge_unread" for m in meta) / share,
            "empty_reply": sum(m.get("status") == "empty_reply" for m in meta) / share,
            "judge_separates": sum(calibrated) / len(calibrated) if calibrated else float("nan"),
            "judge_calibrated": len(calibrated),
        }

    return compute


@scorer(metrics=[accuracy(), stderr(), judge_figures()])
@answered
def preference_scorer(
    grader: GraderSource = "role", calibration: Sequence[str] | None = None
) -> Scoring:
    """Score a free reply by the authors' judge, 0 to 1.

    Args:
        grader: "role": the model bound to the `grader` role; "self": the model under
            test.
        calibration: Ids of the questions on which the judge also judges each
            candidate; None: those the samples say (`calibration.GRADING`).
    """

    async def score(state: TaskState, target: Target) -> Score:
        model = grader_model(grader)
        query, preference = str(state.metadata["query"]), str(state.metadata["preference"])
        reply = state.output.completion.strip()
        candidates = shown_options(state)
        grading = grading_of(state.metadata, str(state.sample_id), calibration)
        calibrating = grading.calibrated and state.epoch == 1
        judged = await collect(
            _judge(model, query, preference, reply),
            *(_judge(model, query, preference, c) for c in candidates) if calibrating else (),
        )
        (prompt, answer, value, read), checks = judged[0], judged[1:]
        metadata: dict[str, Any] = {
            "status": "empty_reply" if not reply else "read" if read else "judge_unread",
            "grader": str(model),
            GRADER_RECORD: grader_record(model),
            "self_graded": grader == "self",
            "judge_prompt": prompt,
            "judge_answer": answer,
        }
        if calibrating:
            scores = [check[2] for check in checks]
            correct = LETTERS.index(target.text.strip("() "))
            others = [s for i, s in enumerate(scores) if i != correct]
            metadata |= {
                "calibration_scores": dict(zip(LETTERS[: len(scores)], scores, strict=True)),
                "calibration_separates": int(scores[correct] > max(others)),
            }
        return Score(
            value=value if reply else 0.0, answer=reply[:200], explanation=answer, metadata=metadata
        )

    return score


async def _judge(
    model: Model, query: str, preference: str, reply: str
) -> tuple[str, str, float, bool]:
    """Ask the judge once: (prompt, its answer, the score read, whether one was read)."""
    prompt = judge_prompt(query, preference, reply)
    output = await model.generate(prompt)
    value, read = judge_score(output.completion)
    return prompt, output.completion, value, read
