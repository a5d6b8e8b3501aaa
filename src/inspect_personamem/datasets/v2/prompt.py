"""What the model is asked in PersonaMem-v2, as the authors' `inference.py` asks it.

After the persona's whole history: the query's `content` with the authors' sentence
appended (one leading space), as a user message. In the multiple-choice setting, then
the options, lettered `A.` to `D.` one per line, inside the authors' instruction, as a
final **system** message (`options_role="system"`); for providers that refuse a system
message there, `options_role="user"` sends the same text as a user message instead.

The options' order is seeded and repeatable: a shuffle by `random.Random` seeded with
(seed, persona, query). The authors shuffle with `random.seed(hash(...))`, and Python
salts `hash` of a string per process, so their order cannot be reproduced by anyone
(nor by them): no harness can claim their exact order.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from typing import Final

APPENDED_SENTENCE: Final = (
    " Please recall my related preferences from our conversation history to give "
    "personalized responses."
)
"""Appended by the authors to every query sent to the model under test."""

OPTIONS_INTRODUCTION: Final = "Please choose the best answer from the following options:"
OPTIONS_INSTRUCTION: Final = (
    "Think step by step about which answer best fits the user's query and conversation "
    "context. Provide your reasoning first, then give your final answer as 'Final "
    "Answer: [Letter]'"
)
"""The authors' words before and after the lettered options."""

OPTION_LETTERS: Final = ("A", "B", "C", "D")
_OPTION_LINE: Final = re.compile(r"^([A-D])\. (.*)$", re.MULTILINE)


def asked(query: str) -> str:
    """The user message the model under test gets: the query and the authors' sentence."""
    return query + APPENDED_SENTENCE


def options_message(options: Sequence[str]) -> str:
    """The final message of the multiple-choice setting: the options, lettered."""
    lettered = "\n".join(
        f"{letter}. {text}" for letter, text in zip(OPTION_LETTERS, options, strict=True)
    )
    return f"{OPTIONS_INTRODUCTION}\n\n{lettered}\n\n{OPTIONS_INSTRUCTION}"


def final_answer(letter: str) -> str:
    """An answer in the form the authors' instruction asks for, which their answer rule
    reads (for offline models that answer the options message)."""
    return f"Final Answer: {letter}"


def read_options_message(message: str) -> tuple[str, ...] | None:
    """The option texts of a message `options_message` wrote (for offline models that
    answer it); None for any other text."""
    if not message.startswith(f"{OPTIONS_INTRODUCTION}\n\n"):
        return None
    lettered = message.removeprefix(f"{OPTIONS_INTRODUCTION}\n\n").rpartition("\n\n")[0]
    found = _OPTION_LINE.findall(lettered)
    if [letter for letter, _ in found] != list(OPTION_LETTERS):
        return None
    return tuple(text for _, text in found)


def options_order(seed: int, persona_id: int, query: str) -> tuple[int, ...]:
    """The order of [correct, *incorrect] the options are shown in (`order[i]` is the
    index shown at letter i): fixed by the seed, the persona and the query."""
    order = list(range(len(OPTION_LETTERS)))
    random.Random(f"{seed}:{persona_id}:{query}").shuffle(order)
    return tuple(order)
