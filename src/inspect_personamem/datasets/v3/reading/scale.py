"""A row's headline on PersonaMem-v3's 0-100: scripts/aggregate_eval.py@19bc3eec
(`_accuracy_value`), plus the `pref_align_gated` kind that only a newer stored copy has
(38,596 characters, commit not shown by the index) and task_registry@8e2a111f uses. One
place for the scale: every task type's `Headline` (its metric key and kind) converts
through `accuracy_value`, the rule-scored and the judged alike.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Final, Literal

ScaleKind = Literal[
    "fraction",
    "inverted_fraction",
    "boolean",
    "pr_combined",
    "pref_align_gated",
    "0to10",
    "0to3",
    "signed_unit",
    "paired_correct",
    "agentic_pass_rate",
]
FAILED_STATUSES: Final = frozenset({"failed_writes", "failed_quality", "error", "no_result"})
HARD_RULE_VIOLATIONS: Final = (
    "pr_privacy_leak_violated",
    "pr_avoid_leak_violated",
    "pr_stale_preference_use_violated",
)


def number(value: object) -> float | None:
    """`float(value)` where the authors' would succeed; None otherwise."""
    if isinstance(value, (bool, int, float)):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return None
    return None


def _counts(metrics: Mapping[str, object], *keys: str) -> float:
    return sum(number(metrics.get(key)) or 0.0 for key in keys)


def accuracy_value(
    kind: ScaleKind, key: str, metrics: Mapping[str, object], status: str = "ok"
) -> float | None:
    """One row's headline on the authors' 0-100 scale; None leaves the row out.

    In order: a failed status (`FAILED_STATUSES`) is 0; a removal row skipped for low
    personalization is None; `agentic_pass_rate` is 100 x passed / (passed + failed)
    over tool-call, final-state and output-quality counts (0 with none); `paired_correct`
    is 100 x `correct` (None if missing); a non-substantive reply
    (`non_substantive_response` truthy, or `response_is_substantive` present and falsy)
    is 0; a missing `metrics[key]` is None. Then by kind: `inverted_fraction` 100(1 - v);
    `boolean` 100 or 0; `pr_combined` 100 v / `pr_combined_max_possible` (None without
    a positive max; 10 under the unified judge, so x 10; 3 per positive dim under the
    per-dimension one); `pref_align_gated` 0 on any hard-rule violation, else 100 v / 10;
    `0to10` 100 v / 10; `0to3` 100 v / 3; `signed_unit` 50(1 + v) with v clamped to
    [-1, 1]; `fraction` (and anything else) 100 v.
    """
    if status in FAILED_STATUSES:
        return 0.0
    if metrics.get("removal_status") == "skipped_low_personalization":
        return None
    if kind == "agentic_pass_rate":
        passed = _counts(
            metrics, "tool_call_rules_pass", "final_state_rules_passed", "output_quality_passed"
        )
        failed = _counts(
            metrics, "tool_call_rules_fail", "final_state_rules_failed", "output_quality_failed"
        )
        return 100.0 * passed / (passed + failed) if passed + failed > 0 else 0.0
    if kind == "paired_correct":
        correct = number(metrics.get("correct"))
        return None if correct is None else 100.0 * correct
    substantive = metrics.get("response_is_substantive")
    if metrics.get("non_substantive_response") or (substantive is not None and not substantive):
        return 0.0
    raw = metrics.get(key)
    if raw is None:
        return None
    if kind == "boolean":
        return 100.0 if raw else 0.0
    value = number(raw)
    if value is None:
        return None
    if kind == "inverted_fraction":
        return 100.0 * (1.0 - value)
    if kind == "pr_combined":
        most = number(metrics.get("pr_combined_max_possible"))
        return 100.0 * value / most if most and most > 0 else None
    if kind == "pref_align_gated":
        if any(metrics.get(flag) for flag in HARD_RULE_VIOLATIONS):
            return 0.0
        return 100.0 * value / 10.0
    if kind == "0to10":
        return 100.0 * value / 10.0
    if kind == "0to3":
        return 100.0 * value / 3.0
    if kind == "signed_unit":
        return 50.0 * (1.0 + max(-1.0, min(1.0, value)))
    return 100.0 * value


def micro_accuracy(values: Iterable[float | None]) -> float | None:
    """The published Overall: every scored row counts once (rows that are None are left
    out), the "ALL (micro, row-weighted)" row of aggregate_eval@19bc3eec, its sole
    headline (the macro rows were removed there)."""
    scored = [v for v in values if v is not None]
    return sum(scored) / len(scored) if scored else None


@dataclass(frozen=True)
class Headline:
    """A task type's headline: the key of the row's metrics that holds it and how that
    metric is put on 0-100 (task_registry@8e2a111f `PRIMARY_METRIC`)."""

    metric: str
    kind: ScaleKind

    def accuracy(self, metrics: Mapping[str, object], status: str = "ok") -> float | None:
        """`accuracy_value` under this headline's key and kind."""
        return accuracy_value(self.kind, self.metric, metrics, status)
