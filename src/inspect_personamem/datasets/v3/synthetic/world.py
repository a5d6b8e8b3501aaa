"""A generated persona's world: its time structure, its interests, cities and friends,
its background streams per app and its calendar, and the events a query's builder adds
(its evidence before the query's time, its decoys after).

The time structure is the release's (PERSONAMEM_V3.md section 2): events over `DAYS` days
from `START` (2026-04-03 UTC), every app, a few a day, each with `source_timestamp` and
`formatted_timestamp`, the leak fields the authors strip (`split`, and per preference
`update_history`, `hidden_persona_labels`, ...), an `event_location` that follows the
persona's trips. Queries fall between `FIRST_QUERY` (three days of history in, as the
authors drop queries before 20% of the history) and `LAST_QUERY` (a day before the last
events), so every query has events before and after it. A query's time is any second
there, not a whole hour, as the real rows' are (48 of the 49 rows in
`tests/fixtures/personamem_v3_real/`; the one on the hour, 115 seq 8 at 20:00:00).

Queries the authors' build gives one anchor share its time: it takes the
persona's latest test engagement as `t_probe` and builds several task types at it
(evaluation/build_benchmark.py@0f0f386e `build_benchmark`): the agentic builders stamp
every instance at their anchor and the build then spreads a type's `n` instances over
the observation window, `n` evenly spaced points with its ends left out
(`task_distribution.spread_anchors`@0d90f3d2; `_spread_anchors(n=5)` in
tasks/agentic_tasks.py@8e2a111f `build_t18`/`build_t19`), so the types of one count
share every point. Persona 115's rows show it: 7 days before its `t_probe`
(2026-04-11T19:54:13) the grid of 6 (24 h steps) holds seq 13-15 (vague refind, cross-app
repost, DM digest) and 27-28 (community post, auto reply), the grid of 5 (28 h steps)
seq 18-20 (trending alert, send post, daily catch-up), 39 (group DM summary, 2 threads:
the grid of 2 is the 5's second and fourth point) and 80; its key manifest's seqs put
the agentic types in runs of 3-5 around every point. The context-shift rows sit at
`t_probe` itself (`build_c2_instances(..., t_probe)`; 105 seq 148 and 152-154, with the
moment recommendation 155; 115 seq 132), the hidden-persona rows at one anchor a week
before it (hidden_persona_implicit_qa.py@fafd9bac `_t_test_anchor`, one `t_test` for
all; 115 seq 0, 6 and 7). The generator keeps that structure on its query window
(`opening`, `probe`, `spread`): every type here makes `k` queries, so the release's
two agentic counts become grids of `k + 1` (its first `k` points: the types the release
builds 6 of) and of `k` (those it builds 5 of); the other types draw their own second.
20 of the fixtures' 49 rows share their time with another (11 of their 23 consecutive
pairs); 0.36-0.42 of a generated persona's queries do (`test_v3_generator_size`).

One `World` per persona, drawing from one `random.Random` in a fixed order (the
background first, then each task type's builder in turn, `instance.InstanceBuilder`):
the same seed writes the same bytes."""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Final

from inspect_personamem.data.synthetic import Text
from inspect_personamem.datasets.v3.release.spec import APPS, App
from inspect_personamem.datasets.v3.synthetic.vocabulary import (
    APP_NAME,
    CITIES,
    FIRST_NAMES,
    LAST_NAMES,
    PER_DAY,
    SENSITIVE,
    SOCIAL,
    TOPICS,
    Topic,
)

HOUR: Final = 3600
DAY: Final = 24 * HOUR
START: Final = 1_775_174_400
"""2026-04-03T00:00:00Z: the first day of events (persona 105's run 04-02 to 04-11)."""
DAYS: Final = 10
END: Final = START + DAYS * DAY
FIRST_QUERY: Final = START + 3 * DAY
LAST_QUERY: Final = END - DAY
"""Queries fall in [FIRST_QUERY, LAST_QUERY): history before, events after."""
NEAR: Final = (10 * 60, 20 * HOUR)
"""How far before (evidence) or after (decoys) a query's time its own events fall."""
SLATE: Final = 16


def iso(ts: int) -> str:
    """`2026-04-04T20:00:00+00:00`, as a row's `ts_iso`."""
    return datetime.fromtimestamp(ts, timezone.utc).isoformat()


def formatted(ts: int) -> str:
    """`20:00, 04/04/2026`, as an event's `formatted_timestamp`."""
    return datetime.fromtimestamp(ts, timezone.utc).strftime("%H:%M, %m/%d/%Y")


