"""argparse types for the `inspect-personamem` subcommands: numbers within bounds."""

from __future__ import annotations

import argparse
from collections.abc import Callable


def bounded(
    kind: type[int] | type[float], low: float, *, strict: bool = False, high: float | None = None
) -> Callable[[str], float]:
    """An argparse type: a number of `kind` above `low` (or at least `low`), at most `high`."""
    needed = f"{'more than' if strict else 'at least'} {low:g}"

    def parse(text: str) -> float:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"{text!r} is not {'an integer' if kind is int else 'a number'}"
            ) from None
        if value < low or (strict and value == low):
            raise argparse.ArgumentTypeError(f"{text} is too small: {needed} needed")
        if high is not None and value > high:
            raise argparse.ArgumentTypeError(f"{text} is too large: at most {high:g}")
        return value

    parse.__name__ = kind.__name__  # argparse names the type in its messages
    return parse


COUNT = bounded(int, 0)
POSITIVE_COUNT = bounded(int, 1)
AMOUNT = bounded(float, 0)
DURATION = bounded(float, 0, strict=True)
PROBABILITY = bounded(float, 0, high=1)
