"""The recomputed numbers against the metrics Inspect stored in the log.

A mismatch means the per-question scores in the log do not give the stored
summary: a different epoch reducer, a log edited by hand, or a bug on either side.
An interrupted run is compared over the questions its stored metrics cover, or not
at all where the log does not name them, and the check says so.
The report shows the recomputed numbers and flags the mismatch; it never hides it.

The recomputed group names come from the sample summaries, in which Inspect collapses
the whitespace of text metadata and shortens it (`summary_text`); the stored names
keep the text whole, so they are brought through the same transform before matching.
"""

from __future__ import annotations

import math
import textwrap
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from inspect_personamem.datasets.base import CHOSEN, DatasetVersion
from inspect_personamem.report.accuracy import RunSummary, on_questions
from inspect_personamem.report.read.samples import READ
from inspect_personamem.scoring.intervals import INTERVAL_NAMES
from inspect_personamem.scoring.metrics import TRIAL_METRICS, corrected_metrics, trial_shares

TOLERANCE = 1e-9


def text_families(version: DatasetVersion[Any]) -> tuple[str, ...]:
    """The metric name prefixes of a version's groups whose values are text metadata
    (`<metric>_`; not `numeric`), the longer of two that begin alike first."""
    prefixes = {f"{group.metric}_" for group in version.groups if not group.numeric}
    return tuple(sorted(prefixes, key=lambda prefix: (-len(prefix), prefix)))


def summary_text(text: str) -> str:
    """Text metadata as Inspect's sample summaries keep it: a copy of Inspect's
    `inspect_ai.log._util.thin_text` (whitespace, CR/LF too, collapsed to single
    spaces; shortened to 1024 characters with `...`), which is not public."""
    return textwrap.shorten(text[: 1024 * 8], width=1024, placeholder="...")


def as_summarised(name: str, families: Sequence[str]) -> str:
    """A stored metric's name with its group named as the sample summaries name it
    (`families`: `text_families` of the run's version)."""
    for prefix in families:
        if name.startswith(prefix):
            return prefix + summary_text(name.removeprefix(prefix))
    return name


@dataclass(frozen=True)
class Check:
    compared: int
    mismatches: tuple[str, ...]
    reason: str = ""
    """Why nothing was compared (no stored metrics, or none over known questions)."""
    scope: str = ""
    """Over which questions, where Inspect's metrics cover fewer than the report's."""

    @property
    def text(self) -> str:
        """One line for the notes and the console."""
        if self.reason:
            return self.reason
        if self.mismatches:
            result = f"MISMATCH in {len(self.mismatches)} of {self.compared}: " + "; ".join(
                self.mismatches
            )
        else:
            result = f"matches Inspect ({self.compared} metrics)"
        return f"{result} {self.scope}" if self.scope else result

    @property
    def short(self) -> str:
        """A few words for a table cell; `text` has the details."""
        if self.reason:
            return "not compared (see notes)"
        if self.mismatches:
            return f"MISMATCH in {len(self.mismatches)} of {self.compared} (see notes)"
        partial = ", partial (see notes)" if self.scope else ""
        return f"matches ({self.compared} metrics{partial})"


def recomputed_metrics(summary: RunSummary) -> dict[str, float]:
    """The report's numbers under the names the task's metrics have in the log.

    `unparsed`, for open answers `grader_none` and `grader_unreadable`, for judged ones
    `judge_unread` and `empty_reply`, are recomputed as Inspect computes them: from the
    first epoch (Inspect keeps the first epoch's score metadata); the grader's or
    judge's calibration from the questions' counts, an open run's trial shares and
    corrected accuracy by the metrics' own functions; the accuracy's 95% interval
    (`ci_low`, `ci_high`: compared where the log holds it); each value of each group of
    the run's version (`Group.metric_name`), and the mean over the values of its
    `mean_group` (`category_macro`).
    """
    overall = summary.overall
    metrics = {"accuracy": overall.accuracy, "stderr": overall.stderr}
    metrics.update(zip(INTERVAL_NAMES, (overall.low, overall.high), strict=True))
    if summary.run.judged:
        metrics.update(_judged(summary))
    elif summary.run.grader is not None:
        metrics.update(_graded(summary))
    elif summary.run.scored_as == CHOSEN:
        metrics["unparsed"] = _first_epochs(summary, lambda status: status not in READ)
    for group in summary.run.entry.groups:
        if group.mean_of_values:
            metrics[group.mean_of_values] = summary.mean_of(group)
        by = summary.groups.get(group.key, {})
        metrics.update({group.metric_name(value): e.accuracy for value, e in by.items()})
    return metrics


