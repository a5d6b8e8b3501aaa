"""Question rows: read the question CSV, validate every field, keep every column.

A row becomes a QuestionRecord; a bad row raises PersonaMemDataError naming the
file, the line, the question id and the field. Nothing is dropped or altered here:
the policies for rows that are valid CSV but odd (negative end index) live in
`dataset.py`, where they are applied and counted. The file's shape and encoding
(UTF-8, fields per row, the csv module's field size limit) are checked by
`data.csv_rows.read_rows`, every version's CSV reader.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from inspect_personamem.data.csv_rows import parse_int, read_rows
from inspect_personamem.data.options import OPTION_LETTER
from inspect_personamem.datasets.v1.options import Options, OptionsFormatError, parse_options
from inspect_personamem.datasets.v1.question_types import normalise_question_type
from inspect_personamem.datasets.v1.splits import Split
from inspect_personamem.errors import PersonaMemDataError

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

COUNT_COLUMNS = (
    "context_length_in_tokens",
    "context_length_in_letters",
    "distance_to_ref_in_tokens",
)
"""Integer columns only some runs read (the evidence's token rule, the cost estimate):
kept as the cell's text where it holds no integer, and checked by what reads them
(`QuestionRecord.count`), so a bad count stops only a run that reads it."""
INT_COLUMNS = tuple(
    name for name, kind in COLUMNS.items() if kind is int and name not in COUNT_COLUMNS
)
REQUIRED_COLUMNS = frozenset(COLUMNS)


@dataclass(frozen=True)
class QuestionRecord:
    """One validated question row. `columns` holds every CSV column, ints cast."""

    columns: dict[str, Any]
    category: str
    options: Options
    correct_letter: str
    line: int | None = None
    """The row's first line in its file (for error messages); None if not read from one."""
    file: Path | None = None
    """The file the row was read from (for error messages); None if not read from one."""

    def count(self, field: str) -> int:
        """The integer of one of `COUNT_COLUMNS`; raises PersonaMemDataError naming the
        file, line, question id and field where the cell holds none."""
        value = self.columns[field]
        if isinstance(value, int):
            return value
        raise PersonaMemDataError.at(
            self.file if self.file is not None else "(question row)",
            f"expected an integer, found {value!r}",
            line=self.line,
            question_id=self.question_id,
            field=field,
        )

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
    for line, row in read_rows(path, REQUIRED_COLUMNS, named_by_question_id=True):
        yield line, _record(path, split, row, line)


def _record(path: Path, split: Split, row: dict[str, str], line: int) -> QuestionRecord:
    question_id = row["question_id"] or None  # UTF-8 by now: shown as it is

    def fail(field: str, message: str) -> PersonaMemDataError:
        return PersonaMemDataError.at(
            path, message, line=line, question_id=question_id, field=field
        )

    if not question_id:
        raise fail("question_id", "empty question id")
    if not row["user_question_or_message"].strip():
        raise fail("user_question_or_message", "empty question text")

    columns: dict[str, Any] = dict(row)
    for name in INT_COLUMNS:
        try:
            columns[name] = parse_int(row[name])
        except ValueError as ex:
            raise fail(name, str(ex)) from None
    for name in COUNT_COLUMNS:
        with contextlib.suppress(ValueError):  # checked where read (`QuestionRecord.count`)
            columns[name] = parse_int(row[name])

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
        file=path,
    )
