"""What a provider's long-context tier adds to a run's price, call by call, read from its
log.

A tier (`prices.LongContext`) prices a whole request by that request's own input, so the
tokens Inspect sums per sample cannot say which of a sample's calls it applies to. The
calls of the answering model (the calls bound to no role: a grader's are left out, as
the report leaves out their tokens) are read only where the tier could apply, a sample
whose answering input is over the threshold in all: a sample of one call (Inspect's
`turn_count`, its top-level generations, is 1) has that call's usage as its own, read
off its summary; a sample of several has its calls read from its model events
(`ModelEvent.output.usage`, a cache hit, which Inspect does not count, left out), used
where they add up to the sample's usage. Where they do not (events not logged, or not
all of them) which calls the tier prices is unknown, and the split says so.

The log is read with Inspect's public readers: the sample summaries, and only the
samples that need their events, without their messages, a few at a time
(`read_eval_log_samples_by_id`: several read from one reading of the log's directory,
where `read_eval_log_samples` reads it again for each sample).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from inspect_ai.event import ModelEvent
from inspect_ai.log import read_eval_log_sample_summaries, read_eval_log_samples_by_id
from inspect_ai.model import ModelCost, ModelUsage

from inspect_personamem.cost.prices import LongContext, tokens_cost

Key = tuple[str, int]
"""A sample: its id (as text) and epoch."""
Counts = tuple[int, int, int, int]
"""A call's or a sample's tokens: uncached input, cache reads, cache writes, output."""

_UNREAD = {"messages", "attachments", "store", "events_data", "output", "scores"}
"""What a sample read for its model events leaves out (the events keep their usage)."""
_AT_ONCE = 64
"""Samples read for their events at a time (Inspect reads them concurrently, from one
reading of the log's directory): the memory held is that many samples' events."""


def counts(usage: ModelUsage) -> Counts:
    """A usage's tokens as `Counts`."""
    return (
        usage.input_tokens,
        usage.input_tokens_cache_read or 0,
        usage.input_tokens_cache_write or 0,
        usage.output_tokens,
    )


def answering(
    model_usage: Mapping[str, ModelUsage], role_usage: Mapping[str, ModelUsage]
) -> Counts:
    """A sample's answering-model tokens: every model's usage less that of the models
    bound to roles (a grader's)."""
    total = [0, 0, 0, 0]
    for sign, usages in ((1, model_usage), (-1, role_usage)):
        for used in usages.values():
            for i, count in enumerate(counts(used)):
                total[i] += sign * count
    return (total[0], total[1], total[2], total[3])


def input_tokens(tokens: Counts) -> int:
    """A call's whole input, cached or not: what a tier's threshold is read against."""
    return tokens[0] + tokens[1] + tokens[2]


@dataclass(frozen=True)
class TierSplit:
    """What a run's tier adds to its standard price, sample by sample."""

    extra: Mapping[Key, float]
    """Sample -> the dollars its calls over the threshold cost above the standard price
    (only samples with such a call)."""
    unknown: frozenset[Key]
    """Samples over the threshold in all whose calls cannot be told apart."""

    def question(self, ids: Iterable[str], epochs: Iterable[int]) -> float | None:
        """What the tier adds to a question of the samples `ids` (a row of several parts:
        their sum), each the mean over the `epochs` scored; None where a call of one of
        them cannot be told apart."""
        scored = tuple(epochs) or (1,)
        added = []
        for id in ids:
            keys = [(id, epoch) for epoch in scored]
            if any(key in self.unknown for key in keys):
                return None
            added.append(math.fsum(self.extra.get(key, 0.0) for key in keys) / len(keys))
        return math.fsum(added)


def tier_split(location: str, price: ModelCost, tier: LongContext) -> TierSplit:
    """The tier's addition to each sample of the log at `location` whose answering
    calls go over `tier.above` input tokens, `price` being the standard price."""
    extra: dict[Key, float] = {}
    several: dict[Key, tuple[str | int, Counts]] = {}  # -> its id as logged, its tokens
    for summary in read_eval_log_sample_summaries(location):
        key = (str(summary.id), summary.epoch)
        tokens = answering(summary.model_usage, summary.role_usage)
        if input_tokens(tokens) <= tier.above:
            continue  # no call of it can be over
        if summary.turn_count == 1:
            extra[key] = _added(price, tier, [tokens])
        else:
            several[key] = (summary.id, tokens)
    unknown = set(several)
    keys = [(id, epoch) for (_, epoch), (id, _) in several.items()]
    for start in range(0, len(keys), _AT_ONCE):
        chunk = keys[start : start + _AT_ONCE]
        for sample in read_eval_log_samples_by_id(location, chunk, exclude_fields=_UNREAD):
            key = (str(sample.id), sample.epoch)
            calls = [
                counts(event.output.usage)
                for event in sample.events
                if isinstance(event, ModelEvent)
                and event.role is None
                and event.cache != "read"
                and event.output.usage is not None
            ]
            if calls and tuple(map(sum, zip(*calls, strict=True))) == several[key][1]:
                unknown.discard(key)
                if added := _added(price, tier, calls):
                    extra[key] = added
    return TierSplit(extra, frozenset(unknown))


def _added(price: ModelCost, tier: LongContext, calls: Iterable[Counts]) -> float:
    """What the tier adds to `calls` over their standard price (0 where none is over)."""
    over = [call for call in calls if input_tokens(call) > tier.above]
    return math.fsum(tokens_cost(tier.price, *c) - tokens_cost(price, *c) for c in over)
