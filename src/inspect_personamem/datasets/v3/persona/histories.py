"""PersonaMem-v3 histories as the history sources read them (`data.contexts.Contexts`),
and what a query fills of `data.asked.AskedAt`.

A context is a persona (its id the `user_id`). Its messages are its timeline: message 0
the profile's safe slice (`longctx.profile_card`, a system message, as v2's persona card
is), then one message per event of `apps` (the authors' four by default) in time order,
each its compact line (`longctx.event_line`, prefixed with its app), as the tools and
memories read them and the end index counts them: the same events, fields and masking
as `streams.visible`, less the DM thread entries (`Event.is_dm`), which the authors'
long-context text leaves out (`longctx`). A persona is read (`PersonaStreams`) and kept
as its `timeline.Timeline` (its card, and each event's time, app, id and line).

A query at time T is asked after `end_index = 1 + (events of apps with
source_timestamp < T)` (`end_index_at`): its point in the persona's history is its time,
counted in messages. Not T itself: the other readers of `AskedAt.end_index` (the memory
pool's leak-free rule, the tools, the order and the prompt cache's breakpoints) read it
as a number of messages of `messages(user_id)`, and a timestamp there would let them
see every event. Since the events are in time order, `messages[:end_index]` is exactly
the events before T, and a persona's queries by ascending end index are in time order.

`history(user_id, end_index)`, which `history=full` reads, has two layouts:

- `authors`: one user message, the authors' long-context text (`longctx.history_text`)
  of `streams.visible(persona, T)`, T the time of the first event not shown (written
  from the timeline's lines, `longctx.sections_text`): the same events, grouped by app
  as theirs are, and no profile. It is not a prefix of
  `messages`, and the text at a later T is not an extension of the text at an earlier
  one (each app's block grows in the middle), so a prompt cache shares next to nothing;
- `events` (ours): the timeline itself, in time order, after the profile card the
  authors' newest text no longer sends: the card, then the events' lines in blocks
  (`block_starts`), each block one user message of consecutive events' lines, one a line. A
  block closes once its text would pass `BLOCK_CHARS` with the next line, so its
  bounds follow from the events before it alone and never move as time advances: a
  query's history is the card, the blocks whole before its time, and the block in
  progress cut at its time (`complete_at` counts the messages before that cut). A
  later query's history extends an earlier one's: the same messages up to the cut, and
  the cut block's text a prefix of its own, so a persona's queries in time order share
  their prefix and a prompt cache reuses it, at the cut (`cache_ends`). Blocks, not one
  message an event: a release-sized history is thousands of events, and Inspect's work
  on a request (its transcript, log and pools) grows with its messages, not its text.

The calendar and trending tags are in neither (the authors' long-context text has
neither).
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from typing import Final, Literal

from inspect_ai.model import ChatMessage, ChatMessageSystem, ChatMessageUser

from inspect_personamem.data.asked import AskedAt
from inspect_personamem.data.last_used import LastUsed
from inspect_personamem.data.order import INTERLEAVE_BLOCK, MAX_BREAKPOINTS
from inspect_personamem.datasets.v3.persona.longctx import sections_text
from inspect_personamem.datasets.v3.persona.streams import PersonaStreams
from inspect_personamem.datasets.v3.persona.timeline import Timeline
from inspect_personamem.datasets.v3.release.records import V3Query
from inspect_personamem.datasets.v3.release.spec import AUTHORS_APPS, App

HistoryLayout = Literal["authors", "events"]
LAYOUTS: Final[tuple[HistoryLayout, ...]] = ("authors", "events")
BLOCK_CHARS: Final = 16_000
"""The most characters of a block of the `events` layout (about 4,000 tokens at
`data.requests.CHARS_PER_TOKEN`), unless one event's line alone is longer (a block of its
own): a release-sized history (~416k tokens) is then about a hundred messages, and the
cut block a later query cannot read from the cache about 1% of it at most."""


WHOLE_KEPT: Final = INTERLEAVE_BLOCK
"""The personas whose whole blocks (`events` layout) are kept: as many as the default
order has in flight together (`data.order`), ~3.4 MB each at the release's size. An
order with more personas in flight (`interleave_block` above it or 0, `order=random`,
`--sample-shuffle`) builds them again for a query: the same text, in a copy of the
query's own while it is in flight."""


