"""The token usage providers reported for a run, as Inspect summed it in the log.

Inspect adds up each model call's usage in `EvalLog.stats.model_usage`, with cached
reads and cache writes apart from uncached input, and its cost where it had the
model's price. This reads that sum so that an estimate can be checked against what
the provider actually counted.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from inspect_ai.log import read_eval_log

if TYPE_CHECKING:
    from inspect_personamem.cost.estimate import CostEstimate


@dataclass(frozen=True)
class LoggedUsage:
    samples: int
    uncached_input: int
    cache_read: int
    cache_write: int
    output: int
    cost: float | None
    """US dollars, as Inspect logged it (the run was priced: `--model-cost-config`);
    None where it logged none for a model."""

    @property
    def input(self) -> int:
        return self.uncached_input + self.cache_read + self.cache_write

    def render(self, estimate: CostEstimate) -> str:
        """The reported usage beside the estimate scaled to the same number of questions."""
        scale = self.samples / estimate.questions if estimate.questions else 0.0
        cached_share = self.cache_read / self.input if self.input else 0.0
        return "\n".join(
            [
                f"reported by the provider ({self.samples} samples in the log):",
                f"  input tokens   {self.input:,} (cached {self.cache_read:,} = "
                f"{cached_share:.1%}; cache writes {self.cache_write:,})",
                f"  output tokens  {self.output:,}",
                f"  cost           {_dollars(self.cost)}",
                f"estimate for {self.samples} samples:",
                f"  input tokens   {round(estimate.cache.input_tokens * scale):,} "
                f"(cached {estimate.cache.share:.1%})",
                f"  output tokens  {round(estimate.output_tokens * scale):,}",
            ]
        )


def logged_usage(path: Path) -> LoggedUsage:
    """Sum of the usage of every model in the log at `path` (header only is read)."""
    log = read_eval_log(str(path), header_only=True)
    usages = list(log.stats.model_usage.values())
    samples = log.results.completed_samples if log.results else 0
    return LoggedUsage(
        samples=samples,
        uncached_input=sum(u.input_tokens for u in usages),
        cache_read=sum(u.input_tokens_cache_read or 0 for u in usages),
        cache_write=sum(u.input_tokens_cache_write or 0 for u in usages),
        output=sum(u.output_tokens for u in usages),
        cost=None
        if any(u.total_cost is None for u in usages)
        else sum(u.total_cost or 0.0 for u in usages),
    )


def _dollars(cost: float | None) -> str:
    """A logged cost as words."""
    if cost is None:
        return "not logged (Inspect logs it where it has the price: --model-cost-config)"
    return f"${cost:,.4f} (as Inspect priced the calls)"
