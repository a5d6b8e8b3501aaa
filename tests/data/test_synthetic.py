"""Random text and CSV files for the generators (`data/synthetic.py`): a table written
as Python's csv writer writes one, with the line ends asked for, and text of about the
length asked for, the same for the same seed."""

from __future__ import annotations

import csv
import random
import zlib
from pathlib import Path
from typing import Any

import pytest

from inspect_personamem.data.synthetic import Text, write_table


@pytest.mark.parametrize(
    ("line_end", "last", "expected"),
    [
        ("\r\n", True, b'a,b\r\n1,"x, y"\r\n,"say ""hi"""\r\nTrue,"two\nlines"\r\n'),
        ("\n", False, b'a,b\n1,"x, y"\n,"say ""hi"""\nTrue,"two\nlines"'),
    ],
)
def test_a_table_is_written_as_pythons_csv_writer_writes_one(
    tmp_path: Path, line_end: str, last: bool, expected: bytes
) -> None:
    path = tmp_path / "t.csv"
    rows: list[dict[str, Any]] = [
        {"a": 1, "b": "x, y"},
        {"a": None, "b": 'say "hi"'},
        {"a": True, "b": "two\nlines"},
    ]
    write_table(path, ["a", "b"], rows, line_end=line_end, last_line_end=last)
    assert path.read_bytes() == expected
    with path.open(newline="", encoding="utf-8") as file:
        assert list(csv.DictReader(file))[2] == {"a": "True", "b": "two\nlines"}


def test_a_tables_text_is_utf8(tmp_path: Path) -> None:
    path = tmp_path / "t.csv"
    write_table(path, ["w"], [{"w": "café"}], line_end="\n", last_line_end=False)
    assert path.read_bytes() == "w\ncafé".encode()


def test_text_is_about_the_length_asked_and_the_same_for_a_seed() -> None:
    text = Text(random.Random(5)).about(500)
    assert 500 <= len(text) < 500 + 200  # the sentence that passes the length ends it
    assert text.endswith(".") and text[0].isupper()
    assert Text(random.Random(5)).about(500) == text
    assert Text(random.Random(6)).about(500) != text
    assert Text(random.Random(5)).about(0) == ""


def test_text_compresses_about_as_prose_does() -> None:
    data = Text(random.Random(0)).about(200_000).encode()
    assert 0.2 < len(zlib.compress(data, 6)) / len(data) < 0.45
