"""A question table's rows: read a UTF-8 CSV file, check its shape and encoding.

Shared by every dataset version's row reader (its `records`), which then
parses the cells of a row. The file is UTF-8 (a byte-order mark at its start is
allowed); a byte that is not UTF-8 is an error naming its row and column, found by
reading undecodable bytes as placeholders first. A row with more or fewer fields than
the header is an error. A cell longer than the most a caller takes (`max_cell`: a
version whose real files hold longer cells names its bound, PersonaMem-v3 64 MiB) or,
where it names none, than the csv module's field size limit (131,072 characters unless
the process raised it) is an error naming its row and column; the process's limit is as
it was once the rows are read. Columns besides the required ones are allowed and kept. Lines
before the header (`preamble`, such as PersonaMem-v3's `# queries_csv_version=2`) are
skipped, their check left to the caller; line numbers stay the file's.
"""

from __future__ import annotations

import csv
import itertools
import re
from collections.abc import Collection, Iterator, Sequence
from pathlib import Path
from typing import Any

from inspect_personamem.data.utf8 import not_utf8, shown
from inspect_personamem.errors import PersonaMemDataError

RESAVE = " (the file must be UTF-8; re-save it as UTF-8)"
_INTEGER = re.compile(r"-?[0-9]+")
_QUOTED = re.compile(r'"[^"]*(?:"|\Z)')
"""A quoted stretch of a CSV row, or one left open to the end of the text."""


def read_rows(
    path: Path,
    columns: Collection[str],
    *,
    named_by_question_id: bool = False,
    preamble: int = 0,
    max_cell: int | None = None,
) -> Iterator[tuple[int, dict[str, str]]]:
    """(first line of the row, the row) for every row of the CSV file at `path`, whose
    header (after `preamble` lines) must name every one of `columns`; a cell may hold up
    to `max_cell` characters (None: the csv module's limit, as it is).

    Errors name the file, the line and the column; with `named_by_question_id`, also
    the row's `question_id` cell (for a version whose rows are known by it)."""
    before = csv.field_size_limit() if max_cell is None else csv.field_size_limit(max_cell)
    limit = csv.field_size_limit()
    reader = "the csv module" if max_cell is None else "the reader of this file's version"
    try:
        yield from _rows(path, columns, named_by_question_id, preamble, (limit, reader))
    finally:  # the process's limit as it was, however the reading ends
        csv.field_size_limit(before)


def _rows(
    path: Path,
    columns: Collection[str],
    named_by_question_id: bool,
    preamble: int,
    limit_read: tuple[int, str],
) -> Iterator[tuple[int, dict[str, str]]]:
    with path.open(newline="", encoding="utf-8-sig", errors="surrogateescape") as file:
        for _ in range(preamble):
            file.readline()
        reader = csv.DictReader(file)
        fieldnames: Sequence[str] = ()
        start = preamble + 1
        try:
            fieldnames = reader.fieldnames or ()
            for name in fieldnames:
                where = not_utf8(name)
                if where is not None:
                    raise PersonaMemDataError.at(
                        path, f"header: {where}{RESAVE}", line=start, field=shown(name)
                    )
            missing = set(columns) - set(fieldnames)
            if missing:
                raise PersonaMemDataError.at(path, f"missing columns: {', '.join(sorted(missing))}")
            start = preamble + reader.line_num + 1
            for row in reader:
                yield start, _checked(path, row, start, named_by_question_id)
                start = preamble + reader.line_num + 1
        except csv.Error as ex:
            # the csv reader's own count: DictReader's is updated only after a row is read
            end = preamble + reader.reader.line_num
            raise _unreadable(path, ex, start, end, fieldnames, limit_read) from None


def parse_int(text: str) -> int:
    """A cell holding a decimal integer (an optional minus, digits, nothing else)."""
    if not _INTEGER.fullmatch(text):
        raise ValueError(f"expected an integer, found {text!r}")
    return int(text)


def _checked(
    path: Path, row: dict[Any, Any], line: int, named_by_question_id: bool
) -> dict[str, str]:
    """`row` with as many fields as the header, all of them UTF-8."""
    raw_id = row.get("question_id") if named_by_question_id else None
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
            raise fail(name, where + RESAVE)
    return row


def _unreadable(
    path: Path,
    error: csv.Error,
    start: int,
    end: int,
    fieldnames: Sequence[str],
    limit_read: tuple[int, str],
) -> PersonaMemDataError:
    """The csv module's error on the row whose lines `start`..`end` it had read; for a
    field over the size limit it read with (`limit_read`: the limit, whose it is),
    naming that field: the first of the row that long."""
    limit, reader = limit_read
    if not str(error).startswith("field larger than field limit"):
        return PersonaMemDataError.at(path, f"not readable as CSV ({error})", line=start)
    with path.open(newline="", encoding="utf-8-sig", errors="surrogateescape") as file:
        text = "".join(itertools.islice(file, start - 1, end))
    # commas inside quotes separate nothing: mask the quoted stretches, keeping lengths
    masked = _QUOTED.sub(lambda quoted: "_" * len(quoted.group()), text)
    lengths = [len(field) for field in masked.split(",")]
    index = next((i for i, length in enumerate(lengths) if length > limit), len(fieldnames))
    return PersonaMemDataError.at(
        path,
        f"a field longer than {limit:,} characters, the most {reader} reads (a quote left "
        "open runs a field on into the rows after it)",
        line=start,
        field=shown(fieldnames[index]) if index < len(fieldnames) else None,
    )
