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
    each,
    gold,
    prior,
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
        return {
            "arm": "proactive",
            "user_query": "any ideas for something to do this weekend?",
            "prior_conversation": prior(world, topic),
            "held_out_preference": pref_summary(topic),
            "top_k_relevant_prefs": [pref_summary(topic)],
            "privacy_flagged_prefs": [],
            "groundtruth_preference": f"Positive: {topic[0]} ({', '.join(topic[2])})",
            **gold(
                f"You could plan a weekend around {topic[0]}: {world.text.about(80)}",
                f"Here are generic weekend ideas: {world.text.about(80)}",
                "generic",
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
            "task_type": "local_recommendation_geo_shift",
            "user_query": query,
            "query_text": query,
            "app_context": "chatbot",
            "category": category,
            "scenario_id": f"geo_shift_{world.uid}_{q.k + 1}",
            "leg": "after_shift",
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
            "groundtruth_preference": f"Current city {cur[0]}; stale anchor {old[0]}",
            **gold(
                f"In {cur[0]}, try a {category} near downtown. {world.text.about(60)}",
                f"In {old[0]}, try a {category} near downtown. {world.text.about(60)}",
                "stale_geo_anchor",
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
        return {
            "user_query": f"what brand did I say I bought for {topic[0]}?",
            "probe_kind": "absent_fact",
            "groundtruth_preference": "Not in the history before T: abstain.",
            **gold(
                f"I don't see that you told me which brand you bought for {topic[0]}, so "
                "I would rather not guess; which one was it, and how do you like it?",
                f"You bought the Summit brand for {topic[0]}.",
                "hallucinated_fact",
            ),
        }, Cells(FAMILY, ("abstention_quality",))

    return each(world, "pqa", make)


def hidden_persona_implicit_qa(world: World) -> list[Built]:
    """Why the persona keeps lingering on a hidden persona's posts: the gold names the
    deeper motive."""

    def make(q: Query) -> Made:
        topic = world.rng.choice(world.hidden)
        for app in ("instagram", "threads"):
            world.ev(q, app, topic, kind="implicit_positive", action="lingered_on_image")
        world.decoy(q, "facebook", world.rng.choice(world.others))
        return {
            "user_query": "why do I keep ending up down the same rabbit holes online?",
            "hidden_persona": {"label": topic[0], "evidence_hashtags": list(topic[2])},
            "groundtruth_preference": f"Hidden persona: {topic[0]}",
            **gold(
                f"It may be that {topic[0]} speaks to something deeper: {world.text.about(60)}",
                "Everyone scrolls; it's just the algorithm.",
                "surface_level",
            ),
        }, Cells(FAMILY, ("deep_motivation_alignment",))

    return each(world, "hp_qa", make)


def preference_shift_followthrough(world: World) -> list[Built]:
    """A suggestion after the persona told the chatbot it moved from one liked topic to
    another (a return to the old one after T is the decoy)."""

    def make(q: Query) -> Made:
        old, new = world.rng.sample(world.liked, 2)
        world.ev(q, "instagram", old, ts=q.t - 2 * DAY)
        world.ev(
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
            "arm": "proactive",
            "user_query": "what should I get into this week?",
            "prior_conversation": prior(world, new),
            "target_pref": {"from": old[0], "to": new[0]},
            "groundtruth_preference": f"Shifted from {old[0]} to {new[0]}",
            **gold(
                f"Maybe go deeper on {new[0]} this week. {world.text.about(60)}",
                f"Why not pick {old[0]} back up? {world.text.about(60)}",
                "stale_preference",
            ),
        }, Cells(FAMILY, ("preference_shift_consistency",))

    return each(world, "pref_shift", make)
