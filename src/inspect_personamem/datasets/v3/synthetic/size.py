"""A generated persona of a given size: background events added, once its queries are
built, until the history its queries see averages a token target (the release's is
≈416-417k tokens a query, `RESULTS_SECTION.md`@32a47dd3; `cost.LONG_CONTEXT_TOKENS`).

The size is the long-context history text's (`persona.longctx.history_text`, the four
apps the authors show, DM entries left out) at each query's time, counted as the package
counts v3's tokens (`data.requests.text_tokens`: `CHARS_PER_TOKEN` characters a token),
averaged over the persona's queries. The added events are background events
(`World.background_event`: the same topics and shapes as the default background, so
nothing a query's builder placed is told apart by them), in the four apps in the
proportions of `PER_DAY`, spread over the whole event span at a steady rate: a query's
history grows with its time, as the release's does, and the rate is set so that the mean
over the persona's query times meets the target. Each event's gap to the next is its own
size over the rate, jittered by half either way, so the count before any time stays
within a few events of the rate's line.

They come after the queries are built, so the queries (their times, evidence, decoys and
rows) are the same at every size; only the background grows."""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence
from itertools import accumulate

from inspect_personamem.data.requests import CHARS_PER_TOKEN
from inspect_personamem.datasets.v3.persona.longctx import event_line
from inspect_personamem.datasets.v3.release.spec import AUTHORS_APPS
from inspect_personamem.datasets.v3.synthetic.vocabulary import PER_DAY
from inspect_personamem.datasets.v3.synthetic.world import END, START, World


def history_chars(world: World, times: Sequence[int]) -> list[int]:
    """Characters of the long-context lines of `world`'s events before each of `times`
    (each event's line and its line end; the four apps' headers left out)."""
    sized = sorted(
        (event["source_timestamp"], len(event_line(event)) + 1)
        for app in AUTHORS_APPS
        for event in world.events[app]
        if not event.get("is_dm")
    )
    stamps = [ts for ts, _ in sized]
    before = [0, *accumulate(chars for _, chars in sized)]
    return [before[bisect_left(stamps, t)] for t in times]


def fill(world: World, times: Sequence[int], tokens: int) -> None:
    """Add background events to `world` until the history before `times` (its queries')
    averages `tokens` tokens; none where it already does."""
    have = history_chars(world, times)
    need = tokens * CHARS_PER_TOKEN - sum(have) / len(have)
    if need <= 0:
        return
    rate = need / (sum(t - START for t in times) / len(times))  # characters a second
    apps = list(AUTHORS_APPS)
    weights = [PER_DAY[app] for app in apps]
    t = float(START)
    while t < END:
        event = world.background_event(world.rng.choices(apps, weights)[0], int(t))
        t += (len(event_line(event)) + 1) / rate * world.rng.uniform(0.5, 1.5)
