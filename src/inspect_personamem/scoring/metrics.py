"""Metrics shown in `inspect view`: overall with its 95% interval, what was not read,
the grader's, and accuracy per group.

Names are flat in the log, so each group has its own prefix (`<prefix>_<value>`; a
dataset version declares its groups, `datasets.base.Group`). `stderr` is clustered by
the history questions share: questions over one history are not independent, and
treating them as such understates the error; `ci95` gives the interval the
report and the card give (`scoring.intervals.interval`). `inspect view` shows a group's
values in the order the metric returns them, so they are sorted (`group_order`).
A question stopped by an Inspect limit before the model replied is scored with
Inspect's unscored sentinel (see `scorer.py`): Inspect leaves it out of every metric
here and counts it in the log's `unscored_samples`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, cast

import numpy as np
from inspect_ai.scorer import (
    Metric,
    MetricProtocol,
    SampleScore,
    Value,
    grouped,
    metric,
    value_to_float,
)
from inspect_ai.solver import TaskState

from inspect_personamem.scoring.actions import ACTIONS, Actions
from inspect_personamem.scoring.grader.correction import (
    Corrected,
    Estimate,
    TrialCounts,
    corrected_by_trials,
    right_share,
)
from inspect_personamem.scoring.grader.trials import TRIAL_COUNTS, TrialKind
from inspect_personamem.scoring.intervals import INTERVAL_NAMES, Clustered, interval


@metric
def unparsed() -> Metric:
    """Share of responses in which no single option letter could be read.

    With several epochs Inspect keeps the first epoch's score metadata, so this is
    the first epoch's share.
    """

    def compute(scores: list[SampleScore]) -> Value:
        failed = sum(
            1 for s in scores if (s.score.metadata or {}).get("status", "single") != "single"
        )
        # a mapping, so that the viewer names it `unparsed`, not by its registry name
        return {"unparsed": failed / len(scores) if scores else float("nan")}

    return compute


@metric
def ci95(cluster: str | None = None) -> Metric:
    """The run's accuracy's 95% interval (`ci_low`, `ci_high`), its questions clustered
    by the sample metadata `cluster` (None: each its own): the one interval the
    viewer, the report and the card show (`scoring.intervals.interval`, Inspect's
    `ci_wilson` for scores in [0, 1]); NaN with fewer than two clusters."""

    to_float = value_to_float()

    def compute(scores: list[SampleScore]) -> Value:
        rows = [
            Clustered(
                str((s.sample_metadata or {}).get(cluster) if cluster else s.sample_id),
                "",
                to_float(s.score.value),
            )
            for s in scores
        ]
        estimate = interval(rows)
        return dict(zip(INTERVAL_NAMES, (estimate.low, estimate.high), strict=True))

    return compute


NO_VALUE = "unset"
"""How a group names the questions whose metadata has no value for it (PersonaMem-v3's
queries outside any app context)."""


def group_value(value: object) -> str:
    """A sample's metadata value as a group names it: as text, `NO_VALUE` for none."""
    return NO_VALUE if value is None else str(value)


def group_order(group: str, known: Sequence[str] = ()) -> tuple[int, float, str]:
    """Sort key of a group's value: the `known` values in their order (a paper's
    categories), then values that start with a number by that number (`2` before `10`,
    `4-6` before `7-10`; an upper bound `<1k` before `1k-4k`), then the others by name."""
    if group in known:
        return (0, known.index(group), "")
    number = re.match(r"(<?)(\d+)", group)
    if number is None:
        return (2, 0.0, group)
    below, value = number.groups()
    return (1, float(value) - (0.5 if below else 0.0), group)


