"""PersonaMem-v3's metrics (`v3_metrics`), all 0-1 and each with a 95% interval
clustered by persona (`user_id`): first `accuracy`, the micro mean (every scored row
once: the authors' newest headline, aggregate_eval@19bc3eec "ALL (micro,
row-weighted)"; `inspect view`'s headline), then the macro (the mean over task types of
each type's mean: their earlier one), per family (row-weighted within the family, as
their by-class roll-ups are; the families are the paper's, `release.families.FAMILIES`,
where theirs group tasks otherwise) and per task type. The interval is
`scoring.intervals.interval`, the one the report and the card give: Wilson's over the
effective size of the clustered standard error (for the macro, that of the mean of
type means, linearised) with Student's t at personas - 1 degrees of freedom, inside
[0, 1]; mean ± t x the error where a row lies below 0 (graded NDCG); NaN with fewer
than two personas. The breakdowns (per family, type, pipeline family, app) are logged
as Inspect's `grouped` logs its own (with a `group_key` and a `metric`), so that the
viewer lists them under "All scoring" and its header holds the result alone
(`run/viewer.py`).

A row is a scored sample of a known task type (its family as its score names it,
`scorers._base`, else as `TASK_TYPES` does), or a lifecycle pair: the metrics join each
persona's pre and post probes of one canonical into the pair's row (`lifecycle_part`);
a probe without its partner counts nowhere. The warn/foil rows (of a type scored by
`rules.mistakes.MistakePrevention`) are joined into the pairs' F1 (`v3_paired_f1`).

With several epochs Inspect hands the metrics each sample's reduced value (the mean
over epochs) and its first epoch's metadata: the pair joins read values, so they use
the epoch means (the lifecycle score is linear in the two match rates, so the pair's
mean over epochs is kept exactly).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from inspect_ai.scorer import Metric, SampleScore, Value, metric, value_to_float

from inspect_personamem.datasets.v3.release.families import FAMILIES
from inspect_personamem.datasets.v3.rules.lifecycle import PHASES
from inspect_personamem.datasets.v3.rules.mistakes import MistakePrevention, e6_paired
from inspect_personamem.datasets.v3.task_types.registry import TASK_TYPES
from inspect_personamem.scoring.intervals import INTERVAL_NAMES, Clustered, interval
from inspect_personamem.scoring.metrics import group_value
from inspect_personamem.scoring.rows import Part, joined


@dataclass(frozen=True)
class Row:
    """One headline row as the authors' aggregate counts it: a scored sample, or a
    lifecycle pair made of two probes."""

    user: str
    task_type: str
    value: float
    sample: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)
    """Its sample's metadata (a pair's: its first probe's), which the report groups by."""
    family: str = field(default="", compare=False)
    """The task type's family."""


def _user(score: SampleScore) -> str:
    meta = score.score.metadata or {}
    user = meta.get("user_id") or (score.sample_metadata or {}).get("user_id")
    return str(user) if user is not None else ""


_TO_FLOAT: Final = value_to_float()


def _scored(scores: Sequence[SampleScore]) -> list[tuple[SampleScore, dict[str, Any], float]]:
    """The scored samples of a known task type with a value, their score metadata and
    value."""
    out = []
    for s in scores:
        meta = s.score.metadata or {}
        value = _TO_FLOAT(s.score.value)
        if _family(meta) is not None and not math.isnan(value):
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
            rows.append(_row(s, meta, value))
        elif part is not None:
            parts.append((s, part, value))
    pairs, left = joined(parts)
    for pair in pairs:
        first = pair.items[0]
        rows.append(_row(first, first.score.metadata or {}, pair.value))
    return rows, len(left)


def _row(score: SampleScore, meta: Mapping[str, Any], value: float) -> Row:
    """The headline row of `score` (or of the pair whose first probe it is)."""
    sample = score.sample_metadata or {}
    return Row(_user(score), str(meta["task_type"]), value, sample, str(_family(meta)))


def _family(meta: Mapping[str, Any]) -> str | None:
    """A score's task type's family: as the scorer wrote it (from the registry it was
    given), else the default registry's; None for a type neither knows."""
    family = meta.get("family")
    task = TASK_TYPES.get(str(meta.get("task_type")))
    return str(family) if family is not None else task.family if task else None


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
        """`name`, with `name_low` and `name_high` where there is an interval (none with
        one persona: the viewer would show "NaN NaN")."""
        if math.isnan(self.low):
            return {name: self.value}
        return {name: self.value, f"{name}_low": self.low, f"{name}_high": self.high}

    def headline(self, name: str) -> dict[str, float]:
        """`name` with its interval as every version's headline names it (`ci_low`,
        `ci_high`)."""
        return {name: self.value} | dict(zip(INTERVAL_NAMES, (self.low, self.high), strict=True))


