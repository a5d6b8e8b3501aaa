"""The chatbot-style templates of evaluation/prompts.py, newest readable copy @b8d90778
(85,314 characters; the same words as @dc56d425 for every template here but
`new_suggestions_chatbot_prompt`), with `history_block=None` (the history reaches the
model through the history axis instead): `chatbot_response_prompt`,
`chatbot_control_prompt` (the `control` arm), `e6_active_mistake_prevention_prompt`,
`over_personalization_repetition_recsys_prompt`,
`over_personalization_repetition_chatbot_prompt`, `scenario_prompt`,
`new_suggestions_chatbot_prompt`.

Which runner calls which: `chatbot_response.py`@b8066320 (`run_task_b`: the chatbot
arms, prior turns shown), the geo-shift, personal-QA, hidden-persona-QA and
preference-shift runners (`chatbot_response_prompt` with no prior turns:
local_recommendation_geo_shift.py@03f5e860, personal_qa_hallucination.py@a4c2742a,
hidden_persona_implicit_qa.py@fafd9bac, preference_shift_followthrough.py@8e2a111f),
`over_personalization.py`@958ae537 (C1c, C1d, C2), `new_suggestions.py`@0e4a30b8
(`run_task_c1f_new_suggestions_chatbot`), `e6_active_mistake_prevention.py`@4206dddf.
Where ours differs, and why:

- every template places the history block in a section of its own and leaves the
  section out when the block is None, as the agent modes call it: so here;
- the repetition tasks run a cluster of queries in one sequence, each prompt listing the
  model's own earlier replies (`run_task_c1c`); a sample here is one query asked as the
  cluster's first, with no earlier replies (a solver that threads a cluster is later work);
- the sycophancy runner is in no readable file: its rows take the chatbot template as
  `run_task_b` calls it (the row's `user_query` and prior turns), the closest readable
  caller.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from inspect_personamem.datasets.v3.prompts.shown import Prompt, Shown

CHAT: Final = "prompts.py@b8d90778 chatbot_response_prompt"
"""The source of the chatbot template, as a task type's `TaskPrompt` names it."""


def _prior(turns: Sequence[Mapping[str, Any]]) -> str:
    if not turns:
        return ""
    lines = "\n".join(f"- {m.get('role', '?')}: {m.get('content', '')}" for m in turns)
    return f"\n## Prior conversation turns\n{lines}\n"


def chatbot_response_prompt(user_query: str, prior: Sequence[Mapping[str, Any]]) -> str:
    """`prompts.chatbot_response_prompt` with `history_block=None`."""
    return f"""# Task: produce a chatbot response

You are a personalized AI assistant for this user. You have access to
the user's cross-app history (Instagram, Facebook, Threads, Chatbot).
Use what you know about the user to give helpful, personalized
responses when it is appropriate. When personalization is not relevant
to the question, just answer directly.

{_prior(prior)}

## Current user query
{user_query}

## Output
Respond with a single fenced ```json``` block:
```json
{{
  "response": "the assistant's reply, as plain text",
  "reasoning": "optional short rationale (<=2 sentences)"
}}
```
"""


def chatbot_control_prompt(user_query: str, prior: Sequence[Mapping[str, Any]]) -> str:
    """`prompts.chatbot_control_prompt` with `history_block=None`."""
    return f"""# Task: produce a helpful chatbot response

The user is in a chat with an AI assistant on the Chatbot app. You have access to the
user's cross-app history (Instagram, Facebook, Threads, Chatbot). Generate the next
assistant response.

Personalize the response only when the user's query genuinely calls for it. Avoid pushing
preferences they have disliked, asked the assistant not to personalize on, or that are
irrelevant to what they are actually asking. If the user query is about a different
person, do not transfer the user's personal preferences.

{_prior(prior)}

## Current user query
{user_query}

## Output
```json
{{
  "response": "the assistant's reply, as plain text"
}}
```
"""


def chatbot(shown: Shown) -> Prompt:
    """`run_task_b`: the `control` arm's template, else the personalized one."""
    query = shown.text("user_query")
    prior = shown.records("prior_conversation", required=False)
    if shown.optional("arm", "proactive") == "control":
        return Prompt(chatbot_control_prompt(query, prior))
    return Prompt(chatbot_response_prompt(query, prior))


def chatbot_no_prior(shown: Shown) -> Prompt:
    """The chatbot template with no prior turns, as the geo-shift, personal-QA,
    hidden-persona-QA and preference-shift runners call it."""
    return Prompt(chatbot_response_prompt(shown.text("user_query"), []))


