"""How the offline models read PersonaMem-v2: the oracle finds the query of a subset's
question file in the user message the task sends (`prompt.asked`) and, for
`answer=choice`, the options in the options message after it (system or user), and
answers `Final Answer: X`; the floor reads that options message.

The oracle's chance decays by the bin of the snippet-to-query distance, past the first
(`samples.distance_bin`: <1k, 1k-4k, 4k-8k, ...), at `-M length` (32k, the default,
or 128k: the question file holds both lengths' distances).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from inspect_ai.model import ChatMessage

from inspect_personamem.data.known import Asked, ChoicePrompt, Known, KnownQuestions
from inspect_personamem.datasets.v2 import prompt
from inspect_personamem.datasets.v2.records import V2Record, read_questions
from inspect_personamem.datasets.v2.samples import distance_bin_index
from inspect_personamem.datasets.v2.spec import Length, Subset
from inspect_personamem.errors import PersonaMemArgumentError


class V2Questions(KnownQuestions):
    """A subset's question file: the query in the user message the task sends
    (`asked`), and for `answer=choice` the options message after it."""

    def __init__(self, source: Path, subset: Subset, length: Length) -> None:
        super().__init__(source)
        self.answers: dict[str, list[Known]] = {}
        for record in read_questions(source, subset):
            self.answers.setdefault(prompt.asked(record.query), []).append(_known(record, length))

    def find(self, input: Sequence[ChatMessage]) -> Asked:
        last = input[-1].text
        if last in self.answers:  # the user's message alone: answer=open
            known = self.answers[last][0]
            return Asked(known, 1, known.options)
        shown = prompt.read_options_message(last)
        if shown is not None and len(input) > 1:
            for known in self.answers.get(input[-2].text, []):
                if sorted(shown) == sorted(known.options):
                    letters = (prompt.OPTION_LETTERS[shown.index(x)] for x in known.options)
                    return Asked(known, 2, tuple(map(prompt.final_answer, letters)))
        raise PersonaMemArgumentError(
            f"personamem/oracle: the prompt asks no question of {self.source}: its last "
            "messages are neither a query of the file alone nor a query and its options "
            f"message (the last begins {last[:80]!r}); "
            "point -M questions at the file the task reads"
        )


def _known(record: V2Record, length: Length) -> Known:
    """A row's answer: the correct option first, losing `decay` for each bin past the
    first of its snippet-to-query distance at `length`."""
    return Known(
        options=(record.correct_answer, *record.incorrect_answers),
        correct=0,
        decay_steps=distance_bin_index(record.distance_to_query(length)),
    )


def choice_prompt(input: Sequence[ChatMessage]) -> ChoicePrompt | None:
    """The options message and the query before it, read; None where the last message
    is no options message."""
    if len(input) < 2 or not input[-1].text.startswith(prompt.OPTIONS_INTRODUCTION):
        return None
    options = prompt.read_options_message(input[-1].text)
    if options is None:
        raise PersonaMemArgumentError("the PersonaMem-v2 options message does not hold options A-D")
    replies = tuple(prompt.final_answer(letter) for letter in prompt.OPTION_LETTERS)
    return ChoicePrompt(input[-2].text, options, 2, replies)
