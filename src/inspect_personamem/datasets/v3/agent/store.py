"""What the persona's apps hold at one query's time T, as the tools read it: the events
the model may see (`streams.visible(user_id, T)`: events strictly before T, leak fields
stripped, the profile's safe slice, calendar changes before T), then the writes made in
this session (`AppStore`). `reads.py` and `writes.py` work on it; `session.py` adds
which tools are offered and the calls.

Every write appends a record `{tool, app, arguments, synthetic_event_id, timestamp_ms,
event}` (`mcp_overlay.py`@1549bc98's `writes.jsonl` record plus the call's arguments)
to `writes`; later reads of the same store see the written events, as the authors'
overlay does, and nothing else does (a new session starts empty).

A DM thread is `persona.dms`'s (the released threads masked at T, the written ones
not).

Where ours differs from the authors', and why:
- ids and times are deterministic: the n-th write of a session is `{app}_write_{n}` at
  `timestamp_ms` T*1000 + n (the authors': a uuid and the wall clock), so a run repeats;
- every read is masked strictly before T, `get_post` and `react`/`comment` targets
  included (the authors' `get_event_by_id` is not masked), and the messages inside a DM
  thread too; an id of an event at or after T is "not found", as an unknown one;
  `get_post` finds posts, not DMs (which `get_dm_thread` reads, masked);
- sent DMs are threads of their own in later `list_dms` and `get_dm_thread` reads, and
  searches see written posts (the authors' overlay reaches feeds and `get_post` only);
- writes of one query never reach another (the authors' runner keeps one overlay per
  persona run, so a query sees the writes of the queries before it);
- a DM thread held in one event is read only where that event is before T (theirs, and
  the ground-truth block's, `prompts.ground_truth`: any thread with a message before T).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from inspect_personamem.datasets.v3.agent.catalogue import AppToolError
from inspect_personamem.datasets.v3.persona.dms import Thread, collect_threads
from inspect_personamem.datasets.v3.persona.streams import PersonaView


class AppStore:
    """The persona's apps at one query's time T, with the writes made on them."""

    def __init__(self, view: PersonaView) -> None:
        self.view = view
        self.t = view.t
        self.writes: list[dict[str, Any]] = []
        self._released: dict[str, list[dict[str, Any]]] = {}
        for event in view.events:  # time order
            self._released.setdefault(event.app, []).append(dict(event.visible_fields))

    def events(self, app: str) -> list[dict[str, Any]]:
        """The app's events in time order: those released before T, then this session's
        writes (after T's released events by construction)."""
        written = [_written_event(r) for r in self.writes if r["app"] == app]
        return [*self._released.get(app, []), *written]

    def posts(self, app: str) -> list[dict[str, Any]]:
        """The app's events but DMs, newest first (of events at one time, the later in
        the file first; the session's writes last made first)."""
        return [e for e in reversed(self.events(app)) if not e.get("is_dm")]

    def post(self, app: str, post_id: str) -> dict[str, Any]:
        for event in self.events(app):
            if not event.get("is_dm") and str(event.get("source_object_id")) == post_id:
                return event
        raise AppToolError(f"post_id {post_id!r} not found on {app}")

    def threads(self, app: str) -> list[Thread]:
        """The app's DM threads with a message before T (or written), the most recent
        first."""
        released = len(self._released.get(app, []))
        return collect_threads(
            (event, self.t if index < released else None)
            for index, event in enumerate(self.events(app))
        )

    def thread(self, app: str, thread_id: str) -> Thread:
        for thread in self.threads(app):
            if thread.thread_id == thread_id:
                return thread
        raise AppToolError(f"thread_id {thread_id!r} not found on {app}")

    def relationship(self, app: str, person: str) -> str | None:
        """How `person` relates to the user, from the latest visible event of the app
        they wrote (None: nobody by that id wrote one)."""
        found: str | None = None
        for event in self._released.get(app, []):
            if str(event.get("author_id")) == person:
                found = str(event.get("relationship") or "unknown")
        return found

    def write(
        self, tool: str, app: str, arguments: dict[str, Any], event: dict[str, Any]
    ) -> dict[str, Any]:
        """Record a write of `tool` on `app` making `event`; the record."""
        n = len(self.writes) + 1
        record = {
            "tool": tool,
            "app": app,
            "arguments": arguments,
            "synthetic_event_id": f"{app}_write_{n}",
            "timestamp_ms": self.t * 1000 + n,
            "event": event,
        }
        self.writes.append(record)
        return record


Run = Callable[[AppStore, str, dict[str, Any]], Any]
"""A tool's implementation: (store, app, arguments with defaults filled) -> the result's
value."""


def _written_event(record: Mapping[str, Any]) -> dict[str, Any]:
    """A write record's event as reads show it (`events_for_app`, mcp_overlay.py): at T,
    after every released event."""
    event = dict(record["event"])
    event.setdefault("source_object_id", record["synthetic_event_id"])
    event.setdefault("source_timestamp", record["timestamp_ms"] // 1000)
    event.setdefault("is_self_authored", record["tool"].endswith("_create_post"))
    event.setdefault("is_dm", record["tool"].endswith("_send_dm"))
    return event
