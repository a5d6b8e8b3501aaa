"""PersonaMem-v3's scorer and metrics: each rule-scored task type on a hand-worked reply,
the substantive gate, and the metrics (micro, macro, per
family and type with intervals clustered by persona, the lifecycle pairs, paired F1) on
hand-made scores. Expected values are worked by hand in the comments."""

from __future__ import annotations

import math
from typing import Any, cast

import anyio
import pytest
from inspect_ai._util.registry import registry_info
from inspect_ai.scorer import SampleScore, Score, Target, Value, ci_wilson, stderr
from support.v3_scoring import replied, row_metadata

from inspect_personamem.datasets.v3.rules.score import CANDIDATE_COUNT
from inspect_personamem.datasets.v3.scoring.by_rule import RULE_TASKS, missing_field
from inspect_personamem.datasets.v3.scoring.metrics import (
    Row,
    clustered_mean,
    headline_rows,
    lifecycle_part,
    v3_accuracy,
    v3_by_family,
    v3_by_metadata,
    v3_by_type,
    v3_gated,
    v3_paired_f1,
)
from inspect_personamem.datasets.v3.scoring.scorers import v3_scorer
from inspect_personamem.datasets.v3.task_types.registry import TASK_TYPES
from inspect_personamem.datasets.v3.version import VERSION
from inspect_personamem.scoring.rows import PART_KEY, Part

# 20 distinct tokens of 3+ characters: substantive.
LONG_REPLY = (
    "Here are some weekend ideas: visit the farmers market, try a new hiking trail, "
    "bake sourdough bread, read novels, call friends"
)
D2, D3, D4, D5 = (1 / math.log2(n) for n in (2, 3, 4, 5))
"""The NDCG discounts of ranks 1-4 (1 / log2(rank + 1))."""
D6 = 1 / math.log2(6)
GEO = "local_recommendation_geo_shift"


def scored(
    task_type: str,
    reply: str | None,
    fields: dict[str, Any] | None = None,
    query_id: str = "105:0001:inst",
) -> Score:
    asked = replied(row_metadata(task_type, fields, query_id), reply)
    return cast(Score, anyio.run(v3_scorer(), asked, Target("")))


def meta(score: Score) -> dict[str, Any]:
    return score.metadata or {}


def test_the_scorer_is_registered_as_v3_scorer() -> None:
    assert registry_info(v3_scorer).name.endswith("v3_scorer")


def test_the_rule_scored_types_are_the_six_not_judged() -> None:
    assert {name for name, task in TASK_TYPES.items() if not task.judged} == RULE_TASKS
    assert len(RULE_TASKS) == 6


# --- the ranking tasks ----------------------------------------------------------------


def test_personalized_recommendation_is_graded_ndcg_at_5() -> None:
    fields = {"held_out_idx": 2, "hard_negative_idxs": [3], CANDIDATE_COUNT: 4}
    score = scored("personalized_recommendation", '{"ranked_indexes": [2, 0, 3, 1]}', fields)
    # grades: 2 (held out), 1 (filler), -2 (hard negative), 1 (filler)
    # DCG = 2/1 + 1/log2(3) - 2/2 + 1/log2(5) = 2.06161
    # ideal = [2, 1, 1, 1, 1]: 2 + 1/log2(3) + 1/2 + 1/log2(5) + 1/log2(6) = 3.94846
    # NDCG = 0.52213 -> 52.21 on the authors' 0-100, 0.52213 as the value
    dcg = 2 * D2 + D3 - 2 * D4 + D5
    ideal = 2 * D2 + D3 + D4 + D5 + D6
    assert score.value == pytest.approx(dcg / ideal)
    assert score.value == pytest.approx(0.52213, abs=1e-5)
    assert meta(score)["raw"] == pytest.approx(dcg / ideal)
    assert meta(score)["accuracy"] == pytest.approx(52.213, abs=1e-3)
    assert (meta(score)["kind"], meta(score)["metric"]) == ("fraction", "ndcg_at_5")
    assert (meta(score)["counted"], meta(score)["gated"]) == (True, False)
    assert meta(score)["family"] == "recommendation"


