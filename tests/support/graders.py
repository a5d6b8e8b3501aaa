"""Stand-in graders for open answers: faithful, wrong or position-biased on purpose,
nonsense, failing; each a mockllm model that reads the grader prompt it is sent."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog
from inspect_ai.model import ChatMessage, Model

from inspect_personamem.scoring.grader.prompt import GraderQuestion, read_grader_prompt
from support.helpers import DISPLAY, mock_model

Rule = Callable[[GraderQuestion], str]


def _shown(question: GraderQuestion) -> int | None:
    """The number of the candidate whose text is the reply's (1-based), if any."""
    texts = [text.strip() for text in question.candidates]
    reply = question.reply.strip()
    return texts.index(reply) + 1 if reply in texts else None


def faithful(question: GraderQuestion) -> str:
    """Names the candidate that is the reply: what a perfect grader would."""
    shown = _shown(question)
    return f"The reply is candidate {shown}.\n<candidate>{shown or 'none'}</candidate>"


def wrong(question: GraderQuestion) -> str:
    """Names, whatever the order, the candidate whose text comes after the reply's in
    sorted order: never the right one, never swayed by position."""
    ranked = sorted(question.candidates)
    after = ranked[(ranked.index(question.reply) + 1) % len(ranked)]
    return f"<candidate>{question.candidates.index(after) + 1}</candidate>"


def first(question: GraderQuestion) -> str:
    """Names the first candidate shown, always: blind to the reply, all position."""
    return "<candidate>1</candidate>"


def nonsense(question: GraderQuestion) -> str:
    return "Turtles all the way down. <candidate>seven</candidate>"


def grader(rule: Rule) -> Model:
    """A grader model answering every grader prompt by `rule`."""

    def reply(messages: list[ChatMessage]) -> str:
        question = read_grader_prompt(messages[-1].text)
        assert question is not None, messages[-1].text[:200]
        return rule(question)

    return mock_model(reply, name="mockllm/grader")


def open_run(
    data: Path,
    log_dir: Path,
    roles: dict[str, Any] | None,
    accuracy: float = 1.0,
    limit: int | None = None,
    **task_args: Any,
) -> EvalLog:
    """A 32k `answer=open` run on `data`: the oracle replies with the correct
    candidate's text with probability `accuracy` (else another's), graded by the
    `grader` role."""
    (log,) = inspect_eval(
        "inspect_personamem/personamem_32k",
        task_args={"data_dir": str(data), "answer": "open", **task_args},
        model="personamem/oracle",
        model_args={"questions": str(data / "questions_32k.csv"), "accuracy": accuracy},
        model_roles=roles,
        limit=limit,
        log_dir=str(log_dir),
        display=DISPLAY,
        log_realtime=False,  # as `helpers.run_task`: no live sample buffer
    )
    return log


def metrics(log: EvalLog) -> dict[str, float]:
    assert log.results is not None, log.error
    return {name: m.value for name, m in log.results.scores[0].metrics.items()}
