"""Values kept while among the last used (`data/last_used.py`)."""

from __future__ import annotations

from functools import partial

import pytest

from inspect_personamem.data.last_used import LastUsed


def test_the_value_used_longest_ago_goes_first_and_before_the_next_is_made() -> None:
    kept: LastUsed[str, str] = LastUsed(2)
    made: list[str] = []

    def make(key: str) -> str:
        made.append(f"{key} with {len(kept._kept)} kept")
        return key.upper()

    for key in ("a", "b", "a", "c", "a", "b"):
        assert kept.get(key, partial(make, key)) == key.upper()
    # a was used again before c came, so b went; b came back once c went
    assert made == ["a with 0 kept", "b with 1 kept", "c with 1 kept", "b with 1 kept"]


def test_without_a_size_every_value_is_kept() -> None:
    kept: LastUsed[int, int] = LastUsed(None)
    made: list[int] = []

    def make(key: int) -> int:
        made.append(key)
        return key

    for key in [*range(50), *range(50)]:
        assert kept.get(key, partial(make, key)) == key
    assert made == list(range(50))
    with pytest.raises(ValueError, match="at least 1"):
        LastUsed(0)
