"""PersonaMem-v3 ranking: how a reply's ranking is read, graded NDCG@k, the lifecycle
match rate and score. Expected values are worked by hand in the comments.

Discounts used below (rank r from 1: 1 / log2(r + 1)):
  r1 1, r2 0.6309298, r3 0.5, r4 0.4306766, r5 0.3868528; their sum D = 2.9484592.
"""

from __future__ import annotations

import pytest

from inspect_personamem.datasets.v3.reading.reply import extract_json
from inspect_personamem.datasets.v3.rules.lifecycle import (
    lifecycle_ranking,
    lifecycle_score,
    match_rate_at_3,
)
from inspect_personamem.datasets.v3.rules.ranking import (
    FILLER_GRADE,
    Slate,
    SlateLabels,
    graded_ndcg_at_k,
    parse_ranking,
)
from inspect_personamem.datasets.v3.task_types.registry import TASK_TYPES

D2, D3, D4, D5 = 0.6309298, 0.5, 0.4306766, 0.3868528
D = 1 + D2 + D3 + D4 + D5  # 2.9484592
IDEAL_ONE_POSITIVE = 2 + (D - 1)  # [2, 1, 1, 1, 1] -> 3.9484592


# --- reading the reply ---------------------------------------------------------------


def slate(name: str) -> Slate:
    """The ranking rule of task type `name`."""
    scorer = TASK_TYPES[name].scorer
    assert isinstance(scorer, Slate)
    return scorer


def test_fenced_json_is_read_and_the_recsys_key_is_ranked_indexes() -> None:
    reply = 'Here you go:\n```json\n{"ranked_indexes": [3, 1, 2], "reasoning": "x"}\n```'
    assert slate("personalized_recommendation").ranking(reply, 16) == [3, 1, 2]
    assert slate("hidden_persona_recommendation").key == "ranked_indexes"
    assert slate("at_ai_directive_followup").key == "ranked_indices"


def test_an_unfenced_object_is_read_whole() -> None:
    assert extract_json('{"ranked_indexes": [0]}') == {"ranked_indexes": [0]}


def test_the_bracket_span_is_tried_before_the_brace_span() -> None:
    # Prose around an object: the whole text is no JSON, so the authors try the span
    # from the first "[" to the last "]" first -> the inner list, not the object.
    assert extract_json('ranking: {"ranked_indexes": [1, 2]} done') == [1, 2]
    # ... which is not an object, so no ranking is read from it.
    assert (
        slate("personalized_recommendation").ranking('ranking: {"ranked_indexes": [1, 2]} done', 4)
        == []
    )


def test_no_json_reads_none_and_an_empty_reply_none() -> None:
    assert extract_json("no json here") is None
    assert extract_json("") is None
    assert extract_json(None) is None


def test_recsys_keeps_a_ranking_as_given_duplicates_and_strangers_included() -> None:
    reply = '{"ranked_indexes": [2, 2, 99, "a"]}'
    assert slate("personalized_recommendation").ranking(reply, 4) == [2, 2, 99, "a"]
    assert slate("personalized_recommendation").ranking('{"ranked_indexes": "0,1"}', 4) == []
    assert slate("personalized_recommendation").ranking("[0, 1]", 4) == []  # not an object


@pytest.mark.parametrize(
    "reply",
    [
        '{"ranked_indices": [0, 1, 1, 3]}',  # a repeat, 2 missing
        '{"ranked_indices": [0, 1, 2]}',  # one short
        '{"ranked_indices": [0, 1, 2, "3"]}',  # mixed types: cannot be sorted
        '{"ranked_indices": [[0], 1, 2, 3]}',  # an unhashable item
        "no json",
    ],
)
def test_at_ai_falls_back_to_the_identity_order_when_not_a_permutation(reply: str) -> None:
    assert slate("at_ai_directive_followup").ranking(reply, 4) == [0, 1, 2, 3]


def test_at_ai_keeps_a_valid_permutation() -> None:
    assert slate("at_ai_directive_followup").ranking('{"ranked_indices": [3, 0, 2, 1]}', 4) == [
        3, 0, 2, 1,
    ]  # fmt: skip


def test_parse_ranking_with_a_missing_key_is_empty() -> None:
    assert (
        parse_ranking(
            '{"other": [1]}', key="ranked_indexes", n_candidates=3, require_permutation=False
        )
        == []
    )


# --- labels --------------------------------------------------------------------------


