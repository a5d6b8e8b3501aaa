"""Simulated provider prompt caching: what share of input tokens a provider could serve from cache.

A request's prompt is its question's history (a prefix shared with every other
question of the same context, up to the shorter of the two) followed by the
question. The simulator launches requests in the given order on `concurrency`
slots, as Inspect does; a request can reuse the prefix of any earlier request of
its context that has finished by the time it starts and whose cache entry has not
expired (entries are refreshed when used). Token counts come from the question
file (PersonaMem's `context_length_in_tokens`, PersonaMem-v2's
`total_tokens_in_chat_history_{length}`), so no tokenizer is needed.

The ideal (unlimited time, one request at a time) is the same for every order: all
history tokens but the longest history of each context.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from inspect_personamem.datasets.v1.prompt import final_user_message
from inspect_personamem.datasets.v1.records import QuestionRecord
from inspect_personamem.datasets.v2.prompt import asked, options_message
from inspect_personamem.datasets.v2.samples import V2Question

CHARS_PER_TOKEN = 4.0
"""Characters a token where the file gives no ratio of its own (about English text's
with OpenAI's tokenizers)."""


@dataclass(frozen=True)
class Request:
    """One question as the cache sees it."""

    context_id: str
    prefix_tokens: int
    """Tokens of the shareable prefix (the history)."""
    input_tokens: int
    """All input tokens of the request (history and final user message)."""


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
        if best is not None:
            cached += int(min(best[0], request.prefix_tokens))
            best[1] = start
        total += request.input_tokens
        end = start + settings.latency_s
        heapq.heappush(slots, end)
        heapq.heappush(finishing, (end, index))
    return CacheResult(cached_tokens=cached, input_tokens=total, duration_s=max(slots))


def requests_for(records: Iterable[QuestionRecord]) -> list[Request]:
    """Requests for PersonaMem (v1) question records, in their order.

    The prefix is the row's `context_length_in_tokens` (GPT-4o tokenizer). The final
    user message is counted with that row's own letters-per-token ratio, as the file
    gives no token count for it.
    """
    requests = []
    for record in records:
        tokens = int(record.columns["context_length_in_tokens"])
        letters = int(record.columns["context_length_in_letters"])
        per_token = letters / tokens if tokens > 0 and letters > 0 else CHARS_PER_TOKEN
        message = final_user_message(record.question, str(record.columns["all_options"]))
        requests.append(Request(record.context_id, tokens, tokens + _tokens(message, per_token)))
    return requests


def v2_requests(questions: Iterable[V2Question]) -> list[Request]:
    """Requests for PersonaMem-v2 questions (answer=choice, the task's default), in their
    order.

    Every question of a persona is sent after the persona's whole history, so the prefix
    is that history, shared whole by its questions: `V2Record.history_tokens`, the row's
    `total_tokens_in_chat_history_{length}` (no history file is read). The request's own
    part, the user message (`asked`) and the options message, is counted at
    `CHARS_PER_TOKEN`: the file holds no letter count to take a ratio from, as v1's does.
    The options are counted in the file's order: the task's shuffle moves them, not their
    length.
    """
    requests = []
    for question in questions:
        record = question.record
        tokens = record.history_tokens(question.length)
        message = asked(record.query) + options_message(
            (record.correct_answer, *record.incorrect_answers)
        )
        requests.append(
            Request(question.context_id, tokens, tokens + _tokens(message, CHARS_PER_TOKEN))
        )
    return requests


def _tokens(text: str, chars_per_token: float) -> int:
    return round(len(text) / chars_per_token)
