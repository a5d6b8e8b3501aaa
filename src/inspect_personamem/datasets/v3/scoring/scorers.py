"""PersonaMem-v3's scorer (`v3_scorer`) and its metrics: the authors' deterministic
headlines for the task types `tasks.py` marks not judged, and the judged ones through
the grader (`judged.judged_score`), each sample's value their 0-100 over 100 (0-1, as
every version's, so that Inspect's viewer, intervals and the report read it as they read
v1's and v2's; the 0-100 `accuracy`, and a rule's `raw` value, are in the score's
metadata).

Per sample, the task type (sample metadata `task_type`) picks the rule; it reads the
model's reply and the scorer-only fields (`samples.SCORER_KEY`), never the prompt:

- the three ranking tasks (`tasks.RANKING_TASKS`): graded NDCG@5 over the slate
  (`ranking.task_ndcg`, the published recompute's reading), NDCG (100 x NDCG on
  the authors' scale);
- `local_recommendation_geo_shift`: `rules.geo_shift_correctness` of the reply's
  `response` field (or the whole reply), {0, 0.5, 1};
- `active_mistake_prevention`: one warn or foil row (`rules.mistake_row`),
  `correct`; the pairs' F1 is a metric over the rows (`v3_paired_f1`);
- `short_vs_long_term_lifecycle`: one probe's `match_rate_at_3` (`ranking.
  lifecycle_ranking`, `match_rate_at_3`). The authors' headline row is the pair's
  (`lifecycle_score` = pre - post, 50 x (1 + score) on 0-100), made after the run
  from the two probes of one canonical (e5_horizon_lifecycle.py@b8d90778); the probe rows
  themselves carry no headline and are left out of their means. So here: a probe's
  value is its match rate (`counted` False), and the metrics join each persona's
  pre and post probes into the pair's row; a probe without its partner counts nowhere.

The conversion to 0-100 is `tasks.task_accuracy` (`rules.accuracy_value`) throughout;
the value is that over 100.
The 15-distinct-token gate (`rules.is_substantive`) zeroes a row only where the
authors' runner applies it: of the rule-scored tasks, only the foil side of
`active_mistake_prevention` (their ranking, geo-shift and lifecycle runners write no
substantive flag, and `accuracy_value` reads `correct` before the gate). A score's
`gated` says whether it fired; `substantive` says whether the text the rule read passes
it, on every rule-scored row. `v3_gated` counts the gated rows.

A judged task type is scored by `judged.py` through the model bound to the `grader` role
(`version.py` refuses a run without one), on the same 0-100 (`tasks.task_accuracy`);
a judged row with no score (the judge unreadable, or no faithful judge) gets Inspect's
unscored sentinel (NaN): left out of every metric and counted in the log's
`unscored_samples`, never a 0. A question the model never replied to is unscored too
(`scoring.scorer.answered`), where the authors' runner writes 0 for a failed row
(`rules.FAILED_STATUSES`).

Metrics (`v3_metrics`), all 0-1 and each with a 95% interval clustered by persona
(`user_id`): first `accuracy`, the micro mean (every scored row once: the authors' newest
headline, aggregate_eval@19bc3eec "ALL (micro, row-weighted)"; `inspect view`'s
headline), then the macro (the mean over task types of each type's mean: their
earlier one), per family (row-weighted within the
family, as their by-class roll-ups are; the families are the paper's, `tasks.FAMILIES`,
where theirs group tasks otherwise) and per task type. The interval is the mean's
clustered standard error (for the macro, that of the mean of type means, linearised:
`scoring.intervals`, which the report's paired differences use too), times Student's t
with personas - 1 degrees of freedom; NaN with fewer than two personas or no spread.

With several epochs Inspect hands the metrics each sample's reduced value (the mean
over epochs) and its first epoch's metadata: the pair joins read values, so they use
the epoch means (the lifecycle score is linear in the two match rates, so the pair's
mean over epochs is kept exactly).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Final

from inspect_ai.scorer import (
    Metric,
    SampleScore,
    Score,
    Target,
    Value,
    metric,
    scorer,
    value_to_float,
)
from inspect_ai.solver import TaskState

from inspect_personamem.datasets.v3.prompts.samples import CANDIDATE_COUNT, SCORER_KEY
from inspect_personamem.datasets.v3.rules.ranking import (
    AT_AI_TASK,
    extract_json,
    lifecycle_ranking,
    match_rate_at_3,
    slate_labels,
    task_ndcg,
)
from inspect_personamem.datasets.v3.rules.rules import (
    e6_paired,
    geo_reply_text,
    geo_shift_correctness,
    is_substantive,
    mistake_row,
)
from inspect_personamem.datasets.v3.scoring.judged import judged_score
from inspect_personamem.datasets.v3.scoring.verifiers import rules_problem
from inspect_personamem.datasets.v3.tasks import (
    FAMILIES,
    RANKING_TASKS,
    TASK_TYPES,
    task_accuracy,
)
from inspect_personamem.scoring.grader.scorer import grader_model
from inspect_personamem.scoring.intervals import Clustered, stratified_mean
from inspect_personamem.scoring.rows import PART_KEY, Part, joined
from inspect_personamem.scoring.scorer import Scoring, answered

GEO_TASK: Final = "local_recommendation_geo_shift"
LIFECYCLE_TASK: Final = "short_vs_long_term_lifecycle"
MISTAKE_TASK: Final = "active_mistake_prevention"
RULE_TASKS: Final = frozenset(name for name, task in TASK_TYPES.items() if not task.judged)
"""The task types a rule scores (`TaskType.judged` False): 6 of 31."""
SCORED_AS: Final = "rules_and_judges"
"""How v3's replies are scored (`DatasetVersion.scored_as`): by the authors' rules and,
through the grader role, their judges, 0-1 each (not v2's `judged`, whose grader trials
and agreement read a verdict among candidates)."""
READ_STATUS: Final = "read"
"""A rule-scored reply's `status`: read by its rule (the report's `READ`; a reply the
rule cannot parse is scored as the authors score it, e.g. the identity ranking)."""
PHASES: Final = ("pre", "post")
"""A lifecycle probe's phases, in the order the pair subtracts them."""


