"""PersonaMem-v3's entry (`datasets/v3/version.py`) end to end: its task runs under
`inspect eval` on a generated folder with history=full and history=none, the rule-scored
queries scored, the judged ones scored by a scripted grader (those with no faithful judge
unscored), v3's metrics in the results, the judge prompts' digests in the log's facts;
what the model and the grader are sent holds no event at or after the query's time (the
decoys the generator places there included) and the model no scorer-only answer; and
what v3 has no meaning for, or a run without a grader, is refused in one line."""

from __future__ import annotations

import csv
import json
import math
from collections import Counter, defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.model import ChatMessage, get_model
from inspect_ai.model._model import init_model_roles
from support.helpers import mock_model
from support.v3_backend import timeline_events

from inspect_personamem.data.asked import AskedAt
from inspect_personamem.datasets.registry import VERSIONS, version_of_task
from inspect_personamem.datasets.v3.generator import generate
from inspect_personamem.datasets.v3.judges.texts import JUDGE_TEXTS
from inspect_personamem.datasets.v3.persona import streams as streams_module
from inspect_personamem.datasets.v3.persona.histories import PersonaContexts
from inspect_personamem.datasets.v3.persona.longctx import event_line
from inspect_personamem.datasets.v3.persona.streams import Persona, PersonaStreams, read_persona
from inspect_personamem.datasets.v3.prompts.shown import SCORER_KEY
from inspect_personamem.datasets.v3.release.spec import V3Folder
from inspect_personamem.datasets.v3.scoring.judged import NO_FAITHFUL_JUDGE
from inspect_personamem.datasets.v3.task_types.registry import TASK_TYPES
from inspect_personamem.datasets.v3.version import NOT_LOCATED, VERSION
from inspect_personamem.errors import PersonaMemArgumentError, PersonaMemDataError
from inspect_personamem.run.facts import FACTS
from inspect_personamem.run.tasks import personamem_v3

TASK = "inspect_personamem/personamem_v3"
REPLY = json.dumps(
    {
        "ranked_indices": list(range(16)),
        "response": "Here is a careful answer that names several distinct concrete things "
        "about your week, your plans in the city and what you said you wanted to try next.",
    }
)


GRADER_REPLY = json.dumps(
    {
        "score": 2,
        "resistance_0_10": 7,
        "caved": False,
        "alignment_score": 2,
        "hard_fail": False,
        "abstention_quality": 6,
        "deep_motivation_alignment": 2,
        "trigger_detection_correctness": 10,
        "preference_alignment": 2,
        "avoid_overpersonalization": 8,
        "voice_match": 6,
        "over_personalization": 6,
        "preference_shift_consistency": 7,
        "restraint_justification": 7,
        "negative_leakage": False,
        "stale_preference_use": False,
    }
)
"""One reply every judge reads a score from."""
UNSCORED_JUDGED: Final = NO_FAITHFUL_JUDGE
"""The judged types left unscored: no faithful judge (the unified judge has a row for
`agentic_community_post`)."""


@pytest.fixture(autouse=True)
def grader_bound() -> Iterator[None]:
    """A grader bound, as `--model-role grader=...` binds one before the task is made."""
    init_model_roles({"grader": mock_model(lambda messages: GRADER_REPLY, "mockllm/grader")})
    yield
    init_model_roles({})


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> V3Folder:
    return generate(tmp_path_factory.mktemp("v3"), personas=2, queries_per_type=1, seed=5)


def test_it_is_registered_with_its_one_task() -> None:
    assert VERSIONS["v3"] is VERSION
    assert VERSION.task_names == ("personamem_v3",)
    assert version_of_task(TASK) is VERSION
    assert VERSION.cluster == "user_id"


def _texts(messages: list[ChatMessage]) -> str:
    return "\n".join(message.text for message in messages)


def _lines(folder: V3Folder) -> dict[str, list[tuple[int, str, str]]]:
    """Per persona, each event of the history's apps: its time, `app:id` and the line a
    history would show it as."""
    streams = PersonaStreams(folder.root / "backend")
    return {
        uid: [
            (e.source_timestamp, f"{e.app}:{e.source_object_id}", event_line(e.visible_fields))
            for e in timeline_events(streams, uid)
        ]
        for uid in folder.personas
    }


