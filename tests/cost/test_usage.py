"""The usage the provider reported, as Inspect summed it, set beside the estimate scaled
to the same number of questions (`cost/usage.py`; a real log: tests/cost/test_estimate.py)."""

from __future__ import annotations

from inspect_personamem.cost.estimate import CostEstimate
from inspect_personamem.cost.prompt_cache import CacheResult
from inspect_personamem.cost.usage import LoggedUsage

ESTIMATE = CostEstimate(
    label="32k", questions=100, source="questions_32k.csv", data_release="released",
    order="grouped", cache=CacheResult(cached_tokens=600_000, input_tokens=1_000_000,
    duration_s=1.0), shares={"grouped": 0.6}, ideal_cached_tokens=700_000,
    prefix_tokens=900_000, output_tokens=2_000,
)  # fmt: skip


def test_the_reported_usage_is_set_beside_the_estimate_for_as_many_questions() -> None:
    usage = LoggedUsage(
        samples=10, uncached_input=40_000, cache_read=50_000, cache_write=10_000, output=300,
        cost=1.23456,
    )  # fmt: skip
    assert usage.input == 100_000
    assert usage.render(ESTIMATE).splitlines() == [
        "reported by the provider (10 samples in the log):",
        "  input tokens   100,000 (cached 50,000 = 50.0%; cache writes 10,000)",
        "  output tokens  300",
        "  cost           $1.2346 (as Inspect priced the calls)",
        "estimate for 10 samples:",
        "  input tokens   100,000 (cached 60.0%)",
        "  output tokens  200",
    ]


def test_a_log_without_prices_or_tokens_says_so_rather_than_a_number() -> None:
    usage = LoggedUsage(
        samples=0, uncached_input=0, cache_read=0, cache_write=0, output=0, cost=None
    )
    text = usage.render(ESTIMATE)
    assert "cost           not logged (Inspect logs it where it has the price" in text
    assert "input tokens   0 (cached 0 = 0.0%; cache writes 0)" in text
    assert "estimate for 0 samples:" in text and "output tokens  0" in text
