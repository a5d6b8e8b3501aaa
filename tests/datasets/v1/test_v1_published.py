"""PersonaMem's published results (`datasets/v1/published.py`): the 128k tables read
cell by cell (overall, per question type, per sessions elapsed), the authors' memory
and retrieval numbers, the model names mapped, and which run is an instance of which
published method."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.helpers import SHARED_DATA, require

from inspect_personamem.datasets.v1.published import (
    BY_QUESTION_TYPE,
    BY_SESSIONS,
    DEFAULT_NAMES,
    PUBLISHED_CATEGORIES,
    published_method,
    published_methods,
    published_models,
)
from inspect_personamem.datasets.v1.question_types import (
    CATEGORIES,
    RECALL_FACTS,
    REVISIT_REASONS,
    TRACK_EVOLUTION,
)

PAPER = Path(__file__).resolve().parents[3] / "src/inspect_personamem/datasets/v1/paper"


def test_the_tables_are_read_cell_by_cell() -> None:
    models = published_models()
    gemini = models["Gemini-1.5-Flash"]
    assert gemini.overall == 0.52
    assert (gemini.sessions[1], gemini.sessions[20], len(gemini.sessions)) == (0.74, 0.48, 20)
    assert gemini.categories[REVISIT_REASONS] == 0.77
    assert models["GPT-4.5"].categories[TRACK_EVOLUTION] == 0.68
    assert models["Gemini-2.0-Flash"].categories[RECALL_FACTS] == 0.50
    assert set(models["GPT-4o"].categories) == set(CATEGORIES)


def test_every_default_name_and_row_title_is_in_the_tables() -> None:
    models = published_models()
    assert set(DEFAULT_NAMES.values()) <= set(models)
    assert {"GPT-4.1", "o4-mini"}.isdisjoint(models)  # not in the paper
    assert set(PUBLISHED_CATEGORIES.values()) == set(CATEGORIES)


def test_the_methods_are_the_authors_text_numbers() -> None:
    methods = published_methods()
    assert len(methods) == 8
    first = methods[0]
    assert (first.model, first.split, first.measure, first.method, first.accuracy) == (
        "GPT-4o",
        "32k",
        "macro",
        "no history",
        0.39,
    )
    assert {m.method for m in methods} <= {"no history", "full history", "rag", "memory (mem0)"}


@pytest.mark.parametrize("name", [BY_QUESTION_TYPE, BY_SESSIONS])
def test_the_shipped_tables_are_the_shared_copies(name: str) -> None:
    assert (PAPER / name).read_bytes() == require(SHARED_DATA / name).read_bytes()


@pytest.mark.parametrize(
    ("settings", "method"),
    [
        ({"history": "full", "answer": "choice"}, "full history"),
        ({"history": "none", "answer": "choice"}, "no history"),
        ({"history": "rag", "answer": "choice", "retriever": "bm25"}, "rag"),
        ({"history": "memory", "answer": "choice", "memory": "mem0"}, "memory (mem0)"),
        ({"history": "memory", "answer": "choice", "memory": "other"}, None),
        ({"history": "evidence", "answer": "choice"}, None),
        ({"history": "full", "answer": "open"}, None),  # the numbers are multiple-choice
        ({"history": "full", "answer": "logprob"}, None),
    ],
)
def test_which_published_method_a_run_is(settings: dict[str, str], method: str | None) -> None:
    assert published_method(settings) == method
