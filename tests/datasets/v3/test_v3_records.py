"""PersonaMem-v3 query rows (`datasets/v3/release/records.py`): small hand-made files read back,
each malformed cell named by file, line, query id and field, and the real excerpt of
persona 105's `queries.csv` (@4756046e, `../shared/data/personamem_v3/`) read whole."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.helpers import SHARED_DATA, require
from support.v3_backend import query_row, write_queries

from inspect_personamem.datasets.v3.release.records import COLUMNS, read_queries
from inspect_personamem.errors import PersonaMemDataError

EXCERPTS = SHARED_DATA / "personamem_v3"


def test_a_row_is_read_with_every_cell_parsed(tmp_path: Path) -> None:
    second = query_row(
        query_id="105:0004:x_1",
        seq="4",
        instance_id="x_1",
        task_type="agentic_dm_digest",
        task_family="agentic",
        app_context="threads",
        rubric_tags="",
    )
    [first, other] = read_queries(write_queries(tmp_path, [query_row(), second]))
    assert first.line == 3 and other.line == 4
    assert (first.seq, first.ts, first.user_id) == (3, 1775332800, "105")
    assert first.family == "recommendation" and first.task_family == "e_followup"
    assert first.rubric_tags == ("recall@5", "ndcg_at_k", "mrr")
    assert first.display_rubric is not None and first.display_rubric.count(";") == 1
    assert first.instance == {"held_out_idx": 9, "candidates": []}
    assert first.app_context is None and first.entry_point == "chatbot_routed"
    assert other.family == "agentic_tasks" and other.rubric_tags == ()
    assert other.app_context == "threads"


def test_the_instance_s_own_time_where_it_agrees_with_ts(tmp_path: Path) -> None:
    """`t_test` first (a later `source_timestamp` does not count), as the builder reads."""
    instance = '{"t_test": 1775332800, "source_timestamp": 1775000000}'
    [query] = read_queries(write_queries(tmp_path, [query_row(instance_json=instance)]))
    assert query.ts == 1775332800


def test_an_older_file_without_display_rubric_is_read(tmp_path: Path) -> None:
    columns = tuple(c for c in COLUMNS if c != "display_rubric")
    [query] = read_queries(write_queries(tmp_path, [query_row()], columns=columns))
    assert query.display_rubric is None


@pytest.mark.parametrize(
    ("changes", "field", "problem"),
    [
        ({"ts": "17753328OO"}, "ts", "expected an integer"),
        ({"ts": "1775332801"}, "ts_iso", "is not the instant of ts 1775332801"),
        ({"ts_iso": "yesterday"}, "ts_iso", "is not the instant"),
        ({"ts_iso": "2026-04-04T20:00:00"}, "ts_iso", "is not the instant"),
        ({"seq": "-"}, "seq", "expected an integer"),
        ({"instance_json": '{"held_out_idx": 9'}, "instance_json", "not JSON"),
        ({"instance_json": "[1, 2]"}, "instance_json", "expected a JSON object"),
        ({"task_type": "slate_ranking"}, "task_type", "not one of the 31 task types"),
        ({"task_family": "Recommendation"}, "task_family", "is not one of agentic"),
        ({"query_id": "105:3:recsys_2026-04-04_a5"}, "query_id", "user_id:seq:instance_id"),
        ({"user_id": ""}, "user_id", "empty"),
        ({"rubric_tags": "recall@5; mrr"}, "rubric_tags", "expected ;-joined names"),
        (
            {"instance_json": '{"t_test": 1775329200, "held_out_idx": 9}'},
            "ts",
            "1775332800 is not the instance's time 1775329200",
        ),
        (  # no t_test: the next key the builder reads
            {"instance_json": '{"source_timestamp": 1775332799}'},
            "ts",
            "is not the instance's time 1775332799",
        ),
    ],
)
def test_each_malformed_cell_is_named_by_line_query_and_field(
    tmp_path: Path, changes: dict[str, str], field: str, problem: str
) -> None:
    path = write_queries(tmp_path, [query_row(**changes)])
    with pytest.raises(PersonaMemDataError) as error:
        read_queries(path)
    message = str(error.value)
    query_id = changes.get("query_id", "105:0003:recsys_2026-04-04_a5")
    assert message.startswith(f"{path}, line 3, query_id '{query_id}', field '{field}': ")
    assert problem in message and "\n" not in message


def test_the_version_line_must_be_the_first(tmp_path: Path) -> None:
    for first in ("# queries_csv_version=1", "query_id,seq"):
        with pytest.raises(PersonaMemDataError, match="line 1: expected '# queries_csv_vers"):
            read_queries(write_queries(tmp_path, [query_row()], first=first))


def test_a_missing_column_is_named(tmp_path: Path) -> None:
    columns = tuple(c for c in COLUMNS if c != "ts")
    with pytest.raises(PersonaMemDataError, match="queries.csv: missing columns: ts"):
        read_queries(write_queries(tmp_path, [query_row()], columns=columns))


def test_a_repeated_query_or_a_second_persona_is_refused(tmp_path: Path) -> None:
    with pytest.raises(PersonaMemDataError, match="line 4, .*field 'query_id': repeats line 3"):
        read_queries(write_queries(tmp_path, [query_row(), query_row()]))
    other = query_row(query_id="115:0004:x", seq="4", user_id="115", instance_id="x")
    with pytest.raises(PersonaMemDataError, match="field 'user_id': '115' where line 3"):
        read_queries(write_queries(tmp_path, [query_row(), other]))


def test_a_short_row_is_named_by_its_line(tmp_path: Path) -> None:
    path = write_queries(tmp_path, [query_row()])
    path.write_bytes(path.read_bytes() + b"105:0009:y,9,105\r\n")
    with pytest.raises(PersonaMemDataError, match="line 4, field '.*': value missing"):
        read_queries(path)


def test_the_real_excerpt_of_persona_105_is_read(tmp_path: Path) -> None:
    """The excerpt's verbatim block is the file's first lines, cut at a row's end."""
    text = require(EXCERPTS / "benchmark_105_queries_csv_head.txt").read_text(encoding="utf-8")
    block = text.split("=== VERBATIM START ===\n", 1)[1].split("=== VERBATIM END ===", 1)[0]
    path = tmp_path / "queries.csv"
    path.write_text(block, encoding="utf-8")
    queries = read_queries(path)
    assert [q.seq for q in queries] == [0, 1, 2, 3]
    assert {q.user_id for q in queries} == {"105"}
    assert [q.family for q in queries] == ["over_personalization"] * 3 + ["recommendation"]
    assert queries[0].ts == 1775326288 and queries[0].task_family == "over_personalization"
    assert queries[3].task_family == "e_followup"
    slate = queries[3].instance
    assert isinstance(slate["candidates"], list) and slate["held_out_idx"] in range(16)
    assert isinstance(queries[0].instance["gt_slice"], dict)
    assert queries[0].query_text.startswith("i keep checking my email")
