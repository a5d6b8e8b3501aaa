"""The agentic-tasks family's instance builders (`instance.InstanceBuilder`), one per
task type: the agent reads the persona's apps (a week's posts, the day's DMs, a group
thread, a post half remembered, the day's news, what is trending) and, where the row
allows one write (`mcp_tools_allowed`), posts, reposts or replies on the row's app."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any, Final

from inspect_personamem.datasets.v3.release.spec import App
from inspect_personamem.datasets.v3.synthetic.instance import Built, Cells, Made, each, gold
from inspect_personamem.datasets.v3.synthetic.vocabulary import SOCIAL
from inspect_personamem.datasets.v3.synthetic.world import DAY, HOUR, Query, Ref, World

FAMILY: Final = "agentic"
"""The rows' `task_family` code."""
Fields = tuple[str, dict[str, Any]]
"""A row's app (its `app_context`, "" for none) and its instance fields."""


def _agentic(
    world: World,
    prefix: str,
    fields: Callable[[Query], Fields],
    tools: str = "none",
    policy: str = "read_only",
) -> list[Built]:
    """An agentic type's rows: `tools` the one write a row allows (`{app}` its own
    app, as the authors' builders name the target app's tool), its rules asking for
    it once; `none`, no write."""

    def make(q: Query) -> Made:
        app, made = fields(q)
        tool = tools.format(app=app)  # the write on the row's own app
        return {
            **made,
            "tool_call_rules": (
                ["count('__any_write__') == 0"] if tools == "none" else [f"count('{tool}') == 1"]
            ),
            "final_state_expected": {"writes": [] if tools == "none" else [tool]},
        }, Cells(
            FAMILY,
            ("preference_alignment", "voice_match"),
            app=app,
            entry="agent",
            tools=tool,
            policy=policy,
        )

    return each(world, prefix, make)


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
            "groundtruth_preference": f"This week on {app}: {topic[0]}",
            **gold(
                f"This week I kept coming back to {topic[0]}. {world.text.about(60)}",
                "Happy Monday everyone!",
                "generic",
            ),
        }

    return _agentic(world, "community", fields)


def agentic_send_post(world: World) -> list[Built]:
    """A post about what the persona told the chatbot, written on the target app (one
    `create_post`)."""

    def fields(q: Query) -> Fields:
        target = world.rng.choice(SOCIAL)
        topic = world.rng.choice(world.liked)
        context = f"we talked about {topic[0]} and how {world.text.about(30).lower()}"
        world.ev(q, "chatbot", topic, message=context)
        world.decoy(q, "chatbot", world.rng.choice(world.others))
        return target, {
            "target_app": target,
            "context": context,
            "groundtruth_preference": f"Post about {topic[0]} on {target}",
            **gold(
                f"Been thinking about {topic[0]}. {world.text.about(60)}",
                f"Check out my new post! {world.text.about(20)}",
                "off_voice",
            ),
        }

    tool = "mcp__{app}__create_post"
    return _agentic(world, "send_post", fields, tool, "append_writes")


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
        # the gold names both and what they said (the verifier asks 25 content words)
        return app, {
            "target_app": app,
            "groundtruth_preference": f"DMs today from {names}",
            **gold(
                f"{names} messaged today. {' '.join(said)} {world.text.about(60)}",
                "You have no messages.",
                "missed_threads",
            ),
        }

    return _agentic(world, "dm_digest", fields)


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
            "thread_id": thread,
            "groundtruth_preference": f"Group thread {thread}",
            **gold(
                f"Summary of {thread}: {world.text.about(80)}",
                "Nothing happened.",
                "missed_threads",
            ),
        }

    return _agentic(world, "group_dm", fields)


def agentic_cross_app_repost(world: World) -> list[Built]:
    """A repost of the persona's own post from one feed app to another (one
    `create_post`)."""

    def fields(q: Query) -> Fields:
        source, target = world.rng.sample(SOCIAL, 2)
        topic = world.rng.choice(world.liked)
        caption = f"{topic[0]} day. {world.text.about(40)}"
        world.ev(q, source, topic, self_authored=True, action="created_post", caption=caption)
        world.decoy(q, source, topic, self_authored=True, action="created_post")
        return target, {
            "source_app": source,
            "target_app": target,
            "source_post": {"caption": caption, "hashtags": list(topic[2])},
            "groundtruth_preference": f"Repost from {source} to {target}",
            **gold(f"Crossposting from {source}: {caption}", caption, "no_provenance"),
        }

    tool = "mcp__{app}__create_post"
    return _agentic(world, "repost", fields, tool, "append_writes")


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
            "inbound_message": inbound,
            "sender_id": friend["friend_id"],
            "target_app": app,
            "groundtruth_preference": f"Reply to {friend['display_name']}",
            **gold(
                "Yes! Still on for saturday, see you then.",
                "I cannot reply to messages.",
                "refusal",
            ),
        }

    tool = "mcp__{app}__send_dm"
    return _agentic(world, "auto_reply", fields, tool, "append_writes")


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
            **gold(f"It was on {app}: '{title}'.", "I can't find it.", "not_found"),
        }

    return _agentic(world, "refind", fields)


def agentic_proactive_daily_catchup(world: World) -> list[Built]:
    """Three suggestions from today's posts across the apps; no write."""

    def fields(q: Query) -> Fields:
        topic = world.rng.choice(world.liked)
        world.ev(q, "facebook", topic)
        world.ev(q, "threads", topic)
        world.decoy(q, "facebook", world.rng.choice(world.others))
        return "", {
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
            ),
        }

    return _agentic(world, "daily", fields)


def agentic_trending_alert(world: World) -> list[Built]:
    """Two trending hashtags aligned with a liked topic; no write."""

    def fields(q: Query) -> Fields:
        topic = world.rng.choice(world.liked)
        world.ev(q, "threads", topic)
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
                ),
            },
        )

    return _agentic(world, "trending", fields)
