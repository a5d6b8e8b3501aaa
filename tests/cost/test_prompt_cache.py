"""The prompt-cache simulator (`cost/prompt_cache.py`): the ideal, requests in flight
together, and entries that expire."""

from __future__ import annotations

import pytest

from inspect_personamem.cost.prompt_cache import (
    CacheSettings,
    ideal_cached_tokens,
    simulate,
)
from inspect_personamem.data.requests import Request

# two contexts; prefix tokens grow with the end index
REQUESTS = [
    Request("x", 100, 110),
    Request("x", 200, 210),
    Request("x", 300, 310),
    Request("y", 50, 60),
    Request("y", 80, 90),
]


def test_ideal_is_all_history_but_each_contexts_longest() -> None:
    assert ideal_cached_tokens(REQUESTS) == (100 + 200 + 300 - 300) + (50 + 80 - 80)


@pytest.mark.parametrize("order", [[0, 1, 2, 3, 4], [2, 1, 0, 4, 3], [3, 0, 4, 2, 1]])
def test_one_request_at_a_time_reaches_the_ideal_in_any_order(order: list[int]) -> None:
    result = simulate([REQUESTS[i] for i in order], CacheSettings(1, 20.0, None))
    assert result.cached_tokens == ideal_cached_tokens(REQUESTS)
    assert result.input_tokens == 780


def test_siblings_in_flight_together_all_miss() -> None:
    result = simulate(REQUESTS, CacheSettings(concurrency=5, latency_s=20.0, ttl_s=None))
    assert result.cached_tokens == 0
    # two at a time: x1, x2 miss; x3 (t=20) reuses x2's 200; y1 misses; y2 (t=40) reuses y1
    two = simulate(REQUESTS, CacheSettings(concurrency=2, latency_s=20.0, ttl_s=None))
    assert two.cached_tokens == 200 + 50


def test_expired_entries_do_not_count() -> None:
    spaced = [Request("x", 100, 110), Request("z", 1, 1), Request("x", 200, 210)]
    kept = simulate(spaced, CacheSettings(1, 20.0, ttl_s=100.0))
    expired = simulate(spaced, CacheSettings(1, 20.0, ttl_s=10.0))
    assert kept.cached_tokens == 100 and expired.cached_tokens == 0
