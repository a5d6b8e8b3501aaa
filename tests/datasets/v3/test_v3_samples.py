"""PersonaMem-v3 query rows as samples (`datasets/v3/prompts/samples.py`): a prompt for each of
the 31 task types, nothing of the scorer-only fields in any input or choice (by markers,
and on persona 105's real rows), the slate as choices, a missing field one line naming
the file, the query and the field."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

import pytest
from support.helpers import require
from support.v3_backend import V3_EXCERPTS, query_row, write_persona, write_queries

from inspect_personamem.data.asked import AskedAt
from inspect_personamem.datasets.v3.persona.histories import PersonaContexts
from inspect_personamem.datasets.v3.persona.streams import PersonaStreams
from inspect_personamem.datasets.v3.prompts.agentic import proactive
from inspect_personamem.datasets.v3.prompts.shown import SCORER_KEY, SCORER_ONLY, SHOWN_KEY, Shown
from inspect_personamem.datasets.v3.release.records import V3Query, read_queries
from inspect_personamem.datasets.v3.rules.score import CANDIDATE_COUNT
from inspect_personamem.datasets.v3.task_types.registry import TASK_TYPES
from inspect_personamem.datasets.v3.task_types.samples import build_v3_dataset, query_to_sample
from inspect_personamem.errors import PersonaMemDataError

T0 = 1_775_332_800
ISO0 = "2026-04-04T20:00:00+00:00"


def candidates(n: int = 4) -> list[dict[str, Any]]:
    return [
        {
            "source_object_id": str(500 + i),
            "title": f"SHOWNTITLE{i}",
            "caption": f"SHOWNCAPTION{i}",
            "hashtags": [f"#shown{i}"],
            "source_app": "facebook",
            "source_timestamp": T0 - 100 * (i + 1),
            "content_type": "video",
        }
        for i in range(n)
    ]


VISIBLE: dict[str, Any] = {
    "user_query": "SHOWNQUERY what should i cook tonight?",
    "prior_conversation": [
        {"role": "user", "content": "SHOWNPRIOR hi"},
        {"role": "assistant", "content": "SHOWNPRIOR hello"},
    ],
    "arm": "sensitive_event",
    "query": "SHOWNSCENARIO any ideas for the weekend?",
    "candidates": candidates(),
    "anchor_hour_utc": 20,
    "day_label": "2026-04-04",
    "query_text": "",
    "directive_action": "at_ai_recommend_more",
    "directive_hashtags": ["#shownai"],
    "directive_user_message": "@ai SHOWNDIRECTIVE more like this",
    "target_app": "threads",
    "source_app": "instagram",
    "source_post": {"caption": "SHOWNSOURCEPOST", "hashtags": ["#shownpost"]},
    "inbound_message": "SHOWNINBOUND are we still on?",
    "sender_id": "friend_3",
    "topic": "SHOWNTOPIC sourdough",
    "update": "SHOWNUPDATE great run this morning",
    "thread_id": "group_1",
    "trigger_kind": "chatbot_ask",
    "geo_context": {"city_at_t_test": "SHOWNCITY", "same_as_intent_city": False},
    "calendar_context": [{"title": "SHOWNCALENDAR dentist", "start_ts": T0 + 3600}],
    "queries": [{"user_query": "SHOWNTURN1 a tip?"}, {"user_query": "SHOWNTURN2 another?"}],
}
"""Every model-visible field some prompt reads, each marked as shown."""


def scorer_only(n: int) -> dict[str, Any]:
    """Every scorer-only key, each holding a unique marker (a string, a list or an
    object, so the marker survives whatever a builder might do with it)."""
    fields: dict[str, Any] = {}
    for i, key in enumerate(sorted(SCORER_ONLY)):
        marker = f"HIDDEN{n}K{i}X"
        fields[key] = [marker] if i % 3 == 0 else {"text": marker} if i % 3 == 1 else marker
    fields["_sensitive_event_topic"] = f"HIDDEN{n}PRIVATEX"
    fields["_drift_overused_topic"] = [f"HIDDEN{n}DRIFTX"]
    fields["inferior_response"] = {"text": f"HIDDEN{n}FOILX", "flaw_kind": "over_personalization"}
    fields["example_response"] = f"HIDDEN{n}GOLDX"
    return fields


def row(n: int, task_type: str, instance: dict[str, Any], query_text: str = "") -> dict[str, str]:
    instance_id = f"inst_{n}"
    return query_row(
        query_id=f"105:{n:04d}:{instance_id}",
        seq=str(n),
        task_type=task_type,
        instance_id=instance_id,
        ts=str(T0),
        ts_iso=ISO0,
        query_text=query_text,
        rubric_tags=f"HIDDEN{n}TAGX;ndcg_at_k",
        display_rubric=f"(+) HIDDEN{n}RUBRICX; (-) more",
        instance_json=json.dumps(instance),
    )


def contexts(tmp_path: Path) -> PersonaContexts:
    write_persona(tmp_path / "backend" / "105", {"name": "Micah"}, {})
    return PersonaContexts(PersonaStreams(tmp_path / "backend"))


def marked_queries(tmp_path: Path) -> tuple[Path, list[V3Query]]:
    rows = [
        row(n, task, {**VISIBLE, **scorer_only(n)}, query_text="SHOWNQUERY")
        for n, task in enumerate(TASK_TYPES)
    ]
    path = write_queries(tmp_path / "benchmark" / "105", rows)
    return path, read_queries(path)


def test_every_task_type_has_a_prompt() -> None:
    assert {task.prompt.provenance for task in TASK_TYPES.values()} <= {"READ", "INFERRED"}


def test_no_scorer_only_field_reaches_the_input_or_the_choices(tmp_path: Path) -> None:
    path, queries = marked_queries(tmp_path)
    assert len(queries) == 31
    ctx = contexts(tmp_path)
    for query in queries:
        sample = query_to_sample(query, ctx, path)
        meta = sample.metadata or {}
        shown = str(sample.input) + "\n".join(sample.choices or [])
        assert "HIDDEN" not in shown, (query.task_type, shown)
        assert "HIDDEN" not in json.dumps(meta[SHOWN_KEY])
        assert "HIDDEN" not in AskedAt.of(meta).message
        # the markers are all there for the scorers, so the check above is not vacuous
        assert set(meta[SCORER_KEY]) >= SCORER_ONLY
        assert meta[SCORER_KEY][CANDIDATE_COUNT] == len(VISIBLE["candidates"])
        scorer = json.dumps(meta[SCORER_KEY])
        n = query.seq
        for mark in ("PRIVATEX", "DRIFTX", "GOLDX", "FOILX", "RUBRICX", "TAGX"):
            assert f"HIDDEN{n}{mark}" in scorer
        # every prompt reads something of the instance but the two that take no field
        # and the proactive types' (the persona's summary: proactive_actions.py@8e2a111f)
        no_field = {"agentic_proactive_daily_catchup", "agentic_trending_alert"} | {
            name for name, task in TASK_TYPES.items() if task.prompt.build is proactive
        }
        assert bool(meta[SHOWN_KEY]) == (query.task_type not in no_field), query.task_type


def test_a_prompt_may_not_read_a_scorer_only_field(tmp_path: Path) -> None:
    _, queries = marked_queries(tmp_path)
    shown = Shown(queries[0], "queries.csv")
    for key in ("example_response", "groundtruth_preference", "_sensitive_event_topic"):
        with pytest.raises(ValueError, match="scorer-only"):
            shown.text(key)
        with pytest.raises(ValueError, match="scorer-only"):
            shown.has(key)


def test_the_slate_is_the_choices_and_its_positives_the_target(tmp_path: Path) -> None:
    instance = {**VISIBLE, "held_out_idx": 2, "hard_negative_idxs": [0, 3]}
    path = write_queries(tmp_path / "b", [row(3, "personalized_recommendation", instance)])
    sample = query_to_sample(read_queries(path)[0], contexts(tmp_path), path)
    assert sample.choices == [f"  [{i}] SHOWNTITLE{i} (hashtags: #shown{i})" for i in range(4)]
    assert sample.target == ["2"]
    assert "It's 2026-04-04 20:00 UTC. The recommendation system has proposed 4" in str(
        sample.input
    ).replace("\n", " ")
    assert '"ranked_indexes"' in str(sample.input)
    chat = write_queries(tmp_path / "c", [row(0, "chatbot_personalized_response", instance)])
    assert query_to_sample(read_queries(chat)[0], contexts(tmp_path), chat).choices is None


def test_metadata_holds_the_groups_the_cluster_and_the_time(tmp_path: Path) -> None:
    path, queries = marked_queries(tmp_path)
    dataset = build_v3_dataset(queries, contexts(tmp_path), path, "v3")
    sample = dataset[0]
    meta = sample.metadata or {}
    assert meta["user_id"] == "105"
    assert meta["task_type"] == next(iter(TASK_TYPES))
    assert meta["family"] == "personalization"
    assert {"task_family", "app_context", "ts", "prompt_source"} <= set(meta)
    asked = AskedAt.of(meta)
    assert asked.history == "105" and asked.end_index == 1  # the profile, no event
    assert [s.id for s in dataset] == [q.query_id for q in queries]


@pytest.mark.parametrize(
    ("task_type", "missing"),
    [
        ("chatbot_personalized_response", "user_query"),
        ("personalized_recommendation", "candidates"),
        ("at_ai_directive_followup", "directive_action"),
        ("agentic_auto_reply", "inbound_message"),
    ],
)
def test_a_missing_field_is_one_line_naming_file_query_and_field(
    tmp_path: Path, task_type: str, missing: str
) -> None:
    instance = {k: v for k, v in VISIBLE.items() if k != missing}
    path = write_queries(tmp_path / "b", [row(7, task_type, instance)])
    query = read_queries(path)[0]
    with pytest.raises(PersonaMemDataError) as raised:
        query_to_sample(query, contexts(tmp_path), path)
    message = str(raised.value)
    assert "\n" not in message
    assert str(path) in message and "105:0007:inst_7" in message
    assert f"instance_json.{missing}" in message and task_type in message


def test_persona_105s_real_rows_show_no_gold_no_foil_no_ground_truth(tmp_path: Path) -> None:
    text = require(V3_EXCERPTS / "benchmark_105_queries_csv_head.txt").read_text(encoding="utf-8")
    body = text.split("=== VERBATIM START ===\n", 1)[1].split("\n", 1)[1]
    rows = [r for r in csv.DictReader(io.StringIO(body)) if r.get("instance_json")]
    path = write_queries(tmp_path / "benchmark" / "105", rows)
    ctx = contexts(tmp_path)
    for query in read_queries(path):
        sample = query_to_sample(query, ctx, path)
        shown = str(sample.input) + "\n".join(sample.choices or [])
        instance = query.instance
        hidden = [instance["example_response"], instance["inferior_response"]["text"]]
        hidden += [line for line in instance["groundtruth_preference"].splitlines() if line]
        for piece in hidden:
            assert piece.strip() not in shown, (query.query_id, piece)
        if query.task_type == "personalized_recommendation":
            assert len(sample.choices or []) == len(instance["candidates"]) == 16
            assert sample.target == [str(instance["held_out_idx"])]
        else:
            assert instance["user_query"] in str(sample.input)
            assert "## Prior conversation turns" in str(sample.input)
