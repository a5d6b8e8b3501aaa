"""PersonaMem-v3 query rows as the hub releases them: `backend/{uid}/test.json`, read into
the same `records.V3Query` a checkout's `queries.csv` gives.

Sources (bowen-upenn/PersonaMem-v3; stored copies the search index reads, by its id where
the copy's commit was not shown):
- the writer: `scripts/prepare_eval_data.py`, the copy whose docstring says test.json is
  "the SINGLE entry point" and queries.csv "no longer written" (47,755 characters, id
  58561313856): each instance's time `ts` is `_extract_ts(inst)`, the first positive of
  `t_test`, `test_timestamp`, `source_timestamp`, `t_probe`, `t_late`, `t_anchor`
  (`records.TIME_KEYS`; one hour before the latest for an instance with none); rows
  sorted by `ts`, then a hash of the instance id; `query_id` is
  `{uid}:{seq:04d}:{instance_id}`, `seq` the row's place.
  `data_preparation/visualize.py::dump_test_samples_json` (184,088 characters, id
  58521711684) turns each row into a test.json item: `query_id`, `task_family`,
  `task_type`, `ts`, `ts_iso`, `user_query`, the gold and inferior replies and ground
  truth for reviewers, and `instance_full`, the instance itself.
- `scripts/add_sycophancy_to_test.py`@be786102 splices rows into a test.json, re-sorts it
  the same way and re-derives every `query_id` from the row's place; its rows carry
  `rubric_tags` as one string where the others have a list.
  `scripts/add_chatbot_personalized_to_test.py`@846bb49a appends rows at the end, out of
  time order, each `query_id` naming its new place: a file need not be in time order (a
  query is masked at its own `ts` wherever it stands). Other appends leave the
  `query_id` not naming the place: `scripts/add_missing_tasks_surgical.py`@846bb49a
  (short_vs_long_term_lifecycle, new suggestions) and
  `scripts/add_chatbot_suggestions.py`@8e2a111f (new_suggestions_chatbot) write
  `{uid}:append:{instance_id}`, and `scripts/add_personal_qa_hallucination.py`@40129ef6
  numbers its rows after the last and then sorts the file by `ts`. So a `query_id` is
  `{uid}:<number>:{instance_id}` or `{uid}:append:{instance_id}`, unique in the file
  (the runner's resume keys on it), its number not checked against the place.
- `scripts/export_hf_release.py` (the newest stored copy, "full 100-persona cohort", id
  58522092939) copies test.json to the hub verbatim and lists the top-level keys a row
  may have (`_QUERY_CONSUMED`); `user_id`, `instance_id`, `seq`, `app_context`,
  `entry_point` and the task registry's columns are there only "on a handful of rows".
- the reader: `evaluation/run_eval.py`@07bce3cd (`_load_queries`) requires a JSON list,
  takes `seq` from the row's place, hands `instance_full` to the task's runner (with the
  row's `user_query` put back where the instance lacks it) and sets the MCP servers'
  time mask `PM3_T_TEST` to the row's `ts`. It skips an item that is not an object and
  runs an item without `instance_full` as its own instance; every row the export lists
  has one, so here either is an error rather than a guess.

Which time masks the history: `ts`. The runners read the instance's own time
(`chatbot_response.py`@b8066320 masks at `inst["source_timestamp"]`, the tool-call checks
at `t_test`, else `test_timestamp`, else `source_timestamp`), and `ts` is that time as
the builder took it, so the two agree on every row as built; a row where the instance's
time differs from `ts` is not as the builder writes it, and which of the two the
authors' harness would mask at depends on the mode, so it is refused (field `ts`).

Our `V3Query` from a row: `seq` its place; `user_id` the persona whose folder holds the
file (a row's own `user_id`, where present, must be it); `instance_id` the row's, else
the `query_id`'s third part; `query_text` the row's `user_query` (None read as empty);
`app_context` and `entry_point` the row's, else as `prepare_eval_data.py::_project_row`
derives them from the instance (`app`, else `target_app`; `entry_point`, else
`query_type`); `mcp_tools_allowed`, `state_write_policy` and `expected_response_kind`
the row's, else empty (the task registry's columns are not in most rows, and nothing
here reads them but the scorers' copy); `display_rubric` the row's, else None;
`instance` the `instance_full`. Each malformed cell is a one-line PersonaMemDataError
naming the file, the persona, the item, its query_id and the field.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from inspect_personamem.datasets.v3.release.families import FAMILY_CODES
from inspect_personamem.datasets.v3.release.records import (
    V3Query,
    instant,
    shown,
    task_type_problem,
    time_problem,
)
from inspect_personamem.errors import PersonaMemDataError

_QUERY_ID = re.compile(r"(?P<uid>[^:]+):(?:\d{4,}|append):(?P<iid>.+)", re.DOTALL)
_NAME = re.compile(r"[A-Za-z0-9_@.\-]+")


def read_test_json(path: Path, uid: str) -> list[V3Query]:
    """Every item of persona `uid`'s `test.json`, validated; raise on the first bad cell."""
    try:
        items = json.loads(path.read_text(encoding="utf-8"))
    except OSError as ex:
        raise PersonaMemDataError(f"{path}: not readable ({ex.strerror or ex})") from None
    except (ValueError, RecursionError) as ex:
        raise PersonaMemDataError(f"{path}, persona {uid}: not JSON ({ex})") from None
    if not isinstance(items, list):
        raise PersonaMemDataError(
            f"{path}, persona {uid}: expected a JSON list of test items, found "
            f"{type(items).__name__}"
        )
    queries = [_query(path, uid, seq, item) for seq, item in enumerate(items)]
    first: dict[str, int] = {}
    for query in queries:
        seen = first.setdefault(query.query_id, query.seq)
        if seen != query.seq:
            raise _error(path, uid, query.seq, query.query_id, "query_id", f"repeats item {seen}")
    return queries


