"""Question rows: read the question CSV, validate every field, keep every column.

A row becomes a QuestionRecord; a bad row raises PersonaMemDataError naming the
file, the line, the question id and the field. Nothing is dropped or altered here:
the policies for rows that are valid CSV but odd (negative end index) live in
`dataset.py`, where they are applied and counted. The file is UTF-8 (a byte-order
mark at its start is allowed); a byte that is not UTF-8 is an error naming its row
and field, found by reading undecodable bytes as placeholders first. A cell longer
than the csv module's field size limit (131,072 characters unless the process raised
it) is an error naming its row and field; the limit is left as it is.
"""

from __future__ import annotations

import csv
import itertools
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import PersonaMemDataError
from .options import OPTION_LETTER, Options, OptionsFormatError, parse_options
from .question_types import normalise_question_type
from .splits import Split
from .utf8 import not_utf8, shown

COLUMNS: dict[str, type] = {
    "persona_id": int,
    "question_id": str,
    "question_type": str,
    "topic": str,
    "context_length_in_tokens": int,
    "context_length_in_letters": int,
    "distance_to_ref_in_blocks": int,
    "distance_to_ref_in_tokens": int,
    "num_irrelevant_tokens": int,
    "distance_to_ref_proportion_in_context": str,
    "user_question_or_message": str,
    "correct_answer": str,
    "all_options": str,
    "shared_context_id": str,
    "end_index_in_shared_context": int,
}
"""The record schema: the columns of a released question file, in order, and their types."""

INT_COLUMNS = tuple(name for name, kind in COLUMNS.items() if kind is int)
REQUIRED_COLUMNS = frozenset(COLUMNS)

_INTEGER = re.compile(r"-?[0-9]+")
_RESAVE = " (the file must be UTF-8; re-save it as UTF-8)"
_QUOTED = re.compile(r'"[^"]*(?:"|\Z)')
"""A quoted stretch of a CSV row, or one left open to the end of the text."""


@dataclass(frozen=True)
class QuestionRecord:
    """One validated question row. `columns` holds every CSV column, ints cast."""

    columns: dict[str, Any]
    category: str
    options: Options
    correct_letter: str
    line: int | None = None
    """The row's first line in its file (for error messages); None if not read from one."""

    @property
    def question_id(self) -> str:
        return str(self.columns["question_id"])

    @property
    def context_id(self) -> str:
        return str(self.columns["shared_context_id"])

    @property
    def end_index(self) -> int:
        return int(self.columns["end_index_in_shared_context"])

    @property
    def question(self) -> str:
        return str(self.columns["user_question_or_message"])


def read_questions(path: Path, split: Split) -> list[QuestionRecord]:
    """Read and validate every row of a question CSV; raise on the first bad field."""
    records: list[QuestionRecord] = []
    lines: dict[str, int] = {}
    for line, record in _iter_records(path, split):
        if record.question_id in lines:
            raise PersonaMemDataError.at(
                path,
                f"duplicate question id: also on line {lines[record.question_id]}",
                line=line,
                question_id=record.question_id,
                field="question_id",
            )
        lines[record.question_id] = line
        records.append(record)
    return records


def _iter_records(path: Path, split: Split) -> Iterator[tuple[int, QuestionRecord]]:
    """(first line of the row, its record) for every row."""
    with path.open(newline="", encoding="utf-8-sig", errors="surrogateescape") as file:
        reader = csv.DictReader(file)
        fieldnames: Sequence[str] = ()
        start = 1
        try:
            fieldnames = reader.fieldnames or ()
            for name in fieldnames:
                where = not_utf8(name)
                if where is not None:
                    raise PersonaMemDataError.at(
                        path, f"header: {where}{_RESAVE}", line=1, field=shown(name)
                    )
            missing = REQUIRED_COLUMNS - set(fieldnames)
            if missing:
                raise PersonaMemDataError.at(path, f"missing columns: {', '.join(sorted(missing))}")
            start = reader.line_num + 1
            for row in reader:
                yield start, _record(path, split, row, start)
                start = reader.line_num + 1
        except csv.Error as ex:
            # the csv reader's own count: DictReader's is updated only after a row is read
            raise _unreadable(path, ex, start, reader.reader.line_num, fieldnames) from None


def _unreadable(
    path: Path, error: csv.Error, start: int, end: int, fieldnames: Sequence[str]
) -> PersonaMemDataError:
    """The csv module's error on the row whose lines `start`..`end` it had read; for a
    field over its size limit, naming that field: the first of the row that long."""
    if not str(error).startswith("field larger than field limit"):
        return PersonaMemDataError.at(path, f"not readable as CSV ({error})", line=start)
    limit = csv.field_size_limit()  # read, never raised: a longer cell is not PersonaMem's
    with path.open(newline="", encoding="utf-8-sig", errors="surrogateescape") as file:
        text = "".join(itertools.islice(file, start - 1, end))
    # commas inside quotes separate nothing: mask the quoted stretches, keeping lengths
    masked = _QUOTED.sub(lambda quoted: "_" * len(quoted.group()), text)
    lengths = [len(field) for field in masked.split(",")]
    index = next((i for i, length in enumerate(lengths) if length > limit), len(fieldnames))
    return PersonaMemDataError.at(
        path,
        f"a field longer than {limit:,} characters, the most the csv module reads (a quote "
        "left open runs a field on into the rows after it)",
        line=start,
        field=shown(fieldnames[index]) if index < len(fieldnames) else None,
    )


def _record(path: Path, split: Split, row: dict[Any, Any], line: int) -> QuestionRecord:
    raw_id = row.get("question_id")
    question_id = shown(raw_id) if raw_id else None

    def fail(field: str, message: str) -> PersonaMemDataError:
        return PersonaMemDataError.at(
            path, message, line=line, question_id=question_id, field=field
        )

    if None in row:
        raise fail("(row)", f"row has {len(row[None])} more fields than the header")
    for name, value in row.items():
        if value is None:
            raise fail(name, "value missing: the row has fewer fields than the header")
        where = not_utf8(value)
        if where is not None:
            raise fail(name, where + _RESAVE)
    if not question_id:
        raise fail("question_id", "empty question id")
    if not row["user_question_or_message"].strip():
        raise fail("user_question_or_message", "empty question text")

    columns: dict[str, Any] = dict(row)
    for name in INT_COLUMNS:
        if not _INTEGER.fullmatch(row[name]):
            raise fail(name, f"expected an integer, found {row[name]!r}")
        columns[name] = int(row[name])

    answer = OPTION_LETTER.fullmatch(row["correct_answer"])
    if answer is None:
        raise fail("correct_answer", f"expected one of (a)-(d), found {row['correct_answer']!r}")
    try:
        options = parse_options(row["all_options"])
    except OptionsFormatError as ex:
        raise fail("all_options", str(ex)) from None
    try:
        category = normalise_question_type(split, row["question_type"])
    except KeyError:
        raise fail(
            "question_type", f"unknown question type {row['question_type']!r} for split {split}"
        ) from None
    return QuestionRecord(
        columns=columns,
        category=category,
        options=options,
        correct_letter=answer.group(1),
        line=line,
    )
