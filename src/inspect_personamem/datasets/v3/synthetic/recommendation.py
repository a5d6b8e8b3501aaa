"""The recommendation family's instance builders (`instance.InstanceBuilder`), one per
task type: slates to rank (the held-out item the persona engages with after the query,
hard negatives it skipped before; a hidden persona's item; the items an @AI directive
asks for or carves out; a short-term interest before and after its end) and something
new to suggest."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime, timezone
from typing import Any, Final

from inspect_personamem.datasets.v3.release.spec import App
from inspect_personamem.datasets.v3.synthetic.instance import (
    Built,
    Cells,
    Made,
    each,
    gold,
    prior,
    task_head,
    unchecked,
)
from inspect_personamem.datasets.v3.synthetic.vocabulary import Topic
from inspect_personamem.datasets.v3.synthetic.world import (
    DAY,
    FIRST_QUERY,
    HOUR,
    LAST_QUERY,
    NEAR,
    START,
    Query,
    World,
)

SLATE: Final = 16
"""Candidates in a recsys or hidden-persona slate."""
HARD_NEGATIVES: Final = 7
"""Hard negatives in such a slate (persona 105's count)."""
E_FOLLOWUP: Final = "e_followup"
"""The `task_family` code of most of the family's rows."""


def _candidate(world: World, topic: Topic, ts: int, app: App = "facebook") -> dict[str, Any]:
    """A recommendation slate's candidate post about `topic` (the keys of persona 105's
    and 115's slates)."""
    return {
        "source_object_id": world.new_id(),
        "title": f"{topic[0]} {world.text.about(15).rstrip('.')}",
        "caption": world.text.about(40),
        "hashtags": list(topic[2]),
        "source_app": app,
        "source_timestamp": ts,
    }


def _feed_item(world: World, topic: Topic, ts: int) -> dict[str, Any]:
    """An @AI or lifecycle slate's candidate (persona 115's @AI slate's keys: no id,
    no app, a content type and description)."""
    kind = world.rng.choice(("image", "video"))
    return {
        "content_type": kind,
        "title": f"{topic[0]} {world.text.about(15).rstrip('.')}",
        "caption": world.text.about(40),
        "overall_description": f"A {kind} about {topic[0]}.",
        "hashtags": list(topic[2]),
        "source_timestamp": ts,
    }


def _slate(
    world: World, q: Query, good: Topic, bad: Sequence[Topic], hard: int
) -> tuple[list[dict[str, Any]], int, list[int]]:
    """A 16-item slate: the held-out item (which the user engages with after T, a
    decoy), `hard` hard negatives (topics the user skipped before T), fillers."""
    topics = [good, *(bad[i % len(bad)] for i in range(hard))]
    topics += [world.rng.choice(world.others) for _ in range(SLATE - len(topics))]
    order = list(range(SLATE))
    world.rng.shuffle(order)
    slate = [_candidate(world, topics[i], q.t - HOUR * (j + 1)) for j, i in enumerate(order)]
    held_out = order.index(0)
    hard_idx = [order.index(i) for i in range(1, hard + 1)]
    world.ev(q, "instagram", good)
    for topic in bad[: max(1, hard)] if hard else ():
        world.ev(q, "instagram", topic, kind="implicit_negative", action="skipped_reel")
    engaged = world.decoy(q, "facebook", good)
    slate[held_out]["source_object_id"] = engaged["id"]
    return slate, held_out, hard_idx


def _ranking_gold(first: int, last: Sequence[int]) -> dict[str, Any]:
    """The gold ranking (`first` first, `last` last) and its reverse."""
    rest = [i for i in range(SLATE) if i != first and i not in last]
    good = [first, *rest, *last]
    return gold(
        f"Ranked indexes: {good}",
        f"Ranked indexes: {list(reversed(good))}",
        "ranking_inversion",
    )


def _slate_fields(q: Query, task: str, *, day_index: bool = True) -> dict[str, Any]:
    """A recsys slate row's head and its fields about when it is asked
    (`hidden_persona_recommendation` rows name their `task_type` and no `day_index`)."""
    moment = datetime.fromtimestamp(q.t, timezone.utc)
    when: dict[str, Any] = {"anchor_hour_utc": moment.hour}
    if day_index:
        when["day_index"] = (q.t - START) // DAY
    else:
        when["task_type"] = task
    return {
        **task_head(q, task),
        **when,
        "day_label": moment.strftime("%Y-%m-%d"),
        "query_text": "",
    }


def personalized_recommendation(world: World) -> list[Built]:
    """A 16-item slate: the held-out item the persona engages with after T first, the seven
    hard negatives it skipped last."""

    def make(q: Query) -> Made:
        good = world.rng.choice(world.liked)
        slate, held, hard = _slate(world, q, good, world.disliked, HARD_NEGATIVES)
        return {
            **_slate_fields(q, "personalized_recommendation"),
            "candidates": slate,
            "held_out_idx": held,
            "hard_negative_idxs": hard,
            "groundtruth_preference": f"Top item: {slate[held]['title']}",
            **_ranking_gold(held, hard),
        }, Cells(
            E_FOLLOWUP,
            ("recall@5", "ndcg_at_k", "mrr", "hit_at_k", "hard_neg_violation_rate"),
            kind="ranking",
            rubric="(+) Top-1 must be the held-out item.;(-) Hard negatives last.",
        )

    return each(world, "recsys", make)


def hidden_persona_recommendation(world: World) -> list[Built]:
    """A 16-item slate led by a hidden persona's item; every other slate without hard
    negatives (the binary case). Every row at the agentic window's opening, with the
    hidden-persona QA rows (persona 115 seq 0, 6 and 7; `world` module docstring)."""

    def make(q: Query) -> Made:
        good = world.rng.choice(world.hidden)
        world.ev(q, "threads", good, kind="implicit_positive", action="lingered_on_image")
        # every other slate has no hard negative: the binary case (filler grade 0)
        hard_n = HARD_NEGATIVES if q.k % 2 == 0 else 0
        slate, held, hard = _slate(world, q, good, world.disliked, hard_n)
        return {
            **_slate_fields(q, "hidden_persona_recommendation", day_index=False),
            "candidates": slate,
            "held_out_idx": held,
            "hard_negative_idxs": hard,
            "groundtruth_preference": f"Hidden persona item: {slate[held]['title']}",
            **_ranking_gold(held, hard),
        }, Cells("slate_ranking", ("ndcg_at_k",), kind="ranking")

    return each(world, "hp_rec", make, [world.opening] * world.k)


def at_ai_directive_followup(world: World) -> list[Built]:
    """A 10-item slate after an @AI directive (more like this, or stop): its items first, or
    carved out last (the reversal after T is the decoy)."""

    def make(q: Query) -> Made:
        more = q.k % 2 == 0
        topic = world.rng.choice(world.liked if more else world.others)
        action = "at_ai_recommend_more" if more else "at_ai_stop_recommending"
        message = f"@ai {'more like this' if more else 'stop showing me this'}"
        directive = world.ev(
            q,
            "instagram",
            topic,
            action=action,
            message=message,
            kind="explicit_positive" if more else "explicit_negative",
        )
        opposite = "at_ai_stop_recommending" if more else "at_ai_recommend_more"
        world.decoy(q, "instagram", topic, action=opposite, message="@ai changed my mind")
        n_match = 4
        topics = [topic] * n_match + [world.rng.choice(world.disliked)] * 2
        topics += [world.rng.choice(world.liked) for _ in range(10 - len(topics))]
        world.rng.shuffle(topics)
        slate = [_feed_item(world, t, q.t - HOUR * (i + 1)) for i, t in enumerate(topics)]
        matching = [i for i, t in enumerate(topics) if t == topic]
        disliked = [i for i, t in enumerate(topics) if t in world.disliked]
        positives = matching if more else []
        carve = disliked if more else matching
        rest = [i for i in range(len(slate)) if i not in positives and i not in carve]
        good = [*positives, *rest, *carve]
        lag = q.t - directive["ts"]
        return {
            "instance_id": q.iid,
            "task_id": "e2_at_ai_followup",
            "user_id": world.uid,
            "t_test": q.t,
            "source_timestamp": directive["ts"],
            "lag_seconds": lag,
            "lag_bucket": "<1h" if lag < HOUR else ("1-6h" if lag < 6 * HOUR else ">6h"),
            "directive_app": "instagram",
            "directive_action": action,
            "directive_hashtags": list(topic[2]),
            "directive_user_message": message,
            "candidates": slate,
            "positive_indices": positives,
            "carveout_indices": carve,
            "positive_directive_hashtags": list(topic[2]) if more else [],
            "negative_directive_hashtags": [] if more else list(topic[2]),
            "groundtruth_preference": f"Directive {action} on {topic[0]}",
            **gold(
                json.dumps({"ranked_indices": good}),
                json.dumps({"ranked_indices": list(reversed(good))}),
                "ranking_inversion",
            ),
        }, Cells(E_FOLLOWUP, ("ndcg_at_k",), app="instagram", kind="ranking")

    return each(world, "at_ai", make)


def short_vs_long_term_lifecycle(world: World) -> list[Built]:
    """Pairs of slates around a short-term interest's end: its items first before the stop
    event (`pre`), last after it (`post`)."""
    out: list[Built] = []
    for pair in range((world.k + 1) // 2):
        t_pre = world.rng.randrange(FIRST_QUERY, LAST_QUERY - 2 * DAY)
        stop = t_pre + 18 * HOUR
        t_post = t_pre + 36 * HOUR
        topic = world.rng.choice(world.others)
        item = f"{topic[0]} for a one-off trip"
        canonical = f"{item} #{pair}"
        for phase, t in (("pre", t_pre), ("post", t_post)):
            if len(out) == world.k:
                break
            q = Query(len(out), t, f"e5_{world.uid}_{pair:02d}_{phase}")
            for _ in range(2):
                world.ev(
                    q,
                    "instagram",
                    topic,
                    ts=t_pre - world.rng.randint(*NEAR),
                    horizon="short_term",
                )
            stop_event = {"message": f"trip's over, done with {topic[0]} for now"}
            if phase == "pre":
                world.decoy(
                    q,
                    "threads",
                    topic,
                    ts=stop,
                    self_authored=True,
                    caption=stop_event["message"],
                )
            else:
                world.ev(
                    q,
                    "threads",
                    topic,
                    ts=stop,
                    self_authored=True,
                    caption=stop_event["message"],
                )
                world.decoy(q, "facebook", world.rng.choice(world.liked))
            topics = [topic] * 4 + [world.rng.choice(world.liked) for _ in range(6)]
            world.rng.shuffle(topics)
            slate = [_candidate(world, x, t - HOUR * (i + 1)) for i, x in enumerate(topics)]
            matching = [i for i, x in enumerate(topics) if x == topic]
            rest = [i for i in range(len(slate)) if i not in matching]
            good = [*matching, *rest] if phase == "pre" else [*rest, *matching]
            fields = {
                "user_query": "anything worth surfacing in my feed right now?",
                "canonical_id": canonical,
                "persona_item": item,
                "time_horizon": "short_term",
                "stop_condition_type": "event",
                "stop_condition_description": "the trip ends",
                "expected_stop_ts": stop,
                "phase": phase,
                "directive_hashtags": list(topic[2]),
                "candidates": slate,
                "matching_indices": matching,
                "geo_context": {
                    "city_at_t_test": world.location(t - 1)["city"],
                    "same_as_intent_city": False,
                },
                "calendar_context": [],
                "groundtruth_preference": f"{item}: live before {stop}, over after",
                **gold(
                    json.dumps({"ranked_indices": good}),
                    json.dumps({"ranked_indices": list(reversed(good))}),
                    "lifecycle_inversion",
                ),
            }
            made = unchecked(q, "short_vs_long_term_lifecycle", fields)
            out.append(Built(q, made, Cells(E_FOLLOWUP, ("lifecycle_score",), kind="ranking")))
    return out


def new_suggestions_chatbot(world: World) -> list[Built]:
    """A request for something new: the hidden topic lingered on, not the liked one seen
    again and again."""

    def make(q: Query) -> Made:
        tired = world.rng.choice(world.liked)
        fresh = world.rng.choice(world.hidden)
        for _ in range(3):
            world.ev(q, "instagram", tired)
        world.ev(q, "threads", fresh, kind="implicit_positive", action="lingered_on_image")
        world.decoy(q, "instagram", fresh)
        return unchecked(
            q,
            "new_suggestions_chatbot",
            {
                "arm": "proactive",
                "user_query": "I'm bored of my feed, suggest something new?",
                "prior_conversation": prior(world, tired),
                "trigger_kind": "chatbot_ask",
                "gold_topic": fresh[0],
                "gold_hashtags": list(fresh[2]),
                "fatigued_hashtags": list(tired[2]),
                "leak_set_hashtags": list(fresh[2][:1]),
                "groundtruth_preference": f"Fresh: {fresh[0]}; fatigued: {tired[0]}",
                **gold(
                    f"Have you tried {fresh[0]}? {world.text.about(60)}",
                    f"More {tired[0]}! {world.text.about(60)}",
                    "recycled_topic",
                ),
            },
        ), Cells("new_suggestions", ("new_topic_alignment",))

    return each(world, "new_sugg", make)
