"""PersonaMem's four answer options: parsing both serialisations its files use, and
rendering.

`all_options` is a list of four strings, `"(a) ..."` to `"(d) ..."`, written either
as JSON or as a Python literal with single quotes. Both round-trip exactly
(`json.dumps(..., ensure_ascii=False)` and `repr`) on the real 32k file, so a
reordered list can be written back in the row's own style.
"""

from __future__ import annotations

import ast
import json
from dataclasses import dataclass
from typing import Final, Literal

from inspect_personamem.data.options import LETTERS

COUNT: Final = 4
"""The options each PersonaMem question has."""
V1_LETTERS: Final = LETTERS[:COUNT]
"""Their letters, `a` to `d`."""
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
    if len(value) != COUNT:
        raise OptionsFormatError(f"expected 4 options, found {len(value)}")
    for letter, text in zip(V1_LETTERS, value, strict=True):
        if not text.startswith(f"({letter}) "):
            raise OptionsFormatError(f"option {letter} does not begin with '({letter}) '")
    return Options(texts=tuple(value), style="json" if style == "json" else "python")
