"""A question table's rows read from a UTF-8 CSV file, every fault named by file, line
and column (`data/csv_rows.py`)."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from inspect_personamem.data.csv_rows import parse_int, read_rows
from inspect_personamem.errors import PersonaMemDataError


def write(tmp_path: Path, data: bytes) -> Path:
    path = tmp_path / "questions.csv"
    path.write_bytes(data)
    return path


def test_rows_are_read_with_their_first_line_and_extra_columns_kept(tmp_path: Path) -> None:
    path = write(tmp_path, b'\xef\xbb\xbfquestion_id,text,extra\nq1,"two\nlines",x\nq2,b,y\n')
    rows = list(read_rows(path, {"question_id", "text"}))
    assert rows == [
        (2, {"question_id": "q1", "text": "two\nlines", "extra": "x"}),
        (4, {"question_id": "q2", "text": "b", "extra": "y"}),
    ]


def test_lines_before_the_header_are_skipped_and_lines_keep_the_file_count(
    tmp_path: Path,
) -> None:
    path = write(tmp_path, b'# version=2\r\nquestion_id,text\r\nq1,"two\r\nlines"\r\nq2,b\r\n')
    rows = list(read_rows(path, {"question_id", "text"}, preamble=1))
    assert rows == [
        (3, {"question_id": "q1", "text": "two\r\nlines"}),
        (5, {"question_id": "q2", "text": "b"}),
    ]
    bad = write(tmp_path, b"# version=2\nquestion_id,text\nq1,a\nq2\n")
    with pytest.raises(PersonaMemDataError, match="line 4, field 'text': value missing"):
        list(read_rows(bad, {"question_id", "text"}, preamble=1))


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        (b"question_id\nq1\n", "questions.csv: missing columns: text"),
        (b"question_id,text\nq1,a,b\n", "line 2, question_id q1, field '(row)': row has 1 more"),
        (b"question_id,text\nq1\n", "line 2, question_id q1, field 'text': value missing"),
        (b"question_id,text\nq1,caf\xe9\n", "line 2, question_id q1, field 'text': "),
        (b"question_id,te\xffxt\nq1,a\n", "line 1, field 'te"),
    ],
)
def test_a_row_at_fault_is_named_by_line_question_and_field(
    tmp_path: Path, data: bytes, problem: str
) -> None:
    path = write(tmp_path, data)
    with pytest.raises(PersonaMemDataError, match="questions.csv") as error:
        list(read_rows(path, {"question_id", "text"}, named_by_question_id=True))
    assert problem in str(error.value)
    if b"\xe9" in data or b"\xff" in data:
        assert "re-save it as UTF-8" in str(error.value)


def test_a_cell_over_the_csv_field_limit_is_named_by_its_column(tmp_path: Path) -> None:
    limit = csv.field_size_limit()
    long = b"x" * (limit + 1)
    path = write(tmp_path, b"question_id,text,more\nq1,a,b\nq2," + long + b",c\n")
    with pytest.raises(PersonaMemDataError) as error:
        list(read_rows(path, {"question_id", "text"}))
    assert f"line 3, field 'text': a field longer than {limit:,} characters" in str(error.value)


@pytest.mark.parametrize(("text", "value"), [("0", 0), ("-12", -12), ("007", 7)])
def test_an_integer_cell_is_digits_alone(text: str, value: int) -> None:
    assert parse_int(text) == value


@pytest.mark.parametrize("text", ["", "1.0", " 1", "1e3", "+1", "one"])
def test_anything_else_is_not_an_integer(text: str) -> None:
    with pytest.raises(ValueError, match="expected an integer"):
        parse_int(text)