@metric
def accuracy_by(
    metric: Metric,
    group_key: str,
    name_template: str,
    all_label: str | None = None,
    known: Sequence[str] = (),
) -> Metric:
    """Inspect's `grouped(metric)` with its groups sorted by `group_order` (`known`
    values first; Inspect gives them in the order first met), the mean over groups
    (`all_label`) last.

    Its `metric` (the run's accuracy) is logged among its parameters, as Inspect's
    `grouped` logs its own: `inspect view` reads a metric logged with a `group_key` and
    a `metric` as a breakdown, and shows it apart from the run's result (under "All
    scoring"), so the header holds the result alone (`run/viewer.py`). The viewer
    strips trailing digits from a breakdown's names (`sessions_1` reads `sessions_`),
    so a group whose values end in one names them with a `name_template` that ends in
    words (`sessions_{group_name}_ago`).
    """
    inner = cast(
        MetricProtocol,
        grouped(
            metric,
            group_key,
            all="groups" if all_label else False,
            all_label=all_label or "all",
            name_template=name_template,
        ),
    )
    prefix, _, suffix = name_template.partition("{group_name}")

    def compute(scores: list[SampleScore]) -> Value:
        values = cast(dict[str, Value], inner(scores))
        names = sorted(
            (name for name in values if name != all_label),
            key=lambda name: group_order(name.removeprefix(prefix).removesuffix(suffix), known),
        )
        if all_label in values:
            names.append(all_label)
        return cast(Value, {name: values[name] for name in names})

    return compute


@metric
def grader_verdicts() -> Metric:
    """Shares of open answers whose grader said none of the candidates shares the
    reply's assumptions (`grader_none`), or gave no verdict that could be read
    (`grader_unreadable`); both are scored incorrect."""

    def compute(scores: list[SampleScore]) -> Value:
        statuses = [(s.score.metadata or {}).get("status") for s in scores]
        return {
            f"grader_{status}": statuses.count(status) / len(scores) if scores else float("nan")
            for status in ("none", "unreadable")
        }

    return compute


TRIAL_METRICS: dict[str, tuple[TrialKind, ...]] = {
    "grader_identity": ("identity_correct", "identity_wrong"),
    "grader_generic": ("generic",),
    "grader_mixed": ("mixed",),
    "grader_length": ("length",),
    "grader_reorder": ("reorder",),
}
"""Each metric of the grader's trials -> the kinds of trial whose right verdicts it
shares (`trials.TRIAL_KINDS`): the identity trials together, each other kind alone."""


def trial_record(metadata: Mapping[str, Any] | None) -> TrialCounts:
    """A score's trials per kind (`TRIAL_COUNTS`); empty for a question not calibrated."""
    return cast(TrialCounts, (metadata or {}).get(TRIAL_COUNTS) or {})


def trial_shares(questions: Sequence[TrialCounts], names: Sequence[str]) -> dict[str, float]:
    """The metrics `names` of `TRIAL_METRICS` over `questions`, each with its 95%
    interval (`<name>_low`, `<name>_high`: Wilson, clustered by question,
    `correction.right_share`)."""
    shares: dict[str, float] = {}
    for name in names:
        shares |= _interval(name, right_share(questions, TRIAL_METRICS[name]))
    return shares


def _interval(name: str, estimate: Estimate) -> dict[str, float]:
    """`name`, `name_low` and `name_high`."""
    return {name: estimate.value, f"{name}_low": estimate.low, f"{name}_high": estimate.high}


def _records(scores: list[SampleScore]) -> list[TrialCounts]:
    """Each score's trials per kind (`trial_record`)."""
    return [trial_record(s.score.metadata) for s in scores]


@metric
def grader_identity() -> Metric:
    """On the calibration questions, the share of trials in which the grader, shown a
    candidate itself as the reply, named that candidate (1.0 for a faithful grader),
    with its 95% interval (`_low`, `_high`)."""

    def compute(scores: list[SampleScore]) -> Value:
        return cast(Value, trial_shares(_records(scores), ["grader_identity"]))

    return compute


