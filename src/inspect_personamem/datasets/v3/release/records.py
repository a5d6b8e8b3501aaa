"""PersonaMem-v3 query rows: `benchmark/{uid}/queries.csv`, each cell parsed by its kind.

The file's line 1 is `# queries_csv_version=2` (the authors' runner refuses any other,
`QUERIES_CSV_VERSION` in `evaluation/task_registry.py`@03237d09); then a header of 17
columns (`COLUMNS`), of which `display_rubric` is missing from older files (persona
115 @24abb253 has 16). The file's shape and encoding are `data.csv_rows.read_rows`'s
checks, a cell up to `MAX_CELL_CHARS` long; a cell that is not of its kind is a one-line
PersonaMemDataError naming the file, the line, the row's `query_id` and the column. The
kinds:

- `seq`, `ts`: decimal integers (`ts` unix seconds, the query's time: what the history
  is masked at); `ts_iso` must be the same instant, and the instance's own time
  (`instance_time`, where it has one) must be `ts` (else the query's time is unknown:
  `testjson` says why `ts` is the authors' time);
- `query_id`: `{user_id}:{seq:04d}:{instance_id}`, as every real row has it, unique in
  the file; `user_id` the same on every row (a file is one persona's);
- `task_type`: one of the 31 (`families.FIG4`), which gives the paper's family;
  `task_family`: one of the pipeline's codes (`families.FAMILY_CODES`);
- `rubric_tags`: `;`-joined names; `display_rubric` kept as text, since its bullets
  themselves hold `;` (the telegraph-avoidance bullet does);
- `instance_json`: a JSON object (ground truth, candidates, gold and inferior replies);
- the rest text, kept as released; `query_text` may be empty (ranking rows have none),
  `app_context` and `entry_point` empty read as None.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Final

from inspect_personamem.data.csv_rows import parse_int, read_rows
from inspect_personamem.datasets.v3.release.families import FAMILY_CODES, FAMILY_OF, Family
from inspect_personamem.errors import PersonaMemDataError

VERSION_LINE: Final = "# queries_csv_version=2"
COLUMNS: Final = (
    "query_id",
    "seq",
    "user_id",
    "task_family",
    "task_type",
    "instance_id",
    "ts",
    "ts_iso",
    "query_text",
    "app_context",
    "entry_point",
    "mcp_tools_allowed",
    "state_write_policy",
    "expected_response_kind",
    "rubric_tags",
    "display_rubric",
    "instance_json",
)
"""The columns of `queries.csv` version 2, in the released order."""
TIME_KEYS: Final = ("t_test", "test_timestamp", "source_timestamp", "t_probe", "t_late", "t_anchor")
"""The instance's time, the first of these that is a positive number: what the authors'
builder takes a row's `ts` from (`scripts/prepare_eval_data.py::_extract_ts`, in every
stored copy read, the queries.csv writers and the test.json one alike)."""
MAX_CELL_CHARS: Final = 64 * 1024 * 1024
"""The longest cell read (64 MiB). The real files' longest: `instance_json` of chatbot
rows carrying 48 hours of the persona's engagements (`post_test_window`), past the csv
module's 131,072 (persona 105's row 1 @7248ce91 runs past 174,000 characters; issue 49
reports persona 760's row 11 well past 131,072); a longer cell is an error naming the
file, the line and the column."""
OPTIONAL_COLUMNS: Final = frozenset({"display_rubric"})
"""Columns an older file lacks."""
_EXCERPT = 60
_NAME = re.compile(r"[A-Za-z0-9_@.\-]+")


@dataclass(frozen=True)
class V3Query:
    """One validated query row."""

    query_id: str
    seq: int
    user_id: str
    task_family: str
    """The pipeline's grouping (`families.FAMILY_CODES`), not the paper's (`family`)."""
    task_type: str
    instance_id: str
    ts: int
    """The query's time (unix seconds): its history is the events strictly before it."""
    ts_iso: str
    query_text: str
    app_context: str | None
    entry_point: str | None
    mcp_tools_allowed: str
    state_write_policy: str
    expected_response_kind: str
    rubric_tags: tuple[str, ...]
    display_rubric: str | None
    """None where the file has no such column."""
    instance: dict[str, Any]
    """`instance_json` parsed."""
    line: int | None = None
    """The row's first line in its file (for error messages)."""

    @property
    def family(self) -> Family:
        """The paper's family of the task type."""
        return FAMILY_OF[self.task_type]


def read_queries(path: Path) -> list[V3Query]:
    """Every row of a `queries.csv`, validated; raise on the first bad line or cell."""
    _check_version(path)
    required = [name for name in COLUMNS if name not in OPTIONAL_COLUMNS]
    queries: list[V3Query] = []
    seen: dict[str, int] = {}
    for line, row in read_rows(path, required, preamble=1, max_cell=MAX_CELL_CHARS):
        query = _query(path, line, row)
        if query.query_id in seen:
            raise _error(
                path, line, query.query_id, "query_id", f"repeats line {seen[query.query_id]}"
            )
        if queries and query.user_id != queries[0].user_id:
            raise _error(
                path,
                line,
                query.query_id,
                "user_id",
                f"{query.user_id!r} where line {queries[0].line} has {queries[0].user_id!r}"
                " (a file is one persona's)",
            )
        seen[query.query_id] = line
        queries.append(query)
    return queries


