"""PersonaMem-v2's multiple-choice answer rule, as the authors' `inference.py` reads it.

Their patterns are tried in order, each case-insensitive and multi-line, and the
first that matches anywhere gives the letter, upper-cased; none matching gives no
answer. Correct iff the option shown under that letter is the correct answer.
Case-insensitivity makes `Answer: the ...` read as `T`, a letter no option has: the
official rule is kept, and what was read is logged (`status` `not_an_option`), so a
report can count it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final, Literal

ANSWER_PATTERNS: Final = (
    r"\$\\boxed\{([A-Z])\}\$",
    r"\\boxed\{([A-Z])\}",
    r"Final Answer:\s*([A-Z])",
    r"final answer:\s*([A-Z])",
    r"Answer:\s*([A-Z])",
    r"answer:\s*([A-Z])",
    r"final answer is\s*\$?\\boxed\{([A-Z])\}\$?",
    r"final answer is\s*([A-Z])",
    r"the answer is\s*\$?\\boxed\{([A-Z])\}\$?",
    r"the answer is\s*([A-Z])",
    r"\b([A-Z])\.\s*$",
)
"""The authors' patterns, in their order."""

_COMPILED: Final = tuple(re.compile(p, re.IGNORECASE | re.MULTILINE) for p in ANSWER_PATTERNS)

ReadStatus = Literal["option", "not_an_option", "none"]
"""A letter of an option was read; a letter no option has; nothing."""


@dataclass(frozen=True)
class Reading:
    """What the rule read from a reply."""

    letter: str | None
    """Upper-cased, as the authors' code leaves it; None when no pattern matched."""
    pattern: int | None
    """Index in `ANSWER_PATTERNS` of the pattern that matched."""
    status: ReadStatus


def read_answer(reply: str, options: int = 4) -> Reading:
    """The letter the authors' rule reads from `reply`, with `options` options lettered
    from A."""
    for index, pattern in enumerate(_COMPILED):
        found = pattern.search(reply)
        if found:
            letter = found.group(1).upper()
            status: ReadStatus = "option" if ord(letter) - ord("A") < options else "not_an_option"
            return Reading(letter, index, status)
    return Reading(None, None, "none")
