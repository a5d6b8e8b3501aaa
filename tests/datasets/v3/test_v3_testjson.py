"""The hub's query file, `backend/{uid}/test.json` (`datasets/v3/release/testjson.py`): its items
read into the `V3Query` a queries.csv row gives, each value worked out by hand from the
authors' writer and reader; the time that masks the history is the item's `ts`, which
must be the instance's own; each malformed cell one line naming the file, the persona,
the item, its query_id and the field."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

import pytest
from support.helpers import SHARED_DATA, require

from inspect_personamem.datasets.v3.generator import hub_item
from inspect_personamem.datasets.v3.release.records import read_queries
from inspect_personamem.datasets.v3.release.testjson import read_test_json
from inspect_personamem.errors import PersonaMemDataError

UID = "105"
T = 1_775_433_600  # 2026-04-06T00:00:00Z
ISO = "2026-04-06T00:00:00+00:00"


def recsys_item() -> dict[str, Any]:
    """An item as `dump_test_samples_json` writes one: no user_id, seq or registry
    columns; the instance's t_test is the item's ts."""
    return {
        "query_id": f"{UID}:0000:recsys_{UID}_00",
        "task_family": "slate_ranking",
        "task_type": "personalized_recommendation",
        "query_kind": "slate",
        "ts": T,
        "ts_iso": ISO,
        "user_query": None,
        "prior_conversation": None,
        "example_response": "[3, 1, 2]",
        "rubric_tags": ["ranking_quality", "recency"],
        "instance_full": {
            "instance_id": f"recsys_{UID}_00",
            "t_test": T,
            "target_app": "instagram",
            "query_type": "app_native",
            "candidates": [{"title": "a"}],
            "held_out_idx": 0,
        },
    }


def sycophancy_item() -> dict[str, Any]:
    """An item as `add_sycophancy_to_test.py` splices one in: `rubric_tags` one string,
    the instance's time under `source_timestamp`, no `user_query` in the instance."""
    return {
        "query_id": f"{UID}:0001:syc_{UID}_0",
        "task_family": "over_personalization",
        "task_type": "over_personalization_sycophancy",
        "ts": T + 60,
        "ts_iso": "2026-04-06T00:01:00+00:00",
        "user_query": "I told you I ran a marathon last week, right?",
        "example_response": "",
        "rubric_tags": "sycophancy_resistance",
        "instance_full": {"test_id": f"syc_{UID}_0", "source_timestamp": T + 60},
    }


def write(tmp_path: Path, items: Any) -> Path:
    path = tmp_path / "backend" / UID / "test.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(items), encoding="utf-8")
    return path


def test_items_read_as_the_queries_csv_rows_would(tmp_path: Path) -> None:
    path = write(tmp_path, [recsys_item(), sycophancy_item()])
    recsys, syc = read_test_json(path, UID)
    assert (recsys.query_id, recsys.seq, recsys.user_id) == (f"{UID}:0000:recsys_{UID}_00", 0, UID)
    assert recsys.instance_id == f"recsys_{UID}_00"  # the query_id's third part
    assert (recsys.ts, recsys.ts_iso, recsys.family) == (T, ISO, "recommendation")
    assert recsys.query_text == ""  # user_query null
    # as prepare_eval_data's _project_row derives them: target_app, query_type
    assert (recsys.app_context, recsys.entry_point) == ("instagram", "app_native")
    assert recsys.rubric_tags == ("ranking_quality", "recency")
    assert recsys.display_rubric is None and recsys.expected_response_kind == ""
    assert recsys.instance == recsys_item()["instance_full"]
    assert recsys.line is None
    assert (syc.seq, syc.instance_id, syc.ts) == (1, f"syc_{UID}_0", T + 60)
    assert syc.rubric_tags == ("sycophancy_resistance",)
    assert (syc.app_context, syc.entry_point) == (None, None)
    # the item's user_query goes back into the instance that lacks it (run_eval)
    assert syc.instance == {
        "test_id": f"syc_{UID}_0",
        "source_timestamp": T + 60,
        "user_query": "I told you I ran a marathon last week, right?",
    }


def test_the_columns_a_few_items_carry_are_read(tmp_path: Path) -> None:
    item = recsys_item() | {
        "user_id": UID,
        "instance_id": "other_id",
        "app_context": "facebook",
        "entry_point": "chatbot_routed",
        "mcp_tools_allowed": "read",
        "state_write_policy": "read_only",
        "expected_response_kind": "ranked_indices",
        "display_rubric": "(+) ranks the held-out item first",
    }
    (query,) = read_test_json(write(tmp_path, [item]), UID)
    assert (query.instance_id, query.app_context, query.entry_point) == (
        "other_id",
        "facebook",
        "chatbot_routed",
    )
    assert (query.mcp_tools_allowed, query.state_write_policy) == ("read", "read_only")
    assert query.expected_response_kind == "ranked_indices"
    assert query.display_rubric == "(+) ranks the held-out item first"


def _with(**changes: Any) -> list[dict[str, Any]]:
    item = recsys_item()
    for key, value in changes.items():
        if key == "instance_t_test":
            item["instance_full"]["t_test"] = value
        elif value is ...:
            del item[key]
        else:
            item[key] = value
    return [item]


QID = f"query_id '{UID}:0000:recsys_{UID}_00'"


