"""A persona's timeline in the form a run keeps it, once the persona's samples are built.

A persona as read (`streams.read_persona`: every event's fields, and its visible copy,
as Python objects) is about 25 MB at the release's size (~416k tokens at a query's
time), for 6 MB of JSON. A history source needs far less of it: the profile card, and,
for each event of the timeline's apps (DMs left out), its time, its app, its id and its
line (`longctx.event_line`), which both layouts' histories are made of. `Timeline` keeps
just that, the lines compressed together (zlib: 0.7 MB for the 3 MB of lines of a
generated release-sized persona), and unpacks them for a query (~17 ms for all of them,
against the ~0.3 s of writing every event's line again). So a run that sends histories
keeps under 1 MB a persona past the build (and, in the `events` layout, the whole
blocks of the personas in flight: `histories.WHOLE_KEPT`), where it kept each persona
as read (`benchmarks/v3_scale.py`).
"""

from __future__ import annotations

import zlib
from array import array
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from inspect_personamem.datasets.v3.persona.longctx import event_line, profile_card
from inspect_personamem.datasets.v3.persona.streams import Persona, visible
from inspect_personamem.datasets.v3.release.spec import App


@dataclass(frozen=True)
class Timeline:
    """A persona's profile card and its events of some apps, DMs left out, in time order:
    each one's time, app, id and line (its visible fields' compact JSON, which holds no
    newline: `json.dumps` escapes it)."""

    card: str
    times: array[int]
    """Each event's `source_timestamp` (unix seconds), ascending."""
    apps: tuple[App, ...]
    ids: tuple[str, ...]
    """Each event's `source_object_id`."""
    packed: bytes
    """The events' lines, joined by newlines, UTF-8, compressed."""

    @classmethod
    def of(cls, persona: Persona, apps: Sequence[App]) -> Timeline:
        events = [e for e in persona.events if e.app in apps and not e.is_dm]
        text = "\n".join(event_line(e.visible_fields) for e in events)
        return cls(
            card=profile_card(visible(persona, 0).profile),
            times=array("q", (e.source_timestamp for e in events)),
            apps=tuple(e.app for e in events),
            ids=tuple(e.source_object_id for e in events),
            packed=zlib.compress(text.encode(*_UTF8)),
        )

    def __len__(self) -> int:
        return len(self.times)

    def lines(self, stop: int) -> list[str]:
        """The lines of the first `stop` events."""
        if stop <= 0 or not self.times:
            return []
        return zlib.decompress(self.packed).decode(*_UTF8).split("\n", stop)[:stop]

    def tagged(self, stop: int | None = None) -> list[str]:
        """The lines of the first `stop` events (all of them by default) as the timeline's
        messages hold them: each prefixed with its app (`[app] {line}`)."""
        lines = self.lines(len(self) if stop is None else stop)
        return [f"[{app}] {line}" for app, line in zip(self.apps, lines, strict=False)]


_UTF8: Final = ("utf-8", "surrogatepass")
"""How the lines are packed: a lone surrogate, which JSON may escape and `json.loads`
reads, is kept as the text holds it."""