def _query(path: Path, uid: str, seq: int, item: Any) -> V3Query:
    if not isinstance(item, dict):
        raise _error(path, uid, seq, None, "item", f"expected a JSON object, found {item!r:.60}")
    raw_id = item.get("query_id")
    query_id = raw_id if isinstance(raw_id, str) else None

    def fail(field: str, message: str) -> PersonaMemDataError:
        return _error(path, uid, seq, query_id, field, message)

    def text(field: str, *, required: bool = False) -> str | None:
        value = item.get(field)
        if value is None or (value == "" and not required):
            if required:
                raise fail(field, "missing")
            return None
        if not isinstance(value, str) or not value:
            raise fail(field, f"expected text, found {value!r:.60}")
        return value

    if query_id is None:
        raise fail("query_id", "missing" if raw_id is None else f"expected text, found {raw_id!r}")
    match = _QUERY_ID.fullmatch(query_id)
    if match is None or match["uid"] != uid:
        raise fail(
            "query_id",
            f"expected '{uid}:<number>:<instance_id>' or '{uid}:append:<instance_id>'",
        )
    user_id = text("user_id") or uid
    if user_id != uid:
        raise fail("user_id", f"{user_id!r} in persona {uid}'s file")
    task_type = text("task_type", required=True)
    if (problem := task_type_problem(str(task_type))) is not None:
        raise fail("task_type", problem)
    task_family = text("task_family", required=True)
    if task_family not in FAMILY_CODES:
        raise fail("task_family", f"{shown(str(task_family))} is not one of {sorted(FAMILY_CODES)}")
    ts = item.get("ts")
    if not isinstance(ts, int) or isinstance(ts, bool) or ts <= 0:
        raise fail("ts", f"expected unix seconds (a positive integer), found {ts!r:.60}")
    ts_iso = text("ts_iso", required=True)
    if instant(str(ts_iso)) != ts:
        raise fail("ts_iso", f"{shown(str(ts_iso))} is not the instant of ts {ts}")
    instance = item.get("instance_full")
    if not isinstance(instance, dict):
        raise fail("instance_full", f"expected a JSON object, found {instance!r:.60}")
    if (problem := time_problem(ts, instance)) is not None:
        raise fail("ts", problem)
    user_query = item.get("user_query")
    if user_query is not None and not isinstance(user_query, str):
        raise fail("user_query", f"expected text, found {user_query!r:.60}")
    if user_query and "user_query" not in instance:
        instance = {**instance, "user_query": user_query}  # as run_eval's _load_queries
    return V3Query(
        query_id=query_id,
        seq=seq,
        user_id=uid,
        task_family=str(task_family),
        task_type=str(task_type),
        instance_id=text("instance_id") or match["iid"],
        ts=ts,
        ts_iso=str(ts_iso),
        query_text=user_query or "",
        app_context=text("app_context") or _first(instance, "app", "target_app"),
        entry_point=text("entry_point") or _first(instance, "entry_point", "query_type"),
        mcp_tools_allowed=text("mcp_tools_allowed") or "",
        state_write_policy=text("state_write_policy") or "",
        expected_response_kind=text("expected_response_kind") or "",
        rubric_tags=_tags(item.get("rubric_tags"), fail),
        display_rubric=text("display_rubric"),
        instance=instance,
    )


def _first(instance: Mapping[str, Any], *keys: str) -> str | None:
    """The first of `keys` the instance holds a non-empty value of, as text
    (`prepare_eval_data.py::_inst_field`), or None."""
    for key in keys:
        value = instance.get(key)
        if value not in (None, "", [], {}):
            return str(value)
    return None


def _tags(value: Any, fail: Any) -> tuple[str, ...]:
    """A list of names, or one `;`-joined string of them (the sycophancy rows'), or none."""
    if value in (None, "", []):
        return ()
    tags = value.split(";") if isinstance(value, str) else value
    if not isinstance(tags, list) or not all(
        isinstance(t, str) and _NAME.fullmatch(t) for t in tags
    ):
        raise fail("rubric_tags", f"expected a list of names, found {value!r:.60}")
    return tuple(tags)


def _error(
    path: Path, uid: str, seq: int, query_id: str | None, field: str, message: str
) -> PersonaMemDataError:
    where = [str(path), f"persona {uid}", f"item {seq}"]
    if query_id:
        where.append(f"query_id {shown(query_id)}")
    where.append(f"field '{field}'")
    return PersonaMemDataError(f"{', '.join(where)}: {message}")
