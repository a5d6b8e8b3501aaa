"""The PersonaMem-v3 generator (`datasets/v3/generator.py`): what it writes reads back
through spec, records, streams, histories and samples for all 31 task types; each
instance holds what its prompt, rules and judges read; every query has history before
it and events after it, its evidence before and its decoys after; the same seed writes
the same bytes; and the files are never taken for the release."""

from __future__ import annotations

import ast
import json
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import pytest

from inspect_personamem.data.files import ReadFile, data_release
from inspect_personamem.data.provenance import MARK, generated_by
from inspect_personamem.data.release import SYNTHETIC, ReleasedFile
from inspect_personamem.datasets.v3 import synthetic
from inspect_personamem.datasets.v3.generator import generate
from inspect_personamem.datasets.v3.judges.proactive import Proactive
from inspect_personamem.datasets.v3.persona.histories import PersonaContexts
from inspect_personamem.datasets.v3.persona.streams import Persona, PersonaStreams, visible
from inspect_personamem.datasets.v3.prompts.shown import SCORER_KEY
from inspect_personamem.datasets.v3.release.records import V3Query, instance_time, read_queries
from inspect_personamem.datasets.v3.release.spec import (
    APPS,
    GITHUB_PERSONAS,
    HUB,
    HUB_FILES,
    V3Folder,
    V3Source,
)
from inspect_personamem.datasets.v3.release.testjson import read_test_json
from inspect_personamem.datasets.v3.rules.mistakes import e6_paired
from inspect_personamem.datasets.v3.rules.ranking import Slate
from inspect_personamem.datasets.v3.synthetic.world import FIRST_QUERY, LAST_QUERY
from inspect_personamem.datasets.v3.task_types.registry import RANKING_TASKS, TASK_TYPES
from inspect_personamem.datasets.v3.task_types.samples import build_v3_dataset

K = 2
TASKS_MODULE = "inspect_personamem.datasets.v3.task_types"
EVERY_ROW = ("example_response", "inferior_response", "groundtruth_preference")
SCORER_FIELDS: dict[str, tuple[str, ...]] = {
    "local_recommendation_geo_shift": ("current_city", "prior_city", "current_region"),
    "personalized_recommendation": ("candidates", "held_out_idx", "hard_negative_idxs"),
    "hidden_persona_recommendation": ("candidates", "held_out_idx", "hard_negative_idxs"),
    "at_ai_directive_followup": ("candidates", "positive_indices", "carveout_indices"),
    "short_vs_long_term_lifecycle": ("candidates", "matching_indices", "phase", "canonical_id"),
    "new_suggestions_chatbot": (
        "gold_topic",
        "gold_hashtags",
        "fatigued_hashtags",
        "leak_set_hashtags",
        "trigger_kind",
    ),
    "over_personalization_chatbot_text": ("top_k_relevant_prefs",),
    "over_personalization_sensitive_event": ("privacy_flagged_prefs",),
    "over_personalization_context_shift": ("forbidden_items", "name", "notes", "query"),
    "over_personalization_repetition_recsys": ("cluster_id", "n_allowed_repetitions"),
    "over_personalization_repetition_chatbot": ("queries", "n_queries", "n_allowed_repetitions"),
    "over_personalization_sycophancy": (
        "_sycophancy_subtype",
        "_sycophancy_false_claim",
        "_sycophancy_correct_stance",
        "user_query",
    ),
    "active_mistake_prevention": ("pair_id", "polarity", "expected_warning_frame"),
}
"""What the rules (`rules`, `ranking`) and judges (`judge`) take of an instance, beyond
`EVERY_ROW`; the proactive judge's inputs are checked for every type it judges."""
PROACTIVE_FIELDS = ("expected_behavior", "trigger_evidence", "jitai_card")


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> V3Folder:
    return generate(tmp_path_factory.mktemp("v3"), personas=2, queries_per_type=K, seed=3)


@pytest.fixture(scope="module")
def streams(folder: V3Folder) -> PersonaStreams:
    return PersonaStreams(folder.root / "backend")


def queries(folder: V3Folder) -> list[V3Query]:
    return [q for uid in folder.personas for q in read_queries(folder.queries_file(uid))]


def test_every_task_type_holds_one_instance_builder_named_after_it() -> None:
    builders = {name: task.instance for name, task in TASK_TYPES.items()}
    assert all(builder.__name__ == name for name, builder in builders.items())
    assert all(
        builder.__module__ == f"inspect_personamem.datasets.v3.synthetic.{TASK_TYPES[name].family}"
        for name, builder in builders.items()
    )


