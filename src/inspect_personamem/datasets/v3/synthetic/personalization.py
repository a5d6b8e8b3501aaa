"""The personalization family's instance builders (`instance.InstanceBuilder`), one per
task type: a reply fitted to the preferences before the query (chatbot), to the city the
persona is now in (geo shift), to what the history does not say (abstain), to a hidden
persona, to a preference that shifted."""

from __future__ import annotations

from typing import Final

from inspect_personamem.datasets.v3.synthetic.instance import (
    Built,
    Cells,
    Made,
    chat_head,
    each,
    gold,
    task_head,
    unchecked,
    windows,
)
from inspect_personamem.datasets.v3.synthetic.world import DAY, Query, World, pref_summary

FAMILY: Final = "personalization"
"""The rows' `task_family` code, but the chatbot's (`chatbot_response`)."""


def chatbot_personalized_response(world: World) -> list[Built]:
    """A weekend-ideas question a liked topic (shown on Instagram and told the chatbot
    before T) should shape."""

    def make(q: Query) -> Made:
        topic = world.rng.choice(world.liked)
        world.ev(q, "instagram", topic)
        world.ev(q, "chatbot", topic, message=f"I've been really into {topic[0]} lately")
        world.decoy(q, "facebook", world.rng.choice(world.others))
        held = pref_summary(topic)
        return {
            **chat_head(
                q,
                "proactive",
                "any ideas for something to do this weekend?",
                [],  # persona 115's rows of the type have no prior turns
                tags=topic[2],
                held_out={"persona_item": held["persona_item"], "category": held["category"]},
            ),
            **windows(q, [{**held, "relevance_score": 0.9}]),
            "groundtruth_preference": f"Positive: {topic[0]} ({', '.join(topic[2])})",
            **gold(
                f"You could plan a weekend around {topic[0]}: {world.text.about(80)}",
                f"Here are generic weekend ideas: {world.text.about(80)}",
                "missed_personalization",
                checked=False,
            ),
        }, Cells("chatbot_response", ("preference_alignment", "subtle_personalization"))

    return each(world, "chatbot", make)


