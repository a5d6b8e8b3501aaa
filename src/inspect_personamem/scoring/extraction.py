"""The official answer extraction of the PersonaMem evaluation script, exactly.

The text after the last `<final_answer>` (and before a trailing `</final_answer>`)
is searched for option letters: every `(x)`, or failing that every standalone
letter a-d, lower-cased. The answer is correct iff that set is exactly the correct
letter; if not, the same test is tried on the whole response. This reproduces the
official `score` column of a real 589-question run 589/589.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from inspect_personamem.data.options import FINAL_ANSWER_TAG, OPTION_LETTER

_CLOSING_TAG = FINAL_ANSWER_TAG.replace("<", "</", 1)
_BARE = re.compile(r"\b([a-d])\b")

ParseStatus = Literal["single", "none", "multiple"]


def option_letters(text: str) -> frozenset[str]:
    """Letters a-d named in `text`: those in parentheses, else the standalone ones."""
    lowered = text.lower()
    in_parens = OPTION_LETTER.findall(lowered)
    return frozenset(in_parens) if in_parens else frozenset(_BARE.findall(lowered))


def final_answer_segment(response: str) -> str:
    """The part of a response the official script reads first (its `predicted_answer`)."""
    segment = response.strip()
    if FINAL_ANSWER_TAG in segment:
        segment = segment.split(FINAL_ANSWER_TAG)[-1].strip()
    if segment.endswith(_CLOSING_TAG):
        segment = segment[: -len(_CLOSING_TAG)].strip()
    return segment


@dataclass(frozen=True)
class Judgement:
    """The verdict on one response and the evidence for it.

    `answer` is the letter set the verdict rests on: the final-answer segment's, or
    the whole response's where only that one decides (correct by the fallback, or
    a single letter only there).
    """

    correct: bool
    segment: str
    segment_letters: frozenset[str]
    response_letters: frozenset[str]
    answer: frozenset[str]

    @property
    def status(self) -> ParseStatus:
        """`single` if one letter was read, `none` if no letter, `multiple` if several."""
        if len(self.answer) == 1:
            return "single"
        return "none" if not self.answer else "multiple"

    def explanation(self, correct_letter: str) -> str:
        """Why the response was judged so, in words."""
        named = ", ".join(f"({x})" for x in sorted(self.answer))
        if self.correct:
            where = (
                "the final answer"
                if self.segment_letters == self.answer
                else ("the whole response (the official fallback)")
            )
            return f"Correct: {where} names only ({correct_letter})."
        if self.status == "none":
            return "Incorrect: no option letter found."
        if self.status == "multiple":
            return f"Incorrect: several option letters found: {named}."
        return f"Incorrect: answered {named}, expected ({correct_letter})."


def judge(response: str, correct_letter: str) -> Judgement:
    """Apply the official rule to a response, for a correct letter a-d."""
    segment = final_answer_segment(response)
    segment_letters = option_letters(segment)
    response_letters = option_letters(response)
    expected = frozenset(correct_letter)
    correct = expected in (segment_letters, response_letters)
    if correct:
        answer = expected
    elif len(segment_letters) != 1 and len(response_letters) == 1:
        answer = response_letters
    else:
        answer = segment_letters or response_letters
    return Judgement(correct, segment, segment_letters, response_letters, answer)