def clustered_mean(rows: Sequence[Row], stratum: Callable[[Row], str] | None = None) -> Estimate:
    """The mean over strata of each stratum's mean (one stratum, `stratum` None: the
    plain mean), with its standard error clustered by persona (for the plain mean,
    Inspect's `stderr(cluster=...)` exactly; NaN where it is 0: one persona, or no
    spread to go by) and its 95% interval (`scoring.intervals.interval`: the report's
    and the card's; NaN with one persona)."""
    key = stratum or (lambda row: "")
    mean = interval([Clustered(row.user, key(row), row.value) for row in rows])
    error = mean.stderr or math.nan
    return Estimate(mean.value, mean.low, mean.high, error, mean.rows, mean.clusters)


def _by(rows: Sequence[Row], key: Callable[[Row], str]) -> dict[str, list[Row]]:
    groups: dict[str, list[Row]] = defaultdict(list)
    for row in rows:
        groups[key(row)].append(row)
    return groups


@metric
def v3_accuracy() -> Metric:
    """The run's headline, first so that `inspect view` shows it: `accuracy`, the micro
    mean (every headline row once: the authors' newest headline), with its 95% interval
    (`ci_low`, `ci_high`) and `stderr` clustered by persona; the macro (`macro`: the
    mean over task types of each type's mean, their earlier headline) with `_low` and
    `_high`; how many rows (`rows`: a lifecycle pair of two scored probes counts once,
    so rows are fewer than the viewer's scored samples by the pairs) and personas
    (`personas`) they cover, and the lifecycle probes left without their partner
    (`lifecycle_unpaired`). All but the counts 0-1."""

    def compute(scores: list[SampleScore]) -> Value:
        rows, unpaired = headline_rows(scores)
        micro = clustered_mean(rows)
        macro = clustered_mean(rows, lambda row: row.task_type)
        return {
            **micro.headline("accuracy"),
            # Inspect's `stderr` writes 0 where it cannot be estimated; so does this
            "stderr": 0.0 if math.isnan(micro.stderr) else micro.stderr,
            **macro.named("macro"),
            "rows": micro.rows,
            "personas": micro.personas,
            "lifecycle_unpaired": unpaired,
        }

    return compute


@metric
def v3_by_family(metric: Metric, group_key: str = "family") -> Metric:
    """Per family (`family_<name>`, Figure 4's order): the row-weighted mean of its
    headline rows, with `_low` and `_high` (`Estimate.named`); families without a scored
    row are absent.
    `metric` (the headline's, whose estimate each family's is) and `group_key` are
    logged for the viewer, which lists a metric logged with both under "All scoring"."""

    def compute(scores: list[SampleScore]) -> Value:
        groups = _by(headline_rows(scores)[0], lambda row: row.family)
        values: dict[str, float] = {}
        for family in FAMILIES:
            if family in groups:
                values |= clustered_mean(groups[family]).named(f"family_{family}")
        return values

    return compute


@metric
def v3_by_type(metric: Metric, group_key: str = "task_type") -> Metric:
    """Per task type (`type_<name>`, Figure 4's order, then any type beyond the 31 by
    name): the mean of its headline rows, with `_low` and `_high`; types without a scored
    row are absent. `metric` and `group_key` as `v3_by_family`'s."""

    def compute(scores: list[SampleScore]) -> Value:
        groups = _by(headline_rows(scores)[0], lambda row: row.task_type)
        values: dict[str, float] = {}
        for name in [*TASK_TYPES, *sorted(groups.keys() - TASK_TYPES.keys())]:
            if name in groups:
                values |= clustered_mean(groups[name]).named(f"type_{name}")
        return values

    return compute


@metric
def v3_by_metadata(metric: Metric, group_key: str, prefix: str) -> Metric:
    """Per value of the sample metadata `group_key` (`<prefix>_<value>`, the value as
    text as the report names it, `scoring.metrics.group_value`: `unset` for none): the
    mean of its headline rows (a lifecycle pair's value its first probe's), with `_low`
    and `_high` clustered by persona. `metric` as `v3_by_family`'s."""

    def compute(scores: list[SampleScore]) -> Value:
        groups = _by(headline_rows(scores)[0], lambda row: group_value(row.sample.get(group_key)))
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


def _warn_or_foil(meta: Mapping[str, Any]) -> bool:
    """Whether a score is a warn/foil row (its type scored by `MistakePrevention`)."""
    task = TASK_TYPES.get(str(meta["task_type"]))
    return task is not None and isinstance(task.scorer, MistakePrevention)


@metric
def v3_paired_f1() -> Metric:
    """`active_mistake_prevention`'s pairs, joined as `rules.mistakes.e6_paired` joins them (by
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
            if _warn_or_foil(meta)
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
    """The v3 scorer's metrics: the headline first (the viewer's header), its
    breakdowns, the gated replies and the warn/foil pairs."""
    headline = v3_accuracy()
    return [
        headline,
        v3_by_family(headline),
        v3_by_type(headline),
        v3_gated(),
        v3_paired_f1(),
    ]