def test_slate_labels_of_each_task_shape() -> None:
    recsys = {"candidates": [{}] * 16, "held_out_idx": 4, "hard_negative_idxs": [1, 7]}
    assert slate("personalized_recommendation").labels(recsys) == SlateLabels(
        frozenset({4}), frozenset({1, 7}), 16
    )
    at_ai = {"candidates": [{}] * 12, "positive_indices": [0, 5], "carveout_indices": [3]}
    assert slate("at_ai_directive_followup").labels(at_ai) == SlateLabels(
        frozenset({0, 5}), frozenset({3}), 12
    )
    no_target: dict[str, object] = {"candidates": [], "held_out_idx": None}
    assert slate("hidden_persona_recommendation").labels(no_target) == SlateLabels(
        frozenset(), frozenset(), 0
    )


def test_the_filler_grade_is_zero_only_for_hidden_persona_without_hard_negatives() -> None:
    assert slate("hidden_persona_recommendation").filler_grade(set()) == 0.0
    assert slate("hidden_persona_recommendation").filler_grade({2}) == FILLER_GRADE == 1.0
    assert slate("personalized_recommendation").filler_grade(set()) == 1.0


# --- graded NDCG ---------------------------------------------------------------------


def test_the_held_out_first_and_no_hard_negative_in_the_top_5_is_perfect() -> None:
    # gains [2, 1, 1, 1, 1] = the ideal -> 1
    assert graded_ndcg_at_k([3, 0, 1, 2, 4, 5], {3}, {5, 6}) == pytest.approx(1.0)


def test_a_missed_held_out_scores_the_75_percent_floor() -> None:
    # gains [1, 1, 1, 1, 1] -> D = 2.9484592; ideal 3.9484592 -> 0.7467367
    assert graded_ndcg_at_k([0, 1, 2, 4, 7], {3}, {5, 6}) == pytest.approx(0.7467367, abs=1e-6)


def test_hard_negatives_on_top_are_floored_at_zero() -> None:
    # gains [-2, -2, 2, 1, 1]: -2 - 1.2618596 + 1 + 0.4306766 + 0.3868528 = -1.4443302
    # / 3.9484592 = -0.3657959, floored to 0 (test_v3_ndcg_audit: why)
    ranked = [5, 6, 3, 0, 1]
    assert graded_ndcg_at_k(ranked, {3}, {5, 6}, floor_at_zero=False) == pytest.approx(
        -0.3657959, abs=1e-6
    )
    assert graded_ndcg_at_k(ranked, {3}, {5, 6}) == 0.0


def test_the_held_out_second_in_a_binary_hidden_persona_slate() -> None:
    # filler 0: gains [0, 2, 0, 0, 0] -> 2 x 0.6309298; ideal [2, 0, 0, 0, 0] = 2 -> 0.6309298
    assert graded_ndcg_at_k([0, 3, 1, 2, 4], {3}, set(), filler_grade=0.0) == pytest.approx(
        0.6309298, abs=1e-6
    )


def test_several_positives_and_a_carve_out() -> None:
    # gains [2, -2, 2, 1, 1] = 2 - 1.2618596 + 1 + 0.4306766 + 0.3868528 = 2.5556698
    # ideal [2, 2, 1, 1, 1] = 2 + 1.2618596 + 0.5 + 0.4306766 + 0.3868528 = 4.579389
    # -> 0.5580809
    assert graded_ndcg_at_k([1, 0, 2, 3, 4], {1, 2}, {0}) == pytest.approx(0.5580809, abs=1e-6)


def test_a_repeated_item_gains_only_the_filler_grade() -> None:
    # [3, 3, 3, 3, 3]: gains [2, 1, 1, 1, 1] (the repeats are fillers) = the ideal -> 1,
    # never the 2 x 3.9484592 / 3.9484592 counting the positive five times would give
    assert graded_ndcg_at_k([3, 3, 3, 3, 3], {3}, {5}) == pytest.approx(1.0)
    # a repeated hard negative costs once: gains [-2, 1, 2, 1, 1]
    # = -2 + 0.6309298 + 1 + 0.4306766 + 0.3868528 = 0.4484592 / 3.9484592 = 0.1135778
    assert graded_ndcg_at_k([5, 5, 3, 0, 1], {3}, {5}) == pytest.approx(0.1135778, abs=1e-6)


def test_an_empty_ranking_scores_zero() -> None:
    assert graded_ndcg_at_k([], {3}, {5}) == 0.0