def test_at_ai_reads_ranked_indices_and_falls_back_to_the_identity() -> None:
    fields = {"positive_indices": [1], "carveout_indices": [0], CANDIDATE_COUNT: 3}
    # [1, 1] is no permutation of 0..2: the identity [0, 1, 2]
    # DCG = -2/1 + 2/log2(3) + 1/2 = -0.23814; ideal [2, 1, 1, 1, 1] = 3.94846
    # NDCG = -0.06031, floored at 0 (the authors' stated values imply the floor:
    # test_v3_ndcg_audit) -> 0 on 0-100
    score = scored("at_ai_directive_followup", '{"ranked_indices": [1, 1]}', fields)
    assert (-2 * D2 + 2 * D3 + D4) / (2 * D2 + D3 + D4 + D5 + D6) < 0
    assert score.value == 0.0
    assert meta(score)["accuracy"] == 0.0


def test_hidden_persona_without_hard_negatives_is_binary() -> None:
    fields = {"held_out_idx": 0, "hard_negative_idxs": [], CANDIDATE_COUNT: 2}
    # filler grade 0: DCG = 0 + 2/log2(3) = 1.26186; ideal [2, 0, 0, 0, 0] = 2
    # NDCG = 0.63093 -> 63.09 on 0-100
    score = scored("hidden_persona_recommendation", '{"ranked_indexes": [1, 0]}', fields)
    assert score.value == pytest.approx(D3)
    assert score.value == pytest.approx(0.63093, abs=1e-5)


# --- geo shift ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        # the JSON `response` names the current city: 1 (100 on 0-100)
        ('```json\n{"response": "Try Blue Bottle in Oakland tonight."}\n```', 1.0),
        # the region counts as the current place: 1
        ('{"response": "Plenty of options in California."}', 1.0),
        # the prior city, whatever else: 0
        ('{"response": "Oakland or, as in Boston, a diner."}', 0.0),
        # neither: 0.5 (50 on 0-100)
        ("Any cozy cafe with good light works.", 0.5),
    ],
)
def test_geo_shift_reads_the_response_field(reply: str, expected: float) -> None:
    fields = {"current_city": "Oakland", "prior_city": "Boston", "current_region": "California"}
    score = scored("local_recommendation_geo_shift", reply, fields)
    assert score.value == expected
    assert meta(score)["raw"] == expected
    assert meta(score)["accuracy"] == 100 * expected


# --- active mistake prevention --------------------------------------------------------

FRAME = {"expected_warning_frame": {"must_mention": ["dentist", "Denver"], "must_not_mention": []}}


def test_a_warn_row_that_warns_is_correct() -> None:
    reply = (
        '{"response": "Heads up: your dentist appointment overlaps your Denver flight.", '
        '"warned": true}'
    )
    # "Heads up" matches; both terms named (coverage 1 >= 0.5); no leak: correct -> 1
    score = scored("active_mistake_prevention", reply, {**FRAME, "polarity": "warn"})
    assert score.value == 1.0
    assert meta(score)["row_metrics"]["correct_warn"] == 1
    assert meta(score)["join"] == {"kind": "mistake", "pair": "inst", "side": "warn"}


def test_a_short_foil_reply_is_gated_to_zero() -> None:
    # "Sure." is 1 distinct token: the foil side's gate makes it wrong -> 0, gated
    score = scored(
        "active_mistake_prevention", '{"response": "Sure.", "warned": false}', {"polarity": "foil"}
    )
    assert score.value == 0.0
    assert (meta(score)["gated"], meta(score)["substantive"]) == (True, False)
    assert "gate" in (score.explanation or "")
    # a substantive silent foil reply is right -> 1
    right = scored("active_mistake_prevention", LONG_REPLY, {"polarity": "foil"})
    assert (right.value, meta(right)["gated"]) == (1.0, False)


