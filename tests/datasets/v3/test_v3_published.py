"""`published.v3_published` against the transcription it was read from (the shared
excerpt, read where present): the same 32 numbers in the same rows, over 100, and only
the four the authors' RESULTS_SECTION states marked as stated there."""

from __future__ import annotations

import re

import pytest
from support.helpers import SHARED_DATA

from inspect_personamem.datasets.v3.published import CONFIRMED, TRANSCRIBED, v3_published

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


def test_only_the_four_numbers_the_authors_state_are_marked_stated() -> None:
    stated = {(n.model, n.system, n.shown) for n in v3_published() if n.source == CONFIRMED}
    assert stated == {
        ("Opus-4.8", "Claude Code High: Overall (micro)", "0.537"),
        ("GPT-5.5", "long context: Overall (micro)", "0.534"),
        ("GPT-5.5", "Codex High: Overall (micro)", "0.532"),
        ("GPT-5.5", "Codex High: proactive feed ranking (NDCG@5)", "0.353"),
    }
    assert {n.source for n in v3_published()} == {CONFIRMED, TRANSCRIBED}
    assert all("10 matched personas" in n.deviations for n in v3_published())
