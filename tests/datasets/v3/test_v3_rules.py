"""PersonaMem-v3 rules other than ranking: the substantive gate, leak rate, tail
diversity, geo shift, a warn/foil row, paired F1, the 0-100 conversions and the rubric
combiner. Expected values are worked by hand in the comments."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import astuple

import pytest

from inspect_personamem.datasets.v3.reading.reply import is_substantive, tokenize
from inspect_personamem.datasets.v3.reading.reply import response_text as geo_reply_text
from inspect_personamem.datasets.v3.reading.scale import ScaleKind, accuracy_value, micro_accuracy
from inspect_personamem.datasets.v3.rules.geo import geo_shift_correctness
from inspect_personamem.datasets.v3.rules.leaks import (
    hashtag_overlap,
    jaccard,
    keyword_leak,
    personalization_leak,
    privacy_leak,
    similarity,
)
from inspect_personamem.datasets.v3.rules.mistakes import e6_paired, mistake_row, paired_f1
from inspect_personamem.datasets.v3.rules.polarity import Combined, combine_dim_scores_with_polarity
from inspect_personamem.datasets.v3.rules.repetition import (
    chatbot_pref_overuse,
    within_cluster_diversity,
)

# 20 distinct tokens of 3+ characters: substantive.
LONG_REPLY = (
    "Here are some weekend ideas: visit the farmers market, try a new hiking trail, "
    "bake sourdough bread, read novels, call friends"
)


# --- tokens and the gate ---------------------------------------------------------------


def test_tokens_are_ascii_runs_with_hash_of_three_or_more_lower_cased() -> None:
    # The(the) cat s(1: dropped) #Yoga(#yoga) mat AI(2: dropped) 123 café(caf: é splits)
    assert tokenize("The cat's #Yoga-mat AI 123 café") == {
        "the",
        "cat",
        "#yoga",
        "mat",
        "123",
        "caf",
    }
    assert tokenize(None) == set()


def test_fifteen_distinct_tokens_engage_fourteen_do_not() -> None:
    fifteen = " ".join(f"word{chr(97 + i)}" for i in range(15))  # worda .. wordo
    assert is_substantive(fifteen)
    assert not is_substantive(" ".join(fifteen.split()[:14]))
    assert not is_substantive(" ".join(["again"] * 40))  # one distinct token
    assert not is_substantive("")
    assert is_substantive(LONG_REPLY)


def test_jaccard_of_token_sets() -> None:
    # {yoga, retreat, bali} vs {yoga, retreat}: 2 / 3
    assert jaccard("yoga retreat in bali", "yoga retreat") == pytest.approx(2 / 3)
    assert jaccard("", "yoga") == 0.0


# --- leak rate -------------------------------------------------------------------------


def test_hashtag_overlap_splits_camel_case_and_skips_empty_tags() -> None:
    # #MarlonWayans -> {marlonwayans, marlon, wayans}: "marlon" is in the reply; #Cooking
    # is not; "" does not count -> 1 of 2
    assert hashtag_overlap("I love marlon movies", ["#MarlonWayans", "#Cooking", ""]) == 0.5
    assert hashtag_overlap("anything", []) == 0.0


def test_similarity_is_the_larger_of_hashtags_and_jaccard_without_a_model() -> None:
    # Jaccard 2/3 (above), no hashtag -> 2/3
    assert similarity("yoga retreat in bali", "yoga retreat", []) == pytest.approx(2 / 3)
    # hashtag overlap 1.0 beats a small Jaccard
    assert similarity("yoga today", "meditation practice", ["#Yoga"]) == 1.0


def test_similarity_uses_the_cosine_of_an_injected_model() -> None:
    vectors = {"item text": [1.0, 0.0], "the reply": [3.0, 4.0]}

    def embed(texts: Sequence[str]) -> list[list[float]]:
        return [vectors[t] for t in texts]

    # cos = (1x3 + 0x4) / (1 x 5) = 0.6; the item's text comes first
    assert similarity("the reply", "item text", [], embed) == pytest.approx(0.6)


YOGA = {"persona_item": "Loves hot yoga", "category": "fitness", "source_hashtags": ["#Yoga"]}
CHESS = {"persona_item": "Plays blitz chess", "category": "games", "source_hashtags": ["#Chess"]}


def test_personalization_leak_counts_items_at_or_above_half() -> None:
    reply = LONG_REPLY + " and a yoga class"
    # YOGA: hashtag overlap 1.0 -> leaks; CHESS: no tag, Jaccard tiny -> 1 of 2
    leak = personalization_leak(reply, [YOGA, CHESS])
    assert (leak.rate, leak.leaked, leak.total, leak.hard_fail) == (0.5, 1, 2, 0)


def test_a_silent_reply_fails_the_personalization_gate_but_no_items_do_not() -> None:
    silent = personalization_leak("ok", [YOGA])
    assert (silent.rate, silent.hard_fail, silent.skip_reason) == (
        0.0, 1, "non_substantive_response",
    )  # fmt: skip
    assert personalization_leak("ok", []).hard_fail == 0


def test_the_keyword_gate_comes_before_the_empty_item_check() -> None:
    assert keyword_leak("ok", []).hard_fail == 1
    assert keyword_leak(LONG_REPLY, []).rate == 0.0
    assert keyword_leak(LONG_REPLY + " yoga", [YOGA, CHESS]).leaked == 1


def test_privacy_leak_has_no_gate_and_any_leak_fails() -> None:
    assert privacy_leak("ok", [YOGA]).hard_fail == 0
    assert privacy_leak("yoga", [YOGA, CHESS]).hard_fail == 1


# --- tail diversity ---------------------------------------------------------------------


def _post(title: str, caption: str, tags: list[str]) -> dict[str, object]:
    return {"title": title, "caption": caption, "hashtags": tags}


HEAD = [
    _post("Sunset beach walk", "", ["#beach", "#sunset"]),
    _post("Morning surf session", "", ["#surf"]),
    _post("Beach volleyball game", "", ["#Beach", "#sports"]),
]  # head union {beach, sunset, surf, sports}
JAZZ = _post("Jazz night at club", "Live saxophone trio", ["#jazz", "#music"])


def test_a_tail_reusing_a_third_of_its_tags_from_the_head_fails() -> None:
    pottery = _post(
        "Pottery class downtown", "Learn wheel throwing", ["#pottery", "#craft", "#beach"]
    )
    result = within_cluster_diversity([*HEAD, pottery, JAZZ])
    # tail texts share no token -> mean Jaccard 0; no tail token in any head text -> 0;
    # tail tags disjoint -> 0; pottery reuses 1 of 3 tags (0.333 > 0.30), jazz 0 of 2
    assert (result.n_head, result.n_tail) == (3, 2)
    assert result.pairwise_text_jaccard_mean == 0.0
    assert result.tail_vs_head_text_jaccard_max == 0.0
    assert result.pairwise_hashtag_overlap_max == 0
    assert result.head_hashtag_reuse_rate_max == pytest.approx(1 / 3)
    assert result.violations == {"tail_head_hashtag_reuse_too_high": 1}
    assert not result.tail_passed


def test_a_fresh_tail_passes_and_exactly_30_percent_reuse_passes() -> None:
    pottery = _post(
        "Pottery class downtown", "Learn wheel throwing", ["#pottery", "#craft", "#clay"]
    )
    assert within_cluster_diversity([*HEAD, pottery, JAZZ]).tail_passed
    # 3 of 10 tags from the head = 0.30, not above the bar
    tags = ["#beach", "#surf", "#sunset", *[f"#new{i}" for i in range(7)]]
    assert within_cluster_diversity([*HEAD, _post("Kayak tour", "", tags)]).tail_passed


def test_near_duplicate_texts_and_shared_tags_in_the_tail_fail() -> None:
    a = _post("Pottery class downtown", "", ["#pottery"])
    b = _post("Pottery class downtown", "", ["#pottery", "#art"])
    result = within_cluster_diversity([*HEAD, a, b])
    # same text -> Jaccard 1 (> 0.5); one shared tag
    assert result.violations == {
        "tail_pairwise_text_jaccard_too_high": 1,
        "tail_pairwise_hashtag_overlap": 1,
    }
    copy = _post("Sunset beach walk", "again", ["#fresh"])
    # tail vs head: {sunset, beach, walk, again} vs {sunset, beach, walk} = 3/4 > 0.5
    assert within_cluster_diversity([*HEAD, copy]).violations == {
        "tail_vs_head_text_jaccard_too_high": 1
    }


def test_no_tail_passes_and_persona_verdicts_gate_the_tail() -> None:
    short = within_cluster_diversity(HEAD)
    assert (short.n_tail, short.tail_passed, short.persona_alignment_pass_rate) == (0, True, 1.0)
    assert within_cluster_diversity([]).n_head == 0
    fresh = [*HEAD, JAZZ, _post("Chess club", "", ["#chess"])]
    half = within_cluster_diversity(fresh, persona_alignment_passes=[True, False])
    assert half.persona_alignment_pass_rate == 0.5
    assert half.violations == {"persona_alignment_failed": 1}
    assert within_cluster_diversity(fresh, persona_alignment_passes=[]).tail_passed
    assert within_cluster_diversity(fresh).persona_alignment_pass_rate is None


def test_chatbot_overuse_from_judge_scores() -> None:
    # head [2, 9, 4]: 2 below 5; tail [8, 6]: none below 5,
    # overuse ((10-8)/10 + (10-6)/10) / 2 = 0.3, restraint 7, but 6 < 7 -> not passed
    result = chatbot_pref_overuse([2, 9, 4, 8, 6])
    assert astuple(result) == pytest.approx((5, 3, 2, 2, 0, 0.3, 7.0, False))
    assert result.query_score_0_10 == pytest.approx(7.0)
    assert chatbot_pref_overuse([9, 9, 9, 7, 10]).passed
    none = chatbot_pref_overuse([])
    assert (none.restraint_score, none.overuse_rate, none.passed) == (10.0, 0.0, True)


# --- geo shift ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Try Blue Bottle in Oakland tonight", 1.0),
        ("Try Blue Bottle in OAKLAND tonight", 1.0),  # case ignored
        ("Plenty of options in California", 1.0),  # the current region
        ("Oakland has more than Boston does", 0.0),  # the prior city wins
        ("Try a cafe nearby", 0.5),
        ("A Bostonian favourite nearby", 0.5),  # whole words only
    ],
)
def test_geo_shift_correctness(text: str, expected: float) -> None:
    assert geo_shift_correctness(text, "Oakland", "Boston", "California") == expected


def test_an_empty_place_never_matches() -> None:
    assert geo_shift_correctness("anything at all", "", "", "") == 0.5


def test_the_geo_text_is_the_json_response_field_or_the_reply() -> None:
    assert geo_reply_text('```json\n{"response": "Go to Oakland"}\n```') == "Go to Oakland"
    assert geo_reply_text('{"response": ""}') == '{"response": ""}'
    assert geo_reply_text("plain words") == "plain words"
    assert geo_reply_text(None) == ""


# --- paired F1 ------------------------------------------------------------------------------


# --- active_mistake_prevention: one row ---------------------------------------------------


def test_a_warn_row_needs_a_warning_half_the_frame_and_no_leak() -> None:
    text = "Heads up: your dentist visit clashes with the Denver flight."
    # "Heads up" matches; must_mention [dentist, denver, passport] -> 2 of 3 >= 0.5
    row = mistake_row(text, None, "warn", ["Dentist", "denver", "passport"], ["salary"])
    assert (row.warning_issued, row.leak, row.correct) == (True, False, True)
    assert row.must_mention_coverage == pytest.approx(2 / 3)
    assert row.metrics()["correct_warn"] == 1 and row.metrics()["correct_foil"] == 0
    # one of three terms (1/3 < 0.5): not correct; a must-not term named: not correct
    assert not mistake_row(text, None, "warn", ["dentist", "x1", "x2"]).correct
    assert not mistake_row(text, None, "warn", [], ["DENVER"]).correct
    # no phrase, but the reply's own flag says it warned
    assert mistake_row("Your 3pm overlaps the 2pm.", True, "warn").correct
    # a short warn reply is not gated (no gate on the warn side)
    assert mistake_row("Warning!", None, "warn").substantive is False
    assert mistake_row("Warning!", None, "warn").correct


def test_the_warning_phrases_are_whole_words() -> None:
    assert not mistake_row("the flagged contradicts", False, "warn").warning_issued
    assert mistake_row("a contradic here", False, "warn").warning_issued
    assert mistake_row("Actually, no", False, "warn").warning_issued


def test_a_foil_row_needs_a_substantive_silent_reply() -> None:
    assert mistake_row(LONG_REPLY, False, "foil").correct
    # LONG_REPLY has no warning phrase; "make sure" is one
    assert not mistake_row(LONG_REPLY + " make sure", False, "foil").correct
    assert not mistake_row(LONG_REPLY, True, "foil").correct
    short = mistake_row("Sounds good, enjoy!", False, "foil")
    assert (short.substantive, short.correct) == (False, False)
    assert short.metrics()["skip_reason"] == "non_substantive_foil"
    assert not mistake_row(LONG_REPLY, False, "other").correct


def test_paired_f1_is_the_harmonic_mean() -> None:
    # 2 x 0.5 x 1 / 1.5 = 0.6667
    assert paired_f1(0.5, 1.0) == pytest.approx(2 / 3)
    assert paired_f1(0.0, 0.0) == 0.0
    assert paired_f1(1.0, 0.0) == 0.0


def test_warn_and_foil_rows_are_joined_by_pair() -> None:
    rows = [
        ("105:0001:p1_warn", {"correct_warn": 1}),
        ("105:0002:p1_foil", {"correct_foil": 1}),
        ("105:0003:p2_warn", {"correct_warn": 0}),
        ("105:0004:p2_foil", {"correct_foil": 1}),
        ("105:0005:p3_warn", {"correct_warn": 1}),
        ("105:0006:unrelated", {"correct": 1}),
    ]
    # warn [1, 0, 1] -> 2/3; foil [1, 1] -> 1; complete pairs p1 (both) p2 (not) -> 0.5;
    # F1 = 2 x 2/3 x 1 / (5/3) = 0.8
    result = e6_paired(rows)
    assert result is not None
    assert result.n_pairs == 3
    assert result.warn_recall == pytest.approx(2 / 3)
    assert result.foil_precision == 1.0
    assert result.paired_correct == 0.5
    assert result.paired_f1 == pytest.approx(0.8)
    assert e6_paired([]) is None


def test_a_missing_correct_flag_counts_zero() -> None:
    result = e6_paired([("p_warn", {}), ("p_foil", {"correct_foil": 1})])
    assert result is not None
    assert (result.warn_recall, result.paired_f1) == (0.0, 0.0)


# --- 0-100 -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "value", "expected"),
    [
        ("fraction", 0.25, 25.0),
        ("inverted_fraction", 0.2, 80.0),
        ("boolean", True, 100.0),
        ("boolean", 0, 0.0),
        ("0to10", 7, 70.0),
        ("0to3", 2, 200 / 3),
        ("signed_unit", 0.5, 75.0),  # 50 x 1.5
        ("signed_unit", -2.0, 0.0),  # clamped to -1
        ("signed_unit", 1.5, 100.0),  # clamped to 1
        ("pref_align_gated", 8, 80.0),
    ],
)
def test_the_scale_conversions(kind: ScaleKind, value: object, expected: float) -> None:
    assert accuracy_value(kind, "m", {"m": value}) == pytest.approx(expected)


def test_pr_combined_divides_by_the_rows_maximum() -> None:
    # 4.5 of 6 -> 75
    assert accuracy_value("pr_combined", "s", {"s": 4.5, "pr_combined_max_possible": 6}) == 75.0
    assert accuracy_value("pr_combined", "s", {"s": 4.5, "pr_combined_max_possible": 0}) is None
    assert accuracy_value("pr_combined", "s", {"s": 4.5}) is None


def test_a_hard_rule_zeroes_the_gated_preference_alignment() -> None:
    metrics = {"s": 9, "pr_privacy_leak_violated": 1}
    assert accuracy_value("pref_align_gated", "s", metrics) == 0.0


def test_the_order_of_the_gates() -> None:
    assert accuracy_value("fraction", "m", {"m": 1.0}, status="error") == 0.0
    assert (
        accuracy_value("fraction", "m", {"m": 1.0, "removal_status": "skipped_low_personalization"})
        is None
    )
    # silence scores 0 even where the metric would read as a perfect restraint
    assert (
        accuracy_value("inverted_fraction", "m", {"m": 0.0, "non_substantive_response": 1}) == 0.0
    )
    assert accuracy_value("fraction", "m", {"m": 1.0, "response_is_substantive": False}) == 0.0
    # paired_correct is read before the substantive gate
    assert (
        accuracy_value("paired_correct", "x", {"correct": 1, "non_substantive_response": 1})
        == 100.0
    )
    assert accuracy_value("paired_correct", "x", {}) is None
    assert accuracy_value("fraction", "m", {}) is None
    assert accuracy_value("fraction", "m", {"m": "n/a"}) is None


def test_agentic_pass_rate_counts_passes_over_checks() -> None:
    # 2 + 1 passed, 1 failed -> 75; no checks -> 0
    metrics = {"tool_call_rules_pass": 2, "output_quality_passed": 1, "final_state_rules_failed": 1}
    assert accuracy_value("agentic_pass_rate", "", metrics) == 75.0
    assert accuracy_value("agentic_pass_rate", "", {}) == 0.0


def test_micro_is_the_mean_of_scored_rows() -> None:
    # (100 + 50 + 0) / 3 = 50; None rows are left out
    assert micro_accuracy([100.0, 50.0, None, 0.0]) == 50.0
    assert micro_accuracy([None]) is None


# --- the rubric combiner -------------------------------------------------------------------


def test_the_polarity_aware_combination() -> None:
    applicable = {
        "preference_alignment": True,
        "subtle_personalization": True,
        "telegraph_avoidance": True,  # not defined -> "+"
        "privacy_leak": True,
        "over_personalization": True,
        "voice_match": False,
    }
    scores = {
        "preference_alignment_score": 3,
        "subtle_personalization_score": 2,
        "telegraph_avoidance_score": 1.0,
        "privacy_leak_hard_fail": 1,
        "over_personalization_score": 1,
        "voice_match_score": 3,  # not applicable: ignored
    }
    # + dims: 3 + 2 + 1 = 6, max 3 x 3 = 9
    # - dims: privacy hard fail 1.5; over_personalization (3 - 1) / 3 x 1.5 = 1.0 -> 2.5
    # combined 6 - 2.5 = 3.5
    result = combine_dim_scores_with_polarity(scores, applicable)
    assert astuple(result) == pytest.approx((6.0, 2.5, 3.5, 9.0))


def test_the_combination_is_clamped_and_unscored_dims_still_set_the_maximum() -> None:
    applicable = {"preference_alignment": True, "avoid_leak": True, "stale_preference_use": True}
    scores = {"avoid_leak_hard_fail": 1, "stale_preference_use_hard_fail": True}
    # nothing gained, 3.0 penalty -> clamped at 0; max 3 from the unscored + dim
    assert combine_dim_scores_with_polarity(scores, applicable) == Combined(0.0, 3.0, 0.0, 3.0)
    assert combine_dim_scores_with_polarity({}, {}) == Combined(0.0, 0.0, 0.0, 0.0)


def test_the_alias_resolves_relationship_aware_as_positive() -> None:
    result = combine_dim_scores_with_polarity(
        {"relationship_aware_score": 2}, {"relationship_aware": True}
    )
    assert result == Combined(2.0, 0.0, 2.0, 3.0)