@metric
def grader_trials() -> Metric:
    """On the calibration questions, the share of right verdicts in each other kind of
    trial (`scoring/grader/trials.py`), with its 95% interval (`_low`, `_high`):
    `grader_generic` and `grader_mixed` (right: none), `grader_length` (right: the
    correct candidate, shown shorter than a wrong one), `grader_reorder` (right: the
    reply's verdict unchanged under the reverse order)."""

    def compute(scores: list[SampleScore]) -> Value:
        others = [name for name in TRIAL_METRICS if name != "grader_identity"]
        return cast(Value, trial_shares(_records(scores), others))

    return compute


@metric
def grader_position_bias() -> Metric:
    """On the calibration questions, the share of candidates whose verdict changed when
    the candidates were shown in the reverse order (0.0 for a grader blind to order)."""

    def compute(scores: list[SampleScore]) -> float:
        counts = [s.score.metadata or {} for s in scores]
        total = sum(int(c.get("calibration_candidates", 0)) for c in counts)
        changes = sum(int(c.get("calibration_order_changes", 0)) for c in counts)
        return changes / total if total else float("nan")

    return compute


@metric
def grader_calibrated() -> Metric:
    """How many questions the grader was measured on in this run."""

    def compute(scores: list[SampleScore]) -> int:
        return sum(bool((s.score.metadata or {}).get("calibration_trials")) for s in scores)

    return compute


@metric
def accuracy_corrected(cluster: str | None = None) -> Metric:
    """The judged accuracy corrected for the grader's errors measured by its trials
    (`scoring/grader/correction.py`), with its 95% interval (`_low`, `_high`), the
    questions resampled by `cluster` (the history they share; None: each its own); and
    the rates it used: `grader_sensitivity` (naming the correct candidate for a right
    reply) and `grader_false_positives` (naming it for a reply that is not)."""

    to_float = value_to_float()

    def compute(scores: list[SampleScore]) -> Value:
        replies = [
            (
                (s.sample_metadata or {}).get(cluster) if cluster else s.sample_id,
                to_float(s.score.value),
            )
            for s in scores
        ]
        return cast(Value, corrected_metrics(corrected_by_trials(replies, _records(scores))))

    return compute


def corrected_metrics(corrected: Corrected) -> dict[str, float]:
    """`accuracy_corrected` (with `_low`, `_high`), `grader_sensitivity` and
    `grader_false_positives`, as the metric names them."""
    return _interval("accuracy_corrected", corrected.accuracy) | {
        "grader_sensitivity": corrected.sensitivity,
        "grader_false_positives": corrected.false_positive,
    }


def grader_metrics(cluster: str | None = None) -> list[Metric]:
    """What open answers report in place of `unparsed`: the grader's verdicts of none
    and unreadable, its trials, and the accuracy corrected for its errors (questions
    clustered by `cluster`)."""
    return [
        grader_verdicts(),
        grader_identity(),
        grader_trials(),
        grader_position_bias(),
        grader_calibrated(),
        accuracy_corrected(cluster),
    ]


def quantile(values: Sequence[float], share: float) -> float:
    """The `share` quantile of `values` (NumPy's, linear between ranks); NaN for none."""
    return float(np.quantile(values, share)) if values else float("nan")


TOOL_COUNTS = ("budget", "asked", "errors", "chars_read", "positions_read", "finished")
"""What a score keeps of a `history=tools` question's record: its counts, not its calls."""


def history_record(state: TaskState) -> dict[str, Any]:
    """What a score's metadata carries for `evidence_located`, `evidence_retrieval`,
    `memory_latency`, `tool_use` and an agent's metrics: where the evidence lies, what
    the retrieval found of it, the memory's search and add seconds, and the counts of
    the model's tool calls (or its agent's actions), as the history source wrote them to
    the state (nothing in runs whose source writes none). Inspect hands a metric each
    sample's metadata as its dataset gave it, never as the solver left it, so these
    reach the metrics through the score."""
    record: dict[str, Any] = {
        key: state.metadata[key] for key in ("evidence", "retrieval") if key in state.metadata
    }
    memory = state.metadata.get("memory")
    if memory:
        record["memory"] = {key: memory[key] for key in ("search_seconds", "ingest_calls")}
    tools = state.metadata.get("tools")
    if tools:
        record["tools"] = {key: tools[key] for key in TOOL_COUNTS}
    actions = Actions.read(state.metadata)
    if actions is not None:
        record[ACTIONS] = actions.counts()
    return record


