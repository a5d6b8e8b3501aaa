"""A PersonaMem-v3 persona's history: its event streams read, and what a model may see of
them at a query's time.

A persona is a folder `backend/{uid}/`: `profile.json` (an object; scorer-side ground
truth but for a few keys), the apps' event lists `instagram.json`, `facebook.json`,
`threads.json`, `chatbot.json`, `ai_studio.json` (JSON lists of events), `calendar.json`
(`{"modifications": [...]}`) and `trending.json` (`{"built_at", "hashtags": [...]}`).
The profile and the four apps of the authors' masked view are required; `ai_studio`,
`calendar` and `trending` came later in the release and read as empty where absent.
`read_persona` reads a folder once into typed events merged in time order (ties in app
order, then file order); `visible(persona, T)` is a query's view, as the authors' masked
backend gives it (`evaluation/backend_query.py`@00c8a9f0, `BackendQuery`):

- an event is seen only if `source_timestamp < T` (strict: `get_events` drops
  `source_timestamp >= since_timestamp`); a calendar modification only if `ts < T`
  (`get_calendar_modifications`@af993eb8, the same strict rule);
- the fields that leak ground truth or scoring are removed: `split` from every event
  (`_LEAK_FIELDS_EVENT`), and from every preference `split`,
  `over_personalization_irrelevant`, `update_history`, `confidence_score_init`,
  `confidence_cross_referenced`, `stereotype_mark`, `hidden_persona_labels`
  (`_LEAK_FIELDS_PREF`); everything else is kept as released;
- the profile is its safe slice (`get_profile_summary`): `PROFILE_VISIBLE`'s ten keys,
  missing ones as None; the rest (hidden personas, the flat preferences, friends,
  proactive triggers) stays with the scorer (`Persona.profile`);
- DM thread entries (`Event.is_dm`) are kept: the apps' DM tools read them; what the
  authors build from `get_events`, whose default leaves them out (@af993eb8
  `include_dms=False`), leaves them out too (`longctx`, `histories`). Their
  `get_preferences` also drops a preference superseded before T (a `contradicted`
  update with `stance_shift_with_precedent`); no view here lists preferences apart from
  their events, as `get_events` does not. Their calendar state folds the changes with
  `ts <= T` (`get_calendar_state`), one second more than the changes a view holds.

Where ours differs: the authors read a missing `source_timestamp` as 0 (seen at every
T) and a missing app file as empty; here both are errors, since a silent default could
show the future or hide a whole app. Trending is the persona's whole list, never
masked (it has no per-item time; the authors hand it to agents unmasked, `get_trending`);
it is not part of `visible`. A malformed event is a one-line error naming the file, the
persona, the event's index and id, and the field.
"""

from __future__ import annotations

import bisect
import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from inspect_personamem.data.last_used import LastUsed
from inspect_personamem.datasets.v3.release.spec import APPS, AUTHORS_APPS, App
from inspect_personamem.errors import PersonaMemDataError

LEAK_FIELDS_EVENT: Final = ("split",)
LEAK_FIELDS_PREFERENCE: Final = (
    "split",
    "over_personalization_irrelevant",
    "update_history",
    "confidence_score_init",
    "confidence_cross_referenced",
    "stereotype_mark",
    "hidden_persona_labels",
)
PROFILE_VISIBLE: Final = (
    "user_id",
    "name",
    "bio",
    "career",
    "education",
    "gender",
    "race_ethnicity",
    "big_five",
    "mbti",
    "app_personas",
)
"""The profile's keys a model sees, in the authors' order (`get_profile_summary`)."""


@dataclass(frozen=True)
class Event:
    """One app event as released (`fields`, every key) and as a model may see it
    (`visible_fields`, the leak fields removed). Shared between queries: read-only."""

    app: App
    index: int
    """Its position in its app's file."""
    source_object_id: str
    source_timestamp: int
    fields: Mapping[str, Any]
    visible_fields: Mapping[str, Any]

    @property
    def is_dm(self) -> bool:
        """A DM thread entry (`is_dm` truthy): private, which the authors' event queries
        leave out unless asked (`get_events(include_dms=False)`, backend_query.py
        @af993eb8), the long-context text among them; the apps' DM tools read it."""
        return bool(self.fields.get("is_dm"))


@dataclass(frozen=True)
class CalendarChange:
    """One calendar modification (`added`, `updated` or `removed` an entry) as released."""

    index: int
    mod_id: str
    ts: int
    action: str
    fields: Mapping[str, Any]


