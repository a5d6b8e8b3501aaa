"""Simulated provider prompt caching: what share of input tokens a provider could serve from cache.

A request's prompt is its question's history (a prefix shared with every other
question of the same context, up to the shorter of the two) followed by the
question. The simulator launches requests in the given order on `concurrency`
slots, as Inspect does; a request can reuse the prefix of any earlier request of
its context that has finished by the time it starts and whose cache entry has not
expired (entries are refreshed when used). Token counts come from the question
file (each dataset version's `requests`, in `data.requests.Request`s), so no
tokenizer is needed.

The ideal (unlimited time, one request at a time) is the same for every order: all
history tokens but the longest history of each context.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from inspect_personamem.data.requests import Request


@dataclass(frozen=True)
class CacheSettings:
    """How requests are served: concurrency, duration of a request, cache lifetime."""

    concurrency: int = 32
    latency_s: float = 20.0
    """Seconds from a request's start until its prefix is in the cache."""
    ttl_s: float | None = 300.0
    """Seconds an unused cache entry lives; None = forever."""


@dataclass(frozen=True)
class CacheResult:
    cached_tokens: int
    input_tokens: int
    duration_s: float
    cached: tuple[int, ...] = ()
    """Each request's cached tokens, in the order run."""

    @property
    def share(self) -> float:
        return self.cached_tokens / self.input_tokens if self.input_tokens else 0.0


def ideal_cached_tokens(requests: Iterable[Request]) -> int:
    """Cached tokens with one request at a time and no expiry, whatever the order."""
    total = 0
    longest: dict[str, int] = {}
    for request in requests:
        total += request.prefix_tokens
        longest[request.context_id] = max(longest.get(request.context_id, 0), request.prefix_tokens)
    return total - sum(longest.values())


def simulate(requests: Sequence[Request], settings: CacheSettings) -> CacheResult:
    """Run the requests in order on the settings' slots and count cache hits."""
    slots = [0.0] * settings.concurrency  # times at which each slot frees up
    finishing: list[tuple[float, int]] = []  # (finish time, request index), not yet cached
    entries: dict[str, list[list[float]]] = {}  # context -> [[prefix tokens, last used]]
    cached = 0
    total = 0
    each: list[int] = []
    for index, request in enumerate(requests):
        start = heapq.heappop(slots)
        while finishing and finishing[0][0] <= start:
            finished_at, done = heapq.heappop(finishing)
            entries.setdefault(requests[done].context_id, []).append(
                [requests[done].prefix_tokens, finished_at]
            )
        best: list[float] | None = None
        for entry in entries.get(request.context_id, ()):
            if settings.ttl_s is not None and start - entry[1] > settings.ttl_s:
                continue
            if best is None or min(entry[0], request.prefix_tokens) > min(
                best[0], request.prefix_tokens
            ):
                best = entry
        hit = int(min(best[0], request.prefix_tokens)) if best is not None else 0
        if best is not None:
            best[1] = start
        cached += hit
        each.append(hit)
        total += request.input_tokens
        end = start + settings.latency_s
        heapq.heappush(slots, end)
        heapq.heappush(finishing, (end, index))
    return CacheResult(cached, total, max(slots), tuple(each))
