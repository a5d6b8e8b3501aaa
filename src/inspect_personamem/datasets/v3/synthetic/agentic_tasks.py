"""The agentic-tasks family's instance builders (`instance.InstanceBuilder`), one per
task type: the agent reads the persona's apps (a week's posts, the day's DMs, a group
thread, a post half remembered, the day's news, what is trending) and, where the row
allows one write (`mcp_tools_allowed`), posts, reposts or replies on the row's app."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any, Final

from inspect_personamem.datasets.v3.release.spec import App
from inspect_personamem.datasets.v3.synthetic.instance import (
    Built,
    Cells,
    Made,
    each,
    gold,
    task_head,
)
from inspect_personamem.datasets.v3.synthetic.vocabulary import SOCIAL, Topic
from inspect_personamem.datasets.v3.synthetic.world import DAY, HOUR, Query, Ref, World

FAMILY: Final = "agentic"
"""The rows' `task_family` code."""
Fields = tuple[str, dict[str, Any]]
"""A row's app (its `app_context`, "" for none) and its instance fields."""
VOICED: Final = ("agentic_community_post", "agentic_send_post", "agentic_cross_app_repost")
"""The types whose real rows carry the voice checks (`voice`), beside the auto reply."""
BUILT_SIX: Final = (
    "agentic_community_post",
    "agentic_dm_digest",
    "agentic_cross_app_repost",
    "agentic_auto_reply",
    "agentic_vague_refind",
)
"""The types the authors' builders make 6 of (one per app, app pair, window or topic:
tasks/agentic_tasks.py@8e2a111f `build_t6`, `build_t8` to `build_t11`); the others
here make 5 (`build_t18`, `build_t19`: `_spread_anchors(n=5)`; send post; group DM
summary, whose 2 threads fall on the 5's points). Persona 115's rows put them on the
grids of 6 and 5 (`world` module docstring)."""


def anchors(world: World, task: str) -> list[int]:
    """The `k` query times of an agentic type: the first `k` points of the grid of
    `k + 1` for a type the authors make 6 of, else the grid of `k` (`World.spread`), so
    the types of one group share every time, as the release's do."""
    return world.spread(world.k + (task in BUILT_SIX))[: world.k]


def _agentic(
    world: World,
    prefix: str,
    task: str,
    fields: Callable[[Query], Fields],
    write: str = "",
    policy: str = "read_only",
    entry: str = "chatbot_routed",
) -> list[Built]:
    """An agentic type's rows, as the authors' builders write them
    (tasks/agentic_tasks.py@8e2a111f `build_t*`) and persona 115's rows hold them: the
    task's head, its fields, the gold `tool_call` and `tool_call_rules`: where the row
    allows one write on its app (`write`: `create_post`, `send_dm`), that write once
    (the row's `mcp_tools_allowed` offers it); else no post on the app."""

    def make(q: Query) -> Made:
        app, made = fields(q)
        on = app or "instagram"
        tool = f"{on}_{write or 'get_feed'}"
        rule = f"count('{tool}') == 1" if write else f"count('{on}_create_post') == 0"
        return {
            **task_head(q, task, entry),
            **made,
            "tool_call_rules": [rule],
            "tool_call": [{"tool": tool, "args": {}}],
        }, Cells(
            FAMILY,
            ("preference_alignment", "voice_match"),
            app=app,
            entry="agent",
            tools=f"mcp__{on}__{write}" if write else "none",
            policy=policy,
        )

    return each(world, prefix, make, anchors(world, task))


def voice(register: str, app: str) -> dict[str, Any]:
    """The voice checks the authors' build leaves on a voiced row: the gold's and the
    foil's evidence, the alignment and smoke checks."""
    return {
        "example_response_voice_evidence": ["lowercase", "short sentences"],
        "inferior_response_voice_evidence": [register],
        "voice_alignment_check": {"passed": True, "n_features": 3, "min_required": 2},
        "voice_evidence_smoke_check": {
            "passed": True,
            "expected": "example_response",
            "picked": "example_response",
            "confidence": 0.9,
            "raw": "A",
            "reason": f"generated ({app})",
        },
    }


