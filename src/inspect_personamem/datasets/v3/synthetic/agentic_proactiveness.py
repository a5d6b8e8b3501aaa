"""The agentic-proactiveness family's instance builders (`instance.InstanceBuilder`), one
per task type: a moment to act on or to stay silent through (a close friend's update, a
sensitive event and the day after it closes, a friend's post, a trending hashtag, a
request for fewer pings), and warn/foil pairs of a calendar entry in a city the persona
will or will not be in. The proactive rows fall where the authors place them, outside
the sensitive window but its restraint rows, each just after its trigger (`moments`)."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any, Final

from inspect_personamem.datasets.v3.synthetic import moments
from inspect_personamem.datasets.v3.synthetic.instance import (
    Built,
    Cells,
    Made,
    each,
    gold,
    task_head,
)
from inspect_personamem.datasets.v3.synthetic.world import (
    DAY,
    HOUR,
    Query,
    Ref,
    World,
    formatted,
    iso,
)

FAMILY: Final = "proactive_actions"
RESTRAINT: Final = "restraint_sensitive_event_silence"
"""The rows' `task_family` code, but the mistake-prevention pairs' (`e_followup`)."""
Behavior = tuple[str, Ref, str, dict[str, Any], dict[str, Any]]
"""What a proactive row expects (`act` or `restrain`), its trigger event, in words, the
row's `trigger_evidence` and the foil's `flaw_evidence`."""


def _proactive(
    world: World,
    prefix: str,
    task: str,
    behavior: Callable[[Query], Behavior],
    times: Sequence[int],
) -> list[Built]:
    """A proactive type's rows, as persona 115's rows hold them (the test's id, tier and
    trigger type, its time, the trigger's evidence, the JITAI card, the rules; no user
    state summary, which the authors' runner builds from the profile): the expected
    decision and its trigger (`behavior`), the gold reply acting on it or staying
    silent, the inferior one the other way; each row at its time in `times`."""

    def make(q: Query) -> Made:
        expected, ref, summary, evidence, flaw = behavior(q)
        act = expected == "act"
        reply = {
            "should_act": act,
            "action_class": "friend_alert" if act else "stay_silent",
            "content": f"Heads up: {summary}" if act else "",
            "evidence_cited": summary if act else "",
            "reasoning": "grounded in the trigger" if act else f"not the moment: {summary}",
        }
        wrong = {**reply, "should_act": not act, "content": "" if act else summary}
        made: dict[str, Any] = {
            "test_id": q.iid,
            "instance_id": q.iid,
            "task_id": task,
            "task_type": task,
            "user_id": world.uid,
            "t_test": q.t,
            "t_test_iso": iso(q.t),
            "tier": "tier_1",
            "trigger_type": (
                ("sensitive_event_act_companion" if act else "sensitive_event_silence")
                if task == RESTRAINT
                else prefix
            ),
            "expected_behavior": expected,
            "trigger_evidence": evidence,
            "jitai_card": {
                "decision_point": formatted(q.t),
                "tailoring_variable": summary,
                "eligibility_score": 0.8 if act else 0.2,
                "decision_rule_pass": act,
                "subtlety_check_pass": True,
                "recommended_action_class": reply["action_class"],
                "proximal_outcome": "the user reads the message" if act else "no interruption",
                "distal_outcome": "the user feels looked after",
                "reasoning": summary,
            },
            "tool_call_rules": ["count('__any_write__') == 0"],
            "rubric_tags": ["(+) Acts only when the trigger warrants it."],
        }
        if task == RESTRAINT:  # one act companion at most: fewer than 2 act rows
            made["polarity_imbalanced"] = True  # (`_split_by_polarity_for_quota`)
        elif not act:
            made["_restrain_reason"] = summary
        return {
            **made,
            "groundtruth_preference": f"{expected}: {summary}",
            **gold(
                json.dumps(reply),
                json.dumps(wrong),
                "wrong_polarity",
                flaw,
                checked=False,
                marked=task == RESTRAINT,
            ),
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
            ts=moments.trigger(world, q.t),
            author=friend["friend_id"],
            relationship="close_friend",
            action="friend_posted",
        )
        world.decoy(q, "facebook", topic, author=friend["friend_id"], relationship="close_friend")
        name = friend["display_name"]
        evidence = {
            "app": ref["app"],
            "friend_id": friend["friend_id"],
            "friend_display_name": name,
            "friend_relationship_depth": friend["relationship_depth"],
            "friend_shared_interests": list(friend["shared_interests"]),
            "thread_id": f"dm_{world.uid}_{friend['friend_id']}",
            "thread_hashtags": list(topic[2]),
            "incoming_at_ts": ref["ts"],
            "incoming_at_iso": iso(ref["ts"]),
            "incoming_message_excerpt": f"about {topic[0]}",
        }
        flaw = {"friend_display_name": name, "incoming_at_iso": iso(ref["ts"])}
        return "act", ref, f"{name} posted about {topic[0]}", evidence, flaw

    task = "proactive_close_friend_update"
    times = [moments.outside(world, act=True) for _ in range(world.k)]
    return _proactive(world, "close_friend", task, behavior, times)


def restraint_sensitive_event_silence(world: World) -> list[Built]:
    """A post of the persona's inside its sensitive event's window: stay silent; and,
    from two rows on, its first the authors' act companion, a day after the window
    closes (a post of the persona's on a liked topic again): act (`moments`)."""
    start, end = world.sensitive_window

    def behavior(q: Query) -> Behavior:
        at = moments.trigger(world, q.t)
        if q.t > end:
            topic = world.rng.choice(world.liked)
            ref = world.ev(q, "threads", topic, ts=at, self_authored=True)
            world.decoy(q, "threads", topic, self_authored=True)
            evidence = {
                "episode_topic": world.sensitive[0],
                "window_end": end,
                "days_after_window": 1,
                "reason": "window_closed_action_appropriate",
            }
            summary = "the sensitive-event window closed a day ago"
            flaw: dict[str, Any] = {"sensitive_topic": world.sensitive[0], "days_into_window": None}
            return "act", ref, summary, evidence, flaw
        topic = world.sensitive_topic()
        ref = world.ev(q, "threads", topic, ts=at, self_authored=True)
        world.decoy(q, "threads", topic, self_authored=True)
        days = (q.t - start) // DAY
        evidence = {
            "episode_topic": world.sensitive[0],
            "window_start_ts": start,
            "window_end_ts": end,
            "window_end": iso(end),
            "days_into_window": days,
            "days_after_window": None,
            "reason": "inside the active window",
        }
        summary = "an active sensitive-event window"
        flaw = {"sensitive_topic": world.sensitive[0], "days_into_window": days}
        return "restrain", ref, summary, evidence, flaw

    times = [
        moments.companion(world) if k == 0 and world.k > 1 else moments.inside(world)
        for k in range(world.k)
    ]
    return _proactive(world, "restraint", RESTRAINT, behavior, times)


def proactive_friend_feed_react(world: World) -> list[Built]:
    """A friend's post about a liked topic on Instagram: act."""

    def behavior(q: Query) -> Behavior:
        friend = world.rng.choice(world.friends)
        topic = world.rng.choice(world.liked)
        ref = world.ev(
            q,
            "instagram",
            topic,
            ts=moments.trigger(world, q.t),
            author=friend["friend_id"],
            relationship=friend["relationship_depth"],
            action="friend_posted",
        )
        world.decoy(q, "instagram", world.rng.choice(world.others), author=friend["friend_id"])
        name = friend["display_name"]
        evidence = {
            "app": ref["app"],
            "friend_id": friend["friend_id"],
            "friend_display_name": name,
            "post_event_id": ref["id"],
            "post_ts": ref["ts"],
            "post_iso": iso(ref["ts"]),
            "post_caption_excerpt": topic[0],
            "post_hashtags": list(topic[2]),
            "primary_hashtag": topic[2][0],
            "relevance": "liked_topic",
        }
        flaw = {
            "expected_behavior": "act",
            "friend_display_name": name,
            "primary_hashtag": topic[2][0],
        }
        return "act", ref, f"{name} shared {topic[0]}", evidence, flaw

    times = [moments.outside(world, act=True) for _ in range(world.k)]
    return _proactive(world, "friend_feed", "proactive_friend_feed_react", behavior, times)


def proactive_trending_feed_react(world: World) -> list[Built]:
    """A trending hashtag: act where it is a liked topic's, stay silent where not (in
    turn)."""

    def behavior(q: Query) -> Behavior:
        aligned = q.k % 2 == 0
        topic = world.rng.choice(world.liked if aligned else world.others)
        ref = world.ev(q, "threads", topic, moments.trigger(world, q.t), kind="implicit_positive")
        world.decoy(q, "threads", topic)
        what = f"{topic[2][0]} is trending"
        expected = "act" if aligned else "restrain"
        evidence = {
            "app": ref["app"],
            "source_object_id": ref["id"],
            "ts": ref["ts"],
            "hashtag": topic[2][0],
        }
        return expected, ref, what, evidence, {"expected_behavior": expected}

    times = [moments.outside(world, act=k % 2 == 0) for k in range(world.k)]
    return _proactive(world, "trending_feed", "proactive_trending_feed_react", behavior, times)


def proactive_overactive_check(world: World) -> list[Built]:
    """The persona asked for fewer pings today: stay silent."""

    def behavior(q: Query) -> Behavior:
        topic = world.rng.choice(world.liked)
        at = moments.trigger(world, q.t)
        ref = world.ev(q, "chatbot", topic, at, message="please stop pinging me so much today")
        world.decoy(q, "chatbot", topic, message="ok you can send me updates again")
        evidence = {"app": ref["app"], "source_object_id": ref["id"], "ts": ref["ts"]}
        summary = "the user asked for fewer notifications today"
        return "restrain", ref, summary, evidence, {"expected_behavior": "restrain"}

    times = [moments.outside(world, act=False) for _ in range(world.k)]
    return _proactive(world, "overactive", "proactive_overactive_check", behavior, times)


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
            q = Query(len(out), world.query_time(), f"{pair_id}_{polarity}")
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
                {"source": "calendar", "ref": mod["mod_id"], "ts": mod["ts"], "quote": place},
                {
                    "source": "geo",
                    "ref": q.evidence[-1]["id"],
                    "ts": q.evidence[-1]["ts"],
                    "quote": world.cities[here][0],
                },
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
                **task_head(q, "active_mistake_prevention"),
                "pair_id": pair_id,
                "polarity": polarity,
                "user_query": query,
                "mistake_summary": mistake if polarity == "warn" else "",
                "is_persona_safety": False,
                "cross_signal_signals": {"signal_evidence": signals, "foil_construction": ""},
                "expected_warning_frame": frame,
                "tool_call_rules": ["count('__any_write__') == 0"],
                "final_state_expected": {"writes": []},
                "groundtruth_preference": mistake if polarity == "warn" else "no mistake",
                **gold(
                    good,
                    bad,
                    "false_alarm" if polarity == "foil" else "missed",
                    {"persona_item": topic[0]},
                    marked=False,
                ),
            }
            out.append(Built(q, fields, Cells("e_followup", ("paired_correct",))))
    return out
