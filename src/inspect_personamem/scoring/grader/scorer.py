"""The scorer of open answers: a grader names the candidate the reply agrees with.

Correct iff the grader names the correct candidate. A verdict of none, and a verdict
that cannot be read, are incorrect and counted apart (`grader_none`,
`grader_unreadable`), as `unparsed` is for chosen answers. On the calibration
questions (`calibration.py`, first epoch only) the grader also grades each candidate
itself, under two orders; the counts go to the score's metadata and to the
`grader_identity` and `grader_position_bias` metrics. Each score's metadata holds the
grader's prompt, its answer and the order the candidates were shown in.

The grader is the model bound to the `grader` role (`--model-role grader=...`); with
`grader="self"`, asked for explicitly, the model under test grades its own replies,
and every score says so. Every score names the model that graded it (`GRADER_RECORD`),
which a re-grade (`inspect score`) changes where the log's header does not.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from inspect_ai.model import Model, ModelConfig, get_model
from inspect_ai.scorer import CORRECT, INCORRECT, Score, Scorer, Target, accuracy, scorer, stderr
from inspect_ai.solver import TaskState
from inspect_ai.util import collect

from inspect_personamem.data.options import LETTERS, shown_options
from inspect_personamem.scoring.grader.calibration import calibration_questions, candidate_orders
from inspect_personamem.scoring.grader.prompt import (
    GRADER_PROMPT_VERSION,
    Verdict,
    grader_prompt,
    read_verdict,
)
from inspect_personamem.scoring.metrics import grader_metrics, history_record
from inspect_personamem.scoring.scorer import unanswered
from inspect_personamem.types import GraderSource

GRADER_ROLE = "grader"
"""The Inspect model role whose model grades open answers."""
GRADER_RECORD = "grader_model"
"""The score metadata naming the model that graded (`grader_record`). The log's header
names the models bound to roles in the run (`eval.model_roles`); `inspect score
--model-role grader=...` re-grades with another and leaves the header as it was."""


@scorer(metrics=[accuracy(), stderr(), *grader_metrics()])
def graded_scorer(
    grader: GraderSource = "role",
    calibration: Sequence[str] = (),
    seed: int = 0,
) -> Scorer:
    """Grade a free reply by the candidate whose assumptions about the user it shares.

    Args:
        grader: "role": the model bound to the `grader` role; "self": the model under
            test.
        calibration: Ids of the questions on which the grader is also measured.
        seed: Seed of the order the candidates are shown in.
    """
    measured = frozenset(calibration)

    async def score(state: TaskState, target: Target) -> Score:
        if not state.output.choices:
            return unanswered()
        model = grader_model(grader)
        message = str(state.metadata["user_question_or_message"])
        candidates = shown_options(state)
        order, reverse = candidate_orders(seed, str(state.sample_id), len(candidates))
        correct = LETTERS.index(target.text.strip("() "))
        calibrating = str(state.sample_id) in measured and state.epoch == 1
        trials = [(shown, o) for shown in range(len(candidates)) for o in (order, reverse)]
        graded = await collect(
            _grade(model, message, state.output.completion, candidates, order),
            *(_grade(model, message, candidates[c], candidates, o) for c, o in trials)
            if calibrating
            else (),
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
            **history_record(state),
        }
        if calibrating:
            metadata |= _calibration(trials, checks)
        return Score(
            value=CORRECT if named == correct else INCORRECT,
            answer=f"({LETTERS[named]})" if named is not None else verdict.status,
            explanation=answer,
            metadata=metadata,
        )

    return score


def open_scorer(
    questions: Sequence[str], grader: GraderSource, grader_calibration: int, grader_seed: int
) -> Scorer:
    """`answer=open`'s scorer for a run over `questions` (its calibration set chosen
    among them)."""
    chosen = calibration_questions(questions, grader_calibration, grader_seed)
    return graded_scorer(grader=grader, calibration=sorted(chosen), seed=grader_seed)


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


def _calibration(
    trials: Sequence[tuple[int, Sequence[int]]], checks: Sequence[tuple[str, str, Verdict]]
) -> dict[str, Any]:
    """The calibration trials (a candidate shown as the reply, the order the candidates
    were shown in) and their counts: what the grader named."""
    named = [
        _named(verdict, order) for (_, order), (_, _, verdict) in zip(trials, checks, strict=True)
    ]
    by_candidate: dict[int, set[int | None]] = {}
    for (candidate, _), choice in zip(trials, named, strict=True):
        by_candidate.setdefault(candidate, set()).add(choice)
    return {
        "calibration": [
            {
                "shown": LETTERS[candidate],
                "order": [LETTERS[i] for i in order],
                "named": LETTERS[choice] if choice is not None else verdict.status,
            }
            for (candidate, order), choice, (_, _, verdict) in zip(
                trials, named, checks, strict=True
            )
        ],
        "calibration_trials": len(trials),
        "calibration_identity": sum(c == n for (c, _), n in zip(trials, named, strict=True)),
        "calibration_candidates": len(by_candidate),
        "calibration_order_changes": sum(len(choices) > 1 for choices in by_candidate.values()),
    }