@dataclass(frozen=True)
class TrendingTag:
    hashtag: str
    rank: int
    post_ids: tuple[str, ...]
    user_aligned: bool


@dataclass(frozen=True)
class Persona:
    """A persona's files, read: every event of every app in time order."""

    user_id: str
    profile: Mapping[str, Any]
    """The whole profile: scorer-side (`visible` gives a model its safe slice)."""
    events: tuple[Event, ...]
    calendar: tuple[CalendarChange, ...]
    trending: tuple[TrendingTag, ...]

    def events_before(self, t: int) -> tuple[Event, ...]:
        """The events with `source_timestamp < t`, in time order."""
        return self.events[: bisect.bisect_left(self.events, t, key=_event_time)]

    def calendar_before(self, t: int) -> tuple[CalendarChange, ...]:
        """The calendar changes with `ts < t`, in time order."""
        return self.calendar[: bisect.bisect_left(self.calendar, t, key=_change_time)]


def _event_time(event: Event) -> int:
    return event.source_timestamp


def _change_time(change: CalendarChange) -> int:
    return change.ts


@dataclass(frozen=True)
class PersonaView:
    """What a model may see of a persona at time `t`."""

    user_id: str
    t: int
    profile: Mapping[str, Any]
    events: tuple[Event, ...]
    """Read `visible_fields`, never `fields`."""
    calendar: tuple[Mapping[str, Any], ...]


def visible(persona: Persona, t: int) -> PersonaView:
    """The persona at a query's time `t` (unix seconds): events and calendar changes
    strictly before `t`, the leak fields removed, the profile's safe slice."""
    return PersonaView(
        user_id=persona.user_id,
        t=t,
        profile={key: persona.profile.get(key) for key in PROFILE_VISIBLE},
        events=persona.events_before(t),
        calendar=tuple(change.fields for change in persona.calendar_before(t)),
    )


class PersonaStreams:
    """The personas under a release's `backend/` folder, each read the first time it is
    asked for and shared by all its queries; with `keep`, only the `keep` last asked for
    are kept, and one asked for again is read again (a persona as read is ~25 MB at the
    release's size: a run that needs it only to build its samples keeps one at a time,
    `loading.load`)."""

    def __init__(self, backend: Path, keep: int | None = None) -> None:
        self.backend = backend
        self._read: LastUsed[str, Persona] = LastUsed(keep)

    def persona(self, user_id: str) -> Persona:
        return self._read.get(user_id, lambda: read_persona(self.backend / user_id, user_id))

    def visible(self, user_id: str, t: int) -> PersonaView:
        return visible(self.persona(user_id), t)


def read_persona(folder: Path, user_id: str) -> Persona:
    """A persona's files in `folder`, checked; errors name the file and the persona."""
    profile = _load(folder / "profile.json", user_id, required=True)
    if not isinstance(profile, dict):
        raise _at(folder / "profile.json", user_id, None, "expected a JSON object")
    if "user_id" in profile and str(profile["user_id"]) != user_id:
        raise _at(folder / "profile.json", user_id, "user_id", f"{profile['user_id']!r}")
    events: list[Event] = []
    for app in APPS:
        path = folder / f"{app}.json"
        value = _load(path, user_id, required=app in AUTHORS_APPS)
        if not isinstance(value, list):
            raise _at(path, user_id, None, "expected a JSON list of events")
        events.extend(_event(path, user_id, app, i, item) for i, item in enumerate(value))
    order = {app: i for i, app in enumerate(APPS)}
    events.sort(key=lambda e: (e.source_timestamp, order[e.app], e.index))
    return Persona(
        user_id=user_id,
        profile=profile,
        events=tuple(events),
        calendar=_calendar(folder / "calendar.json", user_id),
        trending=_trending(folder / "trending.json", user_id),
    )


