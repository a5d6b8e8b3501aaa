"""A generated persona's own files beside its streams: `profile.json` with its 21 keys,
hidden ones included; `trending.json` (the hashtags the persona's events carry, aligned
first); and, in a checkout's layout, `ai_studio_memory.json` and `persona.html`, which the
readers pass by. Each is drawn from the persona's `world.World` once its streams are
built."""

from __future__ import annotations

from typing import Any

from inspect_personamem.datasets.v3.synthetic.world import END, World, iso, pref_summary


def profile_of(world: World) -> dict[str, Any]:
    """`profile.json`: who the persona is, its hidden personas (the sensitive event's
    among them), its trips, its liked preferences and friends."""
    text = world.text
    topic, label, tags = world.sensitive
    hidden: list[dict[str, Any]] = [
        {
            "label": name,
            "type": kind,
            "description": text.about(60),
            "evidence_hashtags": list(hashtags),
        }
        for (name, _, hashtags), kind in zip(
            world.hidden,
            ("covert_concern", "identity_anchor", "intellectual_curiosity"),
            strict=True,
        )
    ]
    hidden.append(
        {
            "label": f"Currently navigating: {label}",
            "type": "sensitive_life_event",
            "description": text.about(60),
            "evidence_hashtags": list(tags),
            "active_window": list(world.sensitive_window),
            "topic": topic,
        }
    )
    return {
        "name": world.name,
        "gender": world.rng.choice(("cisgender female", "cisgender male", "non-binary")),
        "race_ethnicity": "Not stated (generated)",
        "career": text.about(40).rstrip("."),
        "education": text.about(30).rstrip("."),
        "big_five": {
            trait: world.rng.choice(("low", "medium", "high"))
            for trait in (
                "openness",
                "conscientiousness",
                "extraversion",
                "agreeableness",
                "neuroticism",
            )
        },
        "bio": text.about(160),
        "user_voice": {
            "identity_spine": text.about(60),
            "idiolect": {"hedges": "often", "sentence_shape": "short"},
            "natural_register": "casual",
            "phrases_to_avoid": ["as an AI"],
        },
        "app_personas": {
            name: text.about(60) for name in ("Instagram", "Facebook", "Threads", "Chatbot")
        },
        "ai_studio_persona": {"persona_archetype": "guide", "character_name": "Studio guide"},
        "hidden_personas": hidden,
        "hidden_persona_summary": text.about(80),
        "mbti": {"type": "INFJ", "dimensions": {"E-I": "I", "S-N": "N"}},
        "mobility_class": "traveler",
        "geo_trip_arcs": [
            {"city": world.cities[city][0], "from_ts": start} for start, city in world.segments[1:]
        ],
        "exploration_exploitation": "balanced",
        "user_id": world.uid,
        "preferences": [pref_summary(t) for t in world.liked],
        "motivation_audit": {"summary": text.about(40)},
        "friends": world.friends,
        "proactive_trigger_candidates": {
            "close_friend_update": [],
            "sensitive_event_silence": [topic],
            "overactive_check": [],
        },
    }


def trending_of(world: World) -> dict[str, Any]:
    """`trending.json`: the liked topics' hashtags, then a few others, each with the
    posts that carry it."""
    aligned = [tag for topic in world.liked for tag in topic[2]][:15]
    other = [tag for topic in world.others for tag in topic[2]][:5]
    posts: dict[str, list[str]] = {}
    for events in world.events.values():
        for item in events:
            for tag in item["source_hashtags"]:
                posts.setdefault(tag, []).append(item["source_object_id"])
    return {
        "built_at": iso(END),
        "hashtags": [
            {
                "hashtag": tag,
                "rank": rank,
                "post_ids": posts.get(tag, [])[:10],
                "user_aligned": rank <= len(aligned),
            }
            for rank, tag in enumerate([*aligned, *other], start=1)
        ],
    }


def studio_memory_of(world: World) -> dict[str, Any]:
    """`ai_studio_memory.json`: a few episodic items and a running summary."""
    return {
        "episodic_memory_items": [
            {"stage": "early", "text": world.text.about(80)} for _ in range(4)
        ],
        "running_relational_state": {"summary": world.text.about(100)},
    }


def page_of(world: World) -> str:
    """`persona.html`: the persona's name on a page."""
    return f"<html><body><h1>{world.name}</h1><p>generated persona</p></body></html>\n"