class PersonaContexts:
    """The personas of a `PersonaStreams` under the interface history sources read: a
    context is a persona, its messages its timeline, a query's history all of it
    before the query's time (`end_index_at`). What it keeps of every persona is its
    `Timeline`; of the last `WHOLE_KEPT` asked for in the `events` layout, their whole
    blocks; and, where the tools, memories or evidence ask for them, the messages one an
    event (made the first time they are asked for, and kept)."""

    def __init__(
        self,
        streams: PersonaStreams,
        layout: HistoryLayout = "authors",
        apps: Sequence[App] = AUTHORS_APPS,
    ) -> None:
        if layout not in LAYOUTS:
            raise ValueError(f"unknown history layout {layout!r}; one of {', '.join(LAYOUTS)}")
        self.streams = streams
        self.layout = layout
        self.apps = tuple(apps)
        self._timelines: dict[str, Timeline] = {}
        self._messages: dict[str, tuple[ChatMessage, ...]] = {}
        self._starts: dict[str, tuple[int, ...]] = {}
        self._whole_kept: LastUsed[str, tuple[ChatMessage, ...]] = LastUsed(WHOLE_KEPT)

    def with_layout(self, layout: HistoryLayout) -> PersonaContexts:
        """The same personas in `layout`, sharing the timelines read."""
        other = PersonaContexts(self.streams, layout, self.apps)
        other._timelines = self._timelines
        return other

    def timeline(self, user_id: str) -> Timeline:
        """The persona's events of `apps`, DMs left out, in time order: `messages[1:]`."""
        timeline = self._timelines.get(user_id)
        if timeline is None:
            timeline = Timeline.of(self.streams.persona(user_id), self.apps)
            self._timelines[user_id] = timeline
        return timeline

    def end_index_at(self, user_id: str, t: int) -> int:
        """The history end of a query at `t` (unix seconds): the profile, and the events
        strictly before `t`."""
        return 1 + bisect.bisect_left(self.timeline(user_id).times, t)

    def messages(self, context_id: str) -> tuple[ChatMessage, ...]:
        messages = self._messages.get(context_id)
        if messages is None:
            timeline = self.timeline(context_id)
            messages = (
                ChatMessageSystem(content=timeline.card),
                *(ChatMessageUser(content=line) for line in timeline.tagged()),
            )
            self._messages[context_id] = messages
        return messages

    def block_starts(self, user_id: str) -> tuple[int, ...]:
        """Where each of the persona's blocks (`events` layout) starts, as a position in
        its events. A block takes the next event's line while its text, lines joined by
        newlines, stays within `BLOCK_CHARS`; so where a block ends depends on the events
        before it alone."""
        found = self._starts.get(user_id)
        if found is None:
            timeline = self.timeline(user_id)
            starts: list[int] = []
            size = 0
            for index, line in enumerate(timeline.tagged()):
                if not starts or size + 1 + len(line) > BLOCK_CHARS:
                    starts.append(index)
                    size = len(line)
                else:
                    size += 1 + len(line)
            found = self._starts[user_id] = tuple(starts)
        return found

    def complete_at(self, user_id: str, end_index: int) -> int:
        """The messages of the `events` layout's history at `end_index` that every later
        history of the persona sends unchanged: the card and the blocks whole before the
        cut (all of them where the history is the persona's whole timeline)."""
        if end_index == 0:
            return 0
        stops = _stops(self.block_starts(user_id), len(self.timeline(user_id)))
        return 1 + bisect.bisect_right(stops, end_index - 1)

    def history(self, context_id: str, end_index: int) -> Sequence[ChatMessage]:
        timeline = self.timeline(context_id)
        if not 0 <= end_index <= 1 + len(timeline):
            raise ValueError(
                f"history end {end_index} of persona {context_id} is outside 0 to "
                f"{1 + len(timeline)}"
            )
        if end_index == 0:
            return ()
        if self.layout == "events":
            return self._blocks(context_id, end_index)
        shown = end_index - 1
        times = timeline.times
        if 0 < shown < len(times) and times[shown - 1] == times[shown]:
            raise ValueError(
                f"history end {end_index} of persona {context_id} falls between events of "
                f"one time ({times[shown]}): no query's time ends there"
            )
        lines = list(zip(timeline.apps, timeline.lines(shown), strict=False))
        return (ChatMessageUser(content=sections_text(lines, self.apps)),)

    def _blocks(self, user_id: str, end_index: int) -> tuple[ChatMessage, ...]:
        """The `events` layout's history: the card, the whole blocks before the cut, and
        the block the cut falls in, up to it (none where the cut is a block's end)."""
        whole = self._whole(user_id)
        done, sent = self.complete_at(user_id, end_index), self._sent(user_id, end_index)
        if done == sent:
            return whole[:done]
        timeline = self.timeline(user_id)
        start = self.block_starts(user_id)[sent - 2]
        cut = timeline.tagged(end_index - 1)[start:]
        return (*whole[:done], ChatMessageUser(content="\n".join(cut)))

    def _whole(self, user_id: str) -> tuple[ChatMessage, ...]:
        """The persona's card and each of its blocks whole, as messages: one copy shared
        by all its queries in flight (its histories' messages before their cut), kept
        for the last `WHOLE_KEPT` personas asked for."""
        return self._whole_kept.get(user_id, lambda: self._made_whole(user_id))

    def _made_whole(self, user_id: str) -> tuple[ChatMessage, ...]:
        timeline = self.timeline(user_id)
        lines = timeline.tagged()
        starts = self.block_starts(user_id)
        return (
            ChatMessageSystem(content=timeline.card),
            *(
                ChatMessageUser(content="\n".join(lines[a:b]))
                for a, b in zip(starts, _stops(starts, len(lines)), strict=True)
            ),
        )

    def _sent(self, user_id: str, end_index: int) -> int:
        """How many messages the `events` layout's history at `end_index` (above 0) is:
        the card, and each block that starts before the cut."""
        return 1 + bisect.bisect_left(self.block_starts(user_id), end_index - 1)

    def cache_ends(self, user_id: str, own: int, ends: Sequence[int]) -> list[int]:
        """The prompt-cache breakpoints of a query whose history ends at `own`, from the
        history ends `data.order.prefix_ends` chose for it (`ends`: its own and earlier
        queries'), as positions in the history sent. In the `events` layout a later
        query shares an earlier one's history up to its cut (`complete_at`), so: the
        whole history (for a later query of the same time) and each end's cut, longest
        first, `MAX_BREAKPOINTS` at most. In the authors' layout, `ends` as given."""
        if self.layout != "events":
            return list(ends)
        marks = {self.complete_at(user_id, end) for end in ends}
        if own in ends:
            marks.add(self._sent(user_id, own) if own else 0)
        return sorted((m for m in marks if m > 0), reverse=True)[:MAX_BREAKPOINTS]


def _stops(starts: Sequence[int], count: int) -> list[int]:
    """Where each block of `count` events that start at `starts` stops (exclusive)."""
    return [*starts[1:], count] if starts else []


def asked_at(query: V3Query, contexts: PersonaContexts) -> AskedAt:
    """What the axes read of a query: the persona's history (`user_id`) up to the
    query's time (`ts`, as `end_index_at` counts it), the model answering the row's
    `query_text`. The cache's breakpoints are added with the rest of a persona's
    queries (`data.order.prefix_ends`)."""
    end = contexts.end_index_at(query.user_id, query.ts)
    return AskedAt(history=query.user_id, end_index=end, message=query.query_text)
