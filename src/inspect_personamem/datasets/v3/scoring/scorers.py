"""PersonaMem-v3's scorer (`v3_scorer`): each sample scored by its task type's scorer,
the authors' deterministic headline where the type's scorer is a rule (`by_rule`), their
judge through the grader where it is a judge (`judged`), each sample's value their
0-100 over 100 (0-1, as every version's, so that Inspect's viewer, intervals and the
report read it as they read v1's and v2's; the 0-100 `accuracy`, and a rule's `raw`
value, are in the score's metadata). The conversion to 0-100 is the type's
`Headline.accuracy` (`reading.scale.accuracy_value`) throughout.

A judged task type is scored through the model bound to the `grader` role (`version.py`
refuses a run without one), the rubric types by the unified 0-10 judge the published
rows were scored with, or by the older per-dimension 0-3 judge (`-T judge=per_dimension`);
a judged row with no score (the judge unreadable, or no faithful judge) gets Inspect's
unscored sentinel (NaN): left out of every metric and counted in the log's
`unscored_samples`, never a 0. A question the model never replied
to is unscored too (`scoring.scorer.answered`), where the authors' runner writes 0 for a
failed row (`reading.scale.FAILED_STATUSES`); so is a row of a type not in the registry.
The metrics (`metrics.v3_metrics`) read each score's task type and family.
"""

from __future__ import annotations

from typing import Any, Final

from inspect_ai.scorer import Score, Target, scorer
from inspect_ai.solver import TaskState

from inspect_personamem.datasets.v3.scoring.by_rule import rule_scored
from inspect_personamem.datasets.v3.scoring.judged import DEFAULT_JUDGE, judged_score
from inspect_personamem.datasets.v3.scoring.metrics import v3_metrics
from inspect_personamem.datasets.v3.task_types.base import JUDGE_CHOICES, JudgeChoice
from inspect_personamem.datasets.v3.task_types.registry import TASK_TYPES, TaskTypes
from inspect_personamem.errors import PersonaMemArgumentError
from inspect_personamem.scoring.grader.scorer import grader_model
from inspect_personamem.scoring.scorer import Scoring, answered

SCORED_AS: Final = "rules_and_judges"
"""How v3's replies are scored (`DatasetVersion.scored_as`): by the authors' rules and,
through the grader role, their judges, 0-1 each (not v2's `judged`, whose grader trials
and agreement read a verdict among candidates)."""


def _base(state: TaskState, task_types: TaskTypes) -> dict[str, Any]:
    """What every v3 score's metadata says of its sample."""
    task_type = str(state.metadata.get("task_type") or "")
    task = task_types.get(task_type)
    return {
        "task_type": task_type,
        "family": task.family if task else None,
        "user_id": state.metadata.get("user_id"),
        "query_id": state.metadata.get("query_id") or str(state.sample_id),
        "metric": task.metric if task else None,
        "kind": task.kind if task else None,
    }


async def score_state(
    state: TaskState, task_types: TaskTypes = TASK_TYPES, judge: JudgeChoice = DEFAULT_JUDGE
) -> Score:
    """The v3 score of a replied question, its type read from `task_types`, its rubric
    types judged by `judge` (module docstring)."""
    base = _base(state, task_types)
    task = task_types.get(base["task_type"])
    if task is None:
        return Score.unscored(
            reason="scoring_failed",
            explanation=f"{base['task_type']!r} is not a PersonaMem-v3 task type",
            metadata={**base, "status": "unknown_task_type"},
        )
    if task.judged:
        return await judged_score(state, base, grader_model("role"), task_types, judge)
    return rule_scored(state, base, task)


def _choice(judge: str) -> JudgeChoice:
    """`judge` as a `JudgeChoice`, or a one-line error naming the choices."""
    for choice in JUDGE_CHOICES:
        if judge == choice:
            return choice
    raise PersonaMemArgumentError(
        f"PersonaMem-v3 takes judge= one of {', '.join(JUDGE_CHOICES)}, not {judge!r}"
    )


@scorer(metrics=v3_metrics())
@answered
def v3_scorer(judge: str = DEFAULT_JUDGE) -> Scoring:
    """PersonaMem-v3's scorer: the authors' headline, 0-100, by rule or by the judgement
    of the model bound to the `grader` role (`judged.py`; the rubric types by `judge`,
    one of `JUDGE_CHOICES`); a row without one unscored, never 0; a question never
    replied to unscored (see the module docstring)."""
    choice = _choice(judge)

    async def score(state: TaskState, target: Target) -> Score:
        return await score_state(state, judge=choice)

    return score
