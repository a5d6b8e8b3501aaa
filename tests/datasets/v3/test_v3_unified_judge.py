"""PersonaMem-v3's unified 0-10 rubric judge (`judges.unified`, rubric v3) and the
preference-shift judge (`judges.preference_shift`): the combination worked by hand on
hand-built judgements (primary, secondaries, penalty checks, hard rules, the clamp at
10), the judge's reply read as the authors read it, the rendered prompt carrying the
row's fields, the provenance and digest in the score's metadata and the log's prompt
facts, the `-T judge=` switch, and the 0-100 scale. Expected values are worked by hand
in the comments."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import anyio
import pytest
from support.helpers import mock_model
from support.v3_scoring import PROMPT, replied, row_metadata

from inspect_personamem.datasets.v3.judges.base import JudgedRow
from inspect_personamem.datasets.v3.judges.preface import sha256, table
from inspect_personamem.datasets.v3.judges.preference_shift import (
    EXPIRED,
    PREFERENCE_SHIFT,
    PREFERENCE_SHIFT_JUDGE_PROMPT,
    preference_shift_prompt,
    read_preference_shift,
)
from inspect_personamem.datasets.v3.judges.texts import JUDGE_TEXTS
from inspect_personamem.datasets.v3.judges.unified import (
    TEXTS_SHA256,
    Dims,
    Unified,
    UnifiedReading,
    combine_unified,
    dims_of,
    read_unified,
)
from inspect_personamem.datasets.v3.judges.unified_texts import (
    APPLICABILITY_V3,
    SOURCE,
    UNIFIED_TEXTS,
)
from inspect_personamem.datasets.v3.prompts.shown import SHOWN_KEY
from inspect_personamem.datasets.v3.reading.reply import Unreadable
from inspect_personamem.datasets.v3.reading.scale import accuracy_value
from inspect_personamem.datasets.v3.scoring.judged import judge_row, judged_score
from inspect_personamem.datasets.v3.scoring.scorers import v3_scorer
from inspect_personamem.datasets.v3.task_types.base import JudgeChoice
from inspect_personamem.datasets.v3.task_types.registry import TASK_TYPES
from inspect_personamem.datasets.v3.version import VERSION
from inspect_personamem.errors import PersonaMemArgumentError

LONG = (
    "Here are some weekend ideas: visit the farmers market, try a new hiking trail, "
    "bake sourdough bread, read novels, call friends"
)
GOLD = "The gold reply says exactly this and nothing else, a sentence only the scorer holds."


def reading(**scores: float) -> UnifiedReading:
    return UnifiedReading(scores=scores)


def judged(
    task_type: str,
    answer: Mapping[str, Any] | str,
    fields: Mapping[str, Any] | None = None,
    shown: Mapping[str, Any] | None = None,
    reply: str | None = None,
    choice: JudgeChoice = "unified",
) -> tuple[JudgedRow, list[str]]:
    prompts: list[str] = []

    async def ask(prompt: str) -> str:
        prompts.append(prompt)
        return answer if isinstance(answer, str) else json.dumps(answer)

    async def go() -> JudgedRow:
        text = reply if reply is not None else json.dumps({"response": LONG})
        return await judge_row(task_type, text, fields or {}, shown or {}, ask, choice=choice)

    return anyio.run(go), prompts


# --- which types, which dims ---------------------------------------------------------


def test_the_unified_judge_is_the_default_for_the_types_the_authors_score_with_it() -> None:
    # aggregate_eval (38,596 characters) JUDGE_TASK_TYPES "pr_combined (judge rubric)":
    # the nine agentic types, the three over-personalization rubric types and
    # chatbot_personalized_response (headline pref_align_gated, patch_headline_rows.py)
    unified = {n for n, t in TASK_TYPES.items() if isinstance(t.scorer, Unified)}
    assert unified == {
        "chatbot_personalized_response",
        "over_personalization_chatbot_text",
        "over_personalization_sensitive_event",
        "over_personalization_context_shift",
        *(n for n, t in TASK_TYPES.items() if t.family == "agentic_tasks"),
    }
    assert len(unified) == 13
    for name in unified:
        assert TASK_TYPES[name].per_dimension is not None, name
        assert name in APPLICABILITY_V3
    assert TASK_TYPES["chatbot_personalized_response"].kind == "pref_align_gated"
    assert TASK_TYPES["preference_shift_followthrough"].scorer is PREFERENCE_SHIFT


def test_each_task_has_one_target_dim_and_the_authors_checks() -> None:
    assert dims_of("agentic_auto_reply") == Dims(
        ("voice_match",), "voice_match", ("telegraph_avoidance", "relationship_aware"),
        ("privacy_leak",),
    )  # fmt: skip
    assert dims_of("chatbot_personalized_response") == Dims(
        ("preference_alignment",), "preference_alignment", ("telegraph_avoidance",),
        ("avoid_leak", "privacy_leak", "stale_preference_use"),
    )  # fmt: skip
    assert dims_of("agentic_trending_alert").penalties == ()
    assert dims_of("over_personalization_sensitive_event").penalties == ("helpfulness",)
    with pytest.raises(ValueError, match="no row"):
        Unified("personalized_recommendation")


# --- the combination, worked by hand ---------------------------------------------------

TWO = Dims(("preference_alignment", "helpfulness", "voice_match"), "preference_alignment", (), ())
"""Hand-built dims with secondaries (rubric v3 gives every task one positive)."""


def test_primary_and_the_mean_of_the_secondaries() -> None:
    # 0.8 x 9 + 0.2 x mean(4, 6) = 7.2 + 1.0 = 8.2
    metrics = combine_unified(TWO, reading(preference_alignment=9, helpfulness=4, voice_match=6))
    assert metrics["pr_combined_personalization_score"] == pytest.approx(8.2)
    assert metrics["pr_positive_dim_mean"] == pytest.approx(6.33)
    # the primary alone without a secondary read
    alone = combine_unified(TWO, reading(preference_alignment=9))
    assert alone["pr_combined_personalization_score"] == 9.0
    # the primary missing: the mean of the positives read, (4 + 6) / 2 = 5
    fallback = combine_unified(TWO, reading(helpfulness=4, voice_match=6))
    assert fallback["pr_combined_personalization_score"] == 5.0
    assert fallback["pr_primary_dim_score"] is None


def test_penalty_checks_deduct_five_times_the_shortfall_and_floor_at_zero() -> None:
    dims = dims_of("agentic_auto_reply")
    # voice 8; telegraph 10 deducts 0; relationship 5 deducts 5 x 5 / 10 = 2.5: 5.5
    metrics = combine_unified(
        dims, reading(voice_match=8, telegraph_avoidance=10, relationship_aware=5)
    )
    assert metrics["pr_penalty_points"] == 2.5
    assert metrics["pr_combined_personalization_score"] == 5.5
    # a missing check deducts nothing
    assert combine_unified(dims, reading(voice_match=8))["pr_combined_personalization_score"] == 8
    # voice 2, telegraph 0 deducts 5: max(0, 2 - 5) = 0
    floored = combine_unified(dims, reading(voice_match=2, telegraph_avoidance=0))
    assert floored["pr_combined_personalization_score"] == 0.0


def test_a_violated_hard_rule_zeroes_the_row() -> None:
    dims = dims_of("agentic_send_post")
    clean = UnifiedReading({"voice_match": 9.0}, violated={"avoid_leak": False})
    violated = UnifiedReading({"voice_match": 9.0}, violated={"avoid_leak": True})
    assert combine_unified(dims, clean)["pr_combined_personalization_score"] == 9.0
    metrics = combine_unified(dims, violated)
    assert metrics["pr_combined_personalization_score"] == 0.0
    assert metrics["pr_avoid_leak_violated"] == metrics["pr_avoid_leak_hard_fail"] == 1
    assert metrics["pr_personalization_hard_fail_count"] == 1


def test_the_judges_numbers_are_clamped_so_the_score_is_at_most_ten() -> None:
    dims = dims_of("chatbot_personalized_response")
    read = read_unified(json.dumps({"preference_alignment": 14, "telegraph_avoidance": 12}), dims)
    assert isinstance(read, UnifiedReading)
    assert read.scores == {"preference_alignment": 10.0, "telegraph_avoidance": 10.0}
    metrics = combine_unified(dims, read)
    assert metrics["pr_combined_personalization_score"] == 10.0
    assert metrics["pr_combined_max_possible"] == 10.0
    low = read_unified('{"preference_alignment": -3}', dims)
    assert isinstance(low, UnifiedReading) and low.scores == {"preference_alignment": 0.0}


def test_the_reply_read_as_the_authors_read_it() -> None:
    dims = dims_of("agentic_cross_app_repost")
    reply = (
        "Reasoning first.\n```json\n"
        + json.dumps(
            {
                "voice_match": {"identity_coherence": 9, "idiolect_fidelity": 7, "score": 8},
                "telegraph_avoidance": 9.5,
                "avoid_leak_violated": "false",  # text read by its words (a difference)
                "privacy_leak_violated": True,
                "reasoning": "ok",
            }
        )
        + "\n```"
    )
    read = read_unified(reply, dims)
    assert isinstance(read, UnifiedReading)
    assert read.scores == {"voice_match": 8.0, "telegraph_avoidance": 9.5}
    assert read.sub_scores == {"voice_match_identity_coherence": 9.0,
                               "voice_match_idiolect_fidelity": 7.0}  # fmt: skip
    assert read.violated == {"avoid_leak": False, "privacy_leak": True}
    # a bool counts 1 / 0 as the authors' isinstance(v, (int, float)); NaN is no number
    flagged = read_unified('{"voice_match": true, "telegraph_avoidance": NaN}', dims)
    assert isinstance(flagged, UnifiedReading) and flagged.scores == {"voice_match": 1.0}
    assert read_unified("no json at all", dims) == Unreadable("no_json")
    assert read_unified("[1, 2]", dims) == Unreadable("not_an_object")


# --- a row judged through judge_row ----------------------------------------------------

FIELDS = {
    "top_k_relevant_prefs": [{"persona_item": "trail running", "category": "fitness"}],
    "gt_slice": {"avoid": [{"persona_item": "jazz clubs", "category": "music"}]},
    "privacy_flagged_prefs": [{"persona_item": "fertility clinic visits", "category": "health"}],
    "example_response": GOLD,
}


def test_the_prompt_carries_the_rows_fields_and_the_reply_not_the_gold() -> None:
    shown = {"user_query": "any plans for saturday?"}
    answer = {"preference_alignment": 7, "telegraph_avoidance": 10}
    row, (prompt,) = judged("chatbot_personalized_response", answer, FIELDS, shown)
    evidence = json.loads(prompt.split("```json\n", 1)[1].split("\n```", 1)[0])
    assert list(evidence)[0] == "query_text"
    assert evidence["query_text"] == "any plans for saturday?"
    assert evidence["user_top_preferences"][0]["persona_item"] == "trail running"
    assert evidence["user_negatives_nearby"][0]["persona_item"] == "jazz clubs"
    assert evidence["privacy_flagged_prefs"][0]["persona_item"] == "fertility clinic visits"
    judged_text = prompt.split("## Response to judge\n", 1)[1].split("\n\n## How to score", 1)[0]
    assert judged_text == LONG
    assert GOLD not in prompt
    assert "## Task type\nchatbot_personalized_response\n" in prompt
    # the query section, from the evidence's query_text (prompts.py@b8d90778)
    assert (
        "## The user's query (what the assistant was responding to)\n"
        "any plans for saturday?\n\n## Evidence"
    ) in prompt
    assert '"stale_preference_use_violated": <true|false>' in prompt
    # headline pref_align_gated: the primary 7 alone (telegraph only a diagnostic): 70
    assert (row.status, row.accuracy) == ("judged", 70.0)


def test_chatbot_headline_ignores_the_telegraph_check_but_not_a_violation() -> None:
    # pr_combined = 7 - 5 x (10 - 4) / 10 = 4; the headline is the primary: 70
    answer = {"preference_alignment": 7, "telegraph_avoidance": 4}
    row, _ = judged("chatbot_personalized_response", answer)
    assert row.metrics["pr_combined_personalization_score"] == 4.0
    assert row.accuracy == 70.0
    leaked, _ = judged("chatbot_personalized_response", {**answer, "privacy_leak_violated": True})
    assert leaked.accuracy == 0.0


def test_a_restraint_row_is_its_target_less_the_helpfulness_check() -> None:
    # over_personalization 9, helpfulness 6: 9 - 5 x 0.4 = 7.0 of 10 -> 70
    answer = {"over_personalization": 9, "helpfulness": 6, "privacy_leak_violated": False}
    row, _ = judged("over_personalization_sensitive_event", answer)
    assert row.accuracy == pytest.approx(70.0)


def test_an_agentic_row_judges_its_summary_and_community_post_is_scored() -> None:
    reply = json.dumps({"summary": "Done.", "decision_points": ["a"]})
    row, (prompt,) = judged("agentic_community_post", {"preference_alignment": 6}, reply=reply)
    assert "## Response to judge\nDone.\n" in prompt
    assert "## The user's query" not in prompt  # no query_text: no query section
    # preference_alignment 6; telegraph and voice checks missing: no deduction: 60
    assert (row.status, row.accuracy) == ("judged", 60.0)


def test_an_unreadable_judgement_is_unscored_with_what_the_authors_write() -> None:
    row, _ = judged("agentic_dm_digest", "I cannot judge this.")
    assert (row.status, row.accuracy, row.authors_accuracy) == ("judge_unreadable", None, 0.0)
    # no positive dim given: unscored; the authors write 0, or (a hard rule violated) 0
    row, _ = judged("agentic_dm_digest", {"avoid_leak_violated": True, "reasoning": "r"})
    assert (row.status, row.authors_accuracy) == ("judge_unreadable", 0.0)
    assert "preference_alignment" in row.note
    # the chatbot headline has no primary then: the authors leave the row out (None)
    row, _ = judged("chatbot_personalized_response", "nothing")
    assert (row.status, row.authors_accuracy) == ("judge_unreadable", None)


# --- provenance, digest, the log ------------------------------------------------------


def test_the_score_names_the_judge_its_source_and_digest() -> None:
    grader = mock_model(lambda messages: '{"over_personalization": 8}', "mockllm/grader")
    meta = row_metadata(
        "over_personalization_chatbot_text", FIELDS, more={SHOWN_KEY: {"user_query": "hi"}}
    )
    asked = replied(meta, json.dumps({"response": LONG}))
    base = {key: asked.metadata[key] for key in ("task_type", "user_id", "query_id")}
    score = anyio.run(judged_score, asked, base, grader)
    judge = (score.metadata or {})["judge"]
    assert judge["choice"] == "unified" and judge["kind"] == "unified"
    assert (
        "evaluation/prompts.py@b8d90778fba34def6fa2a967df5c4510abcde07a" in judge["prompt_source"]
    )
    assert "EventHorizon-Lab/MindBridge" in judge["prompt_source"]
    assert "1255698be5f397287541feebceada9c5139e6c31" in judge["prompt_source"]
    assert "5543351fe58411f3169a21e0adbf89a393630436" in judge["combination_source"]
    assert judge["prompt_texts_sha256"] == TEXTS_SHA256 == sha256(table(UNIFIED_TEXTS))
    assert score.value == pytest.approx(0.8)  # over_personalization 8 of 10
    assert PROMPT not in (score.metadata or {})["judge_calls"][0]["prompt"]


def test_the_logs_prompt_facts_hold_the_unified_and_preference_shift_texts() -> None:
    for name in (*UNIFIED_TEXTS, "UNIFIED_DIM_QUESTIONS", "PREFERENCE_SHIFT_JUDGE_PROMPT"):
        assert name in JUDGE_TEXTS, name
    assert SOURCE.endswith("@1255698be5f397287541feebceada9c5139e6c31")


# --- the switch ------------------------------------------------------------------------


def test_judge_per_dimension_gives_the_older_judge() -> None:
    # over_personalization_sensitive_event per-dim: over_personalization (-) at 3 costs 0,
    # telegraph passes: 1 of 3 -> 33.33, one call (the 0-3 prompt); unified: one call
    row, prompts = judged("over_personalization_sensitive_event", {"score": 3},
                          choice="per_dimension")  # fmt: skip
    assert row.accuracy == pytest.approx(100 / 3)
    assert "## Personalization dimension" in prompts[0]
    not_built, none = judged("chatbot_personalized_response", {}, choice="per_dimension")
    assert (not_built.status, none) == ("no_faithful_judge", [])


def test_the_judge_parameter_and_its_refusals() -> None:
    (parameter,) = (p for p in VERSION.own if p.name == "judge")
    assert parameter.default == "unified"
    assert parameter.allowed == ("unified", "per_dimension")
    with pytest.raises(PersonaMemArgumentError, match="judge"):
        parameter.check("per_dim")
    with pytest.raises(PersonaMemArgumentError, match="per_dimension"):
        v3_scorer(judge="per_dim")


# --- the preference-shift judge --------------------------------------------------------

SHIFT = {
    "groundtruth_preference": {
        "shift_kind": "stance_shift",
        "old_preference": {"text": "loves late-night gaming", "category": "games"},
        "new_preference": {"persona_item": "early-morning runs", "category": "fitness"},
    },
    "example_response": "G" * 700,
    "inferior_response": {"text": "Play until 3am!", "flaw_kind": "outdated_stance"},
}


def test_the_preference_shift_prompt_carries_the_shift_and_its_cuts() -> None:
    prompt = preference_shift_prompt(SHIFT, "what should I do tonight?", "R" * 1600)
    assert "- shift_kind: stance_shift\n" in prompt
    assert '- OLD preference (no longer current): "loves late-night gaming"' in prompt
    assert '- NEW / current preference: "early-morning runs"' in prompt
    assert "G" * 600 + "\n" in prompt and "G" * 601 not in prompt
    assert "would read like:\nPlay until 3am!\n" in prompt
    assert "USER QUERY:\nwhat should I do tonight?\n" in prompt
    assert "R" * 1500 + "\n" in prompt and "R" * 1501 not in prompt
    expired = {**SHIFT, "groundtruth_preference": {"old_preference": "x", "new_preference": None}}
    assert f'current preference: "{EXPIRED}"' in preference_shift_prompt(expired, "q", "r")
    assert prompt.startswith(PREFERENCE_SHIFT_JUDGE_PROMPT.split("{", 1)[0])


@pytest.mark.parametrize(
    ("answer", "status", "expected"),
    [
        ({"preference_shift_consistency": 7, "used_outdated_stance": False}, "judged", 70.0),
        ({"preference_shift_consistency": 0, "used_outdated_stance": True}, "judged", 0.0),
        ({"preference_shift_consistency": 11}, "judge_unreadable", None),
        ({"preference_shift_consistency": True}, "judge_unreadable", None),
        ("no json", "judge_unreadable", None),
    ],
)
def test_preference_shift_consistency_times_ten(
    answer: Any, status: str, expected: float | None
) -> None:
    # a short reply is judged: the runner (preference_shift_followthrough.py@dfb6ec8a)
    # applies no gate
    row, prompts = judged("preference_shift_followthrough", answer, SHIFT,
                          {"user_query": "q"}, reply='{"response": "Sleep."}')  # fmt: skip
    assert (row.status, row.accuracy) == (status, expected)
    assert "ASSISTANT RESPONSE:\nSleep.\n" in prompts[0]
    assert read_preference_shift("{}") == Unreadable("no_json")


# --- the 0-100 scale --------------------------------------------------------------------


def test_the_unified_scores_on_the_authors_0_to_100() -> None:
    # pr_combined over its maximum 10; 0to10 x 10; pref_align_gated x 10, 0 on a violation
    assert accuracy_value("pr_combined", "s", {"s": 7.5, "pr_combined_max_possible": 10.0}) == 75
    assert accuracy_value("0to10", "s", {"s": 7}) == 70.0
    gated = {"pr_preference_alignment_score": 8.0}
    assert accuracy_value("pref_align_gated", "pr_preference_alignment_score", gated) == 80.0
    violated = {**gated, "pr_stale_preference_use_violated": 1}
    assert accuracy_value("pref_align_gated", "pr_preference_alignment_score", violated) == 0.0


# A real row: bowen-upenn/PersonaMem-v3 benchmark/115/queries.csv@4756046e (full
# 4756046e56c8500aab3bad306610da78709c89df), seq 84, its instance_json's scorer fields;
# CC-BY-NC-4.0, Jiang et al., "PersonaMem-v3" (2026).
REAL_SHIFT: dict[str, Any] = {
    "example_response": (
        "A good bet is grabbing a live show, comedy set, or concert downtown and keeping it "
        "flexible. If you want something low-key, a movie or late dinner after is easier "
        "than chasing game-day crowds."
    ),
    "inferior_response": (
        "A good bet is grabbing tickets to a football game and making a day of it downtown. "
        "If you want something lively, tailgating and stadium seats are usually the most "
        "fun way to spend the weekend."
    ),
    "groundtruth_preference": {
        "t_shift": 1775664000,
        "shift_kind": "short_term_expiration",
        "shift_resolution": None,
        "old_preference": {
            "text": "Interested in attending live football events and buying tickets for games.",
            "category": "live entertainment",
            "polarity": "pos",
        },
        "new_preference": None,
    },
}


def test_a_real_preference_shift_row_is_judged_with_its_expired_preference() -> None:
    shown = {"user_query": "got any fun plans for the weekend in the city?"}
    reply = json.dumps({"response": "Maybe a comedy set downtown, then a late dinner."})
    answer = {"preference_shift_consistency": 9, "used_outdated_stance": False}
    row, (prompt,) = judged(
        "preference_shift_followthrough", answer, REAL_SHIFT, shown, reply=reply
    )
    assert "- shift_kind: short_term_expiration\n" in prompt
    assert 'current): "Interested in attending live football events' in prompt
    assert f'- NEW / current preference: "{EXPIRED}"' in prompt
    assert REAL_SHIFT["example_response"] in prompt and "tailgating" in prompt
    assert "ASSISTANT RESPONSE:\nMaybe a comedy set downtown, then a late dinner.\n" in prompt
    assert (row.status, row.accuracy, row.metrics["used_outdated_stance"]) == ("judged", 90.0, 0)
