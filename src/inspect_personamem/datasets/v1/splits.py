"""The three PersonaMem splits, by context length."""

from __future__ import annotations

from typing import Literal, get_args

Split = Literal["32k", "128k", "1M"]
SPLITS: tuple[Split, ...] = get_args(Split)


def check_split(split: str) -> Split:
    """Return `split` typed as a Split, or raise naming the valid choices."""
    for known in SPLITS:
        if split == known:
            return known
    raise ValueError(f"Unknown PersonaMem split {split!r}; choose one of {', '.join(SPLITS)}.")