@dataclass(frozen=True)
class RuleScore:
    """One row as a rule scores it."""

    raw: float
    """The rule's raw value: the headline metric's, or a lifecycle probe's match rate."""
    accuracy: float | None
    """The row's 0-100 as the authors count it; None for a lifecycle probe (its pair's
    row carries the headline)."""
    metrics: dict[str, object]
    """The row's metrics under the authors' keys."""
    substantive: bool
    """Whether the text the rule read has 15 distinct tokens (`rules.is_substantive`)."""
    gated: bool = False
    """Whether the gate made the row 0."""
    join: dict[str, str] | None = None
    """For the rows a metric joins: {"kind": "lifecycle" | "mistake", "pair", "side"}."""

    @property
    def value(self) -> float:
        """The score's value, 0-1 as every version's: the accuracy / 100, or a probe's
        match rate."""
        return self.accuracy / 100.0 if self.accuracy is not None else self.raw


def _ints(value: object) -> set[int]:
    if not isinstance(value, list):
        return set()
    return {item for item in value if isinstance(item, int) and not isinstance(item, bool)}


def _count(fields: Mapping[str, Any]) -> int:
    count = fields.get(CANDIDATE_COUNT)
    return count if isinstance(count, int) else 0


def instance_of(query_id: str) -> str:
    """The instance id a query id ends with (`uid:seq:instance`, as `rules.e6_paired`)."""
    return query_id.split(":", 2)[-1]