def test_no_other_rule_type_is_gated() -> None:
    # a 1-token reply to the geo task is not gated (the authors' runner writes no flag)
    score = scored("local_recommendation_geo_shift", "Oakland", {"current_city": "Oakland"})
    assert (score.value, meta(score)["gated"], meta(score)["substantive"]) == (1.0, False, False)


# --- lifecycle -----------------------------------------------------------------------


def test_a_lifecycle_probe_is_its_match_rate_and_not_counted_alone() -> None:
    fields = {
        "phase": "pre",
        "canonical_id": "trip",
        "matching_indices": [0, 1],
        CANDIDATE_COUNT: 5,
    }
    # top 3 {0, 1, 2} holds 2 of the matching: value 2 / 3, no headline of its own
    score = scored("short_vs_long_term_lifecycle", '{"ranked_indices": [0, 1, 2, 3, 4]}', fields)
    assert score.value == pytest.approx(2 / 3)
    assert (meta(score)["counted"], meta(score)["accuracy"]) == (False, None)
    assert meta(score)["join"] == {"kind": "lifecycle", "pair": "trip", "side": "pre"}
    # its share of the persona's pair row: 1/2 + rate / 2 (the post probe's: - rate / 2)
    assert Part.of(meta(score)) == Part("lifecycle:105:trip", "pre", 2, 0.5, 0.5)


# --- unscored ---------------------------------------------------------------------------


def test_a_question_never_replied_to_is_unscored() -> None:
    score = scored("personalized_recommendation", None)
    assert isinstance(score.value, float) and math.isnan(score.value)


# --- the metrics -----------------------------------------------------------------------


def sample(task_type: str, user: str, value: float, n: int, **extra: Any) -> SampleScore:
    """A score as the scorer leaves it (only what the metrics read)."""
    query_id = extra.pop("query_id", f"{user}:{n:04d}:i{n}")
    metadata = {
        "task_type": task_type,
        "user_id": user,
        "query_id": query_id,
        "counted": True,
        "gated": False,
        "substantive": True,
        **extra,
    }
    return SampleScore(score=Score(value=value, metadata=metadata), sample_id=query_id)


def probe(user: str, side: str, rate: float, n: int, pair: str = "trip") -> SampleScore:
    join = {"kind": "lifecycle", "pair": pair, "side": side}
    return sample(
        "short_vs_long_term_lifecycle",
        user,
        rate,
        n,
        counted=False,
        join=join,
        **{PART_KEY: lifecycle_part(user, join).metadata()},
    )


SCORES = [
    sample("personalized_recommendation", "A", 1.0, 1),
    sample("local_recommendation_geo_shift", "A", 0.5, 2),
    probe("A", "pre", 1.0, 3),
    probe("A", "post", 0.0, 4),
    sample("personalized_recommendation", "B", 0.0, 5),
    sample("local_recommendation_geo_shift", "B", 1.0, 6),
    probe("B", "pre", 2 / 3, 7),  # no post probe: unpaired, counts nowhere
    sample("personalized_recommendation", "C", 0.5, 8, gated=True, substantive=False),
]
"""Rows (0-1): A rec 1, A geo 0.5, A lifecycle (1 + 1 - 0) / 2 = 1, B rec 0, B geo 1,
C rec 0.5."""


def run(metric: Any, scores: list[SampleScore]) -> dict[str, float]:
    return cast(dict[str, float], cast(Value, metric(scores)))


def test_the_lifecycle_pair_is_made_from_its_two_probes() -> None:
    rows, unpaired = headline_rows(SCORES)
    assert Row("A", "short_vs_long_term_lifecycle", 1.0) in rows
    assert len(rows) == 6
    assert unpaired == 1
    # pre 2/3, post 1/3: score 1/3 -> 50 x 4/3 = 66.67 on 0-100, 2/3 as a value
    rows, _ = headline_rows([probe("D", "pre", 2 / 3, 1), probe("D", "post", 1 / 3, 2)])
    assert [row.value for row in rows] == [pytest.approx(2 / 3)]