def legacy_names(summary: RunSummary) -> dict[str, str]:
    """The recomputed metrics' names -> the names logs written before them gave them,
    where they differ (`Group.legacy_name`: `sessions_1` for `sessions_1_ago`)."""
    return {
        group.metric_name(value): group.legacy_name(value)
        for group in summary.run.entry.groups
        for value in summary.groups.get(group.key, {})
        if group.metric_name(value) != group.legacy_name(value)
    }


def _first_epochs(summary: RunSummary, counted: Callable[[str], bool]) -> float:
    """Share of the questions whose first epoch's status is `counted`."""
    samples = summary.run.samples
    if not samples:
        return math.nan
    return sum(counted(s.first_epoch_status) for s in samples) / len(samples)


def _graded(summary: RunSummary) -> dict[str, float]:
    """An open run's metrics of its grader (`scoring/metrics.py`, `grader_metrics`),
    by the functions the metrics use: its verdicts, its trials' shares with their
    intervals, and the accuracy corrected for its errors."""
    calibration = summary.calibration
    return {
        "grader_none": _first_epochs(summary, lambda status: status == "none"),
        "grader_unreadable": _first_epochs(summary, lambda status: status == "unreadable"),
        **trial_shares(summary.trials, list(TRIAL_METRICS)),
        "grader_position_bias": calibration.position_bias,
        "grader_calibrated": calibration.questions,
        **corrected_metrics(summary.corrected),
    }


def _judged(summary: RunSummary) -> dict[str, float]:
    """A judged run's metrics of its judge (`scoring/metrics.py`, `judge_figures`)."""
    calibration = summary.calibration
    return {
        "judge_unread": _first_epochs(summary, lambda status: status == "judge_unread"),
        "empty_reply": _first_epochs(summary, lambda status: status == "empty_reply"),
        "judge_separates": calibration.separation,
        "judge_calibrated": calibration.questions,
    }


def check(summary: RunSummary) -> Check:
    """Compare every recomputed metric with the stored one of the same name, like with
    like: an interrupted run's stored metrics cover the samples finished before the
    stop (the log's reductions name them), so the comparison is over those."""
    run = summary.run
    if run.stored_metrics is None:
        return Check(0, (), f"no stored metrics (run status: {run.status})")
    families = text_families(run.entry)
    stored = {as_summarised(name, families): value for name, value in run.stored_metrics.items()}
    scored = {question for s in run.samples for question in s.questions} | set(run.parts_left)
    scope = ""
    if run.stored_ids is None and run.status != "success":
        return Check(
            0,
            (),
            f"not compared: run {run.status}, so Inspect's stored metrics cover only the "
            "samples finished before the stop, and the log does not say which; the "
            f"report's numbers are recomputed over all {len(scored)} scored questions "
            "in the log (trust these)",
        )
    if run.stored_ids is not None and run.stored_ids != scored:
        if not run.stored_ids <= scored:
            return Check(
                0,
                (),
                f"not compared: Inspect's stored metrics cover {len(run.stored_ids)} "
                f"questions, {len(run.stored_ids - scored)} of them without a score in the "
                f"log; the report's numbers are over the {len(scored)} scored questions",
            )
        summary = on_questions(summary, run.stored_ids)
        scope = (
            f"over the {len(run.stored_ids)} questions Inspect's stored metrics cover "
            f"(run {run.status}); the report's numbers are over all {len(scored)} scored "
            "questions in the log"
        )
    mismatches: list[str] = []
    compared = 0
    legacy = legacy_names(summary)
    for name, value in recomputed_metrics(summary).items():
        stored_value = stored.get(name, stored.get(legacy.get(name, name)))
        if stored_value is None and name in INTERVAL_NAMES:
            continue  # a log written before the interval was a metric of its own
        if stored_value is None:
            mismatches.append(f"{name} not stored (recomputed {value:.4f})")
            continue
        compared += 1
        same = (math.isnan(value) and math.isnan(stored_value)) or abs(
            value - stored_value
        ) <= TOLERANCE
        if not same:
            mismatches.append(f"{name} stored {stored_value:.4f}, recomputed {value:.4f}")
    if mismatches and run.reducer != "mean":
        mismatches.append(f"the log's epoch reducer is {run.reducer}; the report uses the mean")
    return Check(compared, tuple(mismatches), scope=scope)