Ref = dict[str, Any]
"""Where an event lies: `{"app", "id", "ts"}` (`app` "calendar" for a calendar change)."""


@dataclass
class Query:
    """A query being built: its number among its type's, its time, and the events that
    serve it (their refs, and the preferences they show: before, avoided, after)."""

    k: int
    t: int
    iid: str = ""
    """The row's `instance_id` (`instance.each` names it)."""
    evidence: list[Ref] = field(default_factory=list)
    decoys: list[Ref] = field(default_factory=list)
    target: list[dict[str, Any]] = field(default_factory=list)
    avoid: list[dict[str, Any]] = field(default_factory=list)
    after: list[dict[str, Any]] = field(default_factory=list)


def pref_summary(topic: Topic) -> dict[str, Any]:
    """A preference as a profile and an instance list it."""
    name, category, tags = topic
    return {"persona_item": name, "category": category, "source_hashtags": list(tags)}


class World:
    """One persona being generated: its draws (`rng`, `text`), its identity and
    interests, its event streams and calendar so far."""

    def __init__(self, rng: random.Random, uid: str, k: int) -> None:
        self.rng, self.uid, self.k = rng, uid, k
        self.text = Text(rng)
        self.next_id = rng.randrange(100_000, 500_000)
        self.events: dict[str, list[dict[str, Any]]] = {app: [] for app in APPS}
        self.calendar: list[dict[str, Any]] = []
        topics = list(TOPICS)
        rng.shuffle(topics)
        self.liked: list[Topic] = topics[:8]
        self.disliked: list[Topic] = topics[8:12]
        self.hidden: list[Topic] = topics[12:15]
        self.others: list[Topic] = topics[15:]
        cities = list(CITIES)
        rng.shuffle(cities)
        self.cities = cities[:4]
        self.name = f"{rng.choice(FIRST_NAMES)} {rng.choice(LAST_NAMES)}"
        self.sensitive = rng.choice(SENSITIVE)
        at = rng.randrange(1, DAY // 2)
        self.sensitive_window = (FIRST_QUERY + DAY + at, LAST_QUERY - 2 * DAY + at)
        """The sensitive event's active window, its ends at any second (105's:
        1775247611-1776543611): inside the query window, with a day of queries or more
        before it and a day and a half or more after it (the act rows go there,
        `moments`)."""
        self.moments: list[tuple[int, bool]] = []
        """The proactive rows placed so far: their time and whether they act."""
        self.friends: list[dict[str, Any]] = [
            {
                "friend_id": f"friend_{i}",
                "display_name": f"{rng.choice(FIRST_NAMES)} {rng.choice(LAST_NAMES)}",
                "relationship_depth": "close_friend" if i < 3 else "acquaintance",
                "shared_interests": [self.liked[i % len(self.liked)][0]],
            }
            for i in range(10)
        ]
        self._timeline()
        self.probe = LAST_QUERY - rng.randrange(1, HOUR)
        """The persona's `t_probe`: its latest query anchor, the agentic window's end."""
        self.opening = self.probe - (LAST_QUERY - FIRST_QUERY - HOUR)
        """The agentic window's start (the authors' is `t_probe` less 7 days; here the
        query window's start, so every query keeps its three days of history)."""

    # --- time and place

    def _timeline(self) -> None:
        """The persona's city from each time on: home, then one change per geo-shift
        query (each such query falls a few hours into a new city), and one more after
        the last (the decoy of the last query)."""
        span = (LAST_QUERY - FIRST_QUERY) // self.k
        self.delta = min(6 * HOUR, span // 3)
        first = FIRST_QUERY - self.delta + self.rng.randrange(min(HOUR, span // 3))
        starts = [first + i * span for i in range(self.k + 1)]
        self.segments: list[tuple[int, int]] = [(0, 0)]
        self.segments += [(s, (i + 1) % len(self.cities)) for i, s in enumerate(starts)]
        self.span = span

    def city_at(self, ts: int) -> int:
        """The index (in `cities`) of the city the persona is in at `ts`."""
        index = 0
        for start, city in self.segments:
            if start <= ts:
                index = city
        return index

    def location(self, ts: int) -> dict[str, Any]:
        """An event's `event_location` at `ts`."""
        city, region, country, lat, lon = self.cities[self.city_at(ts)]
        return {
            "city": city,
            "region": region,
            "country": country,
            "lat": lat,
            "lon": lon,
            "precision": "city",
        }

    def before(self, t: int) -> int:
        """A time `NEAR` before `t` (an evidence event's)."""
        return t - self.rng.randint(*NEAR)

    def after(self, t: int) -> int:
        """A time `NEAR` after `t` (a decoy's)."""
        return t + self.rng.randint(*NEAR)

    def query_time(self) -> int:
        """A second in the query window, a query's own (module docstring)."""
        return self.rng.randrange(FIRST_QUERY, LAST_QUERY)

    def spread(self, n: int) -> list[int]:
        """`n` times evenly spaced over the agentic window, its ends left out, as the
        authors' `spread_anchors` places a type's `n` instances (module docstring)."""
        span = self.probe - self.opening
        return [self.opening + (i + 1) * span // (n + 1) for i in range(n)]

    # --- events

    def new_id(self) -> str:
        """A fresh `source_object_id`, increasing."""
        self.next_id += self.rng.randint(1, 97)
        return str(self.next_id)

    def _preference(self, topic: Topic, horizon: str = "long_term") -> dict[str, Any]:
        name, category, tags = topic
        return {
            "persona_item": name,
            "category": category,
            "confidence_score_init": round(self.rng.uniform(0.5, 0.95), 2),
            "confidence_cross_referenced": round(self.rng.uniform(0.5, 0.95), 2),
            "stereotype_mark": "neutral",
            "hidden_persona_labels": [h[0] for h in self.hidden if h[2][0] in tags],
            "motivation_audit": {"decision": "keep", "why": self.text.about(40)},
            "update_history": [],
            "time_horizon": horizon,
            "split": "train",
            "over_personalization_irrelevant": [],
        }

    def event(
        self,
        app: App,
        ts: int,
        topic: Topic,
        *,
        kind: str = "explicit_positive",
        action: str = "liked_post",
        message: str | None = None,
        title: str | None = None,
        caption: str | None = None,
        author: str = "public_creator",
        relationship: str = "public",
        dm: bool = False,
        self_authored: bool = False,
        horizon: str = "long_term",
        extra: Mapping[str, Any] | None = None,
    ) -> dict[str, Any]:
        """One event of `app` at `ts` about `topic`, added to the persona's stream."""
        positive = kind in ("explicit_positive", "implicit_positive")
        item: dict[str, Any] = {
            "source_object_id": self.new_id(),
            "source_timestamp": ts,
            "formatted_timestamp": formatted(ts),
            "source_hashtags": list(topic[2]),
            "source_interaction_type": kind,
            "interaction_format": {
                "app": APP_NAME[app],
                "action": action,
                "action_label": action.replace("_", " ").capitalize(),
                "user_message": message,
            },
            "preferences": [self._preference(topic, horizon)] if positive else [],
            "event_location": self.location(ts),
            "author_id": author,
            "recipient_id": "",
            "relationship": relationship,
            "is_self_authored": self_authored,
            "is_dm": dm,
            "split": "train" if ts < LAST_QUERY else "test",
        }
        if app in SOCIAL:
            item["content_type"] = self.rng.choice(("image", "video", "text"))
            item["content"] = {
                "title": title or f"{topic[0]}: {self.text.about(20).rstrip('.')}",
                "caption": caption or self.text.about(60),
                "overall_description": self.text.about(120),
            }
        else:
            said = message or f"Can you help me with {topic[0]}? {self.text.about(40)}"
            item["interaction_format"]["user_message"] = said
            item["conversation"] = [
                {"role": "user", "content": said},
                {"role": "assistant", "content": self.text.about(160)},
            ]
            if app == "chatbot":
                item["conversation_type"] = "advice"
                item["ask_to_forget"] = False
            else:
                item["prior_session_refs"] = []
                item["memory_used_summary"] = ""
                item["ai_studio_metadata"] = {"character_name": "Studio guide"}
        if extra:
            item.update(extra)
        self.events[app].append(item)
        return item

    def background_event(self, app: App, ts: int) -> dict[str, Any]:
        """A background event of `app` at `ts`: about a liked topic (60%), a disliked one
        skipped (20%, social apps), or another topic."""
        roll = self.rng.random()
        if roll < 0.6:
            return self.event(app, ts, self.rng.choice(self.liked))
        if roll < 0.8 and app in SOCIAL:
            topic = self.rng.choice(self.disliked)
            return self.event(app, ts, topic, kind="implicit_negative", action="skipped_reel")
        return self.event(app, ts, self.rng.choice(self.others), kind="implicit_positive")

    def background(self) -> None:
        """A few events a day in every app, about liked, disliked and other topics."""
        for day in range(DAYS):
            for app in APPS:
                for _ in range(PER_DAY[app]):
                    self.background_event(app, START + day * DAY + self.rng.randrange(DAY))
        for day in range(DAYS):
            self.calendar_add(START + day * DAY + 8 * HOUR, self.rng.choice(self.liked)[0])
        for mod in list(self.calendar[1:DAYS:3]):
            self.calendar_change(mod["ts"] + 2 * HOUR, mod["entry"]["entry_id"], "updated")
        last = self.calendar[DAYS - 2]
        self.calendar_change(last["ts"] + 3 * HOUR, last["entry"]["entry_id"], "removed")

    def calendar_add(
        self, ts: int, title: str, start: int | None = None, city: int | None = None
    ) -> dict[str, Any]:
        n = len(self.calendar) + 1
        begins = start if start is not None else ts + 2 * HOUR
        location = self.location(begins)
        if city is not None:
            c = self.cities[city]
            location = {**location, "city": c[0], "region": c[1], "country": c[2]}
        mod = {
            "mod_id": f"mod_{n:03d}",
            "ts": ts,
            "formatted_timestamp": formatted(ts),
            "action": "added",
            "entry": {
                "entry_id": f"cal_{n:03d}",
                "title": title,
                "start_ts": begins,
                "end_ts": begins + 2 * HOUR,
                "location": location,
                "type": "personal",
                "linked_preferences": [title],
                "is_preference_driven": True,
                "relation_to_social": "adjacent",
            },
        }
        self.calendar.append(mod)
        return mod

    def calendar_change(self, ts: int, entry_id: str, action: str) -> dict[str, Any]:
        mod: dict[str, Any] = {
            "mod_id": f"mod_{len(self.calendar) + 1:03d}",
            "ts": ts,
            "formatted_timestamp": formatted(ts),
            "action": action,
            "entry_id": entry_id,
        }
        if action == "updated":
            mod["diff"] = {"notes": {"from": "", "to": self.text.about(30)}}
        else:
            mod["removal_reason"] = "Rescheduled at last minute"
        self.calendar.append(mod)
        return mod

    # --- evidence and decoys

    def ev(self, q: Query, app: App, topic: Topic, ts: int | None = None, **kw: Any) -> Ref:
        """An event before the query's time that the answer rests on."""
        item = self.event(app, self.before(q.t) if ts is None else ts, topic, **kw)
        ref = {"app": app, "id": item["source_object_id"], "ts": item["source_timestamp"]}
        assert ref["ts"] < q.t
        q.evidence.append(ref)
        if item["preferences"]:
            q.target.append(pref_summary(topic))
        elif kw.get("kind", "").endswith("negative"):
            q.avoid.append(pref_summary(topic))
        return ref

    def decoy(self, q: Query, app: App, topic: Topic, ts: int | None = None, **kw: Any) -> Ref:
        """An event after the query's time: what a leak of the future would show."""
        item = self.event(app, self.after(q.t) if ts is None else ts, topic, **kw)
        ref = {"app": app, "id": item["source_object_id"], "ts": item["source_timestamp"]}
        assert ref["ts"] > q.t
        q.decoys.append(ref)
        q.after.append(pref_summary(topic))
        return ref

    def cal_ev(self, q: Query, mod: Mapping[str, Any]) -> None:
        """A calendar change before the query's time that the answer rests on."""
        assert mod["ts"] < q.t
        q.evidence.append({"app": "calendar", "id": mod["mod_id"], "ts": mod["ts"]})

    # --- the sensitive life event

    def sensitive_topic(self) -> Topic:
        """The persona's sensitive life event as a topic (its label, its hashtags)."""
        topic, label, tags = self.sensitive
        return (label, f"sensitive:{topic}", tags)

    def sensitive_span(self) -> tuple[int, int]:
        """The query times (half-open) inside the sensitive event's active window, a day
        into it at least, so the event's own posts precede them."""
        lo, hi = self.sensitive_window
        return max(lo + DAY, FIRST_QUERY), min(hi, LAST_QUERY)

    def sensitive_times(self) -> list[int]:
        """`k` query times (any second) of `sensitive_span`."""
        lo, hi = self.sensitive_span()
        return [self.rng.randrange(lo, hi) for _ in range(self.k)]