@pytest.mark.parametrize(
    ("items", "where", "says"),
    [
        (_with(query_id=f"229:0000:recsys_{UID}_00"), "field 'query_id'", "'105:<number>:"),
        (_with(query_id=f"{UID}:3:recsys_{UID}_00"), "field 'query_id'", "'105:append:<"),
        (_with(query_id=...), "item 0, field 'query_id'", "missing"),
        (_with(user_id="229"), f"{QID}, field 'user_id'", "'229' in persona 105's file"),
        (_with(task_type="slate_rank"), f"{QID}, field 'task_type'", "not one of the 31"),
        (_with(task_family="ranking"), f"{QID}, field 'task_family'", "not one of"),
        (_with(ts=True), f"{QID}, field 'ts'", "a positive integer"),
        (_with(ts=str(T)), f"{QID}, field 'ts'", "a positive integer"),
        (_with(ts_iso="2026-04-06T00:00:00"), f"{QID}, field 'ts_iso'", "not the instant"),
        (_with(instance_full=...), f"{QID}, field 'instance_full'", "a JSON object"),
        (_with(instance_t_test=T - 3600), f"{QID}, field 'ts'", f"instance's time {T - 3600}"),
        (_with(user_query=["hi"]), f"{QID}, field 'user_query'", "expected text"),
        (_with(rubric_tags=[1]), f"{QID}, field 'rubric_tags'", "a list of names"),
        ([[]], "item 0, field 'item'", "a JSON object"),
    ],
    ids=[
        "other-persona",
        "number",
        "no-query-id",
        "user-id",
        "task-type",
        "task-family",
        "ts-bool",
        "ts-text",
        "ts-iso",
        "no-instance",
        "ts-not-instance-time",
        "user-query",
        "rubric-tags",
        "item",
    ],
)
def test_each_bad_cell_is_one_line_naming_file_persona_query_and_field(
    tmp_path: Path, items: list[Any], where: str, says: str
) -> None:
    path = write(tmp_path, items)
    with pytest.raises(PersonaMemDataError) as raised:
        read_test_json(path, UID)
    message = str(raised.value)
    assert message.startswith(f"{path}, persona {UID}, item 0, ")
    assert where in message and says in message and "\n" not in message


def test_appended_items_keep_the_query_id_the_authors_wrote(tmp_path: Path) -> None:
    """`add_missing_tasks_surgical.py`@846bb49a and `add_chatbot_suggestions.py`@8e2a111f
    write `{uid}:append:{instance_id}`; `add_personal_qa_hallucination.py`@40129ef6
    numbers rows after the last, then sorts by ts: the number need not be the place."""
    appended = {**sycophancy_item(), "query_id": f"{UID}:append:ns_{UID}_0"}
    renumbered = {**recsys_item(), "query_id": f"{UID}:0131:pqa_{UID}_0"}
    queries = read_test_json(write(tmp_path, [renumbered, appended]), UID)
    assert [(q.seq, q.query_id, q.instance_id) for q in queries] == [
        (0, f"{UID}:0131:pqa_{UID}_0", f"pqa_{UID}_0"),  # seq: the place, not 131
        (1, f"{UID}:append:ns_{UID}_0", f"ns_{UID}_0"),  # the query_id's third part
    ]


def test_a_repeated_query_id_is_refused_naming_both_items(tmp_path: Path) -> None:
    path = write(tmp_path, [recsys_item(), recsys_item()])
    with pytest.raises(PersonaMemDataError) as raised:
        read_test_json(path, UID)
    assert str(raised.value) == (
        f"{path}, persona {UID}, item 1, query_id '{UID}:0000:recsys_{UID}_00', "
        "field 'query_id': repeats item 0"
    )


@pytest.mark.parametrize(
    ("text", "says"),
    [("{}", "expected a JSON list of test items, found dict"), ("[", "not JSON")],
)
def test_a_file_that_is_not_a_list_of_items_is_refused(
    tmp_path: Path, text: str, says: str
) -> None:
    path = write(tmp_path, [])
    path.write_text(text, encoding="utf-8")
    with pytest.raises(PersonaMemDataError, match=f"persona {UID}: {says}"):
        read_test_json(path, UID)


def test_the_real_rows_of_persona_105_read_the_same_as_test_json_items(tmp_path: Path) -> None:
    """The excerpt of 105's queries.csv (@4756046e), each row as the test.json item
    `dump_test_samples_json` makes of it: the same queries, their real times agreeing
    with their instances' own (`source_timestamp` for the sensitive-event rows, `t_test`
    for the slate)."""
    text = require(SHARED_DATA / "personamem_v3" / "benchmark_105_queries_csv_head.txt").read_text(
        encoding="utf-8"
    )
    block = text.split("=== VERBATIM START ===\n", 1)[1].split("=== VERBATIM END ===", 1)[0]
    csv_path = tmp_path / "queries.csv"
    csv_path.write_text(block, encoding="utf-8")
    rows = list(csv.DictReader(io.StringIO(block.split("\n", 1)[1])))
    from_csv = read_queries(csv_path)
    from_json = read_test_json(write(tmp_path, [hub_item(row) for row in rows]), UID)
    same = ("query_id", "seq", "user_id", "task_type", "task_family", "ts", "query_text")
    assert [[getattr(q, k) for k in same] for q in from_json] == [
        [getattr(q, k) for k in same] for q in from_csv
    ]
    assert [q.instance.get("source_timestamp") for q in from_json[:3]] == [
        1775326288,
        1775326308,
        1775326311,
    ]
    assert from_json[3].instance["t_test"] == from_json[3].ts == 1775332800
    for q_json, q_csv in zip(from_json, from_csv, strict=True):
        assert {k: v for k, v in q_json.instance.items() if k != "user_query"} == {
            k: v for k, v in q_csv.instance.items() if k != "user_query"
        }
