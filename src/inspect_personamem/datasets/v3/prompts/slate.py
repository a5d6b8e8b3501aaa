"""The slate templates, with `history_block=None`: the @AI directive's
(`e2_at_ai_followup_prompt`, evaluation/prompts.py@b8d90778, the newest readable copy,
called by `e2_at_ai_followup.py`@8e2a111f), the recommendation slate's
(`personalized_recommendation_prompt`, tasks/personalized_recommendation.py@c0b43289,
the same words as @11d3bf48; `run_hidden_persona_recommendation`,
tasks/hidden_persona_recommendation.py@4a2f1706, calls it too) and the
lifecycle probe's (`e5_prompt`, tasks/e5_horizon_lifecycle.py@0f0f386e, the same words
as @b8d90778). Each shows the slate's lines, which the sample keeps as its choices.
"""

from __future__ import annotations

import json
from typing import Final

from inspect_personamem.datasets.v3.prompts.shown import Prompt, Shown

E2: Final = "prompts.py@b8d90778 e2_at_ai_followup_prompt"
LIFECYCLE: Final = "e5_horizon_lifecycle.py@0f0f386e e5_prompt"
"""The sources of the directive's and the lifecycle probe's templates, as a task type's
`TaskPrompt` names them."""


def at_ai_directive(shown: Shown) -> Prompt:
    """`prompts.e2_at_ai_followup_prompt` with `history_block=None`."""
    action = shown.text("directive_action")
    hashtags = shown.items("directive_hashtags", required=False)
    message = shown.optional("directive_user_message")
    candidates = shown.records("candidates")
    hashtag_str = " ".join(hashtags) if hashtags else "(no hashtags on the directive event)"
    if action in ("at_ai_recommend_more", "at_ai_focus_topic"):
        summary = (
            f"The user just posted **{action}** on a feed item, "
            f"asking the in-feed AI to surface MORE content like it "
            f"(topic signal: {hashtag_str})."
        )
        rule = (
            "Rank candidates by how well they ALIGN with the topic signal above, "
            "while still respecting the user's broader history. Top-ranked candidates "
            "should match the directive's hashtag space."
        )
    else:
        summary = (
            f"The user just posted **{action}** on a feed item, "
            f"telling the in-feed AI to STOP recommending content like it "
            f"(topic signal: {hashtag_str})."
        )
        rule = (
            "The user asked to stop seeing this kind of content. Rank candidates "
            "so the ones least related to what they're tired of come first."
        )
    message_block = f"\n## The user's actual @ai message\n> {message}\n" if message else ""
    lines = [
        f"- idx {i}: content_type={c.get('content_type', '?')} | "
        f"hashtags={c.get('hashtags', [])} | "
        f"title={c.get('title', '')!r} | caption={c.get('caption', '')!r}"
        f"{' | sponsored' if c.get('is_sponsored') else ''}"
        for i, c in enumerate(candidates)
    ]
    cand_lines = "\n".join(lines)
    text = f"""# Task: respond to the user's in-feed @ai directive

{summary}
{message_block}
## Candidates (order is random, no labels)
{cand_lines}

## Your job
{rule}

## Output
Respond with ONE fenced ```json block:
```json
{{
  "ranked_indices": [<idx>, <idx>, ...],
  "reasoning": "short explanation (<=3 sentences)"
}}
```
The list must be a permutation of every idx above.
"""
    return Prompt(text, tuple(lines))


def slate(shown: Shown) -> Prompt:
    """`personalized_recommendation_prompt(instance, history_block=None)`."""
    cands = shown.records("candidates")
    hour = shown.number("anchor_hour_utc")
    day = shown.text("day_label")
    lines = [
        f"  [{i}] {c.get('title', '')} (hashtags: {', '.join(c.get('hashtags', []))})"
        for i, c in enumerate(cands)
    ]
    raw_query = shown.optional("query_text").strip()
    if not raw_query:
        framing = (
            f"It's {day} {hour:02d}:00 UTC. The recommendation "
            f"system has proposed {len(cands)} candidate items. Rank them in "
            f"the order the user is most likely to engage with, given their "
            f"time-masked history below."
        )
    else:
        moment = shown.optional("moment").strip()
        moment_line = f" (moment: {moment})" if moment else ""
        framing = (
            f"It's {day} {hour:02d}:00 UTC{moment_line}. "
            f'The user just asked their agent: "{raw_query}"\n\n'
            f"Below are {len(cands)} candidate items already in the user's "
            f"feeds. Rank them in the order the user is most likely to want "
            f"to see right now, given the moment + their time-masked history."
        )
    cand_lines = "\n".join(lines)
    text = f"""# Task: personalized social-media content recommendation

{framing}

## Candidate slate
{cand_lines}

## Output
Respond with ONE fenced ```json block containing the ranked indexes:
```json
{{
  "ranked_indexes": [<idx>, <idx>, ...],
  "reasoning": "<=2 sentences"
}}
```"""
    return Prompt(text, tuple(lines))


_CALENDAR_KEYS: Final = ("title", "start_ts", "type", "location")
"""The calendar entry keys `e5_prompt` shows (of the first ten)."""


def lifecycle(shown: Shown) -> Prompt:
    """`e5_prompt(instance, history_block=None)`: the city at the probe's time, whether it
    is a city of a past interest, the calendar as folded at that time (the first ten
    entries' title, start, type and place), the candidates with no labels; it asks for
    `ranked_indices`, a permutation. It names no interest, stop condition or phase (the
    authors: "leaking any of those collapsed this into instruction-following")."""
    candidates = shown.records("candidates")
    geo = shown.record("geo_context", required=False)
    calendar = shown.records("calendar_context", required=False)
    lines = [
        f"- idx {i}: hashtags={c.get('hashtags', [])} | title={c.get('title', '')!r} | "
        f"caption={c.get('caption', '')!r}" + (" | sponsored" if c.get("is_sponsored") else "")
        for i, c in enumerate(candidates)
    ]
    cal_json = json.dumps(
        [{k: v for k, v in e.items() if k in _CALENDAR_KEYS} for e in calendar[:10]],
        ensure_ascii=False,
    )
    cand_lines = "\n".join(lines)
    text = f"""# Task: rank candidates for what to surface right now

You are choosing what to put in this user's feed. Some interests in a user's
history are time-bound (a trip, an event, a one-off project) and stop being
relevant once that moment passes; others are durable. Use the user's history
and present context to judge which still matter RIGHT NOW.

## User context at current moment
- City: {geo.get("city_at_t_test", "(unknown)")}
- In a city matching a past interest: {geo.get("same_as_intent_city", False)}
- Upcoming/recent calendar snapshot: {cal_json}

## Candidates (order is random)
{cand_lines}

## Your job
Rank the candidates from most to least worth surfacing for this user RIGHT NOW,
based on their history and present context (location, calendar, recency of
engagement) — weighing, for each relevant interest, whether it still appears
active or has likely passed.

## Output
Respond with ONE fenced ```json block:
```json
{{
  "ranked_indices": [<idx>, <idx>, ...],
  "stopped_due_to": "<=1 sentence; empty string in the active phase>",
  "reasoning": "<=2 sentences"
}}
```
The list must be a permutation of every idx above.
"""
    return Prompt(text, tuple(lines))
