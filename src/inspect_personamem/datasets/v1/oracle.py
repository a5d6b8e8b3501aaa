"""How the offline models read PersonaMem: the oracle finds a question of a split's
question file in the official prompt (the question, and for `answer=choice` its four
options, in the last user message), the floor reads the official final user message.

The oracle's chance decays by the sessions elapsed since the fact asked about, past the
first (`distance_to_ref_in_blocks`). A question text asked over several histories is
told apart, when asked alone (`answer=open`), by its end index.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from inspect_ai.model import ChatMessage

from inspect_personamem.data.known import Asked, ChoicePrompt, Known, KnownQuestions
from inspect_personamem.data.options import final_answer
from inspect_personamem.datasets.v1.options import (
    V1_LETTERS,
    OptionsFormatError,
    parse_options,
)
from inspect_personamem.datasets.v1.prompt import INSTRUCTION
from inspect_personamem.datasets.v1.records import QuestionRecord
from inspect_personamem.datasets.v1.spec import PERSONAMEM
from inspect_personamem.datasets.v1.splits import Split
from inspect_personamem.errors import PersonaMemArgumentError

_SEPARATOR = f"\n\n{INSTRUCTION}\n\n"


class PersonaMemQuestions(KnownQuestions):
    """A split's question file: the question, and for `answer=choice` its options, in
    the last user message."""

    def __init__(self, source: Path, split: Split) -> None:
        super().__init__(source)
        self.answers = _answers(PERSONAMEM.read_questions(source, split))

    def find(self, input: Sequence[ChatMessage]) -> Asked:
        prompt = input[-1].text
        if prompt in self.answers:  # the user's message alone: answer=open
            known = _open_answer(self.answers[prompt], len(input) - 1)
            return Asked(known, 1, known.options)
        first = prompt.split("\n\n", 1)[0]
        texts = [first] if first in self.answers else [q for q in self.answers if q in prompt]
        for text in sorted(texts, key=len, reverse=True):
            for known in self.answers[text]:
                letters = _shown(known, prompt)
                if letters is not None:
                    return Asked(known, 1, tuple(final_answer(letter) for letter in letters))
        raise PersonaMemArgumentError(
            f"personamem/oracle: the last user message holds no question of {self.source} "
            f"with its four options (it begins {prompt[:80]!r}); "
            "point -M questions at the file the task reads"
        )


def _shown(known: Known, prompt: str) -> list[str] | None:
    """The letter `prompt` shows each option under; None unless all four show. Equal
    texts (a known defect of the data) take the letters in order."""
    letters: list[str] = []
    for option in known.options:
        forms = _option_forms(option)
        letter = next(
            (
                letter
                for letter in V1_LETTERS
                if letter not in letters and any(f"({letter}) {form}" in prompt for form in forms)
            ),
            None,
        )
        if letter is None:
            return None
        letters.append(letter)
    return letters


def _option_forms(text: str) -> tuple[str, ...]:
    """How an option's text can appear in a prompt: as is, or inside a JSON or Python
    literal of the option list (escaped quotes, backslashes, newlines)."""
    return (text, json.dumps(text, ensure_ascii=False)[1:-1], repr(text)[1:-1])


def _open_answer(answers: list[Known], history: int) -> Known:
    """The question a user's message asks after `history` messages: a text asked over
    several histories is told apart by its end index; with no history (or another
    count) the first is taken."""
    return next((a for a in answers if a.end_index == history), answers[0])


def _answers(records: list[QuestionRecord]) -> dict[str, list[Known]]:
    """Question text -> what is known of every question asking it (a text can be asked
    over several histories with other options)."""
    answers: dict[str, list[Known]] = {}
    for record in records:
        answers.setdefault(record.question, []).append(
            Known(
                options=record.options.bodies(),
                correct=V1_LETTERS.index(record.correct_letter),
                decay_steps=max(0, int(record.columns["distance_to_ref_in_blocks"]) - 1),
                end_index=record.end_index,
            )
        )
    return answers


def choice_prompt(input: Sequence[ChatMessage]) -> ChoicePrompt | None:
    """The official final user message (question, instruction, options), read; None
    where the last message holds no instruction."""
    question, separator, rendered = input[-1].text.partition(_SEPARATOR)
    if not separator:
        return None
    try:
        options = parse_options(rendered).bodies()
    except OptionsFormatError as ex:
        raise PersonaMemArgumentError(f"the options cannot be read ({ex})") from None
    replies = tuple(final_answer(letter) for letter in V1_LETTERS[: len(options)])
    return ChoicePrompt(question, options, 1, replies)