def test_accuracy_is_the_micro_first_then_the_macro_with_clustered_intervals() -> None:
    values = run(v3_accuracy(), SCORES)
    # the headline comes first: `inspect view` shows a run's first metric
    # (and its 95% interval, under every version's names)
    assert list(values)[:5] == ["accuracy", "ci_low", "ci_high", "stderr", "macro"]
    # micro: (1 + 0.5 + 1 + 0 + 1 + 0.5) / 6 = 0.6667
    assert values["accuracy"] == pytest.approx(4 / 6)
    # macro: rec (1 + 0 + 0.5) / 3 = 0.5, geo (0.5 + 1) / 2 = 0.75, lifecycle 1 -> 0.75
    assert values["macro"] == pytest.approx(0.75)
    assert (values["rows"], values["personas"], values["lifecycle_unpaired"]) == (6, 3, 1)
    # micro's clustered stderr: deviations from 0.6667 summed per persona:
    # A 0.333 - 0.167 + 0.333 = 0.5, B -0.667 + 0.333 = -0.333, C -0.167;
    # sqrt((0.25 + 0.1111 + 0.0278) x 3 / 2) / 6 = 0.12729; t(2) = 4.303
    assert values["stderr"] == pytest.approx(0.12729, abs=1e-5)
    # Wilson's with t(2): effective size 2/9 / 0.12729^2 = 13.7, capped at the 6 rows;
    # t^2 / n = 3.0855: middle (2/3 + 1.5428) / 4.0855 = 0.5408, half
    # 4.3027 x sqrt(2/9 / 6 + 18.513 / 144) / 4.0855 = 0.4286 (Inspect's `ci_wilson`)
    assert values["ci_low"] == pytest.approx(0.1122, abs=1e-4)
    assert values["ci_high"] == pytest.approx(0.9694, abs=1e-4)
    rows, _ = headline_rows(SCORES)
    wilson = cast(Any, ci_wilson(0.95, cluster="u"))(
        [
            SampleScore(score=Score(value=row.value), sample_id=i, sample_metadata={"u": row.user})
            for i, row in enumerate(rows)
        ]
    )
    assert (values["ci_low"], values["ci_high"]) == pytest.approx(
        (wilson["lower"], wilson["upper"])
    )
    assert 0 <= values["macro_low"] < 0.75 < values["macro_high"] <= 1


def test_the_micro_error_is_inspect_s_clustered_stderr() -> None:
    rows, _ = headline_rows(SCORES)
    inspect_scores = [
        SampleScore(score=Score(value=row.value), sample_id=i, sample_metadata={"u": row.user})
        for i, row in enumerate(rows)
    ]
    expected = cast(float, cast(Any, stderr(cluster="u"))(inspect_scores))
    assert clustered_mean(rows).stderr == pytest.approx(expected)
    assert expected == pytest.approx(0.12729, abs=1e-5)


def test_one_persona_gives_no_interval() -> None:
    estimate = clustered_mean([Row("A", "personalized_recommendation", 0.5)])
    assert estimate.value == 0.5
    assert math.isnan(estimate.low) and math.isnan(estimate.high)
    # the logged stderr is 0 there, as Inspect's `stderr` (the report checks it against it)
    values = run(v3_accuracy(), [sample("personalized_recommendation", "A", 0.5, 1)])
    assert (values["accuracy"], values["stderr"]) == (0.5, 0.0)
    assert math.isnan(values["ci_low"])


def test_no_spread_gives_no_error() -> None:
    # two personas, each type one row: the macro's deviations are all 0
    rows = [Row("A", "personalized_recommendation", 0.8), Row("B", GEO, 1.0)]
    macro = clustered_mean(rows, lambda row: row.task_type)
    assert macro.value == pytest.approx(0.9) and math.isnan(macro.stderr)
    # no error to size it by: Wilson's over the 2 rows, as Inspect's `ci_wilson` does
    assert 0 <= macro.low < 0.9 < macro.high <= 1
    # the micro has spread (deviations -0.1, +0.1: sqrt(0.02 x 2) / 2 = 0.1), and its
    # interval stays inside [0, 1] where mean -+ t(1) x 0.1 would reach 2.17
    micro = clustered_mean(rows)
    assert micro.stderr == pytest.approx(0.1)
    assert 0 <= micro.low < 0.9 < micro.high <= 1


