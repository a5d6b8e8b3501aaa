"""`-T answer=...`: how the model answers, one `AxisValue` per way.

Adding a way to answer is one module (its solver builder, and its scorer where the
official one cannot read it) and one entry here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from inspect_personamem.answer.choice import choice_solver
from inspect_personamem.answer.logprob.solver import logprob_solver
from inspect_personamem.answer.open import open_solver
from inspect_personamem.parameters import AxisValue, Parameter, changed
from inspect_personamem.scoring.grader.calibration import grading_metadata
from inspect_personamem.scoring.grader.prompt import GRADER_PROMPT
from inspect_personamem.scoring.grader.scorer import graded_scorer
from inspect_personamem.types import GraderSource

CACHE_BREAKPOINTS = Parameter(
    "cache_breakpoints",
    True,
    bool,
    "On Anthropic models with history=full, mark the history end (and earlier "
    "siblings' history ends) as explicit prompt-cache breakpoints; no effect on "
    "other providers or with system_messages=merge.",
    scoring=False,
)


@dataclass(frozen=True)
class ChoiceSettings:
    """`answer=choice`'s own parameters."""

    cache_breakpoints: bool


@dataclass(frozen=True)
class LogprobSettings:
    """`answer=logprob`'s own parameters."""

    normalization: str
    context_window: int | None
    option_batch_size: int
    prefill_chunk: int | None


@dataclass(frozen=True)
class OpenSettings:
    """`answer=open`'s own parameters."""

    cache_breakpoints: bool
    grader: GraderSource
    grader_calibration: int
    grader_seed: int


def _open_label(settings: OpenSettings) -> str:
    # not `self-graded`: whether the grader is the model under test, the report's labels
    # say from who graded (`-T grader=self`, or the same model bound to the grader role)
    seeds = changed(ANSWERS["open"].parameters, grader_seed=settings.grader_seed)
    return ", ".join(["open", *(f"grader seed {seed}" for seed in seeds)])


def _open_refuses(settings: OpenSettings) -> str | None:
    from inspect_ai.model import model_roles  # the roles of the eval creating the task

    bound = "grader" in model_roles()
    if settings.grader == "role" and not bound:
        return (
            "no grader is bound: add --model-role grader=<model> (e.g. "
            "grader=openai/gpt-4.1-mini; in Python, eval the task by name or function with "
            "model_roles={'grader': ...}), or pass -T grader=self to let the model under "
            "test grade its own replies (reports mark it self-graded)"
        )
    if settings.grader == "self" and bound:
        return (
            "-T grader=self grades with the model under test, but a grader is bound "
            "(--model-role grader=...): leave out one of the two"
        )
    return None


def _logprob_label(settings: LogprobSettings) -> str:
    own = ANSWERS["logprob"].parameters
    words = changed(
        own, normalization=settings.normalization, context_window=settings.context_window
    )
    return ", ".join(["logprob", *words])


def _open_scorer(settings: OpenSettings) -> Any:
    """`answer=open`'s scorer: the grader the run's `grader` names (each question's
    calibration and order travel in its sample: `calibration.grading_metadata`)."""
    return graded_scorer(grader=settings.grader)


def _grading(questions: Sequence[str], settings: OpenSettings) -> dict[str, dict[str, Any]]:
    """What each question's sample says of how it is graded (`grading_metadata`)."""
    return grading_metadata(questions, settings.grader_calibration, settings.grader_seed)


ANSWERS: Final[dict[str, AxisValue[Any]]] = {
    "choice": AxisValue(
        "choice",
        "the official prompt: history, question, instruction and the four options; the "
        "model writes its answer",
        choice_solver,
        ChoiceSettings,
        parameters=(CACHE_BREAKPOINTS,),
        order="interleaved",
    ),
    "logprob": AxisValue(
        "logprob",
        "the paper's log-likelihood setting for local models on hf/ or vllm/: the "
        "options never shown, each scored as the assistant's reply",
        logprob_solver,
        LogprobSettings,
        parameters=(
            Parameter(
                "normalization",
                "tokens",
                str,
                "An option's score: its summed log-probability per token (the paper's), "
                "per character, or unnormalised.",
                choices=("tokens", "chars", "sum"),
            ),
            Parameter(
                "context_window",
                None,
                int,
                "Prompt tokens allowed (the oldest history messages are cut to fit, "
                "recorded per sample); none takes the model's own limit.",
                minimum=1,
            ),
            Parameter(
                "option_batch_size",
                4,
                int,
                "hf/ models: options scored in one pass on the shared prefix's attention cache.",
                minimum=1,
                scoring=False,
            ),
            Parameter(
                "prefill_chunk",
                None,
                int,
                "hf/ models: the most prefix tokens run in one pass (bounds activation "
                "memory on long histories); none runs it at once.",
                minimum=1,
                scoring=False,
            ),
        ),
        label=_logprob_label,
        order="grouped",
        writes_nothing="scores each option's likelihood as the model's reply: the model "
        "writes nothing",
    ),
    "open": AxisValue(
        "open",
        "the user's message alone, no options, as a deployed chatbot gets it; a grader "
        "(--model-role grader=...) names the candidate reply whose assumptions about "
        "the user the reply shares",
        open_solver,
        OpenSettings,
        parameters=(
            CACHE_BREAKPOINTS,
            Parameter(
                "grader",
                "role",
                str,
                "role (the model bound with --model-role grader=...) or self (the model "
                "under test grades its own replies; reports mark it).",
                choices=("role", "self"),
                for_scorer=True,
            ),
            Parameter(
                "grader_calibration",
                50,
                int,
                "Questions on which the grader is also measured on replies built from the "
                "candidates (each candidate itself, what all share, two mixed, the correct "
                "one shown shorter) and on the reply under another order; 0 skips it.",
                minimum=0,
                scoring=False,
                for_scorer=True,
            ),
            Parameter(
                "grader_seed",
                0,
                int,
                "Seed of the order the grader sees the candidates in, and of the "
                "calibration questions.",
                for_scorer=True,
            ),
        ),
        label=_open_label,
        order="interleaved",
        refuses=_open_refuses,
        scorer=_open_scorer,
        sample_metadata=_grading,
        scored_as="graded",
        prompts=lambda settings: {"scoring/grader/prompt.py:GRADER_PROMPT": GRADER_PROMPT},
    ),
}
"""`-T answer=...`: how the model answers."""
