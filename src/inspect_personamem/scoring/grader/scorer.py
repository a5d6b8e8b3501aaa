"""The scorer of open answers: a grader names the candidate the reply agrees with.

Correct iff the grader names the correct candidate. A verdict of none, and a verdict
that cannot be read, are incorrect and counted apart (`grader_none`,
`grader_unreadable`), as `unparsed` is for chosen answers. On the calibration
questions (`calibration.py`, first epoch only) the grader also grades the trials built
from the candidates (`trials.py`) and the reply again under the reverse order; what it
named goes to the score's metadata (`TRIAL_COUNTS`, per kind), and from there to the trial
metrics and the corrected accuracy (`scoring/metrics.py`). Each score's metadata holds
the grader's prompt, its answer and the order the candidates were shown in.

The scorer reads only what a log holds (the sample's metadata, choices and target, the
reply), so `inspect score` re-grades a finished run with another grader without asking
the model under test again. The grader is the model bound to the `grader` role
(`--model-role grader=...`); with `grader="self"`, asked for explicitly, the model
under test grades its own replies, and every score says so. Every score names the
model that graded it (`GRADER_RECORD`), which a re-grade changes where the log's
header does not.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from inspect_ai.model import Model, ModelConfig, get_model
from inspect_ai.scorer import CORRECT, INCORRECT, Score, Target, accuracy, scorer, stderr
from inspect_ai.solver import TaskState
from inspect_ai.util import collect

from inspect_personamem.data.asked import AskedAt
from inspect_personamem.data.options import LETTERS, shown_options
from inspect_personamem.scoring.grader.calibration import candidate_orders, grading_of
from inspect_personamem.scoring.grader.prompt import (
    GRADER_PROMPT_VERSION,
    Verdict,
    grader_prompt,
    read_verdict,
)
from inspect_personamem.scoring.grader.trials import (
    TRIAL_COUNTS,
    TRIAL_KINDS,
    Trial,
    built_trials,
)
from inspect_personamem.scoring.metrics import grader_metrics
from inspect_personamem.scoring.scorer import Scoring, answered
from inspect_personamem.types import GraderSource

GRADER_ROLE = "grader"
"""The Inspect model role whose model grades open answers."""
GRADER_RECORD = "grader_model"
"""The score metadata naming the model that graded (`grader_record`). The log's header
names the models bound to roles in the run (`eval.model_roles`); `inspect score
--model-role grader=...` re-grades with another and leaves the header as it was."""


@scorer(metrics=[accuracy(), stderr(), *grader_metrics()])
@answered
def graded_scorer(
    grader: GraderSource = "role",
    calibration: Sequence[str] | None = None,
    seed: int | None = None,
) -> Scoring:
    """Grade a free reply by the candidate whose assumptions about the user it shares.

    Args:
        grader: "role": the model bound to the `grader` role; "self": the model under
            test.
        calibration: Ids of the questions on which the grader is also measured; None:
            those the samples say (`calibration.GRADING`).
        seed: Seed of the order the candidates are shown in; None: the samples'.
    """

    async def score(state: TaskState, target: Target) -> Score:
        model = grader_model(grader)
        question = str(state.sample_id)
        grading = grading_of(state.metadata, question, calibration, seed)
        message = AskedAt.of(state.metadata).message
        reply = state.output.completion
        candidates = shown_options(state)
        order, reverse = candidate_orders(grading.seed, question, len(candidates))
        correct = LETTERS.index(target.text.strip("() "))
        calibrating = grading.calibrated and state.epoch == 1
        trials = built_trials(candidates, correct, (order, reverse)) if calibrating else []
        if calibrating:
            trials.append(Trial("reorder", reply, tuple(candidates), reverse, None))
        graded = await collect(
            _grade(model, message, reply, candidates, order),
            *(_grade(model, message, t.reply, t.candidates, t.order) for t in trials),
        )
        (prompt, answer, verdict), checks = graded[0], graded[1:]
        named = _named(verdict, order)
        metadata: dict[str, Any] = {
            "status": verdict.status,
            "grader": str(model),
            GRADER_RECORD: grader_record(model),
            "self_graded": grader == "self",
            "grader_prompt_version": GRADER_PROMPT_VERSION,
            "candidate_order": [LETTERS[i] for i in order],
            "grader_prompt": prompt,
            "grader_answer": answer,
        }
        if calibrating:
            verdicts = [check[2] for check in checks]
            metadata |= _calibration(trials, verdicts, correct, (named, verdict.status))
        return Score(
            value=CORRECT if named == correct else INCORRECT,
            answer=f"({LETTERS[named]})" if named is not None else verdict.status,
            explanation=answer,
            metadata=metadata,
        )

    return score


def grader_model(grader: GraderSource) -> Model:
    """The model that grades: the one bound to the grader role, or the model under test."""
    if grader == "self":
        return get_model()
    return get_model(role=GRADER_ROLE, required=True)


def grader_record(model: Model) -> dict[str, Any]:
    """The model that graded, as Inspect records a model bound to a role (`ModelConfig`:
    name, generation settings, base URL given, arguments), less the arguments Inspect
    leaves out of a log's roles (credentials: `api_key`, `aws_*`)."""
    args = {
        key: value
        for key, value in model.model_args.items()
        if key != "api_key" and not key.startswith("aws_")
    }
    config = ModelConfig(
        model=str(model), config=model.config, base_url=model.explicit_base_url, args=args
    )
    return config.model_dump(exclude_none=True)