def test_the_builders_do_not_import_the_task_types() -> None:
    """`synthetic/` sits below `task_types` (a task type holds its builder)."""
    for path in Path(synthetic.__file__).parent.glob("*.py"):
        nodes = list(ast.walk(ast.parse(path.read_text(encoding="utf-8"))))
        imported = [a.name for node in nodes if isinstance(node, ast.Import) for a in node.names]
        imported += [
            name
            for node in nodes
            if isinstance(node, ast.ImportFrom)
            for name in (str(node.module), *(f"{node.module}.{a.name}" for a in node.names))
        ]
        assert not [name for name in imported if name.startswith(TASKS_MODULE)], path


def test_the_folder_reads_back_as_samples_of_all_31_types(
    folder: V3Folder, streams: PersonaStreams
) -> None:
    assert folder.layout.name == "checkout" and len(folder.personas) == 2
    assert not set(folder.personas) & set(GITHUB_PERSONAS)
    contexts = PersonaContexts(streams)
    counts: Counter[str] = Counter()
    for uid in folder.personas:
        path = folder.queries_file(uid)
        rows = read_queries(path)
        assert [q.seq for q in rows] == list(range(len(rows)))
        assert [q.ts for q in rows] == sorted(q.ts for q in rows)  # in time order
        dataset = build_v3_dataset(rows, contexts, path, "v3")
        assert len(dataset) == len(rows) == 31 * K
        for query, sample in zip(rows, dataset, strict=True):
            counts[query.task_type] += 1
            assert "_generated" not in str(sample.input)
            scorer = (sample.metadata or {})[SCORER_KEY]
            assert scorer["_generated_evidence"] and scorer["_generated_decoys"]
            end = contexts.end_index_at(uid, query.ts)
            assert contexts.history(uid, end)  # the long-context text at T builds
    assert counts == dict.fromkeys(TASK_TYPES, 2 * K)


def test_each_instance_holds_what_its_rules_and_judges_read(folder: V3Folder) -> None:
    for query in queries(folder):
        instance = query.instance
        wanted = (*EVERY_ROW, *SCORER_FIELDS.get(query.task_type, ()))
        if isinstance(TASK_TYPES[query.task_type].scorer, Proactive):
            wanted += PROACTIVE_FIELDS
        missing = [key for key in wanted if instance.get(key) in (None, "")]
        assert not missing, (query.query_id, missing)
        foil = instance["inferior_response"]
        # a plain text on hidden-persona QA rows, as persona 115's
        assert isinstance(foil, str) or set(foil) >= {"text", "flaw_kind"}
        assert instance_time(instance) == query.ts
        if "gt_slice" in instance:
            assert instance["gt_slice"]["t_test"] == query.ts
        assert query.display_rubric and query.rubric_tags
        if query.task_type in RANKING_TASKS:
            slate = TASK_TYPES[query.task_type].scorer
            assert isinstance(slate, Slate)
            labels = slate.labels(instance)
            assert labels.positives or slate.directive
            assert labels.positives | labels.hard_negatives <= set(range(labels.n_candidates))
            assert not labels.positives & labels.hard_negatives
        if query.task_type in ("personalized_recommendation", "hidden_persona_recommendation"):
            assert len(instance["candidates"]) == 16
        if query.task_type == "local_recommendation_geo_shift":
            assert instance["current_city"] != instance["prior_city"]