@metric
def evidence_located() -> Metric:
    """For the settings that read where the evidence lies (`evidence`, `rag`,
    `memory`): the questions whose evidence could not be located in the history
    (`evidence_not_located`), shown the question alone by `history=evidence` and
    counted apart in recall."""

    def compute(scores: list[SampleScore]) -> Value:
        records = [(s.score.metadata or {}).get("evidence") or {} for s in scores]
        return {"evidence_not_located": sum(r.get("located") is False for r in records)}

    return compute


@metric
def evidence_retrieval() -> Metric:
    """For `history=rag` and `history=memory`: over the questions whose retrieval could
    be checked (`history.recall`: found or missed), the share that found the evidence
    (`evidence_found`), the mean recall at the run's `top_k` (`evidence_recall`) and
    mean reciprocal rank (`evidence_mrr`); the questions whose items carry no
    positions, counted apart (`evidence_unpositioned`)."""

    def compute(scores: list[SampleScore]) -> Value:
        records = [(s.score.metadata or {}).get("retrieval") or {} for s in scores]
        checked = [r for r in records if r.get("status") in ("found", "missed")]
        count = len(checked) or float("nan")
        return {
            "evidence_found": sum(r["status"] == "found" for r in checked) / count,
            "evidence_recall": sum(float(r["recall"]) for r in checked) / count,
            "evidence_mrr": sum(1 / r["first_rank"] for r in checked if r["first_rank"]) / count,
            "evidence_unpositioned": sum(r.get("status") == "unpositioned" for r in records),
        }

    return compute


@metric
def memory_latency() -> Metric:
    """For `history=rag` and `history=memory`: the median and 95th percentile, in
    seconds, of each question's search and of each `add` call (a session, or part of
    one), the memory's wall time, apart from the model's."""

    def compute(scores: list[SampleScore]) -> Value:
        memories = [(s.score.metadata or {}).get("memory") or {} for s in scores]
        search = [float(m["search_seconds"]) for m in memories if "search_seconds" in m]
        ingest = [float(t) for m in memories for t in m.get("ingest_calls", ())]
        return {
            f"memory_{name}_p{round(share * 100)}": quantile(values, share)
            for name, values in (("search", search), ("add", ingest))
            for share in (0.5, 0.95)
        }

    return compute


@metric
def tool_use() -> Metric:
    """For `history=tools`: per question, the mean of the tool calls the model made
    (`tool_calls`) and of the characters their results returned (`tool_chars_read`);
    over the run, the calls answered with an error (`tool_errors`: a position past
    the end, a reversed range, past the budget, malformed) and the share of questions
    whose model made the whole budget's calls (`tool_budget_spent`)."""

    def compute(scores: list[SampleScore]) -> Value:
        records = [(s.score.metadata or {}).get("tools") or {} for s in scores]
        count = len(records) or float("nan")
        return {
            "tool_calls": sum(int(r.get("asked", 0)) for r in records) / count,
            "tool_chars_read": sum(int(r.get("chars_read", 0)) for r in records) / count,
            "tool_errors": sum(int(r.get("errors", 0)) for r in records),
            "tool_budget_spent": sum(
                int(r.get("asked", 0)) >= int(r.get("budget", 1)) for r in records if r
            )
            / count,
        }

    return compute


def retrieval_metrics() -> list[Metric]:
    """What a retrieval or memory run adds to its version's metrics."""
    return [evidence_located(), evidence_retrieval(), memory_latency()]


def tool_metrics() -> list[Metric]:
    """What a `history=tools` run adds to its version's metrics: the retrieval's, over
    what the model read, and its tool use."""
    return [*retrieval_metrics(), tool_use()]