async def _grade(
    model: Model, message: str, reply: str, candidates: Sequence[str], order: Sequence[int]
) -> tuple[str, str, Verdict]:
    """Ask the grader once: (prompt, its answer, its verdict)."""
    prompt = grader_prompt(message, reply, [candidates[i] for i in order])
    output = await model.generate(prompt)
    return prompt, output.completion, read_verdict(output.completion, len(order))


def _named(verdict: Verdict, order: Sequence[int]) -> int | None:
    """The candidate a verdict named, as its index in the sample's options."""
    return order[verdict.named] if verdict.named is not None else None


def _said(named: int | None, status: str) -> str:
    """A verdict as the metadata writes it: the option's letter, `none` or `unreadable`."""
    return LETTERS[named] if named is not None else status


def _calibration(
    trials: Sequence[Trial],
    verdicts: Sequence[Verdict],
    correct: int,
    first: tuple[int | None, str],
) -> dict[str, Any]:
    """The trials (kind, order shown, verdict expected, verdict given), their counts per
    kind (`TRIAL_COUNTS`), and the identity trials' counts as reports read them
    (`calibration_*`). A `reorder` trial is right where its verdict is the reply's
    first, readable one."""
    records = []
    counts = {kind: {"trials": 0, "right": 0, "named_correct": 0} for kind in TRIAL_KINDS}
    by_candidate: dict[int, set[int | None]] = {}
    for trial, verdict in zip(trials, verdicts, strict=True):
        named = _named(verdict, trial.order)
        said = _said(named, verdict.status)
        expected = _said(*first) if trial.kind == "reorder" else _said(trial.expected, "none")
        right = said == expected and said != "unreadable"
        records.append(
            {
                "kind": trial.kind,
                "order": [LETTERS[i] for i in trial.order],
                "expected": expected,
                "named": said,
            }
        )
        count = counts[trial.kind]
        count["trials"] += 1
        count["right"] += right
        count["named_correct"] += named == correct
        if trial.kind.startswith("identity") and trial.expected is not None:
            by_candidate.setdefault(trial.expected, set()).add(named)
    identity = counts["identity_correct"], counts["identity_wrong"]
    return {
        "calibration": records,
        TRIAL_COUNTS: counts,
        "calibration_trials": sum(c["trials"] for c in identity),
        "calibration_identity": sum(c["right"] for c in identity),
        "calibration_candidates": len(by_candidate),
        "calibration_order_changes": sum(len(choices) > 1 for choices in by_candidate.values()),
    }
