"""PersonaMem-v3's judged task types scored through Inspect's `grader` model role: each
row judged by its type's judge (`judges`: the authors' prompts verbatim, filled from the
sample's scorer-side fields and the model's reply, the judge's reply read as the authors
read it), its headline on their 0-100 (the type's `Headline.accuracy`, which the
rule-scored types use too). `judge_row` returns the row; `judged_score` makes its Score.

The 15-distinct-token gate (`reading.reply.is_substantive`) comes first where the
type is `gated` (its runner applies it or was not read; issue 38: such replies score 0):
a shorter text scores 0 without a call (`gated`). Elsewhere the reply is judged whatever
its length. A type no readable judge scores (`judges.base.NotBuilt`: the
`NO_FAITHFUL_JUDGE` types) is unscored with its reason, but where the grader is one of
the package's offline models (`datasets.offline_model.OfflineModel`): it is then scored by the
offline stand-in (`judges.stand_in`: the gold or not, 100 or 0, no gate), named so.

An agent run (`actions` in the sample's metadata) of an agentic or proactive row is
first checked as the authors' runner checks an `mcp_agent` run (`verifiers.py`, with the
type's output-quality verifier): a required write missing or a failed output-quality
verifier, or any write on a proactive row whose `expected_behavior` is `restrain`, scores
it 0 without a judge call (`rule_zero`, `verifiers.check_actions`); else it is judged as above (the
judge reads the reply, never the writes, as theirs), the checks' counts in its metrics
and every check in `JudgedRow.actions`.

A judge reply that gives no score is unscored (`judge_unreadable`, Inspect's NaN, counted
in the log's `unscored_samples` and by status), where the authors' scripts write 0 (new
suggestions, a proactive row's fallback composite) or a lower combined (a rubric dim
missing still counts in the maximum): the score's metadata gives what they would write
(`authors_accuracy`) where it is known.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any, Final

from inspect_ai.model import Model
from inspect_ai.scorer import Score
from inspect_ai.solver import TaskState

from inspect_personamem.datasets.offline_model import OfflineModel
from inspect_personamem.datasets.v3.judges.base import Ask, Judge, JudgedRow, Judging
from inspect_personamem.datasets.v3.judges.stand_in import StandIn
from inspect_personamem.datasets.v3.prompts.shown import SCORER_KEY, SHOWN_KEY
from inspect_personamem.datasets.v3.reading.reply import is_substantive
from inspect_personamem.datasets.v3.scoring.verifiers import STATUS_OK, check_actions
from inspect_personamem.datasets.v3.task_types.base import JUDGE_CHOICES, JudgeChoice, TaskType
from inspect_personamem.datasets.v3.task_types.registry import TASK_TYPES, TaskTypes
from inspect_personamem.scoring.grader.scorer import GRADER_RECORD, grader_record

ACTIONS_KEY: Final = "actions"
"""Sample metadata key of an agent run's record (its calls and writes); absent without."""
DEFAULT_JUDGE: Final[JudgeChoice] = JUDGE_CHOICES[0]
"""The rubric judge a run uses unless `-T judge=` says otherwise: the unified one."""


def no_faithful_judge(choice: JudgeChoice = DEFAULT_JUDGE) -> frozenset[str]:
    """The judged types left unscored under `choice`: no readable judge gives their
    headline."""
    return frozenset(
        name
        for name, task in TASK_TYPES.items()
        if isinstance(scorer := task.scorer_for(choice), Judge) and not scorer.built
    )


NO_FAITHFUL_JUDGE: Final = no_faithful_judge()
"""The judged types left unscored under the default judge."""
CHECKED_FAMILIES: Final = frozenset({"agentic_tasks", "agentic_proactiveness"})
"""The families whose runners (the agentic dispatch, the proactive runner) an agent run's
actions are checked for (`verifiers.check_actions`)."""


def _judge(task: TaskType, choice: JudgeChoice, stand_in: bool = False) -> Judge:
    """The type's judge under `choice`; the offline stand-in where none is built and
    `stand_in` (the grader is an offline model)."""
    scorer = task.scorer_for(choice)
    if not isinstance(scorer, Judge):
        raise ValueError(f"{task.name!r} is not a judged PersonaMem-v3 task type")
    return StandIn(scorer.why) if stand_in and not scorer.built else scorer