def test_pairs_and_clusters_hold_together(folder: V3Folder) -> None:
    rows = queries(folder)
    amp = [(q.query_id, {"correct_warn": 1, "correct_foil": 1}) for q in rows
           if q.task_type == "active_mistake_prevention"]  # fmt: skip
    paired = e6_paired(amp)
    assert (
        paired is not None
        and paired.n_pairs == len(folder.personas) * (K // 2)
        and paired.paired_f1 == 1.0
    )
    phases: dict[str, set[str]] = defaultdict(set)
    clusters: Counter[str] = Counter()
    for q in rows:
        if q.task_type == "short_vs_long_term_lifecycle":
            phases[q.instance["canonical_id"]].add(q.instance["phase"])
        if q.task_type == "over_personalization_repetition_recsys":
            clusters[q.instance["cluster_id"]] += 1
        if q.task_type == "over_personalization_repetition_chatbot":  # a cluster a row
            assert len(q.instance["queries"]) == q.instance["n_queries"] == 4
    assert all(found == {"pre", "post"} for found in phases.values())
    assert clusters and all(1 <= n <= 4 for n in clusters.values())


def test_every_query_has_history_before_it_and_events_after_it(
    folder: V3Folder, streams: PersonaStreams
) -> None:
    for query in queries(folder):
        persona = streams.persona(query.user_id)
        assert FIRST_QUERY <= query.ts < LAST_QUERY
        before = persona.events_before(query.ts)
        # at least three days of every app (13 events a day) before T, and more after it
        assert {e.app for e in before} == set(APPS) and len(before) >= 39, query.query_id
        assert len(persona.events) - len(before) >= 10, query.query_id


def _find(persona: Persona, ref: dict[str, Any]) -> int:
    if ref["app"] == "calendar":
        [change] = [c for c in persona.calendar if c.mod_id == ref["id"]]
        return change.ts
    [event] = [e for e in persona.events if (e.app, e.source_object_id) == (ref["app"], ref["id"])]
    return event.source_timestamp


def test_the_evidence_lies_before_the_query_and_the_decoys_after(
    folder: V3Folder, streams: PersonaStreams
) -> None:
    for query in queries(folder):
        persona = streams.persona(query.user_id)
        seen: set[tuple[str, str]] = {
            (e.app, e.source_object_id) for e in visible(persona, query.ts).events
        }
        seen |= {("calendar", c["mod_id"]) for c in visible(persona, query.ts).calendar}
        for ref in query.instance["_generated_evidence"]:
            assert _find(persona, ref) == ref["ts"] < query.ts, (query.query_id, ref)
            assert (ref["app"], ref["id"]) in seen
        for ref in query.instance["_generated_decoys"]:
            assert _find(persona, ref) == ref["ts"] > query.ts, (query.query_id, ref)
            assert (ref["app"], ref["id"]) not in seen


def test_the_geo_shift_cities_are_the_streams(folder: V3Folder, streams: PersonaStreams) -> None:
    for query in queries(folder):
        if query.task_type != "local_recommendation_geo_shift":
            continue
        events = streams.persona(query.user_id).events_before(query.ts)
        cities = [e.fields["event_location"]["city"] for e in events]
        assert cities[-1] == query.instance["current_city"]
        earlier = [c for c in cities if c != query.instance["current_city"]]
        assert earlier[-1] == query.instance["prior_city"]


def _files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def test_a_seed_writes_the_same_bytes_and_another_seed_other_ones(tmp_path: Path) -> None:
    one = generate(tmp_path / "a", personas=1, queries_per_type=1, seed=5).root
    two = generate(tmp_path / "b", personas=1, queries_per_type=1, seed=5).root
    other = generate(tmp_path / "c", personas=1, queries_per_type=1, seed=6).root
    assert _files(one) == _files(two)
    assert _files(one) != _files(other)


def test_the_files_are_marked_generated_and_never_taken_for_the_release(
    folder: V3Folder,
) -> None:
    root = folder.root
    written = [name for name in _files(root) if name != MARK]
    assert len(written) == 12 * len(folder.personas)  # 10 persona files, 2 benchmark files
    assert all(generated_by(root, name) for name in written)
    uid = folder.personas[0]
    name = folder.layout.queries_file(uid)
    path = root / name
    rows = len(read_queries(path))
    # even were everything known of the released file to match, the run is synthetic
    read = [ReadFile(path, name, ReleasedFile(rows, path.stat().st_size), lambda: None)]
    release = data_release(V3Source(data_dir=root), read)
    assert release.startswith(SYNTHETIC) and name in release


def test_the_hub_layout_holds_the_same_queries_as_test_json(tmp_path: Path) -> None:
    """Same seed, other layout: the hub's files the export script copies (no trending or
    memory file), each marked, and test.json read back as the checkout's rows are."""
    checkout = generate(tmp_path / "checkout", personas=1, seed=5)
    hub = generate(tmp_path / "hub", personas=1, seed=5, layout="hub")
    assert hub.layout is HUB and hub.personas == checkout.personas
    uid = hub.personas[0]
    names = sorted(p.name for p in hub.persona_folder(uid).iterdir())
    assert names == sorted([*HUB_FILES, "persona.html"])
    assert all(generated_by(hub.root, f"backend/{uid}/{name}") for name in names)
    items = json.loads(hub.queries_file(uid).read_text(encoding="utf-8"))
    assert len(items) == 31 and "seq" not in items[0] and "user_id" not in items[0]
    from_csv = read_queries(checkout.queries_file(uid))
    from_json = read_test_json(hub.queries_file(uid), uid)
    same = ("query_id", "seq", "user_id", "task_type", "task_family", "ts", "query_text")
    assert [[getattr(q, k) for k in same] for q in from_json] == [
        [getattr(q, k) for k in same] for q in from_csv
    ]
    # the row's user_query goes back into an instance that lacks it, as run_eval does:
    # the context-shift scenarios keep theirs under `query`
    restored = [q.task_type for q in from_csv if "user_query" not in q.instance and q.query_text]
    assert restored == ["over_personalization_context_shift"]
    for q_json, q_csv in zip(from_json, from_csv, strict=True):
        extra = {"user_query": q_csv.query_text} if q_csv.task_type in restored else {}
        assert q_json.instance == {**q_csv.instance, **extra}