def rule_score(
    task_type: str, reply: str, fields: Mapping[str, Any], query_id: str = ""
) -> RuleScore:
    """Score `reply` by the rule of `task_type` (one of `RULE_TASKS`) with the row's
    scorer-only `fields` (see the module docstring for each rule)."""
    if task_type in RANKING_TASKS:
        labels = replace(slate_labels(task_type, fields), n_candidates=_count(fields))
        ndcg = task_ndcg(reply, task_type, labels)
        metrics: dict[str, object] = {"ndcg_at_5": ndcg}
        return RuleScore(ndcg, task_accuracy(task_type, metrics), metrics, is_substantive(reply))
    if task_type == GEO_TASK:
        text = geo_reply_text(reply)
        correctness = geo_shift_correctness(
            text,
            str(fields.get("current_city") or ""),
            str(fields.get("prior_city") or ""),
            str(fields.get("current_region") or ""),
        )
        metrics = {"geo_shift_correctness": correctness}
        return RuleScore(
            correctness, task_accuracy(task_type, metrics), metrics, is_substantive(text)
        )
    if task_type == MISTAKE_TASK:
        parsed = extract_json(reply)
        warned = parsed.get("warned") if isinstance(parsed, dict) else None
        frame = fields.get("expected_warning_frame")
        frame = frame if isinstance(frame, dict) else {}
        text = geo_reply_text(reply)
        row = mistake_row(
            text,
            warned,
            str(fields.get("polarity") or ""),
            [str(t) for t in frame.get("must_mention") or []],
            [str(t) for t in frame.get("must_not_mention") or []],
        )
        metrics = row.metrics()
        instance = instance_of(query_id)
        return RuleScore(
            float(row.correct),
            task_accuracy(task_type, metrics),
            metrics,
            row.substantive,
            gated=row.polarity == "foil" and not row.substantive,
            join={"kind": "mistake", "pair": instance, "side": row.polarity},
        )
    if task_type == LIFECYCLE_TASK:
        ranked = lifecycle_ranking(reply, _count(fields))
        rate = match_rate_at_3(ranked, _ints(fields.get("matching_indices")))
        phase = str(fields.get("phase") or "")
        pair = str(fields.get("canonical_id") or "") or _without_phase(instance_of(query_id))
        return RuleScore(
            rate,
            None,
            {"match_rate_at_3": rate, "phase": phase, "ranked_indices": ranked},
            is_substantive(reply),
            join={"kind": "lifecycle", "pair": pair, "side": phase} if phase in PHASES else None,
        )
    raise ValueError(f"{task_type!r} is not a rule-scored PersonaMem-v3 task type")


def missing_field(task_type: str, fields: Mapping[str, Any]) -> str:
    """What a rule-scored row lacks of the scorer-only `fields` its rule reads, in words
    naming the field; empty where it lacks nothing (and for a judged type). Without them
    a rule would score silently: a slate without its labels ranks every reply perfect,
    a geo row without its cities gives 0.5, a warn/foil row without its side 0, and a
    lifecycle probe without its phase joins no pair. Of any row, a `tool_call_rules` or
    `final_state_expected` no check reads (`verifiers.rules_problem`): an agent run's
    checks would stop on it."""
    if task_type in RANKING_TASKS:
        if _count(fields) <= 0:
            return "field `candidates`: no candidate slate"
        labels = slate_labels(task_type, fields)
        if task_type == AT_AI_TASK and not labels.positives | labels.hard_negatives:
            # a "less of it" directive has carve-outs alone: its ranking is still graded
            return "fields `positive_indices` and `carveout_indices`: neither names an index"
        if task_type != AT_AI_TASK and not labels.positives:
            return "field `held_out_idx`: not an integer index on the slate"
    if task_type == GEO_TASK:
        for name in ("current_city", "prior_city"):
            if not str(fields.get(name) or "").strip():
                return f"field `{name}`: empty"
    if task_type == MISTAKE_TASK and fields.get("polarity") not in ("warn", "foil"):
        return f"field `polarity`: {fields.get('polarity')!r}, not 'warn' or 'foil'"
    if task_type == LIFECYCLE_TASK:
        if fields.get("phase") not in PHASES:
            return f"field `phase`: {fields.get('phase')!r}, not 'pre' or 'post'"
        if not isinstance(fields.get("matching_indices"), list):
            return "field `matching_indices`: not a list"
    return rules_problem(fields)  # any row: an agent run's checks read them