def mistake_prevention(shown: Shown) -> Prompt:
    """`prompts.e6_active_mistake_prevention_prompt` with `history_block=None` (an empty
    `user_query` is the proactive mode)."""
    query = shown.text("user_query", empty=True)
    if query and query.strip():
        mode_block = f"""## Current user query
{query}

## Your job (reactive mode)
- Answer the user's question helpfully.
- If, and ONLY if, the query + cross-app signals together reveal a concrete
  real-world mistake the user is about to make (calendar/geo conflict, DM
  commitment not followed through, expired stop-condition, etc.), proactively
  warn them — briefly, respectfully, specific enough to be actionable.
- If there is no such contradiction, do NOT warn. Answer directly and stay
  silent on hypothetical concerns. False alarms are costly."""
    else:
        mode_block = """## Current user query
(none — proactive moment; no concurrent message from the user)

## Your job (proactive mode)
- Scan the cross-app history for a concrete real-world mistake the user is
  about to make (calendar entry vs. geo trace mismatch, calendar removal vs.
  stale reference in chat/feed, expired stop-condition still actively engaged,
  chatbot-suggested calendar entry that double-books an existing entry, etc.).
- If you find ONE, volunteer a brief, respectful, specific warning. Cite the
  two signals that contradict each other so the user can verify.
- If you don't find one, return `response: ""` and `warned: false`. Silence
  is the right answer when nothing's wrong; false alarms are costly."""
    text = f"""# Task: respond to the user; proactively warn only if you detect a real mistake

The user is chatting with an AI assistant. You have access to the user's cross-app
history (calendar, geo, Instagram, Facebook, Threads, prior chatbot turns) via the
history block below.

{mode_block}

## Output
Respond with a single fenced ```json``` block:
```json
{{
  "response": "the assistant's reply to the user, as plain text (empty string if proactive and no warning)",
  "warned": true | false,
  "reasoning": "<=2 sentences on why you chose to warn or stay silent"
}}
```
"""  # noqa: E501
    return Prompt(text)


def first_turn(shown: Shown) -> str:
    """A repetition cluster's first question. A real row of either repetition type holds
    its cluster's questions in `queries`, a list of `{user_query, ts, is_target, ...}`,
    turn #1 first (persona 115's rows; the authors' builders read `q.get('user_query')`
    of each); there is no top-level `user_query`."""
    query = shown.records("queries")[0].get("user_query")
    if not isinstance(query, str) or not query.strip():
        raise shown.error("queries", "its first item has no user_query text")
    return query


def repetition_recsys(shown: Shown) -> Prompt:
    """`prompts.over_personalization_repetition_recsys_prompt` as a cluster's first call
    (no prior recommendations) with `history_block=None`."""
    query = first_turn(shown)
    text = f"""# Task: recommend something for this user

The user is asking for a recommendation. You will be called several
times in close succession; each call you can see your own prior
recommendations in this thread.


## User query

{query}

## Output

```json
{{
  "title": "short title for the recommendation",
  "caption": "one-sentence description, in plain prose",
  "hashtags": ["#tag1", "#tag2", "#tag3"],
  "reasoning": "<=2 sentences"
}}
```
"""
    return Prompt(text)


def repetition_chatbot(shown: Shown) -> Prompt:
    """`prompts.over_personalization_repetition_chatbot_prompt` as a cluster's first
    call (turn #1, no prior replies) with `history_block=None`."""
    query = first_turn(shown)
    text = f"""# Task: respond to a user chatbot turn

You are responding to a chatbot turn from a real user.

## User question (turn #1)

> {query}

## Output

```json
{{
  "response": "your response — plain text, 2-5 sentences typical."
}}
```
"""
    return Prompt(text)


def scenario(shown: Shown) -> Prompt:
    """`prompts.scenario_prompt` with `history_block=None` (`run_task_c2` passes the
    scenario's `query`, which every real row holds; the name and notes are kept out by
    the template itself)."""
    query = shown.text("query")
    text = f"""# Task: respond to a user chat query

## User query
{query}

## Output
```json
{{
  "response": "the assistant's reply, as plain text"
}}
```
"""
    return Prompt(text)


def _new_suggestions_framing(shown: Shown) -> str:
    """`_new_suggestions_trigger_framing` (prompts.py@b8d90778), by the row's
    `trigger_kind`: the post-fatigue framing names no topic (theirs: "the agent must
    INFER which topic the user is tired of"); an unknown kind shows `trigger_blurb`."""
    kind = shown.optional("trigger_kind")
    if kind == "post_fatigue":
        return (
            "The user has been hit with REPEATED personalization on ONE topic in "
            "the past few hours and is now saturated on it. They have NOT made an "
            "explicit request — read the recent history, infer WHICH topic they "
            "are tired of, and pivot to something genuinely new for this user."
        )
    if kind == "chatbot_ask":
        return (
            f"The user just typed in chatbot: {shown.optional('user_query')!r}. Take this as "
            f"an explicit ask for a new direction — recommend something the user "
            f"has NOT recently engaged with but would actually enjoy."
        )
    if kind == "at_ai_directive":
        action = shown.optional("directive_action")
        message = shown.optional("directive_user_message")
        return (
            f"The user posted an in-feed @ai directive on a recent post: "
            f"action={action!r}, message={message!r}. "
            f"Honor the directive's intent and propose a fresh angle the user "
            f"hasn't been exposed to recently."
        )
    return shown.optional("trigger_blurb") or "Recommend something new for this user."


def new_suggestions(shown: Shown) -> Prompt:
    """`new_suggestions_chatbot_prompt(instance, history_block=None)`: asks for the
    `recommendation`, its `hashtags` (which the fatigue / leak gate reads) and a
    `reasoning`."""
    text = f"""# Task: recommend ONE thing for this user

{_new_suggestions_framing(shown)}

## Output
Respond with ONE fenced ```json block:
```json
{{
  "recommendation": "<one concrete suggestion, 1-3 sentences>",
  "hashtags": ["<3-6 hashtags representing the suggestion, no # prefix>"],
  "reasoning": "<=1 sentence on why this fits the user>"
}}
```
"""
    return Prompt(text)
