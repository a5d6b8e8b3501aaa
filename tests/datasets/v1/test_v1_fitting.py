"""Histories that fit real PersonaMem question rows (`datasets/v1/fitting.py`): each
question's evidence message in the session its row's distance names, before its end
index, where the v1 rule locates it; the session length a row allows."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.helpers import EXCERPT, REAL_QUESTIONS, require

from inspect_personamem.data.contexts import session_starts
from inspect_personamem.datasets.registry import VERSIONS
from inspect_personamem.datasets.v1.contexts import ContextStore
from inspect_personamem.datasets.v1.fitting import _fitting_length, write_fitting_contexts
from inspect_personamem.datasets.v1.generator import evidence_marker
from inspect_personamem.datasets.v1.records import read_questions


@pytest.mark.parametrize("source", ["excerpt", pytest.param("real", marks=pytest.mark.slow)])
def test_histories_fitting_real_rows_hold_each_questions_evidence(
    tmp_path: Path, source: str
) -> None:
    """What `try --questions` writes: the real distances located, each evidence session
    holding its question's message."""
    records = read_questions(EXCERPT if source == "excerpt" else require(REAL_QUESTIONS), "32k")
    path = tmp_path / "contexts.jsonl"
    write_fitting_contexts(path, [record.columns for record in records])
    store = ContextStore(path)
    for record in records:
        evidence = VERSIONS["v1"].evidence(record.columns, store)
        assert evidence.located, (record.question_id, evidence.where)
        marker = evidence_marker(record.question_id)
        assert len([m.text for m in evidence.shown if marker in m.text]) == 1
        # the rows' token counts are of the real histories: their sessions locate it
        assert evidence.rule == "sessions" and "is not the history's" in evidence.where


@pytest.mark.parametrize(
    ("end_index", "distance", "length"),
    [
        (182, 5, 45),  # 4 whole sessions of 45 before message 181: 180 messages
        (182, 2, 181),  # one session before its own
        (182, 1, 181),  # its own session: at least one
        (10, 4, 3),
    ],
)
def test_the_longest_sessions_a_row_allows(end_index: int, distance: int, length: int) -> None:
    row = {"end_index_in_shared_context": str(end_index), "distance_to_ref_in_blocks": distance}
    assert _fitting_length(row) == length


def test_each_context_of_the_rows_gets_one_history_its_sessions_opening_with_a_persona(
    tmp_path: Path,
) -> None:
    """The excerpt's 8 rows ask over 3 contexts; each history reaches past its rows'
    end indices, and is written the same for the same seed."""
    records = read_questions(EXCERPT, "32k")
    columns = [record.columns for record in records]
    first, again = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    write_fitting_contexts(first, columns, seed=3)
    write_fitting_contexts(again, columns, seed=3)
    assert first.read_bytes() == again.read_bytes()
    lines = [json.loads(line) for line in first.read_text(encoding="utf-8").splitlines()]
    ids = [next(iter(line)) for line in lines]
    assert sorted(ids) == sorted({r.columns["shared_context_id"] for r in records})
    store = ContextStore(first)
    for record in records:
        history = store.messages(record.columns["shared_context_id"])
        assert len(history) > record.end_index
        assert history[0].role == "system"
        assert len(session_starts([m.role for m in history])) >= int(
            record.columns["distance_to_ref_in_blocks"]
        )