def _without_phase(instance: str) -> str:
    """An E5 instance id less its `_pre` / `_post` (`e5_{canonical[:40]}_{phase}`)."""
    for phase in PHASES:
        if instance.endswith(f"_{phase}"):
            return instance[: -len(phase) - 1]
    return instance


# --- the metrics -------------------------------------------------------------------


@dataclass(frozen=True)
class Row:
    """One headline row as the authors' aggregate counts it: a scored sample, or a
    lifecycle pair made of two probes."""

    user: str
    task_type: str
    value: float
    sample: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)
    """Its sample's metadata (a pair's: its first probe's), which the report groups by."""

    @property
    def family(self) -> str:
        return TASK_TYPES[self.task_type].family


def _user(score: SampleScore) -> str:
    meta = score.score.metadata or {}
    user = meta.get("user_id") or (score.sample_metadata or {}).get("user_id")
    return str(user) if user is not None else ""


_TO_FLOAT: Final = value_to_float()


def _scored(scores: Sequence[SampleScore]) -> list[tuple[SampleScore, dict[str, Any], float]]:
    """The scored samples with a value, their score metadata and value."""
    out = []
    for s in scores:
        meta = s.score.metadata or {}
        value = _TO_FLOAT(s.score.value)
        if meta.get("task_type") in TASK_TYPES and not math.isnan(value):
            out.append((s, meta, value))
    return out


def lifecycle_part(user: str, join: Mapping[str, str]) -> Part:
    """A lifecycle probe's share of its pair's row, (1 + pre - post) / 2 (the authors'
    50 x (1 + lifecycle_score) over 100): the pre probe 1/2 + its rate / 2, the post
    probe - its rate / 2; the row is the persona's canonical's."""
    pre = join["side"] == PHASES[0]
    return Part(
        row=f"lifecycle:{user}:{join['pair']}",
        side=join["side"],
        parts=len(PHASES),
        offset=0.5 if pre else 0.0,
        weight=0.5 if pre else -0.5,
    )


def headline_rows(scores: Sequence[SampleScore]) -> tuple[list[Row], int]:
    """The rows the authors' micro counts (0-1), and how many lifecycle probes found no
    partner. A sample counts as itself where its score says `counted`; each persona's
    lifecycle pre and post probes of one canonical make one row, (1 + pre - post) / 2
    (`scoring.rows.joined`, as the report joins them; a later probe of the same phase
    replaces an earlier one, as the authors' dict does)."""
    rows: list[Row] = []
    parts: list[tuple[SampleScore, Part, float]] = []
    for s, meta, value in _scored(scores):
        part = Part.of(meta)
        if meta.get("counted"):
            rows.append(Row(_user(s), str(meta["task_type"]), value, s.sample_metadata or {}))
        elif part is not None:
            parts.append((s, part, value))
    pairs, left = joined(parts)
    for pair in pairs:
        first = pair.items[0]
        rows.append(Row(_user(first), LIFECYCLE_TASK, pair.value, first.sample_metadata or {}))
    return rows, len(left)


@dataclass(frozen=True)
class Estimate:
    """A mean with its 95% interval clustered by persona (NaN with fewer than two)."""

    value: float
    low: float
    high: float
    stderr: float
    rows: int
    personas: int

    def named(self, name: str) -> dict[str, float]:
        """`name`, `name_low`, `name_high`."""
        return {name: self.value, f"{name}_low": self.low, f"{name}_high": self.high}


def clustered_mean(rows: Sequence[Row], stratum: Callable[[Row], str] | None = None) -> Estimate:
    """The mean over strata of each stratum's mean (one stratum, `stratum` None: the
    plain mean), with its standard error clustered by persona
    (`scoring.intervals.stratified_mean`: for the plain mean, Inspect's
    `stderr(cluster=...)` exactly) and t(G - 1) times it either side (G personas). No
    interval (NaN) where the error is 0: one persona, or no spread to go by (every
    stratum a single row, or every value alike), as `report.differences` leaves such a
    row without one."""
    key = stratum or (lambda row: "")
    mean = stratified_mean([Clustered(row.user, key(row), row.value) for row in rows])
    half = mean.half_width()
    error = mean.stderr or math.nan
    return Estimate(
        mean.value, mean.value - half, mean.value + half, error, mean.rows, mean.clusters
    )