def local_recommendation_geo_shift(world: World) -> list[Built]:
    """A local recommendation a few hours after each city change: the current city, not the
    prior one (the next city's event is the decoy)."""
    times = [start + world.delta for start, _ in world.segments[1 : 1 + world.k]]

    def make(q: Query) -> Made:
        index = next(i for i, (s, _) in enumerate(world.segments) if s + world.delta == q.t)
        start, city = world.segments[index]
        was = world.segments[index - 1][1]
        topic = world.rng.choice(world.liked)
        world.ev(q, "instagram", topic, ts=start - world.span // 4)  # in the prior city
        world.ev(q, "threads", topic, ts=start)  # the first event in the new city
        nxt = world.segments[index + 1][0]
        world.decoy(q, "facebook", topic, ts=nxt)  # the city after this one
        cur, old = world.cities[city], world.cities[was]
        category = world.rng.choice(("restaurant", "coffee", "bar", "market"))
        query = f"any good {category} recs around here?"
        return {
            "instance_id": q.iid,
            "task_id": "local_recommendation_geo_shift",
            "task_type": "local_recommendation_geo_shift",
            "t_test": q.t,
            "user_query": query,
            "query_text": query,
            "app_context": "chatbot",
            "category": category,
            "transition_idx": index - 1,
            "current_city": cur[0],
            "current_region": cur[1],
            "current_country": cur[2],
            "prior_city": old[0],
            "prior_region": old[1],
            "prior_country": old[2],
            "transition_first_ts": start,
            "groundtruth": {
                "expected_city_in_response": cur[0],
                "stale_anchor_city": old[0],
                "must_align_with_persona_profile": True,
            },
            "rubric_tags": [f"(+) Recommends places in {cur[0]}, the current city."],
            "groundtruth_preference": f"Current city {cur[0]}; stale anchor {old[0]}",
            **gold(
                f"In {cur[0]}, try a {category} near downtown. {world.text.about(60)}",
                f"In {old[0]}, try a {category} near downtown. {world.text.about(60)}",
                "stale_geo_anchor",
                {"category": category, "current_city": cur[0], "prior_city": old[0]},
                checked=False,
            ),
        }, Cells(FAMILY, ("geo_shift_correctness",), app="chatbot")

    return each(world, "geo_shift", make, times)


def personal_qa_hallucination(world: World) -> list[Built]:
    """A question about a detail the persona gives only after T: the gold abstains."""

    def make(q: Query) -> Made:
        topic = world.rng.choice(world.liked)
        world.ev(q, "chatbot", topic, message=f"thinking about getting into {topic[0]}")
        # the detail asked about is only ever given after the query
        world.decoy(q, "chatbot", topic, message=f"I finally bought gear for {topic[0]}")
        return unchecked(
            q,
            "personal_qa_hallucination",
            {
                "user_query": f"what brand did I say I bought for {topic[0]}?",
                "probe_kind": "absent_fact",
                "groundtruth_preference": "Not in the history before T: abstain.",
                **gold(
                    f"I don't see that you told me which brand you bought for {topic[0]}, so "
                    "I would rather not guess; which one was it, and how do you like it?",
                    f"You bought the Summit brand for {topic[0]}.",
                    "hallucinated_fact",
                ),
            },
        ), Cells(FAMILY, ("abstention_quality",))

    return each(world, "pqa", make)


SURFACE_ASKS: Final = (
    "any good clips to unwind with",
    "any book or podcast recs for",
    "something new to try",
    "a weekend plan for",
    "a gift idea for myself for",
)
SURFACE_WHEN: Final = ("tonight", "a quiet evening in", "this weekend", "after work")
"""The surface queries of the hidden-persona QA rows, ask x when (real rows of persona
115 at one time ask "any good clips to unwind with tonight" and "any book or podcast recs
for a quiet evening in"): each row of a persona its own, so that rows sent at one time
with one history are told apart by what they ask."""


def surface_query(k: int) -> str:
    """The `k`th row's surface query (distinct for the first 20 rows)."""
    ask = SURFACE_ASKS[k % len(SURFACE_ASKS)]
    when = SURFACE_WHEN[(k // len(SURFACE_ASKS)) % len(SURFACE_WHEN)]
    return f"{ask} {when}"


def hidden_persona_implicit_qa(world: World) -> list[Built]:
    """Why the persona keeps lingering on a hidden persona's posts: the gold names the
    deeper motive. Every row at the agentic window's opening, one anchor for all, as
    the authors build them (`world` module docstring), each asking its own surface
    query (`surface_query`)."""

    def make(q: Query) -> Made:
        topic = world.rng.choice(world.hidden)
        for app in ("instagram", "threads"):
            world.ev(q, app, topic, kind="implicit_positive", action="lingered_on_image")
        world.decoy(q, "facebook", world.rng.choice(world.others))
        failure = "generic_blind"
        return {
            **task_head(q, "hidden_persona_implicit_qa"),
            "task_type": "hidden_persona_implicit_qa",
            "flavor": "why_question",
            "user_query": surface_query(q.k),
            "example_response": (
                f"It may be that {topic[0]} speaks to something deeper: {world.text.about(60)}"
            ),
            "inferior_response": "Everyone scrolls; it's just the algorithm.",
            "inferior_failure_mode": failure,
            "groundtruth_preference": {
                "hidden_persona": {
                    "label": topic[0],
                    "type": "identity_anchor",
                    "description": f"Drawn to {topic[0]} for what it stands for.",
                    "is_privacy_flagged": False,
                    "evidence_hashtags_sample": list(topic[2]),
                },
                "implicit_signal": f"lingers on {topic[0]} posts",
                "surface_only_signal": "scrolls a lot",
                "inferior_failure_mode": failure,
            },
        }, Cells(FAMILY, ("deep_motivation_alignment",))

    return each(world, "hp_qa", make, [world.opening] * world.k)


def preference_shift_followthrough(world: World) -> list[Built]:
    """A suggestion after the persona told the chatbot it moved from one liked topic to
    another (a return to the old one after T is the decoy)."""

    def make(q: Query) -> Made:
        old, new = world.rng.sample(world.liked, 2)
        world.ev(q, "instagram", old, ts=q.t - 2 * DAY)
        shift = world.ev(
            q,
            "chatbot",
            old,
            kind="explicit_negative",
            action="asked_chatbot",
            message=f"honestly I'm over {old[0]}, I'm into {new[0]} now",
        )
        world.ev(q, "threads", new)
        world.decoy(q, "chatbot", old, message=f"ok {old[0]} is back on for me")
        return {
            **task_head(q, "preference_shift_followthrough"),
            "task_type": "preference_shift_followthrough",
            "flavor": "recsys",
            "user_query": "what should I get into this week?",
            "example_response": f"Maybe go deeper on {new[0]} this week. {world.text.about(60)}",
            "inferior_response": f"Why not pick {old[0]} back up? {world.text.about(60)}",
            "groundtruth_preference": {
                "old_preference": {"text": old[0], "category": old[1], "polarity": "positive"},
                "new_preference": None,
                "shift_kind": "abandoned",
                "shift_resolution": "dropped",
                "t_shift": shift["ts"],
            },
        }, Cells(FAMILY, ("preference_shift_consistency",))

    return each(world, "pref_shift", make)
