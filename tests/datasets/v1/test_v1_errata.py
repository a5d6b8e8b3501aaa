"""PersonaMem's known defects (`datasets/v1/errata.py`): which runs each touches, by
split and by the settings that read what is wrong (the history, the options shown)."""

from __future__ import annotations

from inspect_personamem.datasets.v1.errata import ERRATA
from inspect_personamem.datasets.v1.spec import PERSONAMEM


def touched(selection: str, **settings: str) -> list[str]:
    """Where each defect that touches a run of `selection` and `settings` was reported."""
    return [e.reported for e in ERRATA if e.applies(selection, settings)]


def test_the_release_carries_them() -> None:
    assert PERSONAMEM.errata == ERRATA
    assert len(ERRATA) == 6


def test_the_length_field_touches_no_run() -> None:
    (length,) = [e for e in ERRATA if e.reported == "authors' issue #26"]
    assert not any(
        length.applies(s, {"history": "full", "answer": "choice"}) for s in ("32k", "128k")
    )


def test_a_128k_run_reading_the_history_meets_the_context_defects() -> None:
    assert touched("128k", history="full", answer="choice") == [
        "authors' issue #34",
        "authors' issue #41",
        "a third party's inspection (no issue)",
    ]
    assert touched("128k", history="none", answer="choice") == ["authors' issue #41"]


def test_the_longest_option_touches_only_32k_runs_shown_the_options() -> None:
    longest = "the released file (no issue)"
    assert touched("32k", history="full", answer="choice") == [longest, longest]
    assert touched("32k", history="none", answer="open") == [longest]  # the duplicates
    assert touched("1M", history="full", answer="choice") == []