def _by(rows: Sequence[Row], key: Callable[[Row], str]) -> dict[str, list[Row]]:
    groups: dict[str, list[Row]] = defaultdict(list)
    for row in rows:
        groups[key(row)].append(row)
    return groups


@metric
def v3_accuracy() -> Metric:
    """The run's headline, first so that `inspect view` shows it: `accuracy`, the micro
    mean (every headline row once: the authors' newest headline), with its `stderr`
    clustered by persona and `accuracy_low` / `accuracy_high`; the macro (`macro`: the
    mean over task types of each type's mean, their earlier headline) with `_low` and
    `_high`; how many rows (`rows`) and personas (`personas`) they cover, and the
    lifecycle probes left without their partner (`lifecycle_unpaired`). All 0-1."""

    def compute(scores: list[SampleScore]) -> Value:
        rows, unpaired = headline_rows(scores)
        micro = clustered_mean(rows)
        macro = clustered_mean(rows, lambda row: row.task_type)
        return {
            **micro.named("accuracy"),
            # Inspect's `stderr` writes 0 where it cannot be estimated; so does this
            "stderr": 0.0 if math.isnan(micro.stderr) else micro.stderr,
            **macro.named("macro"),
            "rows": micro.rows,
            "personas": micro.personas,
            "lifecycle_unpaired": unpaired,
        }

    return compute


@metric
def v3_by_family() -> Metric:
    """Per family (`family_<name>`, Figure 4's order): the row-weighted mean of its
    headline rows, with `_low` and `_high`; families without a scored row are absent."""

    def compute(scores: list[SampleScore]) -> Value:
        groups = _by(headline_rows(scores)[0], lambda row: row.family)
        values: dict[str, float] = {}
        for family in FAMILIES:
            if family in groups:
                values |= clustered_mean(groups[family]).named(f"family_{family}")
        return values

    return compute


@metric
def v3_by_type() -> Metric:
    """Per task type (`type_<name>`, Figure 4's order): the mean of its headline rows,
    with `_low` and `_high`; types without a scored row are absent."""

    def compute(scores: list[SampleScore]) -> Value:
        groups = _by(headline_rows(scores)[0], lambda row: row.task_type)
        values: dict[str, float] = {}
        for name in TASK_TYPES:
            if name in groups:
                values |= clustered_mean(groups[name]).named(f"type_{name}")
        return values

    return compute


@metric
def v3_by_metadata(key: str, prefix: str) -> Metric:
    """Per value of the sample metadata `key` (`<prefix>_<value>`, the value as text, as
    the report names it): the mean of its headline rows (a lifecycle pair's value its
    first probe's), with `_low` and `_high` clustered by persona."""

    def compute(scores: list[SampleScore]) -> Value:
        groups = _by(headline_rows(scores)[0], lambda row: str(row.sample.get(key)))
        values: dict[str, float] = {}
        for name, rows in sorted(groups.items()):
            values |= clustered_mean(rows).named(f"{prefix}_{name}")
        return values

    return compute


@metric
def v3_gated() -> Metric:
    """How many scored replies the 15-distinct-token gate scored 0 (`gated`: rule-scored
    and judged, the grader not called for the latter), and how many scored replies fall
    under 15 distinct tokens at all (`non_substantive`, gated or not)."""

    def compute(scores: list[SampleScore]) -> Value:
        scored = _scored(scores)
        return {
            "gated": sum(bool(meta.get("gated")) for _, meta, _ in scored),
            "non_substantive": sum(meta.get("substantive") is False for _, meta, _ in scored),
        }

    return compute


