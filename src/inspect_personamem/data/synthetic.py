"""Random text and CSV files for the files the package generates in every version's
formats (`datasets/<version>/generator.py`): text that compresses as prose does, and a
CSV written as Python's csv writer and pandas write one."""

from __future__ import annotations

import csv
import itertools
import random
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

_WORDS = (
    "coffee", "garden", "weekend", "piano", "budget", "hiking", "novel", "recipe", "café",
    "sister", "project", "morning", "travel", "yoga", "painting", "market", "career", "jazz",
    "museum", "podcast", "friend", "river", "school", "kitchen", "city", "habit", "dream",
    "it's", "really", "prefer", "enjoy", "lately", "because", "always", "never", "maybe",
)  # fmt: skip
_DECOMPOSED = "cafe\u0301"  # an accent written as two code points, as in the real files


class Text:
    """Cheap random text: every sentence is drawn afresh from a Zipf-like law over a few
    thousand made-up words.

    Nothing repeats at long range, so the text compresses about as well as real prose
    does with zlib and zstd alike (about 0.3 of its size): a pool of ready-made
    sentences would fit in zstd's window and make logs look smaller than real ones.
    """

    ACCENT_EVERY = 2000
    """About one sentence in this many carries a decomposed accent, as real text does."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.vocabulary = list(_WORDS) + [
            "".join(rng.choices("abcdefghijklmnoprstuvwy", k=rng.randint(2, 9)))
            for _ in range(4000)
        ]
        self.cum_weights = list(
            itertools.accumulate(1 / (rank + 1) for rank in range(len(self.vocabulary)))
        )

    def sentence(self) -> str:
        if self.rng.randrange(self.ACCENT_EVERY) == 0:
            return f"I had a {_DECOMPOSED} au lait, which I'd recommend."
        words = self.rng.choices(
            self.vocabulary, cum_weights=self.cum_weights, k=self.rng.randint(6, 16)
        )
        return " ".join(words).capitalize() + "."

    def about(self, chars: int) -> str:
        parts: list[str] = []
        size = 0
        while size < chars:
            sentence = self.sentence()
            parts.append(sentence)
            size += len(sentence) + 1
        return " ".join(parts)


def write_table(
    path: Path,
    columns: Sequence[str],
    rows: Iterable[Mapping[str, Any]],
    *,
    line_end: str,
    last_line_end: bool,
) -> None:
    """Write a UTF-8 CSV file of `columns` as Python's csv writer (and pandas', which is
    it) writes one: a header, quotes only around a cell holding a comma, a quote or a
    line break, a quote inside doubled, None as an empty cell, any other value as
    `str()` (`True`, `42`); lines end with `line_end`, the last one only where
    `last_line_end`."""
    with path.open("w", encoding="utf-8", newline="") as file:
        writer = csv.DictWriter(file, fieldnames=columns, lineterminator=line_end)
        writer.writeheader()
        writer.writerows(rows)
    if not last_line_end:
        with path.open("rb+") as file:
            file.seek(-len(line_end.encode()), 2)
            file.truncate()