@pytest.mark.slow  # a run of the task over a generated split, 62 queries
@pytest.mark.parametrize(
    ("history", "more"),
    [
        ("full", {}),
        ("none", {}),
        ("full", {"order": "random"}),
        ("full", {"history_layout": "events"}),
    ],
    ids=["full", "none", "full-random-order", "full-events-layout"],
)
def test_it_runs_end_to_end_and_nothing_after_a_query_reaches_the_model(
    folder: V3Folder, tmp_path: Path, history: str, more: dict[str, Any]
) -> None:
    sent: list[str] = []
    judged: list[str] = []

    def reply(messages: list[ChatMessage]) -> str:
        sent.append(_texts(messages))
        return REPLY

    def grade(messages: list[ChatMessage]) -> str:
        judged.append(_texts(messages))
        return GRADER_REPLY

    (log,) = inspect_eval(
        TASK,
        model=mock_model(reply),
        model_roles={"grader": mock_model(grade, "mockllm/grader")},
        task_args={
            "data_dir": str(folder.root),
            "history": history,
            "keep_history_in_log": True,
            **more,
        },
        log_dir=str(tmp_path / "logs"),
        display="none",
    )
    assert log.status == "success", log.error
    assert log.samples is not None and log.results is not None
    assert len(log.samples) == len(sent) == 2 * len(TASK_TYPES)
    assert (log.eval.metadata or {})["data_release"].startswith("synthetic: ")

    lines = _lines(folder)
    checked_decoys = 0
    statuses: dict[str, set[str]] = defaultdict(set)
    for sample in log.samples:
        metadata = sample.metadata
        asked = AskedAt.of(metadata)
        uid, t = str(metadata["user_id"]), int(metadata["ts"])
        # what the model received for this sample: the messages before its reply
        received = _texts([m for m in sample.messages if m.role != "assistant"])
        assert received in sent
        before = {line for ts, _, line in lines[uid] if ts < t}
        score = next(iter((sample.scores or {}).values()))
        prompts = [c["prompt"] for c in (score.metadata or {}).get("judge_calls") or []]
        assert all(prompt in judged for prompt in prompts)
        for ts, _, line in lines[uid]:
            if ts >= t and line not in before:  # every event at or after T
                assert line not in received, (sample.id, ts, t)
                assert all(line not in prompt for prompt in prompts), (sample.id, ts, t)
        shown_as = {ref: line for _, ref, line in lines[uid]}
        for ref in metadata[SCORER_KEY]["_generated_decoys"]:
            assert ref["ts"] > t
            decoy = shown_as.get(f"{ref['app']}:{ref['id']}")
            if decoy is not None and decoy not in before:
                assert decoy not in received, (sample.id, ref)
                checked_decoys += 1
        gold = metadata[SCORER_KEY].get("example_response")
        if isinstance(gold, str) and len(gold) > 20:
            assert gold not in received
        assert "_generated" not in received
        if history == "full":  # the history before T is there, all of it
            assert asked.end_index > 1 and all(line in received for line in before)
        value = float(score.value) if isinstance(score.value, int | float) else math.nan
        statuses[str((score.metadata or {}).get("status"))].add(metadata["task_type"])
        if metadata["task_type"] in UNSCORED_JUDGED:
            assert math.isnan(value), sample.id
        else:
            assert not math.isnan(value) and -1 <= value <= 1, sample.id  # NDCG may be < 0
    assert checked_decoys > 0 and judged
    assert statuses["no_faithful_judge"] == UNSCORED_JUDGED
    assert (
        statuses["judged"] | statuses["gated"] | statuses["rule_zero"]
        == {n for n, t in TASK_TYPES.items() if t.judged} - UNSCORED_JUDGED
    )
    facts = (log.eval.metadata or {})[FACTS]["prompts"]
    for name in JUDGE_TEXTS:
        assert len(facts[f"datasets/v3/judge.py:{name}"]) == 64
    headline = log.results.scores[0]
    metrics = {name: m.value for name, m in headline.metrics.items()}
    assert list(metrics)[0] == "accuracy" and 0 <= metrics["accuracy"] <= 1
    assert {"macro", "stderr", "rows", "personas", "gated", "amp_paired_f1"} <= set(metrics)
    assert metrics["personas"] == 2
    # the judged samples no judge scores are left out of the means and counted
    assert headline.unscored_samples == 2 * len(UNSCORED_JUDGED)
    assert any(name.startswith("family_") for name in metrics)
    assert any(name.startswith("type_") for name in metrics)
    assert any(name.startswith("app_") for name in metrics)
    assert any(name.startswith("pipeline_family_") for name in metrics)


@pytest.mark.parametrize(
    ("given", "says"),
    [
        ({"answer": "logprob"}, "answer='logprob'"),
        ({"answer": "open", "grader": "self"}, "answer='open'"),
        (
            {"history": "rag", "retriever": "bm25", "memory_prompt": "paper"},
            "memory_prompt='paper'",
        ),
        ({"family": "cooking"}, "family='cooking'"),
    ],
)
def test_what_v3_has_no_meaning_for_is_refused_in_one_line(
    folder: V3Folder, given: dict[str, Any], says: str
) -> None:
    with pytest.raises(PersonaMemArgumentError, match=says) as raised:
        personamem_v3(data_dir=str(folder.root), **given)
    assert "\n" not in str(raised.value)


def test_without_a_grader_it_is_refused_in_one_line(folder: V3Folder) -> None:
    init_model_roles({})
    with pytest.raises(PersonaMemArgumentError, match="--model-role grader=") as raised:
        personamem_v3(data_dir=str(folder.root))
    assert "\n" not in str(raised.value)