@metric
def v3_paired_f1() -> Metric:
    """`active_mistake_prevention`'s pairs, joined as `rules.e6_paired` joins them (by
    the instance id less `_warn` / `_foil`): `amp_paired_f1`, `amp_warn_recall`,
    `amp_foil_precision`, `amp_paired_correct` (0-1, as the authors report them,
    unrounded) and `amp_pairs`; nothing where the run has no such row. A row's
    correctness is its value (the mean over epochs)."""

    def compute(scores: list[SampleScore]) -> Value:
        rows = [
            (
                str(meta.get("query_id") or s.sample_id),
                {"correct_warn": value, "correct_foil": value},
            )
            for s, meta, value in _scored(scores)
            if meta["task_type"] == MISTAKE_TASK
        ]
        result = e6_paired(rows)
        if result is None:
            return {}
        return {
            "amp_paired_f1": result.paired_f1,
            "amp_warn_recall": result.warn_recall,
            "amp_foil_precision": result.foil_precision,
            "amp_paired_correct": result.paired_correct,
            "amp_pairs": result.n_pairs,
        }

    return compute


def v3_metrics() -> list[Metric]:
    """The v3 scorer's metrics."""
    return [v3_accuracy(), v3_by_family(), v3_by_type(), v3_gated(), v3_paired_f1()]


# --- the scorer ----------------------------------------------------------------------


def _base(state: TaskState) -> dict[str, Any]:
    """What every v3 score's metadata says of its sample."""
    task_type = str(state.metadata.get("task_type") or "")
    task = TASK_TYPES.get(task_type)
    return {
        "task_type": task_type,
        "family": task.family if task else None,
        "user_id": state.metadata.get("user_id"),
        "query_id": state.metadata.get("query_id") or str(state.sample_id),
        "metric": task.metric if task else None,
        "kind": task.kind if task else None,
    }


def score_reply(state: TaskState) -> Score:
    """The v3 score of a replied question of a rule-scored type, or of an unknown type
    (see the module docstring)."""
    base = _base(state)
    task_type = base["task_type"]
    task = TASK_TYPES.get(task_type)
    if task is None:
        return Score.unscored(
            reason="scoring_failed",
            explanation=f"{task_type!r} is not a PersonaMem-v3 task type",
            metadata={**base, "status": "unknown_task_type"},
        )
    reply = state.output.completion
    fields = state.metadata.get(SCORER_KEY) or {}
    result = rule_score(task_type, reply, fields, str(base["query_id"]))
    explanation = (
        f"{task.metric} {result.raw:.4g} -> {result.accuracy:.1f} on 0-100"
        if result.accuracy is not None
        else f"lifecycle probe ({result.metrics['phase'] or 'no phase'}): match_rate_at_3 "
        f"{result.raw:.4g}; the pair's lifecycle_score is made by the metrics"
    )
    if result.gated:
        explanation += "; under 15 distinct tokens: 0 by the authors' gate"
    return Score(
        value=result.value,
        answer=reply[:200],
        explanation=explanation,
        metadata={
            **base,
            "status": READ_STATUS,
            "raw": result.raw,
            "accuracy": result.accuracy,
            "counted": result.accuracy is not None,
            "gated": result.gated,
            "substantive": result.substantive,
            "row_metrics": result.metrics,
            "join": result.join,
            **(
                {PART_KEY: lifecycle_part(str(base["user_id"]), result.join).metadata()}
                if result.join and result.join["kind"] == "lifecycle"
                else {}
            ),
        },
    )


@scorer(metrics=v3_metrics())
@answered
def v3_scorer() -> Scoring:
    """PersonaMem-v3's scorer: the authors' headline, 0-100, by rule or by the judgement
    of the model bound to the `grader` role (`judged.py`); a row without one unscored,
    never 0; a question never replied to unscored (see the module docstring)."""

    async def score(state: TaskState, target: Target) -> Score:
        base = _base(state)
        task = TASK_TYPES.get(base["task_type"])
        if task is not None and task.judged:
            return await judged_score(state, base, grader_model("role"))
        return score_reply(state)

    return score
