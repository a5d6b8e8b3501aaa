"""The agentic-proactiveness family's instance builders (`instance.InstanceBuilder`), one
per task type: a moment to act on or to stay silent through (a close friend's update, a
sensitive event, a friend's post, a trending hashtag, a request for fewer pings), and
warn/foil pairs of a calendar entry in a city the persona will or will not be in."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Final

from inspect_personamem.datasets.v3.synthetic.instance import Built, Cells, Made, each, gold
from inspect_personamem.datasets.v3.synthetic.world import HOUR, Query, Ref, World, formatted

FAMILY: Final = "proactive_actions"
"""The rows' `task_family` code, but the mistake-prevention pairs' (`e_followup`)."""
Behavior = tuple[str, Ref, str]
"""What a proactive row expects (`act` or `restrain`), its trigger event, in words."""


def _proactive(
    world: World,
    prefix: str,
    behavior: Callable[[Query], Behavior],
    times: Sequence[int] | None = None,
) -> list[Built]:
    """A proactive type's rows: the expected decision and its trigger (`behavior`), the
    gold reply acting on it or staying silent, the inferior one the other way."""

    def make(q: Query) -> Made:
        expected, ref, summary = behavior(q)
        act = expected == "act"
        reply = {
            "should_act": act,
            "action_class": "friend_alert" if act else "stay_silent",
            "content": f"Heads up: {summary}" if act else "",
            "evidence_cited": summary if act else "",
            "reasoning": "grounded in the trigger" if act else f"not the moment: {summary}",
        }
        wrong = {**reply, "should_act": not act, "content": "" if act else summary}
        return {
            "expected_behavior": expected,
            "trigger_evidence": {
                "app": ref["app"],
                "source_object_id": ref["id"],
                "ts": ref["ts"],
                "summary": summary,
            },
            "jitai_card": {
                "decision_point": formatted(q.t),
                "tailoring": summary,
                "decision_rule": expected,
            },
            "groundtruth_preference": f"{expected}: {summary}",
            **gold(json.dumps(reply), json.dumps(wrong), "wrong_polarity"),
        }, Cells(
            FAMILY,
            ("trigger_detection_correctness",),
            entry="proactive",
            kind="proactive_decision",
        )

    return each(world, prefix, make, times)


def proactive_close_friend_update(world: World) -> list[Built]:
    """A close friend's post about a liked topic: act."""

    def behavior(q: Query) -> Behavior:
        friend = world.friends[q.k % 3]
        topic = world.rng.choice(world.liked)
        ref = world.ev(
            q,
            "facebook",
            topic,
            author=friend["friend_id"],
            relationship="close_friend",
            action="friend_posted",
        )
        world.decoy(q, "facebook", topic, author=friend["friend_id"], relationship="close_friend")
        return "act", ref, f"{friend['display_name']} posted about {topic[0]}"

    return _proactive(world, "close_friend", behavior)


def restraint_sensitive_event_silence(world: World) -> list[Built]:
    """A post of the persona's inside its sensitive event's window: stay silent."""

    def behavior(q: Query) -> Behavior:
        topic = world.sensitive_topic()
        ref = world.ev(q, "threads", topic, self_authored=True)
        world.decoy(q, "threads", topic, self_authored=True)
        return "restrain", ref, "an active sensitive-event window"

    times = world.sensitive_times()
    return _proactive(world, "restraint", behavior, times)


def proactive_friend_feed_react(world: World) -> list[Built]:
    """A friend's post about a liked topic on Instagram: act."""

    def behavior(q: Query) -> Behavior:
        friend = world.rng.choice(world.friends)
        topic = world.rng.choice(world.liked)
        ref = world.ev(
            q,
            "instagram",
            topic,
            author=friend["friend_id"],
            relationship=friend["relationship_depth"],
            action="friend_posted",
        )
        world.decoy(q, "instagram", world.rng.choice(world.others), author=friend["friend_id"])
        return "act", ref, f"{friend['display_name']} shared {topic[0]}"

    return _proactive(world, "friend_feed", behavior)


