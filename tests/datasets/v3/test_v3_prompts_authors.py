"""Each prompt as the authors' newest readable runner builds it (issue 49 item 3): the
lifecycle probe's `e5_prompt` (e5_horizon_lifecycle.py@0f0f386e), whose reply now moves
the score; `new_suggestions_chatbot_prompt` (prompts.py@b8d90778), whose `hashtags` the
fatigue gate reads; T12 for every send-post row and T11 without a ground-truth block
(agentic_tasks.py@8e2a111f, prompts_agentic.py@b8d90778); the proactive types'
user-state summary from the profile (proactive_actions.py@8e2a111f); a ground-truth
block, where given, before the grounded directive; the long-context timeline without
DM thread entries (backend_query.py@af993eb8 `get_events(include_dms=False)`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest
from inspect_ai.dataset import Sample
from support.v3_backend import query_row, write_persona, write_queries

from inspect_personamem.datasets.v3.judges.base import Judging
from inspect_personamem.datasets.v3.persona.histories import PersonaContexts
from inspect_personamem.datasets.v3.persona.streams import PersonaStreams
from inspect_personamem.datasets.v3.prompts import agentic
from inspect_personamem.datasets.v3.prompts.shown import SCORER_KEY, SHOWN_KEY, Shown
from inspect_personamem.datasets.v3.release.records import read_queries
from inspect_personamem.datasets.v3.rules.lifecycle import lifecycle_score
from inspect_personamem.datasets.v3.task_types.registry import TASK_TYPES
from inspect_personamem.datasets.v3.task_types.samples import query_to_sample
from inspect_personamem.errors import PersonaMemDataError

T0 = 1_775_332_800
PROFILE: dict[str, Any] = {
    "user_id": "105",
    "name": "Micah Park",
    "big_five": {"openness": "medium", "neuroticism": "low"},
    "hidden_personas": [
        {"type": "sensitive_life_event", "label": "HIDDENSENSITIVE budget cut"},
        {"type": "identity_anchor", "label": "East-coast rap head " + "x" * 80},
        {"type": "covert_concern", "label": "quietly worried about money"},
        {"type": "personality_trait", "label": "dry humour"},
        {"type": "emotional_pattern", "label": "bottles things up"},
        {"type": "intellectual_curiosity", "label": "SIXTH never shown"},
    ],
}


def candidates(n: int = 4) -> list[dict[str, Any]]:
    return [{"title": f"T{i}", "caption": f"C{i}", "hashtags": [f"#h{i}"]} for i in range(n)]


def sample_of(tmp_path: Path, task_type: str, instance: dict[str, Any], n: int = 1) -> Sample:
    """`instance` as a row of `task_type` of persona 105, made a sample."""
    backend = tmp_path / "backend"
    if not (backend / "105").exists():
        dm = {"source_object_id": "9", "source_timestamp": T0 - 50, "is_dm": True}
        post = {"source_object_id": "8", "source_timestamp": T0 - 60}
        write_persona(backend / "105", PROFILE, {"instagram": [post, dm]})
    cells = query_row(
        query_id=f"105:{n:04d}:inst_{n}",
        seq=str(n),
        task_type=task_type,
        instance_id=f"inst_{n}",
        ts=str(T0),
        instance_json=json.dumps(instance),
    )
    path = write_queries(tmp_path / "benchmark" / f"{task_type}_{n}", [cells])
    return query_to_sample(read_queries(path)[0], PersonaContexts(PersonaStreams(backend)), path)


def scored(task_type: str, sample: Sample, reply: str) -> Any:
    task = TASK_TYPES[task_type]
    fields = (sample.metadata or {})[SCORER_KEY]
    return task.scorer.score(reply, fields, str(sample.id), task.headline)  # type: ignore[union-attr]


def lifecycle_row(phase: str) -> dict[str, Any]:
    return {
        "candidates": candidates(),
        "matching_indices": [1, 3],
        "phase": phase,
        "canonical_id": "HIDDENCANONICAL trip",
        "persona_item": "HIDDENITEM trip",
        "stop_condition_description": "HIDDENSTOP the trip ends",
        "geo_context": {"city_at_t_test": "Lisbon", "same_as_intent_city": True},
        "calendar_context": [
            {"title": "Flight home", "start_ts": T0 + 3600, "notes": "NOTSHOWN"},
        ],
        "example_response": "HIDDENGOLD",
    }


def test_the_lifecycle_prompt_is_e5s_and_asks_for_a_permutation(tmp_path: Path) -> None:
    sample = sample_of(tmp_path, "short_vs_long_term_lifecycle", lifecycle_row("pre"))
    text = str(sample.input)
    assert text.startswith("# Task: rank candidates for what to surface right now\n")
    assert '"ranked_indices": [<idx>, <idx>, ...]' in text
    assert "The list must be a permutation of every idx above." in text
    assert "- City: Lisbon\n- In a city matching a past interest: True\n" in text
    snapshot = json.dumps([{"title": "Flight home", "start_ts": T0 + 3600}])
    assert f"- Upcoming/recent calendar snapshot: {snapshot}\n\n## Candidates" in text
    assert sample.choices == [
        f"- idx {i}: hashtags=['#h{i}'] | title='T{i}' | caption='C{i}'" for i in range(4)
    ]
    # it names no interest, stop, phase or answer (e5_prompt's own comment)
    assert "HIDDEN" not in text and "NOTSHOWN" not in text
    assert "matching" not in text.replace("a city matching a past interest", "")


def test_the_lifecycle_score_moves_with_the_reply(tmp_path: Path) -> None:
    pre = sample_of(tmp_path, "short_vs_long_term_lifecycle", lifecycle_row("pre"), 1)
    post = sample_of(tmp_path, "short_vs_long_term_lifecycle", lifecycle_row("post"), 2)

    def rate(sample: Sample, order: list[int]) -> float:
        return float(scored(sample.metadata["task_type"], sample, reply(order)).raw)  # type: ignore[index]

    def reply(order: list[int]) -> str:
        return f'```json\n{{"ranked_indices": {order}, "reasoning": "x"}}\n```'

    on_first, on_last = [1, 3, 0, 2], [0, 2, 1, 3]
    assert rate(pre, on_first) == pytest.approx(2 / 3)
    assert rate(pre, on_last) == pytest.approx(1 / 3)  # idx 1 third
    assert rate(pre, [3, 1, 0, 2]) == rate(pre, on_first)  # order within the top 3
    # the pair's score spans the range with the reply alone, one row held fixed
    best = lifecycle_score(rate(pre, on_first), rate(post, [0, 2, 3, 1]))
    worst = lifecycle_score(rate(pre, [0, 2, 3, 1]), rate(post, on_first))
    assert best > 0 > worst
    # a reply that is no permutation reads as the identity order (the runner's fallback)
    assert rate(pre, [1, 1, 3]) == rate(pre, [0, 1, 2, 3])


NEW_SUGGESTION: dict[str, Any] = {
    "trigger_kind": "chatbot_ask",
    "user_query": "bored of my feed, anything new?",
    "fatigued_pref": "HIDDENFATIGUED sneakers",
    "fatigued_hashtags": ["#sneakers", "#kicks"],
    "leak_set_hashtags": ["#gym"],
    "gold_topic": "HIDDENGOLD pottery",
    "gold_hashtags": ["#pottery"],
}


def test_the_new_suggestions_prompt_asks_for_hashtags(tmp_path: Path) -> None:
    text = str(sample_of(tmp_path, "new_suggestions_chatbot", NEW_SUGGESTION).input)
    assert text.startswith("# Task: recommend ONE thing for this user\n\n")
    assert "The user just typed in chatbot: 'bored of my feed, anything new?'." in text
    for key in ('"recommendation":', '"hashtags": ["<3-6 hashtags', '"reasoning":'):
        assert key in text
    assert "HIDDEN" not in text and "sneakers" not in text
    fatigue = {**NEW_SUGGESTION, "trigger_kind": "post_fatigue"}
    text = str(sample_of(tmp_path, "new_suggestions_chatbot", fatigue, 2).input)
    assert "infer WHICH topic they" in text and "HIDDENFATIGUED" not in text  # @b8d90778


def test_a_reply_naming_a_fatigued_hashtag_fails_the_gate(tmp_path: Path) -> None:
    sample = sample_of(tmp_path, "new_suggestions_chatbot", NEW_SUGGESTION)
    meta = sample.metadata or {}
    task = TASK_TYPES["new_suggestions_chatbot"]
    asked: list[str] = []

    async def ask(prompt: str) -> str:
        asked.append(prompt)
        return '```json\n{"alignment_score": 3, "hard_fail": false}\n```'

    def judged(hashtags: list[str]) -> Any:
        reply = json.dumps({"recommendation": "try a pottery class", "hashtags": hashtags})
        row = Judging(reply, reply, meta[SCORER_KEY], meta[SHOWN_KEY], task.headline)
        return anyio.run(task.scorer.judge, row, ask)  # type: ignore[union-attr]

    failed = judged(["pottery", "Kicks"])
    assert failed.status == "rule_zero" and failed.metrics["passed"] == 0.0
    assert failed.metrics["fatigue_overlap"] == ["kicks"] and not asked
    fresh = judged(["pottery", "ceramics"])
    assert fresh.status == "judged" and fresh.metrics["passed"] == 1.0
    [prompt] = asked
    assert "## Trigger\nchatbot_ask\n" in prompt  # the row's kind, as the model was shown it


@pytest.mark.parametrize(
    ("body", "shown"), [({"context": "CTX ran 5k"}, "CTX ran 5k"), ({"update": "UPD"}, "UPD")]
)
def test_every_send_post_row_is_t12(tmp_path: Path, body: dict[str, str], shown: str) -> None:
    sample = sample_of(tmp_path, "agentic_send_post", {"target_app": "threads", **body})
    text = str(sample.input)
    assert text.startswith("# Task T12: Agent-composed post in the user's voice\n")
    assert f"publish the following update on threads on their behalf:\n\n> {shown}\n" in text
    assert "the rewritten caption in the user’s voice" in text and "T13" not in text
    assert '"tool_intended": "mcp__threads__create_post"' in text


def test_a_send_post_row_with_no_body_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(PersonaMemDataError) as raised:
        sample_of(tmp_path, "agentic_send_post", {"target_app": "threads"})
    message = str(raised.value)
    assert "\n" not in message and "instance_json.update" in message


def test_vague_refind_searches_the_history_with_no_block(tmp_path: Path) -> None:
    text = str(sample_of(tmp_path, "agentic_vague_refind", {"topic": "sourdough"}).input)
    assert f"identify it.\n\n{agentic.VAGUE_REFIND_DIRECTIVE}\n**Mode**" in text
    assert "Search the user history shown below" in text
    assert "ground-truth context above contains" not in text


def test_a_ground_truth_block_comes_before_the_grounded_directive(tmp_path: Path) -> None:
    cells = query_row(task_type="agentic_dm_digest", instance_json='{"target_app": "facebook"}')
    query = read_queries(write_queries(tmp_path / "q", [cells]))[0]
    block = "## Ground-truth context (facebook DMs)\n- ana: see you at 6"
    shown = Shown(query, "q.csv")
    shown.ground_truth = block
    grounded = agentic.t8_dm_digest(shown).text
    assert f"already know.\n\n\n{block}\n\n{agentic.GROUNDED}\n**Mode**" in grounded
    # without one, the template's own read directive (prompts_agentic.py@b8d90778)
    plain = agentic.t8_dm_digest(Shown(query, "q.csv")).text
    assert "already know.\n\nBefore responding, call `mcp__facebook__list_dms`" in plain
    assert agentic.GROUNDED not in plain


def test_the_proactive_summary_is_built_from_the_profile(tmp_path: Path) -> None:
    summary = (
        "User: Micah Park. Big Five: openness=medium, neuroticism=low. Top hidden personas: "
        f"[identity_anchor] {('East-coast rap head ' + 'x' * 80)[:60]}; "
        "[covert_concern] quietly worried about money; [personality_trait] dry humour; "
        "[emotional_pattern] bottles things up."
    )
    assert agentic.user_state_summary(PROFILE) == summary
    assert agentic.user_state_summary({}) == (
        "User: (user). Big Five: . Top hidden personas: (none)."
    )
    proactive = [n for n, t in TASK_TYPES.items() if t.prompt.build is agentic.proactive]
    assert len(proactive) == 5
    texts = {str(sample_of(tmp_path, name, {}, i).input) for i, name in enumerate(proactive)}
    [text] = texts  # the same words for every proactive type
    assert f"## User state summary\n{summary}\n\n**Mode**" in text
    assert "HIDDENSENSITIVE" not in text and "SIXTH" not in text and "(no summary)" not in text


def test_a_proactive_prompt_without_the_persona_is_one_line(tmp_path: Path) -> None:
    cells = query_row(task_type="proactive_overactive_check", instance_json="{}")
    path = write_queries(tmp_path / "q", [cells])
    with pytest.raises(PersonaMemDataError) as raised:
        agentic.proactive(Shown(read_queries(path)[0], path))
    message = str(raised.value)
    assert "\n" not in message and "backend/105/profile.json" in message
    assert str(path) in message and "proactive_overactive_check" in message


def test_the_timeline_leaves_dm_entries_out(tmp_path: Path) -> None:
    sample_of(tmp_path, "agentic_vague_refind", {"topic": "x"})  # writes persona 105
    streams = PersonaStreams(tmp_path / "backend")
    assert [e.is_dm for e in streams.persona("105").events] == [False, True]
    for layout in ("authors", "events"):
        contexts = PersonaContexts(streams, layout)
        assert contexts.timeline("105").ids == ("8",)
        assert contexts.end_index_at("105", T0) == 2  # the profile card and the post
        assert '"t": 1775332740' in contexts.history("105", 2)[-1].text


@pytest.mark.parametrize(
    ("task_type", "opening"),
    [
        ("over_personalization_repetition_chatbot", "## User question (turn #1)\n\n> "),
        ("over_personalization_repetition_recsys", "## User query\n\n"),
    ],
)
def test_a_release_cluster_row_asks_its_first_query(
    tmp_path: Path, task_type: str, opening: str
) -> None:
    """The release holds a cluster a row, its questions in `queries` (persona 115's seq 76
    and 77 @4756046e); the runner asks them in order, the first first."""
    queries = [
        {"anchor_index": 0, "ts": T0, "user_query": "FIRST commute playlist?", "is_target": True},
        {"anchor_index": -1, "ts": T0 + 60, "user_query": "SECOND dinner?", "is_target": False},
    ]
    text = str(sample_of(tmp_path, task_type, {"queries": queries, "target_pref": "HIDDEN"}).input)
    assert f"{opening}FIRST commute playlist?\n" in text
    assert "SECOND" not in text and "HIDDEN" not in text
    with pytest.raises(PersonaMemDataError, match=r"instance_json\.queries.*user_query"):
        sample_of(tmp_path, task_type, {"queries": [{"ts": T0}]}, 2)
