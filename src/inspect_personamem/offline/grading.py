"""How the offline oracle grades when bound as the grader (`GRADINGS`, its `-M grading`):
by default the verdict that is right, read off the candidates themselves, for the run's
replies and every trial (`scoring/grader/trials.py`); or, to set a second grader beside
it, the first candidate shown, whatever the reply.

The right verdict: the candidate whose text the reply is; else the one candidate whose
every distinctive sentence (`trials.candidate_parts`, over the candidates as shown) the
reply holds; else none: a reply holding no candidate's own sentences (what all of them
share) or two candidates' (a mixed one, or the text of two candidates that are the
same) shares the assumptions of none of them alone.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from inspect_personamem.scoring.grader.prompt import GraderQuestion
from inspect_personamem.scoring.grader.trials import candidate_parts


def verbatim(question: GraderQuestion) -> int | None:
    """The candidate (0-based, as shown) whose text is the reply's, if exactly one is."""
    reply = question.reply.strip()
    texts = [text.strip() for text in question.candidates]
    return texts.index(reply) if texts.count(reply) == 1 else None


def right_verdict(question: GraderQuestion) -> int | None:
    """The candidate (0-based, as shown) the right verdict names; None: none."""
    found = verbatim(question)
    if found is not None:
        return found
    parts = candidate_parts(question.candidates)
    held = [
        i
        for i, own in enumerate(parts.distinctive)
        if own and all(sentence in question.reply for sentence in own)
    ]
    return held[0] if len(held) == 1 else None


def first_shown(question: GraderQuestion) -> int | None:
    """The first candidate shown, whatever the reply: a grader all position."""
    return 0


GRADINGS: Final[dict[str, Callable[[GraderQuestion], int | None]]] = {
    "right": right_verdict,
    "first": first_shown,
}
"""How the oracle grades, by its `-M grading`: the right verdict (the default), or the
first candidate shown."""


def verdict_answer(named: int | None) -> str:
    """A grader's answer naming candidate `named` (0-based), or none."""
    return f"<candidate>{'none' if named is None else named + 1}</candidate>"