def proactive_trending_feed_react(world: World) -> list[Built]:
    """A trending hashtag: act where it is a liked topic's, stay silent where not (in
    turn)."""

    def behavior(q: Query) -> Behavior:
        aligned = q.k % 2 == 0
        topic = world.rng.choice(world.liked if aligned else world.others)
        ref = world.ev(q, "threads", topic, kind="implicit_positive")
        world.decoy(q, "threads", topic)
        what = f"{topic[2][0]} is trending"
        return ("act" if aligned else "restrain"), ref, what

    return _proactive(world, "trending_feed", behavior)


def proactive_overactive_check(world: World) -> list[Built]:
    """The persona asked for fewer pings today: stay silent."""

    def behavior(q: Query) -> Behavior:
        topic = world.rng.choice(world.liked)
        ref = world.ev(q, "chatbot", topic, message="please stop pinging me so much today")
        world.decoy(q, "chatbot", topic, message="ok you can send me updates again")
        return "restrain", ref, "the user asked for fewer notifications today"

    return _proactive(world, "overactive", behavior)


def active_mistake_prevention(world: World) -> list[Built]:
    """Warn/foil pairs: the warn row's calendar entry (added before T) is in a city the
    persona will not be in (its geo trace before T says so); the foil's is in the
    city it is in. A later change after T (a decoy) moves the warn entry."""
    out: list[Built] = []
    for pair in range((world.k + 1) // 2):
        pair_id = f"amp_{world.uid}_{pair:02d}"
        for polarity in ("warn", "foil"):
            if len(out) == world.k:
                break
            q = Query(len(out), world.query_time())
            here = world.city_at(q.t - 30 * 60)
            elsewhere = (here + 1) % len(world.cities)
            city = elsewhere if polarity == "warn" else here
            topic = world.rng.choice(world.liked)
            mod = world.calendar_add(
                world.before(q.t), f"{topic[0]} meetup", start=q.t + 3 * HOUR, city=city
            )
            world.cal_ev(q, mod)
            world.ev(q, "instagram", topic, ts=q.t - 30 * 60)  # the geo trace at T
            change = world.calendar_change(world.after(q.t), mod["entry"]["entry_id"], "updated")
            q.decoys.append({"app": "calendar", "id": change["mod_id"], "ts": change["ts"]})
            place = world.cities[city][0]
            mistake = (
                f"{topic[0]} meetup booked in {place}, but the user is in "
                + (world.cities[here][0])
            )
            query = "" if pair % 2 else f"can you remind me what's on for {topic[0]} later?"
            signals = [
                {"source": "calendar", "ref": mod["mod_id"], "ts": mod["ts"]},
                {"source": "geo", "ref": q.evidence[-1]["id"], "ts": q.evidence[-1]["ts"]},
            ]
            frame: dict[str, list[str]] = {
                "must_mention": [place] if polarity == "warn" else [],
                "must_not_mention": [],
            }
            warn = f"Heads up: your {topic[0]} meetup is in {place}, but you're in " + (
                f"{world.cities[here][0]}."
            )
            fine = f"Your {topic[0]} meetup is at {mod['entry']['start_ts']} in {place}."
            good, bad = (warn, fine) if polarity == "warn" else (fine, warn)
            fields = {
                "instance_id": f"{pair_id}_{polarity}",
                "pair_id": pair_id,
                "polarity": polarity,
                "entry_point": "chatbot_routed",
                "user_query": query,
                "mistake_summary": mistake if polarity == "warn" else "",
                "is_persona_safety": False,
                "cross_signal_signals": {"signal_evidence": signals, "foil_construction": ""},
                "expected_warning_frame": frame,
                "tool_call_rules": ["count('__any_write__') == 0"],
                "final_state_expected": {"writes": []},
                "groundtruth_preference": mistake if polarity == "warn" else "no mistake",
                **gold(good, bad, "false_alarm" if polarity == "foil" else "missed"),
            }
            out.append(Built(q, fields, Cells("e_followup", ("paired_correct",))))
    return out
