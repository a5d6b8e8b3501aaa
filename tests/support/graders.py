"""Stand-in graders for open answers, each a mockllm model that reads the grader prompt
it is sent: one that is faithful (right, by the offline oracle's rule), one biased to length, one to
position, one that never says none, one always wrong, one answering nonsense; and a
split whose candidates share sentences, so that every kind of trial applies."""

from __future__ import annotations

import csv
from collections.abc import Callable
from pathlib import Path
from typing import Any

from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog
from inspect_ai.model import ChatMessage, Model

from inspect_personamem.data.options import LETTERS
from inspect_personamem.datasets.v1.generator import write_questions
from inspect_personamem.datasets.v1.options import Options, parse_options
from inspect_personamem.offline.grading import first_shown, right_verdict, verbatim, verdict_answer
from inspect_personamem.scoring.grader.prompt import GraderQuestion, read_grader_prompt
from support.helpers import DISPLAY, mock_model

Rule = Callable[[GraderQuestion], str]

OPENING = "Thanks for telling me about this, it really helps me understand."
CLOSING = "Let me know how it goes, and we can adjust the plan together."
"""The sentences `shared_split` gives every candidate."""


def faithful(question: GraderQuestion) -> str:
    """Gives the right verdict (`offline.grading.right_verdict`), as the offline oracle
    does."""
    return verdict_answer(right_verdict(question))


def length_biased(question: GraderQuestion) -> str:
    """Names the candidate the reply is; unsure, the longest candidate (the first of
    equals)."""
    found = verbatim(question)
    if found is None:
        found = max(range(len(question.candidates)), key=lambda i: len(question.candidates[i]))
    return verdict_answer(found)


def never_none(question: GraderQuestion) -> str:
    """The right verdict where it names a candidate; where it is none, the candidate
    sharing the most words with the reply."""
    found = right_verdict(question)
    if found is None:
        words = set(question.reply.split())
        found = max(
            range(len(question.candidates)),
            key=lambda i: len(words & set(question.candidates[i].split())),
        )
    return verdict_answer(found)


def first(question: GraderQuestion) -> str:
    """Names the first candidate shown, always: blind to the reply, all position (as
    the offline oracle with `-M grading=first`)."""
    return verdict_answer(first_shown(question))


def wrong(question: GraderQuestion) -> str:
    """Names, whatever the order, the candidate whose text comes after the reply's in
    sorted order (after the first, for a reply no candidate is): never the right one,
    never swayed by position."""
    ranked = sorted(question.candidates)
    place = ranked.index(question.reply) if question.reply in ranked else 0
    return verdict_answer(question.candidates.index(ranked[(place + 1) % len(ranked)]))


def nonsense(question: GraderQuestion) -> str:
    return "Turtles all the way down. <candidate>seven</candidate>"


def grader(rule: Rule, name: str = "mockllm/grader") -> Model:
    """A grader model named `name` answering every grader prompt by `rule`."""

    def reply(messages: list[ChatMessage]) -> str:
        question = read_grader_prompt(messages[-1].text)
        assert question is not None, messages[-1].text[:200]
        return rule(question)

    return mock_model(reply, name=name)


def shared_split(data: Path) -> Path:
    """`data`'s 32k question file rewritten so that every candidate opens with
    `OPENING` and closes with `CLOSING`, as many real candidates share sentences."""
    path = data / "questions_32k.csv"
    with path.open(encoding="utf-8", newline="") as file:
        rows = list(csv.DictReader(file))
    for row in rows:
        options = parse_options(row["all_options"])
        texts = tuple(
            f"({letter}) {OPENING} {body} {CLOSING}"
            for letter, body in zip(LETTERS, options.bodies(), strict=False)
        )
        row["all_options"] = Options(texts, options.style).render()
    write_questions(path, rows)
    return data


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