def _check_version(path: Path) -> None:
    try:
        with path.open(encoding="utf-8-sig", errors="surrogateescape", newline="") as file:
            first = file.readline().rstrip("\r\n")
    except OSError as ex:
        raise PersonaMemDataError(f"{path}: not readable ({ex.strerror or ex})") from None
    if first != VERSION_LINE:
        raise PersonaMemDataError.at(
            path, f"expected {VERSION_LINE!r} as the first line, found {shown(first)}", line=1
        )


def _query(path: Path, line: int, row: dict[str, str]) -> V3Query:
    query_id = row["query_id"]

    def fail(field: str, message: str) -> PersonaMemDataError:
        return _error(path, line, query_id or None, field, message)

    def parsed(field: str, parse: Any) -> Any:
        try:
            return parse(row[field])
        except ValueError as ex:
            raise fail(field, str(ex)) from None

    seq: int = parsed("seq", parse_int)
    ts: int = parsed("ts", parse_int)
    for field in ("user_id", "instance_id", "mcp_tools_allowed", "state_write_policy"):
        if not row[field]:
            raise fail(field, "empty")
    if row["expected_response_kind"] == "":
        raise fail("expected_response_kind", "empty")
    expected_id = f"{row['user_id']}:{seq:04d}:{row['instance_id']}"
    if query_id != expected_id:
        raise fail("query_id", f"expected {expected_id!r} (user_id:seq:instance_id)")
    if row["task_type"] not in FAMILY_OF:
        raise fail("task_type", f"{shown(row['task_type'])} is not one of the 31 task types")
    if row["task_family"] not in FAMILY_CODES:
        known = ", ".join(sorted(FAMILY_CODES))
        raise fail("task_family", f"{shown(row['task_family'])} is not one of {known}")
    if instant(row["ts_iso"]) != ts:
        raise fail("ts_iso", f"{shown(row['ts_iso'])} is not the instant of ts {ts}")
    instance = parsed("instance_json", _json_object)
    if (problem := time_problem(ts, instance)) is not None:
        raise fail("ts", problem)
    tags = tuple(row["rubric_tags"].split(";")) if row["rubric_tags"] else ()
    if not all(_NAME.fullmatch(tag) for tag in tags):
        raise fail("rubric_tags", f"expected ;-joined names, found {shown(row['rubric_tags'])}")
    return V3Query(
        query_id=query_id,
        seq=seq,
        user_id=row["user_id"],
        task_family=row["task_family"],
        task_type=row["task_type"],
        instance_id=row["instance_id"],
        ts=ts,
        ts_iso=row["ts_iso"],
        query_text=row["query_text"],
        app_context=row["app_context"] or None,
        entry_point=row["entry_point"] or None,
        mcp_tools_allowed=row["mcp_tools_allowed"],
        state_write_policy=row["state_write_policy"],
        expected_response_kind=row["expected_response_kind"],
        rubric_tags=tags,
        display_rubric=row.get("display_rubric"),
        instance=instance,
        line=line,
    )


def instance_time(instance: Mapping[str, Any]) -> int | None:
    """The instance's own time as the builder reads it (`TIME_KEYS`), or None."""
    for key in TIME_KEYS:
        value = instance.get(key)
        if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0:
            return int(value)
    return None


def time_problem(ts: int, instance: Mapping[str, Any]) -> str | None:
    """Why `ts` cannot be the query's time (the instance's own time is another), or None."""
    own = instance_time(instance)
    if own is None or own == ts:
        return None
    return (
        f"{ts} is not the instance's time {own} (its first of {', '.join(TIME_KEYS)}), which "
        "the builder takes ts from: the time its history is masked at is unknown"
    )


def instant(text: str) -> int | None:
    """Unix seconds of an ISO 8601 time with an offset, or None."""
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return None
    if moment.tzinfo is None:
        return None
    return int(moment.astimezone(timezone.utc).timestamp())


def _json_object(cell: str) -> dict[str, Any]:
    try:
        value = json.loads(cell)
    except (ValueError, RecursionError) as ex:
        raise ValueError(f"not JSON ({ex}): {shown(cell)}") from None
    if not isinstance(value, dict):
        raise ValueError(f"expected a JSON object, found {shown(cell)}")
    return value


def _error(
    path: Path, line: int, query_id: str | None, field: str, message: str
) -> PersonaMemDataError:
    where = [str(path), f"line {line}"]
    if query_id:
        where.append(f"query_id {shown(query_id)}")
    where.append(f"field '{field}'")
    return PersonaMemDataError(f"{', '.join(where)}: {message}")


def shown(cell: str) -> str:
    """The cell's start, on one line."""
    return repr(cell if len(cell) <= _EXCERPT else cell[:_EXCERPT] + "...")
