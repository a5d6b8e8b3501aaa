"""PersonaMem-v3's rule-scored task types (`TaskType.judged` False): each row scored by
its type's rule (`rules`: `ranking.Slate` for the three ranking tasks, `geo.GeoShift`,
`mistakes.MistakePrevention`, `lifecycle.Lifecycle`), which reads the model's reply and
the scorer-only fields (`prompts.shown.SCORER_KEY`), never the prompt; the value its
0-100 over 100 (a lifecycle probe's: its match rate, `counted` False, the pair's row
made by the metrics).

The 15-distinct-token gate (`reading.reply.is_substantive`) zeroes a row only where the
authors' runner applies it: of the rule-scored tasks, only the foil side of
`active_mistake_prevention` (their ranking, geo-shift and lifecycle runners write no
substantive flag, and `accuracy_value` reads `correct` before the gate). A score's
`gated` says whether it fired; `substantive` says whether the text the rule read passes
it, on every rule-scored row.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from inspect_ai.scorer import Score
from inspect_ai.solver import TaskState

from inspect_personamem.datasets.v3.prompts.shown import SCORER_KEY
from inspect_personamem.datasets.v3.rules.score import Rule, RuleScore
from inspect_personamem.datasets.v3.scoring.metrics import lifecycle_part
from inspect_personamem.datasets.v3.scoring.verifiers import rules_problem
from inspect_personamem.datasets.v3.task_types.base import TaskType
from inspect_personamem.datasets.v3.task_types.registry import TASK_TYPES, TaskTypes
from inspect_personamem.scoring.rows import PART_KEY

RULE_TASKS: Final = frozenset(name for name, task in TASK_TYPES.items() if not task.judged)
"""The task types a rule scores (`TaskType.judged` False): 6 of 31."""
READ_STATUS: Final = "read"
"""A rule-scored reply's `status`: read by its rule (the report's `READ`; a reply the
rule cannot parse is scored as the authors score it, e.g. the identity ranking)."""


def _rule(task: TaskType) -> Rule:
    if not isinstance(task.scorer, Rule):
        raise ValueError(f"{task.name!r} is not a rule-scored PersonaMem-v3 task type")
    return task.scorer


def rule_score(
    task_type: str,
    reply: str,
    fields: Mapping[str, Any],
    query_id: str = "",
    task_types: TaskTypes = TASK_TYPES,
) -> RuleScore:
    """Score `reply` by the rule of `task_type` (one of `RULE_TASKS`) with the row's
    scorer-only `fields`."""
    task = task_types[task_type]
    return _rule(task).score(reply, fields, query_id, task.headline)


def missing_field(
    task_type: str, fields: Mapping[str, Any], task_types: TaskTypes = TASK_TYPES
) -> str:
    """What a row lacks of the scorer-only `fields` its rule or judge reads
    (`Rule.missing`, `Judge.missing`), in words naming the field; empty where it lacks
    nothing. Of any row, a `tool_call_rules` or `final_state_expected` no check reads
    (`verifiers.rules_problem`): an agent run's checks would stop on it."""
    return task_types[task_type].scorer.missing(fields) or rules_problem(fields)


def rule_scored(state: TaskState, base: Mapping[str, Any], task: TaskType) -> Score:
    """The v3 score of a replied question of a rule-scored type (`base`: what every v3
    score's metadata says of its sample)."""
    reply = state.output.completion
    fields = state.metadata.get(SCORER_KEY) or {}
    result = _rule(task).score(reply, fields, str(base["query_id"]), task.headline)
    explanation = (
        f"{task.metric} {result.raw:.4g} -> {result.accuracy:.1f} on 0-100"
        if result.accuracy is not None
        else f"lifecycle probe ({result.metrics['phase'] or 'no phase'}): match_rate_at_3 "
        f"{result.raw:.4g}; the pair's lifecycle_score is made by the metrics"
    )
    if result.gated:
        explanation += "; under 15 distinct tokens: 0 by the authors' gate"
    return Score(
        value=result.value,
        answer=reply[:200],
        explanation=explanation,
        metadata={
            **base,
            "status": READ_STATUS,
            "raw": result.raw,
            "accuracy": result.accuracy,
            "counted": result.accuracy is not None,
            "gated": result.gated,
            "substantive": result.substantive,
            "row_metrics": result.metrics,
            "join": result.join,
            **(
                {PART_KEY: lifecycle_part(str(base["user_id"]), result.join).metadata()}
                if result.join and result.join["kind"] == "lifecycle"
                else {}
            ),
        },
    )
