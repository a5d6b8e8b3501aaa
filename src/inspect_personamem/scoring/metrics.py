"""Metrics shown in `inspect view`: overall, per category, per topic, per distance.

Names are flat in the log, so each family has its own prefix: `category_<key>` (and
`category_macro`, the mean over categories), `topic_<topic>`, `sessions_<n>` (one per
`distance_to_ref_in_blocks` value, the paper's Figure 4), `sessions_bin_<range>`.
`stderr` is clustered by shared context: questions over one history are not
independent, and treating them as such understates the error. `inspect view` shows a
family's values in the order the metric returns them, so the groups are sorted: the
paper's categories in the paper's order, sessions by number, topics by name.
A question stopped by an Inspect limit before the model replied is scored with
Inspect's unscored sentinel (see `scorer.py`): Inspect leaves it out of every metric
here and counts it in the log's `unscored_samples`.
"""

from __future__ import annotations

import re
from typing import Literal, cast

from inspect_ai.scorer import (
    Metric,
    MetricProtocol,
    SampleScore,
    Value,
    accuracy,
    grouped,
    metric,
    stderr,
)

from inspect_personamem.datasets.v1.question_types import CATEGORIES

CLUSTER_KEY = "shared_context_id"


@metric
def unparsed() -> Metric:
    """Share of responses in which no single option letter could be read.

    With several epochs Inspect keeps the first epoch's score metadata, so this is
    the first epoch's share.
    """

    def compute(scores: list[SampleScore]) -> float:
        if not scores:
            return float("nan")
        failed = sum(
            1 for s in scores if (s.score.metadata or {}).get("status", "single") != "single"
        )
        return failed / len(scores)

    return compute


def group_order(group: str) -> tuple[int, float, str]:
    """Sort key of a group name: paper categories in the paper's order, then names
    that start with a number by that number (`2` before `10`, `4-6` before `7-10`; an
    upper bound `<1k` before `1k-4k`), then the others by name."""
    if group in CATEGORIES:
        return (0, CATEGORIES.index(group), "")
    number = re.match(r"(<?)(\d+)", group)
    if number is None:
        return (2, 0.0, group)
    below, value = number.groups()
    return (1, float(value) - (0.5 if below else 0.0), group)


@metric
def accuracy_by(group_key: str, name_template: str, all_label: str | None = None) -> Metric:
    """Inspect's `grouped(accuracy())` with its groups sorted by `group_order` (Inspect
    gives them in the order first met), the mean over groups (`all_label`) last."""
    inner = cast(
        MetricProtocol,
        grouped(
            accuracy(),
            group_key,
            all="groups" if all_label else False,
            all_label=all_label or "all",
            name_template=name_template,
        ),
    )
    prefix = name_template.removesuffix("{group_name}")

    def compute(scores: list[SampleScore]) -> Value:
        values = cast(dict[str, Value], inner(scores))
        names = sorted(
            (name for name in values if name != all_label),
            key=lambda name: group_order(name.removeprefix(prefix)),
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


def _calibration_share(scores: list[SampleScore], hits: str, of: str) -> float:
    counts = [s.score.metadata or {} for s in scores]
    total = sum(int(c.get(of, 0)) for c in counts)
    return sum(int(c.get(hits, 0)) for c in counts) / total if total else float("nan")


@metric
def grader_identity() -> Metric:
    """On the calibration questions, the share of trials in which the grader, shown a
    candidate itself as the reply, named that candidate (1.0 for a faithful grader)."""

    def compute(scores: list[SampleScore]) -> float:
        return _calibration_share(scores, "calibration_identity", "calibration_trials")

    return compute


@metric
def grader_position_bias() -> Metric:
    """On the calibration questions, the share of candidates whose verdict changed when
    the candidates were shown in the reverse order (0.0 for a grader blind to order)."""

    def compute(scores: list[SampleScore]) -> float:
        return _calibration_share(scores, "calibration_order_changes", "calibration_candidates")

    return compute


@metric
def grader_calibrated() -> Metric:
    """How many questions the grader was measured on in this run."""

    def compute(scores: list[SampleScore]) -> int:
        return sum(bool((s.score.metadata or {}).get("calibration_trials")) for s in scores)

    return compute


def _grouped_metrics() -> list[Metric]:
    """Accuracy per category (and their mean), topic, session distance and its bins."""
    return [
        accuracy_by("category", "category_{group_name}", all_label="category_macro"),
        accuracy_by("topic", "topic_{group_name}"),
        accuracy_by("distance_to_ref_in_blocks", "sessions_{group_name}"),
        accuracy_by("distance_bin", "sessions_bin_{group_name}"),
    ]


def _grader_metrics() -> list[Metric]:
    """What open answers report in place of `unparsed`: the grader's verdicts of none
    and unreadable, and its calibration."""
    return [grader_verdicts(), grader_identity(), grader_position_bias(), grader_calibrated()]


def personamem_metrics() -> list[Metric]:
    """The chosen answers' metrics, in the order `inspect view` shows them."""
    return [accuracy(), stderr(cluster=CLUSTER_KEY), unparsed(), *_grouped_metrics()]


def graded_metrics() -> list[Metric]:
    """The open answers' metrics: as for chosen ones, the grader's in place of `unparsed`."""
    return [accuracy(), stderr(cluster=CLUSTER_KEY), *_grader_metrics(), *_grouped_metrics()]


V2_CLUSTER_KEY = "persona_id"
"""PersonaMem-v2's questions share a persona's history: errors are clustered by persona."""

V2_GROUPS = (
    "pref_type", "conversation_scenario", "topic_query", "who", "updated", "sensitive_info",
    "distance_bin",
)  # fmt: skip
"""PersonaMem-v2's sample metadata keys accuracy is reported by (`<key>_<value>`)."""


@metric
def judge_figures() -> Metric:
    """The preference judge's: shares of answers it gave no readable score
    (`judge_unread`) and of empty replies (`empty_reply`), both 0; on its calibration
    questions, the share where it scored the correct candidate above the three others
    (`judge_separates`) and how many it judged (`judge_calibrated`)."""

    def compute(scores: list[SampleScore]) -> Value:
        meta = [s.score.metadata or {} for s in scores]
        calibrated = [m["calibration_separates"] for m in meta if "calibration_separates" in m]
        share = len(scores) or float("nan")
        return {
            "judge_unread": sum(m.get("status") == "judge_unread" for m in meta) / share,
            "empty_reply": sum(m.get("status") == "empty_reply" for m in meta) / share,
            "judge_separates": sum(calibrated) / len(calibrated) if calibrated else float("nan"),
            "judge_calibrated": len(calibrated),
        }

    return compute


V2Answer = Literal["chosen", "graded", "judged"]
"""How a PersonaMem-v2 answer is scored: a letter read, a grader's verdict, a judge's score."""


def v2_metrics(scored: V2Answer) -> list[Metric]:
    """PersonaMem-v2's metrics (set on its tasks, over whichever scorer answers): overall
    (for judged answers the mean score), clustered by persona; what was not read, or
    the grader's or judge's figures; and per label group."""
    own = {"chosen": [unparsed()], "graded": _grader_metrics(), "judged": [judge_figures()]}
    return [
        accuracy(),
        stderr(cluster=V2_CLUSTER_KEY),
        *own[scored],
        *(accuracy_by(key, f"{key}_{{group_name}}") for key in V2_GROUPS),
    ]