def _register(app: str) -> dict[str, str]:
    """A voiced row's foil evidence: written in another register for `app`."""
    return {"contrasting_register": "formal", "target_app": app}


def _dm(
    world: World,
    q: Query,
    app: App,
    friend: Mapping[str, Any],
    text: str,
    *,
    decoy: bool = False,
    ts: int | None = None,
    extra: Mapping[str, Any] | None = None,
) -> Ref:
    """A direct message from `friend` before the query's time (after it: a decoy)."""
    topic = world.rng.choice(world.liked)
    kw: dict[str, Any] = {
        "action": "received_dm",
        "message": text,
        "author": friend["friend_id"],
        "relationship": friend["relationship_depth"],
        "dm": True,
        "kind": "explicit_positive",
        "extra": extra,
    }
    return (world.decoy if decoy else world.ev)(q, app, topic, ts, **kw)


def agentic_community_post(world: World) -> list[Built]:
    """A week's post on one feed app about what the persona kept coming back to; no
    write."""

    def fields(q: Query) -> Fields:
        app = world.rng.choice(SOCIAL)
        topic = world.rng.choice(world.liked)
        for _ in range(2):
            world.ev(q, app, topic, ts=q.t - world.rng.randint(HOUR, 5 * DAY // 2))
        world.decoy(q, app, world.rng.choice(world.others))
        return app, {
            "target_app": app,
            "final_state_expected": {
                "must_not_contain": [f"{a}_create_post" for a in SOCIAL if a != app]
            },
            "groundtruth_preference": f"This week on {app}: {topic[0]}",
            **gold(
                f"This week I kept coming back to {topic[0]}. {world.text.about(60)}",
                "Happy Monday everyone!",
                "generic",
                _register(app),
            ),
            **voice("formal", app),
        }

    return _agentic(world, "community", "agentic_community_post", fields, entry="app_native")


def agentic_send_post(world: World) -> list[Built]:
    """A post about what the persona told the chatbot, written on the target app (one
    `create_post`). The release merges two builders' rows (`_build_send_post_merged`,
    tasks/agentic_tasks.py@8e2a111f): T12-kind rows carry a one-line `update` (entry
    `app_native`), T13-kind rows a chat narration `context` (entry `chatbot_routed`, no
    post on another app); persona 115's rows hold both. Even rows are T12's, odd T13's."""

    def make(q: Query) -> Made:
        t12 = q.k % 2 == 0
        target = world.rng.choice(SOCIAL)
        topic = world.rng.choice(world.liked)
        said = f"finally got back into {topic[0]} and {world.text.about(30).lower()}"
        world.ev(q, "chatbot", topic, message=said)
        world.decoy(q, "chatbot", world.rng.choice(world.others))
        expected: dict[str, Any] = {"must_contain_count": {f"{target}_create_post": 1}}
        if not t12:
            expected["must_not_contain"] = [f"{a}_create_post" for a in SOCIAL if a != target]
        tool = f"{target}_create_post"
        return {
            **task_head(q, "agentic_send_post", "app_native" if t12 else "chatbot_routed"),
            "target_app": target,
            ("update" if t12 else "context"): said,
            "tool_call_rules": [f"count('{tool}') == 1"],
            "final_state_expected": expected,
            "tool_call": [{"tool": tool, "args": {}}],
            "groundtruth_preference": f"Post about {topic[0]} on {target}",
            **gold(  # the gold posts what was said (the verifier asks two shared words)
                f"Been thinking about {topic[0]}: {said}. {world.text.about(40)}",
                f"Check out my new post! {world.text.about(20)}",
                "off_voice",
                _register(target),
            ),
            **voice("formal", target),
        }, Cells(
            FAMILY,
            ("preference_alignment", "voice_match"),
            app=target,
            entry="agent",
            tools=f"mcp__{target}__create_post",
            policy="append_writes",
        )

    return each(world, "send_post", make, anchors(world, "agentic_send_post"))


def agentic_dm_digest(world: World) -> list[Built]:
    """A digest of the day's DMs from two friends (a later change of plans is the decoy); no
    write."""

    def fields(q: Query) -> Fields:
        app = world.rng.choice(SOCIAL)
        friends = world.rng.sample(world.friends, 2)
        day_start = q.t // DAY * DAY
        lo = min(max(day_start, q.t - 20 * HOUR), q.t - 600)
        said = []
        for friend in friends:
            ts = world.rng.randrange(lo, q.t)
            said.append(world.text.about(40))
            _dm(world, q, app, friend, f"hey, {said[-1]}", ts=ts)
        _dm(world, q, app, friends[0], "ignore what I said, plans changed", decoy=True)
        names = " and ".join(f["display_name"] for f in friends)
        # the gold names both and what they said (the verifier asks 25 distinct content
        # words: its filler is long enough that a draw of repeated words keeps them)
        return app, {
            "target_app": app,
            "window": "24h",
            "persona_relevance": {"n_threads": 2, "n_persona_relevant_threads": 1},
            "groundtruth_preference": f"DMs today from {names}",
            **gold(
                f"{names} messaged today. {' '.join(said)} {world.text.about(160)}",
                "You have no messages.",
                "missed_threads",
                {"persona_item": names, "wrong_app": app},
            ),
        }

    return _agentic(world, "dm_digest", "agentic_dm_digest", fields)


def agentic_group_dm_summary(world: World) -> list[Built]:
    """A summary of a group thread of three friends' DMs; no write."""

    def fields(q: Query) -> Fields:
        app = world.rng.choice(SOCIAL)
        thread = f"group_{world.uid}_{q.k}"
        for friend in world.rng.sample(world.friends, 3):
            _dm(
                world,
                q,
                app,
                friend,
                f"for the group: {world.text.about(40)}",
                extra={"thread_id": thread},
            )
        friend = world.rng.choice(world.friends)
        _dm(world, q, app, friend, "new plan!", decoy=True, extra={"thread_id": thread})
        return app, {
            "target_app": app,
            "thread_id": thread,
            "persona_relevance": {"topic_match": True, "has_decision_signal": True},
            "groundtruth_preference": f"Group thread {thread}",
            **gold(
                f"Summary of {thread}: {world.text.about(80)}",
                "Nothing happened.",
                "missed_threads",
                {"persona_item": thread, "wrong_app": app},
            ),
        }

    return _agentic(world, "group_dm", "agentic_group_dm_summary", fields)


def agentic_cross_app_repost(world: World) -> list[Built]:
    """A repost of the persona's own post from one feed app to another (one
    `create_post`)."""

    def fields(q: Query) -> Fields:
        source, target = world.rng.sample(SOCIAL, 2)
        topic = world.rng.choice(world.liked)
        caption = f"{topic[0]} day. {world.text.about(40)}"
        ref = world.ev(q, source, topic, self_authored=True, action="created_post", caption=caption)
        world.decoy(q, source, topic, self_authored=True, action="created_post")
        return target, {
            "source_post": {
                "caption": caption,
                "hashtags": list(topic[2]),
                "source_object_id": ref["id"],
                "source_timestamp": ref["ts"],
            },
            "source_app": source,
            "target_app": target,
            "final_state_expected": {
                "must_contain_count": {f"{target}_create_post": 1},
                "must_not_contain": [f"{source}_create_post"],
            },
            "persona_relevance": {"hashtag_overlap": [t.lstrip("#") for t in topic[2]]},
            "groundtruth_preference": f"Repost from {source} to {target}",
            **gold(
                f"Crossposting from {source}: {caption}",
                caption,
                "no_provenance",
                _register(target),
            ),
            **voice("formal", target),
        }

    return _agentic(
        world, "repost", "agentic_cross_app_repost", fields, "create_post", "append_writes"
    )


def agentic_auto_reply(world: World) -> list[Built]:
    """A reply to a friend's inbound DM on its app (one `send_dm`)."""

    def fields(q: Query) -> Fields:
        app = world.rng.choice(SOCIAL)
        friend = world.rng.choice(world.friends)
        inbound = f"are we still on for {world.rng.choice(world.liked)[0]} saturday?"
        _dm(world, q, app, friend, "let's do something saturday")
        _dm(world, q, app, friend, inbound)
        _dm(world, q, app, friend, "actually can't make it", decoy=True)
        return app, {
            "target_app": app,
            "thread_id": f"dm_{world.uid}_{friend['friend_id']}",
            "inbound_message": inbound,
            "sender_id": friend["friend_id"],
            "final_state_expected": {"must_contain_count": {f"{app}_send_dm": 1}},
            "persona_relevance": {
                "topic_match": True,
                "relationship_match": True,
                "opinion_request": True,
            },
            "groundtruth_preference": f"Reply to {friend['display_name']}",
            **gold(
                "Yes! Still on for saturday, see you then.",
                "I cannot reply to messages.",
                "refusal",
                _register(app),
            ),
            **voice("formal", app),
        }

    return _agentic(
        world, "auto_reply", "agentic_auto_reply", fields, "send_dm", "append_writes", "app_native"
    )


def agentic_vague_refind(world: World) -> list[Built]:
    """A post half remembered by its topic, found on its app a day or two back; no write."""

    def fields(q: Query) -> Fields:
        app = world.rng.choice(SOCIAL)
        topic = world.rng.choice(world.liked)
        title = f"The {topic[0]} post {world.text.about(10).rstrip('.')}"
        world.ev(q, app, topic, title=title, ts=q.t - world.rng.randint(DAY, 2 * DAY))
        world.decoy(q, app, topic, title=f"Another {topic[0]} post")
        return app, {
            "topic": topic[0],
            "groundtruth_preference": f"{app}: {title}",
            **gold(
                f"It was on {app}: '{title}'.",
                "I can't find it.",
                "not_found",
                {"persona_item": title},
            ),
        }

    return _agentic(world, "refind", "agentic_vague_refind", fields)


def agentic_proactive_daily_catchup(world: World) -> list[Built]:
    """Three suggestions from today's posts across the apps; no write."""

    def fields(q: Query) -> Fields:
        topic = world.rng.choice(world.liked)
        ref = world.ev(q, "facebook", topic)
        world.ev(q, "threads", topic)
        world.decoy(q, "facebook", world.rng.choice(world.others))
        return "", {
            "persona_relevance": {"top_cats_in_window": sorted({topic[1], world.liked[0][1]})},
            "groundtruth_preference": f"Today: {topic[0]}",
            **gold(  # three items, as the verifier asks
                json.dumps(
                    {
                        "suggestions": [
                            {
                                "headline": topic[0],
                                "app": app,
                                "why_now": f"{app} has new {topic[0]} posts today.",
                            }
                            for app in ("facebook", "threads", "chatbot")
                        ]
                    }
                ),
                json.dumps({"suggestions": []}),
                "empty",
                _seen(ref, topic),
            ),
        }

    return _agentic(world, "daily", "agentic_proactive_daily_catchup", fields)


def agentic_trending_alert(world: World) -> list[Built]:
    """Two trending hashtags aligned with a liked topic; no write."""

    def fields(q: Query) -> Fields:
        topic = world.rng.choice(world.liked)
        ref = world.ev(q, "threads", topic)
        world.decoy(q, "threads", world.rng.choice(world.others))
        return (
            "",
            {
                "groundtruth_preference": f"Trending and aligned: {topic[2][0]}",
                **gold(  # two hashtags, as the verifier asks
                    json.dumps(
                        {
                            "alerts": [
                                {
                                    "hashtag": tag,
                                    "why_user_cares": f"You keep coming back to {topic[0]}.",
                                }
                                for tag in topic[2][:2]
                            ]
                        }
                    ),
                    json.dumps({"alerts": [{"hashtag": "#momlife"}]}),
                    "misaligned",
                    _seen(ref, topic),
                ),
            },
        )

    return _agentic(world, "trending", "agentic_trending_alert", fields)


def _seen(ref: Ref, topic: Topic) -> dict[str, Any]:
    """A catch-up or trending row's foil evidence: the post it should have surfaced."""
    return {
        "source_app": ref["app"],
        "source_object_id": ref["id"],
        "source_timestamp": ref["ts"],
        "content_snippet": topic[0],
        "persona_item": topic[0],
        "topic_hint": topic[2][0],
    }