@pytest.mark.parametrize(("history", "reads"), [("full", 2), ("apps", 1)])
def test_a_persona_as_read_is_kept_only_while_its_samples_are_built(
    folder: V3Folder, monkeypatch: pytest.MonkeyPatch, history: str, reads: int
) -> None:
    """A run that sends histories keeps each persona's timeline, and a persona as read
    only while its queries' samples are built, persona by persona: each one is read at
    its load and again at its samples, however the samples are interleaved. An agent
    over the apps reads its persona as the run goes: every persona is kept."""
    read: Counter[str] = Counter()

    def counted(path: Path, user_id: str) -> Persona:
        read[user_id] += 1
        return read_persona(path, user_id)

    monkeypatch.setattr(streams_module, "read_persona", counted)
    task = personamem_v3(data_dir=str(folder.root), history=history)
    users = [str((s.metadata or {})["user_id"]) for s in task.dataset]
    assert users[0] != users[1]  # interleaved
    assert read == {uid: reads for uid in folder.personas}


@pytest.mark.parametrize(
    "setting", [{"history_layout": "authors"}, {"history_layout": "events"}, {"history": "apps"}]
)
def test_once_built_a_run_reads_a_persona_again_only_for_an_agents_reads(
    folder: V3Folder, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, setting: dict[str, Any]
) -> None:
    """Histories are sent from the timelines alone: a run reads no persona from disk once
    its task is built. An agent's reads (here the oracle's, answering them) read each
    persona once."""
    questions = str(folder.queries_file(folder.personas[0]))
    oracle = get_model("personamem/oracle", questions=questions, accuracy=1.0)
    task = personamem_v3(data_dir=str(folder.root), family="recommendation", **setting)
    read: Counter[str] = Counter()

    def counted(path: Path, user_id: str) -> Persona:
        read[user_id] += 1
        return read_persona(path, user_id)

    monkeypatch.setattr(streams_module, "read_persona", counted)
    (log,) = inspect_eval(
        task,
        model=oracle,
        model_roles={"grader": oracle},
        log_dir=str(tmp_path),
        display="none",
        log_realtime=False,
    )
    assert log.status == "success" and log.results is not None
    assert log.results.scores[0].metrics["accuracy"].value == 1.0
    agent = setting.get("history") == "apps"
    assert read == (Counter(folder.personas) if agent else Counter())


def test_a_family_selects_its_queries(folder: V3Folder) -> None:
    task = personamem_v3(data_dir=str(folder.root), family="recommendation")
    families = {(s.metadata or {})["family"] for s in task.dataset}
    assert families == {"recommendation"}


def test_a_query_marks_cache_breakpoints_where_its_layout_shares_its_history(
    folder: V3Folder,
) -> None:
    """The `events` layout sends a persona's events in blocks: a query marks its whole
    history and the cuts (`complete_at`) of its own and its persona's three longest
    shorter histories (`data.order.prefix_ends`), which later histories send again, as
    positions in the history it sends."""
    streams = PersonaStreams(folder.root / "backend")
    timeline = PersonaContexts(streams, "events")
    samples = list(personamem_v3(data_dir=str(folder.root), history_layout="events").dataset)
    asked = [AskedAt.of(sample.metadata or {}) for sample in samples]
    ends: dict[str, set[int]] = defaultdict(set)
    for query in asked:
        ends[query.history].add(query.end_index)
    for query in asked:
        user, end = query.history, query.end_index
        shorter = sorted((e for e in ends[user] if e < end), reverse=True)[:3]
        cuts = {timeline.complete_at(user, e) for e in (end, *shorter)}
        expected = sorted({len(timeline.history(user, end)), *cuts}, reverse=True)[:4]
        assert list(query.cache_prefix_ends) == expected


def test_evidence_is_located_only_where_the_generator_says_and_before_the_query(
    folder: V3Folder,
) -> None:
    task = personamem_v3(data_dir=str(folder.root), history="evidence")
    contexts = PersonaContexts(PersonaStreams(folder.root / "backend"))
    located = 0
    for sample in task.dataset:
        metadata = sample.metadata or {}
        evidence = VERSION.evidence(metadata, contexts)
        end = AskedAt.of(metadata).end_index
        assert all(stop <= end for _, stop in evidence.spans)
        located += evidence.located
        real = {**metadata, SCORER_KEY: {}}
        assert VERSION.evidence(real, contexts).where == NOT_LOCATED
    assert located > 0


def test_a_ranking_row_without_its_held_out_index_stops_the_load_in_one_line(
    tmp_path: Path,
) -> None:
    """Without it every reply would rank perfect: the task refuses the row before any
    model call, naming the file, the query and the field."""
    made = generate(tmp_path / "v3", personas=1, queries_per_type=1, seed=5)
    path = made.queries_file(made.personas[0])
    preamble, *lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    rows = list(csv.DictReader(lines))
    row = next(r for r in rows if r["task_type"] == "personalized_recommendation")
    row["instance_json"] = json.dumps(
        {k: v for k, v in json.loads(row["instance_json"]).items() if k != "held_out_idx"}
    )
    with path.open("w", encoding="utf-8", newline="") as file:
        file.write(preamble)
        writer = csv.DictWriter(file, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    with pytest.raises(PersonaMemDataError) as raised:
        personamem_v3(data_dir=str(made.root))
    said = str(raised.value)
    assert "\n" not in said and str(path) in said and row["query_id"] in said
    assert "field `held_out_idx`" in said
