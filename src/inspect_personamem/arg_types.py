"""argparse types for the `inspect-personamem` subcommands: numbers within bounds; and
the options only some dataset versions take, added to a subcommand's parser."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from inspect_personamem.datasets.base import DatasetVersion
    from inspect_personamem.datasets.declared import ToolOption


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


def add_version_options(
    parser: argparse.ArgumentParser,
    by_flag: Mapping[str, tuple[ToolOption, Sequence[DatasetVersion[Any]]]],
) -> None:
    """Each option only some versions take (`declared.options_by_flag`), its help naming
    them."""
    for option, versions in by_flag.values():
        parser.add_argument(
            option.flag,
            type=option.type,
            choices=option.choices,
            help=f"{' and '.join(v.key for v in versions)}: {option.help}",
        )