def test_a_short_ranking_counts_only_what_it_ranks() -> None:
    # gains [2, 1] = 2 + 0.6309298 = 2.6309298 over 3.9484592 -> 0.6663181
    assert graded_ndcg_at_k([3, 0], {3}, {5}) == pytest.approx(0.6663181, abs=1e-6)


def test_no_positive_with_filler_zero_has_no_ideal_and_scores_zero() -> None:
    assert graded_ndcg_at_k([0, 1, 2], set(), set(), filler_grade=0.0) == 0.0


def test_no_positive_with_filler_one_is_all_fillers_against_all_fillers() -> None:
    # ideal [1, 1, 1, 1, 1] = D; a ranking of five fillers = D -> 1
    assert graded_ndcg_at_k([0, 1, 2, 3, 4], set(), {9}) == pytest.approx(1.0)


def test_strangers_are_fillers() -> None:
    # an unhashable or off-slate item is a filler: [[3], 99, 3] -> gains [1, 1, 2]
    # = 1 + 0.6309298 + 1.0 = 2.6309298 -> 0.6663181
    assert graded_ndcg_at_k([[3], 99, 3], {3}, set()) == pytest.approx(0.6663181, abs=1e-6)


def test_k_zero_or_below_scores_zero() -> None:
    assert graded_ndcg_at_k([3], {3}, set(), 0) == 0.0


def test_k_three_cuts_the_list() -> None:
    # gains [1, 1, 2] = 1 + 0.6309298 + 1.0 = 2.6309298; ideal [2, 1, 1] = 3.1309298
    # -> 0.8403030
    assert graded_ndcg_at_k([0, 1, 3, 5], {3}, {5}, 3) == pytest.approx(0.8403030, abs=1e-6)


def test_task_ndcg_reads_the_reply_and_picks_the_filler_grade() -> None:
    labels = SlateLabels(frozenset({3}), frozenset(), 16)
    reply = '```json\n{"ranked_indexes": [0, 3, 1, 2, 4]}\n```'
    # hidden persona without hard negatives: binary -> 0.6309298 (see above)
    assert slate("hidden_persona_recommendation").ndcg(reply, labels) == pytest.approx(
        0.6309298, abs=1e-6
    )
    # recsys, same slate: gains [1, 2, 1, 1, 1] = 1 + 1.2618596 + 0.5 + 0.4306766
    # + 0.3868528 = 3.579389 over 3.9484592 -> 0.9065280
    assert slate("personalized_recommendation").ndcg(reply, labels) == pytest.approx(
        0.9065280, abs=1e-6
    )


def test_task_ndcg_of_an_unreadable_at_ai_reply_scores_the_identity_order() -> None:
    # identity [0, 1, 2, 3]; positive {0}, carve-out {1}:
    # gains [2, -2, 1, 1] = 2 - 1.2618596 + 0.5 + 0.4306766 = 1.668817
    # ideal [2, 1, 1, 1, 1] = 3.9484592 -> 0.4226502
    labels = SlateLabels(frozenset({0}), frozenset({1}), 4)
    assert slate("at_ai_directive_followup").ndcg("sorry", labels) == pytest.approx(
        0.4226502, abs=1e-6
    )


# --- lifecycle -----------------------------------------------------------------------


def test_match_rate_at_3_is_over_three() -> None:
    # top 3 = {2, 5, 7}; on-topic {2, 7, 9} -> 2 of 3
    assert match_rate_at_3([2, 5, 7, 9, 0], {2, 7, 9}) == pytest.approx(2 / 3)
    # one on-topic item on top still counts over 3
    assert match_rate_at_3([4, 0, 1], {4}) == pytest.approx(1 / 3)
    assert match_rate_at_3([4, 0, 1], set()) == 0.0
    assert match_rate_at_3([], {1}) == 0.0


def test_lifecycle_score_is_pre_minus_post() -> None:
    assert lifecycle_score(2 / 3, 1 / 3) == pytest.approx(1 / 3)
    assert lifecycle_score(1.0, 0.0) == 1.0
    assert lifecycle_score(0.0, 1.0) == -1.0


def test_lifecycle_ranking_uses_ranked_indices_and_the_identity_fallback() -> None:
    assert lifecycle_ranking('{"ranked_indices": [2, 0, 1]}', 3) == [2, 0, 1]
    assert lifecycle_ranking('{"ranked_indexes": [2, 0, 1]}', 3) == [0, 1, 2]
