"""Answer options as every version shows them: lettered `(a)`, `(b)`, ... in the order
shown (a question of n options takes the first n letters), seeded reorders, and how a
chosen letter is written. How a version's files write its options is the version's
own (PersonaMem's `all_options` cell: `datasets/v1/options.py`).
"""

from __future__ import annotations

import random
import re
import string
from collections.abc import Sequence

from inspect_ai.solver import TaskState

LETTERS = tuple(string.ascii_lowercase)
"""The letters options are named by, in the order shown: a question of n options uses
the first n."""
OPTION_LETTER = re.compile(r"\(([a-d])\)")
"""An option letter as PersonaMem's files and official prompt write it, `(a)` to `(d)`:
what the official extraction reads."""
FINAL_ANSWER_TAG = "<final_answer>"
"""The token after which the official instruction asks for the answer."""


def shown_options(state: TaskState) -> tuple[str, ...]:
    """The options of a sample as shown, in order: its choices (`Sample.choices`)."""
    return tuple(choice.value for choice in state.choices)


def lettered(options: Sequence[str]) -> list[str]:
    """Options written as a question file writes them: `(a) text`, ..."""
    return [f"({letter}) {text}" for letter, text in zip(LETTERS, options, strict=False)]


def shuffled_order(seed: int, question_id: str, count: int) -> tuple[int, ...]:
    """A permutation of `count` options that depends only on the seed and the question."""
    order = list(range(count))
    random.Random(f"{seed}:{question_id}").shuffle(order)
    return tuple(order)


def final_answer(letter: str) -> str:
    """A reply naming `letter` as the official instruction asks (for methods that
    choose, not write)."""
    return f"{FINAL_ANSWER_TAG}({letter})"