def _event(path: Path, user_id: str, app: App, index: int, item: object) -> Event:
    def fail(field: str | None, message: str) -> PersonaMemDataError:
        return _at(path, user_id, field, message, f"event {index}{ident}")

    ident = ""
    if not isinstance(item, dict):
        raise fail(None, "expected a JSON object")
    raw_id = item.get("source_object_id")
    ident = f" (source_object_id {raw_id!r})" if raw_id is not None else ""
    if isinstance(raw_id, bool) or not isinstance(raw_id, str | int) or raw_id == "":
        raise fail("source_object_id", f"expected a string, found {raw_id!r}")
    ts = item.get("source_timestamp")
    if isinstance(ts, bool) or not isinstance(ts, int):
        raise fail("source_timestamp", f"expected unix seconds (an integer), found {ts!r}")
    for field, kind in (("interaction_format", dict), ("content", dict), ("conversation", list)):
        if item.get(field) is not None and not isinstance(item[field], kind):
            raise fail(field, f"expected a JSON {'object' if kind is dict else 'list'}")
    hashtags = item.get("source_hashtags", [])
    if not isinstance(hashtags, list) or not all(isinstance(h, str) for h in hashtags):
        raise fail("source_hashtags", "expected a list of strings")
    preferences = item.get("preferences", [])
    if not isinstance(preferences, list) or not all(isinstance(p, dict) for p in preferences):
        raise fail("preferences", "expected a list of objects")
    return Event(app, index, str(raw_id), ts, item, _stripped(item))


def _stripped(event: Mapping[str, Any]) -> dict[str, Any]:
    """The event without the leak fields (`_strip_event`@00c8a9f0)."""
    out = {key: value for key, value in event.items() if key not in LEAK_FIELDS_EVENT}
    if "preferences" in out:
        out["preferences"] = [
            {k: v for k, v in pref.items() if k not in LEAK_FIELDS_PREFERENCE}
            for pref in out["preferences"]
        ]
    return out


def _calendar(path: Path, user_id: str) -> tuple[CalendarChange, ...]:
    value = _load(path, user_id, required=False, empty={"modifications": []})
    mods = value.get("modifications") if isinstance(value, dict) else None
    if not isinstance(mods, list):
        raise _at(path, user_id, "modifications", 'expected {"modifications": [...]}')
    changes = []
    for index, mod in enumerate(mods):
        name = mod.get("mod_id") if isinstance(mod, dict) else None
        where = f"modification {index}" + (f" (mod_id {name!r})" if name is not None else "")
        if not isinstance(mod, dict):
            raise _at(path, user_id, None, "expected a JSON object", where)
        ts = mod.get("ts")
        if isinstance(ts, bool) or not isinstance(ts, int):
            raise _at(path, user_id, "ts", f"expected unix seconds, found {ts!r}", where)
        if mod.get("action") not in ("added", "updated", "removed"):
            raise _at(path, user_id, "action", f"{mod.get('action')!r}", where)
        changes.append(CalendarChange(index, str(name or ""), ts, mod["action"], mod))
    # by ts, not file order: the file is not always in time order (105's mod_rep_027)
    return tuple(sorted(changes, key=lambda c: (c.ts, c.index)))


def _trending(path: Path, user_id: str) -> tuple[TrendingTag, ...]:
    value = _load(path, user_id, required=False, empty={"hashtags": []})
    tags = value.get("hashtags") if isinstance(value, dict) else None
    if not isinstance(tags, list):
        raise _at(path, user_id, "hashtags", 'expected {"hashtags": [...]}')
    out = []
    for index, tag in enumerate(tags):
        where = f"hashtag {index}"
        if not isinstance(tag, dict) or not isinstance(tag.get("hashtag"), str):
            raise _at(path, user_id, "hashtag", "expected an object with a hashtag", where)
        rank, ids = tag.get("rank"), tag.get("post_ids", [])
        if isinstance(rank, bool) or not isinstance(rank, int):
            raise _at(path, user_id, "rank", f"expected an integer, found {rank!r}", where)
        if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
            raise _at(path, user_id, "post_ids", "expected a list of strings", where)
        out.append(TrendingTag(tag["hashtag"], rank, tuple(ids), tag.get("user_aligned") is True))
    return tuple(out)


def _load(path: Path, user_id: str, *, required: bool, empty: Any = None) -> Any:
    if not path.exists() and not required:
        return [] if empty is None else empty
    try:
        text = path.read_bytes().decode("utf-8-sig")
    except OSError as ex:
        raise _at(path, user_id, None, f"not readable ({ex.strerror or ex})") from None
    except UnicodeDecodeError as ex:
        raise _at(path, user_id, None, f"not UTF-8 (byte {ex.start})") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as ex:
        raise _at(path, user_id, None, f"not valid JSON, the file may be cut ({ex})") from None


def _at(
    path: Path, user_id: str, field: str | None, message: str, where: str | None = None
) -> PersonaMemDataError:
    parts = [f"{path} (persona {user_id})", *([where] if where else [])]
    parts += [f"field '{field}'"] if field else []
    return PersonaMemDataError(f"{', '.join(parts)}: {message}")
