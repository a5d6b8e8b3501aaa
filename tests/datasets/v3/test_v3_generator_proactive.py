"""Where the generator places a persona's proactive rows (`synthetic/moments.py`), as the
authors place theirs: every act row outside the persona's sensitive-event window, the
restraint rows inside it, the restraint type's act companion a day after it closes
(proactive_actions.py@8e2a111f), the other types' restrain rows outside it too
(EVAL.md@8e2a111f); and two rows whose gold differs never alike to a model: the five
types share one prompt, so an event must lie between them. Then the oracle, always right
and bound as the grader, scores 1 on every proactive row with the whole history."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.v3_backend import proactive_oracle_run

from inspect_personamem.datasets.v3.generator import generate
from inspect_personamem.datasets.v3.persona.histories import PersonaContexts
from inspect_personamem.datasets.v3.persona.streams import PersonaStreams
from inspect_personamem.datasets.v3.release.records import V3Query, read_queries
from inspect_personamem.datasets.v3.release.spec import V3Folder
from inspect_personamem.datasets.v3.task_types.registry import TASK_TYPES

DAY = 86_400
RESTRAINT = "restraint_sensitive_event_silence"
PROACTIVE = {
    name
    for name, task in TASK_TYPES.items()
    if task.prompt.source.endswith(" proactive_action_prompt")
}
"""The five types of one prompt (`proactive_action_prompt`)."""


def test_the_five_types_share_the_proactive_prompt() -> None:
    assert RESTRAINT in PROACTIVE and len(PROACTIVE) == 5


def window_of(folder: V3Folder, uid: str) -> tuple[int, int]:
    """The persona's sensitive-event window, as its profile states it."""
    profile = json.loads((folder.root / "backend" / uid / "profile.json").read_text())
    (event,) = [h for h in profile["hidden_personas"] if h["type"] == "sensitive_life_event"]
    start, end = event["active_window"]
    return start, end


def proactive_rows(folder: V3Folder, uid: str) -> list[V3Query]:
    return [q for q in read_queries(folder.queries_file(uid)) if q.task_type in PROACTIVE]


@pytest.mark.parametrize(
    ("seed", "tokens"), [(0, None), (1, None), (2, None), (5, None), (3, 416_000)]
)
def test_act_rows_fall_outside_the_sensitive_window_and_restraint_rows_inside(
    tmp_path: Path, seed: int, tokens: int | None
) -> None:
    folder = generate(tmp_path, personas=2, queries_per_type=7, seed=seed, history_tokens=tokens)
    for uid in folder.personas:
        start, end = window_of(folder, uid)
        rows = proactive_rows(folder, uid)
        assert {q.task_type for q in rows} == PROACTIVE and len(rows) == 7 * len(PROACTIVE)
        for q in rows:
            act = q.instance["expected_behavior"] == "act"
            inside = start <= q.ts <= end
            if q.task_type == RESTRAINT and act:  # the authors' companion
                assert q.ts == end + DAY and q.instance["trigger_evidence"]["window_end"] == end
            else:  # the window overrides every trigger; only the restraint rows are in it
                assert inside == (q.task_type == RESTRAINT), (q.query_id, q.ts, start, end)
        restraint = [q.instance["expected_behavior"] for q in rows if q.task_type == RESTRAINT]
        assert sorted(restraint) == ["act"] + ["restrain"] * 6


@pytest.mark.parametrize(("seed", "tokens"), [(0, None), (1, None), (4, None), (3, 416_000)])
def test_rows_whose_gold_differs_have_an_event_between_them(
    tmp_path: Path, seed: int, tokens: int | None
) -> None:
    folder = generate(tmp_path, personas=2, queries_per_type=7, seed=seed, history_tokens=tokens)
    contexts = PersonaContexts(PersonaStreams(folder.root / "backend"))
    for uid in folder.personas:
        rows = proactive_rows(folder, uid)
        pairs = [
            (a, b)
            for i, a in enumerate(rows)
            for b in rows[i + 1 :]
            if a.instance["expected_behavior"] != b.instance["expected_behavior"]
        ]
        assert len(pairs) > 100
        for a, b in pairs:  # the history a model is sent ends at another event
            ends = {contexts.end_index_at(uid, q.ts) for q in (a, b)}
            assert len(ends) == 2, (a.query_id, b.query_id)


@pytest.mark.parametrize("layout", ["authors", "events"])
def test_the_oracle_scores_every_proactive_row_top_with_the_whole_history(
    tmp_path: Path, layout: str
) -> None:
    """`-T history=full`: the five types' rows share one prompt per persona and only the
    history tells them apart, so the oracle, always right and bound as the grader, scores
    1 on each only where no two rows of different gold are sent the same history (a
    restrain row answered as an act one scores at most 0.3)."""
    written = generate(tmp_path / "data", personas=1, queries_per_type=4, seed=4)
    log = proactive_oracle_run(written, tmp_path / "logs", history="full", history_layout=layout)
    assert log.status == "success"
    scores: dict[str, dict[str, float]] = {}
    for sample in log.samples or []:
        task = str((sample.metadata or {}).get("task_type"))
        value = next(iter((sample.scores or {}).values())).value
        scores.setdefault(task, {})[str(sample.id)] = float(value)  # type: ignore[arg-type]
    assert set(scores) >= PROACTIVE
    for task in PROACTIVE:
        assert scores[task] == dict.fromkeys(scores[task], 1.0), task
