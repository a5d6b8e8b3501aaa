"""The recomputed numbers against the metrics Inspect stored in the log.

A mismatch means the per-question scores in the log do not give the stored
summary: a different epoch reducer, a log edited by hand, or a bug on either side.
The report shows the recomputed numbers and flags the mismatch; it never hides it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .accuracy import RunSummary

TOLERANCE = 1e-9


@dataclass(frozen=True)
class Check:
    compared: int
    mismatches: tuple[str, ...]
    reason: str = ""
    """Why nothing was compared (no stored metrics), else empty."""

    @property
    def text(self) -> str:
        """One line for tables and the console."""
        if self.reason:
            return self.reason
        if self.mismatches:
            return f"MISMATCH in {len(self.mismatches)} of {self.compared}: " + "; ".join(
                self.mismatches
            )
        return f"matches Inspect ({self.compared} metrics)"

    @property
    def short(self) -> str:
        """A few words for a table cell; `text` has the details."""
        if self.reason:
            return "not compared (see notes)"
        if self.mismatches:
            return f"MISMATCH in {len(self.mismatches)} of {self.compared} (see notes)"
        return f"matches ({self.compared} metrics)"


def recomputed_metrics(summary: RunSummary) -> dict[str, float]:
    """The report's numbers under the names the task's metrics have in the log.

    `unparsed` is recomputed as Inspect computes it: from the first epoch (Inspect
    keeps the first epoch's score metadata). `sessions_bin_*` is not recomputed.
    """
    samples = summary.run.samples
    metrics = {
        "accuracy": summary.overall.accuracy,
        "stderr": summary.overall.stderr,
        "unparsed": (
            sum(s.first_epoch_unparsed for s in samples) / len(samples) if samples else float("nan")
        ),
        "category_macro": summary.macro,
    }
    metrics.update({f"category_{k}": e.accuracy for k, e in summary.categories.items()})
    metrics.update({f"topic_{k}": e.accuracy for k, e in summary.topics.items()})
    metrics.update({f"sessions_{k}": e.accuracy for k, e in summary.sessions.items()})
    return metrics


def check(summary: RunSummary) -> Check:
    """Compare every recomputed metric with the stored one of the same name."""
    run = summary.run
    stored = run.stored_metrics
    if stored is None:
        return Check(0, (), f"no stored metrics (run status: {run.status})")
    mismatches: list[str] = []
    compared = 0
    for name, value in recomputed_metrics(summary).items():
        stored_value = stored.get(name)
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
    return Check(compared, tuple(mismatches))
