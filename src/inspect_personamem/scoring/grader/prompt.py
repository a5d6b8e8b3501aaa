"""The grader's prompt and how its answer is read.

The grader sees the user's message, the reply under test and the candidate replies of
the question (its options, in a seeded order, numbered from 1; PersonaMem's and
PersonaMem-v2's four), and names the candidate
whose assumptions about the user (facts, current preferences, circumstances) the
reply shares, or none. It does not see the history, nor which candidate is correct.
The prompt is ours; its text is versioned (`GRADER_PROMPT_VERSION`, logged with every
verdict) and printed in `docs/open-answers.md`, and a test holds the two equal.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Literal

GRADER_PROMPT_VERSION: Final = "1"
"""Bumped (with the task version) whenever the prompt's text or its reading changes."""

_COUNTS: Final = dict(enumerate(("two", "three", "four", "five", "six", "seven", "eight"), 2))
"""How the prompt writes a number of candidates (in digits beyond these)."""


def grader_prompt_text(count: int) -> str:
    """The grader's prompt for questions of `count` candidates; `{candidates}` is
    `<candidate_1>...</candidate_1>` to `<candidate_{count}>`, each on its own lines."""
    numbers = ", ".join(str(n) for n in range(1, count + 1))
    return _GRADER_TEMPLATE.format(
        count=_COUNTS.get(count, str(count)), numbers=numbers, message="{message}", reply="{reply}",
        candidates="{candidates}",
    )  # fmt: skip


_GRADER_TEMPLATE: Final = """\
You are checking what a chatbot's reply assumes about the user it is talking to.

The user has talked with the chatbot before. Below are the user's latest message, the \
chatbot's reply, and {count} candidate replies. The candidates differ in what they assume \
about the user: facts about them, their current preferences, their circumstances.

Decide which candidate's assumptions about the user the chatbot's reply shares. Judge \
only what the reply assumes about the user, not its quality, length, wording or style. \
If the reply shares the assumptions of none of the candidates, or of more than one \
equally, answer none.

<user_message>
{message}
</user_message>

<reply>
{reply}
</reply>

{candidates}

Think briefly if you need to, then end with your verdict on its own line, in exactly \
this form: <candidate>N</candidate>, where N is {numbers} or none."""

GRADER_PROMPT: Final = grader_prompt_text(4)
"""The grader's prompt for PersonaMem's and PersonaMem-v2's four candidates (the text a
results card records)."""

_VERDICT = re.compile(r"<candidate>\s*([^<]*?)\s*</candidate>", re.IGNORECASE)
_PROMPT = re.compile(
    r"<user_message>\n(?P<message>.*)\n</user_message>\n\n<reply>\n(?P<reply>.*)\n</reply>\n\n"
    r"(?P<candidates>(?:<candidate_\d+>\n.*\n</candidate_\d+>\n\n?)+)",
    re.DOTALL,
)
_CANDIDATE = re.compile(r"<candidate_(\d+)>\n(.*?)\n</candidate_\1>", re.DOTALL)

VerdictStatus = Literal["named", "none", "unreadable"]
"""A verdict: a candidate named; none of them; no verdict that can be read."""


@dataclass(frozen=True)
class Verdict:
    """What a grader answered: the position it named (0-based), if it named one."""

    status: VerdictStatus
    named: int | None = None


def grader_prompt(message: str, reply: str, candidates: Sequence[str]) -> str:
    """The prompt asking which of `candidates` (in the order shown) `reply` agrees with."""
    shown = "\n\n".join(
        f"<candidate_{i}>\n{text}\n</candidate_{i}>" for i, text in enumerate(candidates, 1)
    )
    return grader_prompt_text(len(candidates)).format(
        message=message, reply=reply, candidates=shown
    )


def read_verdict(answer: str, candidates: int) -> Verdict:
    """The grader's verdict: its last `<candidate>N</candidate>` (a grader may quote the
    form before answering), N a candidate's number or `none`; anything else, or no such
    tag, is unreadable."""
    found = _VERDICT.findall(answer)
    if not found:
        return Verdict("unreadable")
    said = found[-1].strip().lower()
    if said == "none":
        return Verdict("none")
    if said.isdigit() and 1 <= int(said) <= candidates:
        return Verdict("named", int(said) - 1)
    return Verdict("unreadable")


@dataclass(frozen=True)
class GraderQuestion:
    """What a grader prompt asks, read back out of it (for offline graders)."""

    message: str
    reply: str
    candidates: tuple[str, ...]


def read_grader_prompt(prompt: str) -> GraderQuestion | None:
    """The message, reply and candidates of a prompt `grader_prompt` wrote; None for
    any other text."""
    if not prompt.startswith(GRADER_PROMPT.split("\n", 1)[0]):
        return None
    found = _PROMPT.search(prompt)
    if found is None:
        return None
    candidates = tuple(text for _, text in _CANDIDATE.findall(found["candidates"]))
    return GraderQuestion(found["message"], found["reply"], candidates)
