"""A persona's DM threads, as the apps' reads (`agent.store`) and the agentic ground-truth
block (`prompts.ground_truth`) show them.

A DM thread (after `evaluation/backend_query.py`@00c8a9f0 and @af993eb8) is an `is_dm`
event carrying `messages` (its `thread_id`, else its id), or `is_dm` events grouped by
`thread_id` (one without one is a thread alone, `__solo__{id}`), each message `{msg_id,
sender, timestamp, text}`. Masked at T (`collect_threads`), a thread shows its messages
strictly before T, as `list_dm_threads` and `get_dm_thread` mask them (the event's own
`source_timestamp` is not read for embedded messages, as theirs; an event of the second
layout is one message at its own time); a thread with none is left out.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any


@dataclass
class Thread:
    """One DM thread as the reads show it."""

    thread_id: str
    participants: list[Any]
    is_group: bool
    source_hashtags: list[Any]
    messages: list[dict[str, Any]]

    @property
    def latest_ts(self) -> int:
        return max(message_time(m) for m in self.messages)

    def header(self) -> dict[str, Any]:
        return {
            "thread_id": self.thread_id,
            "participants": self.participants,
            "is_group": self.is_group,
            "source_hashtags": self.source_hashtags,
        }

    def summary(self) -> dict[str, Any]:
        text = self.messages[-1].get("text") or ""
        return {
            **self.header(),
            "latest_ts": self.latest_ts,
            "last_message_preview": text[:80] if isinstance(text, str) else "",
            "unread_count": 0,
        }


def content_of(event: Mapping[str, Any]) -> Mapping[str, Any]:
    """An event's `content` (empty where it has none that is an object)."""
    content = event.get("content")
    return content if isinstance(content, dict) else {}


def message_time(message: Mapping[str, Any]) -> int:
    """A DM message's time (0 where it has no integer one)."""
    return _as_time(message.get("timestamp")) or 0


def _as_time(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _add_to_thread(
    threads: dict[str, Thread], event: Mapping[str, Any], masked_at: int | None
) -> None:
    """Add a DM event to its thread: its `messages` (those with a time before
    `masked_at`; a message without an integer time is left out, as it cannot be placed),
    or the event itself as one message (where its own time is before `masked_at`)."""
    event_id = str(event.get("source_object_id", ""))
    embedded = event.get("messages")
    if isinstance(embedded, list):
        thread_id = str(event.get("thread_id") or event_id)
        messages = [
            dict(m)
            for m in embedded
            if isinstance(m, dict)
            and (ts := _as_time(m.get("timestamp"))) is not None
            and (masked_at is None or ts < masked_at)
        ]
        people = list(event.get("participants") or [])
    elif masked_at is not None and not (_as_time(event.get("source_timestamp")) or 0) < masked_at:
        return
    else:
        thread_id = str(event.get("thread_id") or f"__solo__{event_id}")
        sender = event.get("author_id") or "unknown"
        text = content_of(event).get("caption") or _format(event).get("user_message") or ""
        messages = [
            {
                "msg_id": event_id,
                "sender": sender,
                "timestamp": event.get("source_timestamp"),
                "text": text,
            }
        ]
        people = [sender, *([event["recipient_id"]] if event.get("recipient_id") else [])]
    thread = threads.get(thread_id)
    if thread is None:
        thread = threads[thread_id] = Thread(
            thread_id, [], False, list(event.get("source_hashtags") or []), []
        )
    thread.is_group = thread.is_group or bool(event.get("is_group") or event.get("is_group_dm"))
    # in the order first seen (an embedded thread's as released, as theirs shows it)
    thread.participants = list(dict.fromkeys([*map(str, thread.participants), *map(str, people)]))
    thread.messages.extend(messages)


def _format(event: Mapping[str, Any]) -> Mapping[str, Any]:
    value = event.get("interaction_format")
    return value if isinstance(value, dict) else {}


def collect_threads(events: Iterable[tuple[Mapping[str, Any], int | None]]) -> list[Thread]:
    """The DM threads of `(event, masked_at)` pairs (one app's events in file or time
    order, each masked at its time, or not at all where None) with a message shown, each
    with its messages in time order, the most recent thread first (`list_dm_threads`
    @af993eb8's order)."""
    threads: dict[str, Thread] = {}
    for event, masked_at in events:
        if event.get("is_dm"):
            _add_to_thread(threads, event, masked_at)
    found = [thread for thread in threads.values() if thread.messages]
    for thread in found:
        thread.messages.sort(key=lambda m: (message_time(m), str(m.get("msg_id", ""))))
    return sorted(found, key=lambda thread: (-thread.latest_ts, thread.thread_id))


def threads_before(events: Iterable[Mapping[str, Any]], t: int) -> list[Thread]:
    """The DM threads of one app's `events` masked at `t`: their messages before `t`."""
    return collect_threads((event, t) for event in events)