async def judge_row(
    task_type: str,
    reply: str,
    fields: Mapping[str, Any],
    shown: Mapping[str, Any],
    ask: Ask,
    actions: Mapping[str, Any] | None = None,
    task_types: TaskTypes = TASK_TYPES,
    choice: JudgeChoice = DEFAULT_JUDGE,
    stand_in: bool = False,
) -> JudgedRow:
    """Score one judged row: `fields` the scorer-only instance fields, `shown` what the
    model was shown (the query), `ask` the judge, `actions` an agent run's record (None
    without one), `choice` the rubric judge (`-T judge=`), `stand_in` whether the grader
    is an offline model. See the module docstring."""
    task = task_types[task_type]
    judge = _judge(task, choice, stand_in)
    text = judge.text(reply)
    if actions is None or task.family not in CHECKED_FAMILIES:
        return await _judged(task, judge, text, reply, fields, shown, ask)
    checks = check_actions(task.verifier, {**shown, **fields}, text, actions)
    counts = checks.metrics()
    if checks.status == STATUS_OK:
        row = await _judged(task, judge, text, reply, fields, shown, ask)
    else:
        accuracy = task.headline.accuracy(counts, checks.status)
        row = JudgedRow("rule_zero", counts, accuracy, text, note=checks.why)
    return replace(row, metrics={**row.metrics, **counts}, actions=checks.record())


async def _judged(
    task: TaskType,
    judge: Judge,
    text: str,
    reply: str,
    fields: Mapping[str, Any],
    shown: Mapping[str, Any],
    ask: Ask,
) -> JudgedRow:
    """The gate where the type has it, else the type's judge (`text`: the judge's text
    of `reply`). The offline stand-in compares with the gold and gates nothing: a gold
    may be shorter than the gate (the generator's repetition golds are)."""
    gate = judge.built and task.gated and not isinstance(judge, StandIn)
    if gate and not is_substantive(text):
        metrics: dict[str, object] = {"non_substantive_response": 1}
        return JudgedRow("gated", metrics, task.headline.accuracy(metrics), text)
    return await judge.judge(Judging(text, reply, fields, shown, task.headline), ask)


def asker(model: Model) -> Ask:
    """A judge call through `model` (the grader): the prompt as one user message."""

    async def ask(prompt: str) -> str:
        output = await model.generate(prompt)
        return output.completion

    return ask


async def judged_score(
    state: TaskState,
    base: Mapping[str, Any],
    model: Model,
    task_types: TaskTypes = TASK_TYPES,
    choice: JudgeChoice = DEFAULT_JUDGE,
) -> Score:
    """The Score of a judged row (`base`: what every v3 score's metadata says of its
    sample): the accuracy on 0-100, or unscored (`judge_unreadable`, or
    `judge_not_built` for `no_faithful_judge`) with the reason. Its metadata names the
    judge (`choice`, its kind and source, and where its prompt is not the authors' own
    file, that prompt's source and digest: `Judge.provenance`)."""
    task_type = str(base["task_type"])
    reply = state.output.completion
    fields = state.metadata.get(SCORER_KEY) or {}
    shown = state.metadata.get(SHOWN_KEY) or {}
    actions = state.metadata.get(ACTIONS_KEY)
    stand_in = isinstance(model.api, OfflineModel)
    judge = _judge(task_types[task_type], choice, stand_in)
    row = await judge_row(
        task_type, reply, fields, shown, asker(model), actions, task_types, choice, stand_in
    )
    metadata: dict[str, Any] = {
        **base,
        "judge": {"choice": choice, "kind": judge.kind, "why": judge.why, **judge.provenance},
        "status": row.status,
        "accuracy": row.accuracy,
        "counted": row.accuracy is not None,
        "gated": row.status == "gated",
        "substantive": is_substantive(row.text),
        "row_metrics": row.metrics,
        "judge_calls": [{"prompt": c.prompt, "reply": c.reply} for c in row.calls],
        "grader": str(model),
        GRADER_RECORD: grader_record(model),
        **({"actions_checked": row.actions} if row.actions is not None else {}),
    }
    if row.accuracy is None:
        metadata["authors_accuracy"] = row.authors_accuracy
        return Score.unscored(
            reason="judge_not_built" if row.status == "no_faithful_judge" else row.status,
            answer=reply[:200],
            explanation=f"{task_type}: {row.status}" + (f" ({row.note})" if row.note else ""),
            metadata=metadata,
        )
    explanation = f"{task_types[task_type].metric} -> {row.accuracy:.1f} on 0-100 ({row.status})"
    if row.status == "rule_zero" and row.note:
        explanation += f": {row.note}"
    return Score(
        value=row.accuracy / 100,  # 0-1, as every v3 score (`scorers`)
        answer=reply[:200],
        explanation=explanation,
        metadata=metadata,
    )
