"""PersonaMem's release (`datasets/v1/spec.py`): each split's file names, the split a
question file's name tells, how a copy differs from the released question and context
files (row by row where the release's rows are known), and what a folder must hold."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.helpers import EXCERPT, REAL_QUESTIONS, require

from inspect_personamem.datasets.v1.records import read_questions
from inspect_personamem.datasets.v1.spec import PERSONAMEM, DataSource


def test_each_split_names_its_two_files() -> None:
    assert PERSONAMEM.splits == ("32k", "128k", "1M")
    assert [PERSONAMEM.questions_file(s) for s in PERSONAMEM.splits] == [
        "questions_32k.csv",
        "questions_128k.csv",
        "questions_1M.csv",
    ]
    assert PERSONAMEM.contexts_file("1M") == "shared_contexts_1M.jsonl"
    assert (PERSONAMEM.repo_id, PERSONAMEM.license) == ("bowen-upenn/PersonaMem-v1", "MIT")


@pytest.mark.parametrize(
    ("path", "split"),
    [
        ("questions_32k.csv", "32k"),
        ("/data/elsewhere/questions_1M.csv", "1M"),
        ("questions_1m.csv", None),  # the split's own spelling only
        ("shared_contexts_128k.jsonl", None),
        ("questions_32k_excerpt.csv", None),
    ],
)
def test_the_split_of_a_question_file_is_told_by_its_name(path: str, split: str | None) -> None:
    assert PERSONAMEM.split_of_questions(Path(path)) == split


def test_a_cut_question_file_is_named_with_the_released_rows_it_lacks() -> None:
    records = read_questions(EXCERPT, "32k")
    assert len(records) == 8
    difference = PERSONAMEM.release_difference("32k", EXCERPT, records)
    assert difference is not None
    head, *rows = difference.split("; ")
    assert head == "8 rows where the released questions_32k.csv has 589 (581 missing: a cut file?)"
    assert rows and rows[0].startswith("581 released rows missing")


def test_where_the_released_rows_are_not_in_hand_the_count_alone_is_named() -> None:
    """128k's rows are known by count only: no row by row comparison follows."""
    records = read_questions(EXCERPT, "32k")
    assert PERSONAMEM.release_difference("128k", EXCERPT, records) == (
        "8 rows where the released questions_128k.csv has 2727 (2719 missing: a cut file?)"
    )


def test_the_real_question_file_is_the_released_one() -> None:
    path = require(REAL_QUESTIONS)
    assert PERSONAMEM.release_difference("32k", path, read_questions(path, "32k")) is None


def test_a_context_file_is_checked_by_its_count_then_what_is_known_of_its_bytes(
    tmp_path: Path,
) -> None:
    path = tmp_path / "contexts.jsonl"
    path.write_text('{"a": []}\n{"b": []}\n{"c": []}\n', encoding="utf-8")
    assert PERSONAMEM.contexts_difference("32k", path, 3) == (
        "3 contexts where the released shared_contexts_32k.jsonl has 37 (34 missing: a cut file?)"
    )
    assert PERSONAMEM.contexts_difference("32k", path, 37) == (
        "30 bytes where the released shared_contexts_32k.jsonl has 5,613,210 "
        "(5,613,180 fewer: a cut file?)"
    )
    assert PERSONAMEM.contexts_difference("1M", path, 33) is None  # its bytes are not known


def test_a_folder_must_hold_the_files_the_run_reads() -> None:
    assert DataSource("128k").wanted == (
        "the files questions_128k.csv and shared_contexts_128k.jsonl"
    )
    assert DataSource("128k", with_contexts=False).wanted == "the file questions_128k.csv"
    assert DataSource("32k").data_dir_env == "PERSONAMEM_DATA_DIR"
    assert DataSource("32k").spec is PERSONAMEM
