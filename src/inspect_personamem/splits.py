"""The three PersonaMem splits, where their files live and what they are called."""

from __future__ import annotations

from typing import Literal, get_args

Split = Literal["32k", "128k", "1M"]
SPLITS: tuple[Split, ...] = get_args(Split)

DEFAULT_REPO_ID = "bowen-upenn/PersonaMem"
"""Hugging Face dataset repository holding the released files."""

DEFAULT_REVISION = "2d676b2aeeddd1ee2ff4ff611bf867fcb2261d6e"
"""Pinned commit of DEFAULT_REPO_ID: results are comparable only on the same files."""

DATA_DIR_ENV = "PERSONAMEM_DATA_DIR"
"""Environment variable naming a local folder with the split files (air-gapped use)."""


def check_split(split: str) -> Split:
    """Return `split` typed as a Split, or raise naming the valid choices."""
    for known in SPLITS:
        if split == known:
            return known
    raise ValueError(f"Unknown PersonaMem split {split!r}; choose one of {', '.join(SPLITS)}.")


def questions_filename(split: Split) -> str:
    """File name of a split's question table, as in the dataset repository."""
    return f"questions_{split}.csv"


def contexts_filename(split: Split) -> str:
    """File name of a split's shared-context JSONL, as in the dataset repository."""
    return f"shared_contexts_{split}.jsonl"
