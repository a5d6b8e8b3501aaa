"""`published.v3_published` against the transcription it was read from (the shared
excerpt, read where present): the same 32 numbers in the same rows, over 100; each with
its source: the eight the authors' RESULTS_SECTION states as the figure has them marked
so, the three it states otherwise carrying the text's value, the rest the figure's
alone."""

from __future__ import annotations

import re

import pytest
from support.helpers import SHARED_DATA

from inspect_personamem.datasets.v3.published import (
    CONFIRMED,
    TEXT,
    TRANSCRIBED,
    v3_published,
)

EXCERPT = SHARED_DATA / "personamem_v3" / "thirdparty_figure3_transcription.txt"
ROW = re.compile(r"\['([^']+)','[^']+','([^']+)','[^']+',([\d.]+),([\d.]+),([\d.]+),([\d.]+)\]")


def test_every_number_is_the_transcription_s_over_100() -> None:
    if not EXCERPT.is_file():
        pytest.skip(f"{EXCERPT} is absent (../shared beside the checkout)")
    rows = ROW.findall(EXCERPT.read_text(encoding="utf-8"))
    assert len(rows) == 8
    published = v3_published()
    assert len(published) == 8 * 4
    for index, (_, _, *values) in enumerate(rows):
        ours = published[4 * index : 4 * index + 4]
        assert [n.low for n in ours] == pytest.approx([float(v) / 100 for v in values])
        assert all(n.low == n.high and n.kind == "paper" for n in ours)
        assert ours[0].system.endswith(": Overall (micro)")


def test_the_numbers_the_authors_text_states_are_marked_stated() -> None:
    stated = {(n.model, n.system, n.shown) for n in v3_published() if n.source == CONFIRMED}
    assert stated == {
        ("Opus-4.8", "Claude Code High: Overall (micro)", "0.537"),
        ("GPT-5.5", "long context: Overall (micro)", "0.534"),
        ("GPT-5.5", "Codex High: Overall (micro)", "0.532"),
        ("GPT-5.5", "Codex High: proactive feed ranking (NDCG@5)", "0.353"),
        ("GPT-5.5", "long context: tracking preference changes", "0.731"),
        ("GPT-5.5", "Mem0: tracking preference changes", "0.569"),
        ("Opus-4.8", "Claude Code High: tracking preference changes", "0.657"),
        ("Sonnet-4.6", "Claude Code High: tracking preference changes", "0.646"),
    }


def test_the_three_the_text_states_otherwise_carry_the_text_s_value() -> None:
    differs = {
        (n.model, n.system, n.shown, n.source.rsplit(" states ", 1)[1])
        for n in v3_published()
        if n.source.startswith(f"{TRANSCRIBED}; {TEXT} states ")
    }
    assert differs == {
        ("GPT-5.5", "textual memory: tracking preference changes", "0.797", "79.9 instead"),
        ("GPT-5.5", "Codex High: tracking preference changes", "0.679", "66.0 instead"),
        (
            "Gemini-3.5-Flash",
            "textual memory: tracking preference changes",
            "0.674",
            "71.1 instead",
        ),
    }
    others = [n for n in v3_published() if n.source == TRANSCRIBED]
    assert len(others) == 32 - 8 - 3
    assert all("10 matched personas (ids 1, 2, 3, 5, 6, 8, 9, 10, 13, 14)" in n.deviations
               for n in v3_published())  # fmt: skip