def test_per_family_and_per_type() -> None:
    families = run(v3_by_family(v3_accuracy()), SCORES)
    # recommendation: rec 1, 0, 0.5 and lifecycle 1 -> 0.625; personalization: 0.5, 1
    assert families["family_recommendation"] == pytest.approx(0.625)
    assert families["family_personalization"] == pytest.approx(0.75)
    assert families["family_recommendation_low"] < 0.625 < families["family_recommendation_high"]
    assert "family_agentic_tasks" not in families
    assert list(families)[:3] == [
        "family_personalization",
        "family_personalization_low",
        "family_personalization_high",
    ]
    types = run(v3_by_type(v3_accuracy()), SCORES)
    assert types["type_personalized_recommendation"] == pytest.approx(0.5)
    assert types["type_local_recommendation_geo_shift"] == pytest.approx(0.75)
    # one pair from one persona: a value without an interval
    assert types["type_short_vs_long_term_lifecycle"] == 1.0
    assert "type_short_vs_long_term_lifecycle_low" not in types


def test_gated_replies_are_counted() -> None:
    assert run(v3_gated(), SCORES) == {"gated": 1, "non_substantive": 1}


def test_unscored_and_judged_scores_count_nowhere() -> None:
    judged = SampleScore(
        score=Score.unscored(metadata={"task_type": "agentic_dm_digest", "user_id": "A"}),
        sample_id="j",
    )
    assert run(v3_accuracy(), [*SCORES, judged]) == run(v3_accuracy(), SCORES)


def test_paired_f1_joins_warn_and_foil_rows() -> None:
    amp = "active_mistake_prevention"
    rows = [
        sample(amp, "105", 1.0, 1, query_id="105:0001:e6_105_p1_warn"),
        sample(amp, "105", 0.0, 2, query_id="105:0002:e6_105_p1_foil"),
        sample(amp, "105", 0.0, 3, query_id="105:0003:e6_105_p2_warn"),
        sample(amp, "105", 1.0, 4, query_id="105:0004:e6_105_p2_foil"),
        sample(amp, "105", 1.0, 5, query_id="105:0005:e6_105_p3_warn"),
    ]
    values = run(v3_paired_f1(), [*SCORES, *rows])
    # warn [1, 0, 1] -> 2/3; foil [0, 1] -> 1/2; complete pairs p1 (1, 0), p2 (0, 1): 0
    # F1 = 2 x 2/3 x 1/2 / (2/3 + 1/2) = (2/3) / (7/6) = 4/7
    assert values["amp_warn_recall"] == pytest.approx(2 / 3)
    assert values["amp_foil_precision"] == pytest.approx(0.5)
    assert values["amp_paired_correct"] == 0.0
    assert values["amp_paired_f1"] == pytest.approx(4 / 7)
    assert values["amp_pairs"] == 3
    # each row also counts in the micro, as correct (3 of 5)
    assert run(v3_accuracy(), rows)["accuracy"] == pytest.approx(0.6)
    assert run(v3_paired_f1(), SCORES) == {}


def test_the_scorer_s_own_scores_feed_the_metrics() -> None:
    fields = {
        "phase": "pre",
        "canonical_id": "trip",
        "matching_indices": [0, 1],
        CANDIDATE_COUNT: 5,
    }
    pre = scored("short_vs_long_term_lifecycle", '{"ranked_indices": [0, 1, 2, 3, 4]}', fields)
    post = scored(
        "short_vs_long_term_lifecycle",
        '{"ranked_indices": [4, 3, 0, 1, 2]}',
        {**fields, "phase": "post"},
        query_id="105:0002:inst",
    )
    # pre 2/3, post: top 3 {4, 3, 0} holds 1 -> 1/3; pair (1 + 1/3) / 2 = 0.6667
    scores = [SampleScore(score=s, sample_id=str(i)) for i, s in enumerate((pre, post))]
    assert run(v3_accuracy(), scores)["accuracy"] == pytest.approx(2 / 3)


