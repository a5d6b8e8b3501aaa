"""The four answer options: parsing both serialisations the files use, and rendering.

`all_options` is a list of four strings, `"(a) ..."` to `"(d) ..."`, written either
as JSON or as a Python literal with single quotes. Both round-trip exactly
(`json.dumps(..., ensure_ascii=False)` and `repr`) on the real 32k file, so a
reordered list can be written back in the row's own style.
"""

from __future__ import annotations

import ast
import json
import random
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from inspect_ai.solver import TaskState

LETTERS = ("a", "b", "c", "d")
OPTION_LETTER = re.compile(r"\(([a-d])\)")
"""An option letter as the files and the official prompt write it: `(a)` to `(d)`."""
FINAL_ANSWER_TAG = "<final_answer>"
"""The token after which the official instruction asks for the answer."""
OptionsStyle = Literal["json", "python"]


class OptionsFormatError(ValueError):
    """`all_options` is not a list of four strings lettered (a) to (d) in order."""


@dataclass(frozen=True)
class Options:
    """Four option texts (each with its `(x) ` prefix) and the style they were written in."""

    texts: tuple[str, ...]
    style: OptionsStyle

    def render(self) -> str:
        """Serialise the options in their own style, as the official prompt shows them."""
        items = list(self.texts)
        return json.dumps(items, ensure_ascii=False) if self.style == "json" else repr(items)

    def bodies(self) -> tuple[str, ...]:
        """The option texts without their `(x) ` prefixes (`parse_options` checked them)."""
        return tuple(text[len("(a) ") :] for text in self.texts)

    def permuted(self, order: tuple[int, ...]) -> Options:
        """Options in a new order (`order[i]` = old index shown at position i), re-lettered."""
        bodies = self.bodies()
        texts = tuple(f"({LETTERS[i]}) {bodies[old]}" for i, old in enumerate(order))
        return Options(texts=texts, style=self.style)


def shown_options(state: TaskState) -> tuple[str, ...]:
    """The options of a sample as shown, in order: its choices (`Sample.choices`)."""
    return tuple(choice.value for choice in state.choices)


def lettered(options: Sequence[str]) -> list[str]:
    """Options written as a question file writes them: `(a) text`, ..."""
    return [f"({letter}) {text}" for letter, text in zip(LETTERS, options, strict=False)]


def parse_options(raw: str) -> Options:
    """Parse an `all_options` cell; raise OptionsFormatError saying what is wrong."""
    try:
        value, style = json.loads(raw), "json"
    except json.JSONDecodeError:
        try:
            value, style = ast.literal_eval(raw), "python"
        except (ValueError, SyntaxError, MemoryError, RecursionError) as ex:
            raise OptionsFormatError(
                f"neither JSON nor a Python literal ({type(ex).__name__})"
            ) from None
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise OptionsFormatError("not a list of strings")
    if len(value) != len(LETTERS):
        raise OptionsFormatError(f"expected 4 options, found {len(value)}")
    for letter, text in zip(LETTERS, value, strict=True):
        if not text.startswith(f"({letter}) "):
            raise OptionsFormatError(f"option {letter} does not begin with '({letter}) '")
    return Options(texts=tuple(value), style="json" if style == "json" else "python")


def shuffled_order(seed: int, question_id: str, count: int = len(LETTERS)) -> tuple[int, ...]:
    """A permutation of `count` options (PersonaMem's four by default) that depends only
    on the seed and the question."""
    order = list(range(count))
    random.Random(f"{seed}:{question_id}").shuffle(order)
    return tuple(order)


def final_answer(letter: str) -> str:
    """A reply naming `letter` as the official instruction asks (for methods that
    choose, not write)."""
    return f"{FINAL_ANSWER_TAG}({letter})"
