"""The released 32k rows the package ships (their ids, lengths and digests, no text) and
how a question file's rows are told apart from them."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from support.helpers import REAL_QUESTIONS, require

from inspect_personamem.datasets.v1.records import QuestionRecord, read_questions
from inspect_personamem.datasets.v1.released_rows import (
    released_rows,
    row_differences,
    table_path,
    write_table,
)


def real_records() -> list[QuestionRecord]:
    return read_questions(require(REAL_QUESTIONS), "32k")


def test_the_shipped_table_is_the_real_file_s(tmp_path: Path) -> None:
    """What scripts/released_rows.py writes from the byte-exact file, byte for byte."""
    written = tmp_path / "rows.tsv"
    write_table(written, real_records())
    assert written.read_bytes() == table_path("questions_32k.csv").read_bytes()


def test_the_released_rows_differ_in_nothing() -> None:
    released = released_rows("questions_32k.csv")
    assert released is not None and len(released) == 589
    assert row_differences(real_records(), released) == []
    assert released_rows("questions_128k.csv") is None  # not in hand


def test_missing_changed_added_and_reordered_rows_are_named() -> None:
    released = released_rows("questions_32k.csv")
    assert released is not None
    records = real_records()
    first, second = records[0], records[1]
    edited = dataclasses.replace(
        second, columns={**second.columns, "topic": second.columns["topic"] + "x"}
    )
    added = dataclasses.replace(first, columns={**first.columns, "question_id": "new"}, line=9)
    assert row_differences([edited, *records[2:], added], released) == [
        f"1 released row missing, the first question {first.question_id}",
        f"the row of question {second.question_id} at line {second.line} differs from the "
        "released row (1 character longer)",
        "1 row the release does not hold, the first question new at line 9",
    ]
    assert row_differences(records[::-1], released) == ["the released rows in another order"]
    assert row_differences([added], released) == ["none of its rows is a released row"]