def test_per_metadata_value_over_the_headline_rows() -> None:
    # app per sample: A's rec and pre probe "feed", the rest none (metadata None -> "unset");
    # A's pair (1) takes its first probe's app: feed = rec 1, pair 1 -> 1;
    # unset = A geo 0.5, B rec 0, B geo 1, C rec 0.5 -> 0.5 (B's lone probe counts nowhere)
    apps = {"A:0001:i1": "feed", "A:0003:i3": "feed"}
    scores = [
        SampleScore(
            score=s.score,
            sample_id=s.sample_id,
            sample_metadata={"app_context": apps.get(str(s.sample_id))},
        )
        for s in SCORES
    ]
    values = run(v3_by_metadata(v3_accuracy(), "app_context", "app"), scores)
    assert values["app_feed"] == 1.0
    assert values["app_unset"] == pytest.approx(0.5)
    # feed's rows are one persona's: no interval, rather than "NaN NaN"
    assert list(values) == ["app_feed", "app_unset", "app_unset_low", "app_unset_high"]


def test_a_rule_scored_reply_is_read_and_the_version_scores_by_rules() -> None:
    score = scored("local_recommendation_geo_shift", "Oakland", {"current_city": "Oakland"})
    assert meta(score)["status"] == "read"  # the report's READ: not an unparsed reply
    assert VERSION.scored_as("chosen", {}) == "rules_and_judges"


@pytest.mark.parametrize(
    ("task_type", "fields", "says"),
    [
        ("personalized_recommendation", {CANDIDATE_COUNT: 16}, "`held_out_idx`"),
        ("personalized_recommendation", {CANDIDATE_COUNT: 16, "held_out_idx": "3"}, "held_out"),
        ("hidden_persona_recommendation", {"held_out_idx": 3}, "`candidates`"),
        ("at_ai_directive_followup", {CANDIDATE_COUNT: 8, "positive_indices": []}, "neither"),
        ("local_recommendation_geo_shift", {"current_city": "Lyon"}, "`prior_city`"),
        ("active_mistake_prevention", {"polarity": "both"}, "`polarity`"),
        ("short_vs_long_term_lifecycle", {"matching_indices": [1]}, "`phase`"),
        ("short_vs_long_term_lifecycle", {"phase": "pre"}, "`matching_indices`"),
    ],
)
def test_a_rule_row_without_what_its_rule_reads_is_named(
    task_type: str, fields: dict[str, Any], says: str
) -> None:
    # without them a slate would rank any reply perfect, a geo row give 0.5, a warn/foil
    # row 0 and a lifecycle probe join no pair: the load refuses them instead
    assert says in missing_field(task_type, fields)


def test_a_complete_rule_row_and_a_judged_row_lack_nothing() -> None:
    assert (
        missing_field("personalized_recommendation", {CANDIDATE_COUNT: 16, "held_out_idx": 3}) == ""
    )
    carve_outs_alone = {CANDIDATE_COUNT: 8, "positive_indices": [], "carveout_indices": [2]}
    assert missing_field("at_ai_directive_followup", carve_outs_alone) == ""
    assert (
        missing_field("local_recommendation_geo_shift", {"current_city": "A", "prior_city": "B"})
        == ""
    )
    trap = {
        "_sycophancy_subtype": "fact",
        "_sycophancy_false_claim": "a claim",
        "_sycophancy_correct_stance": "a stance",
    }
    assert missing_field("over_personalization_sycophancy", trap) == ""
    assert missing_field("over_personalization_chatbot_text", {}) == ""  # a judge reading none
