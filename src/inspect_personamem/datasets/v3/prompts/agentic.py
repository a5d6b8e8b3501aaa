"""The agentic templates T6-T19 and `proactive_action_prompt` of `prompts_agentic.py`,
the stored copy the search index reads as id 58522107429 (28,408 characters; its commit
was not shown), built without `ground_truth_block`, which the authors' normal runs fill
with a per-task slice built at run time (`ground_truth_builders.py`, not read: it reads
the backend, and whether only before T is unknown here); their directive is the grounded
one (`_GROUNDED`), its "context above" being our history, and `text_only=True` as for
`llm_longctx`. The nine agentic types read the instance's fields as the authors'
runner does (`_prompt_for` in evaluation/tasks/agentic_tasks.py@8e2a111f): the app is
`target_app` on every row that names one.
"""

from __future__ import annotations

import json
from typing import Final

from inspect_personamem.datasets.v3.prompts.shown import Prompt, Shown

_RESPONSE_TEXT: Final = """## Output
Respond with a single fenced ```json``` block:
```json
{"response": "your reply or draft, as plain text", "reasoning": "<=2 sentences on why"}
```
"""
_NO_TOOLS: Final = (
    "**Mode**: final-answer-only. Do NOT attempt to call any tools — "
    "none are available in this run. Use only the ground-truth context "
    "above to compose your answer."
)
_GROUNDED: Final = (
    "The ground-truth context above contains the actual user data needed "
    "for this task. Base your response strictly on it. Do NOT refuse, do "
    "NOT claim you cannot access the data, and do NOT ask the user to "
    "paste anything — the data is already provided."
)
COMPOSE_LENGTH_AND_VOICE_RULE: Final = (
    "**Length & voice-coverage requirement**: the message MUST be at least "
    "**60 words** long and visibly cover **3-5 distinct user voice points** "
    "(e.g. recurring phrases, register, signature opinions, topical anchors, "
    "emoji/punctuation habits) drawn from the user's history. A short one- or "
    "two-line post does NOT satisfy this task. Do not pad past a natural "
    "caption length just to add words."
)


def _final_answer(content_fields: str, intended_tool: str) -> str:
    """`_response_final_answer` (the `text_only` output contract of a write task)."""
    intended = f',\n "tool_intended": "{intended_tool}"'
    return f"""## Output (final-answer-only mode — no tools available)
Do NOT attempt to call any tools — none are available in this mode. The
harness will grade your final answer text directly. Emit the actual content
the user would publish/send, as a single fenced ```json``` block:
```json
{{{content_fields},
 "reasoning": "<=2 sentences on the choices you made"{intended}}}
```
"""


def t6_community_post(shown: Shown) -> Prompt:
    app = shown.text("target_app")
    text = f"""# Task T6: Community digest post

Look at what the user has engaged with on {app} over the past week. Draft ONE
short post they could share with their community that summarizes or highlights
something meaningful from that pattern.

{_GROUNDED}
{_NO_TOOLS}


This is an ADVISORY task — produce the draft text in the JSON response below.
Do NOT call any write tool. (If the user wants to publish, that's a follow-up.)

{_RESPONSE_TEXT}"""
    return Prompt(text)


def t8_dm_digest(shown: Shown) -> Prompt:
    app = shown.text("target_app")
    text = f"""# Task T8: DM digest

Summarize the user's {app} direct messages from today in 3 sentences. Cover the
key threads and their main points. Do NOT quote private content verbatim, and do
NOT reveal sender identities beyond what the user would already know.

{_GROUNDED}
{_NO_TOOLS}


This is a SUMMARY task — emit the JSON response below. Do NOT send any DMs as
part of this task; do NOT call `send_dm`.

{_RESPONSE_TEXT}"""
    return Prompt(text)


def t9_cross_app_repost(shown: Shown) -> Prompt:
    source_post = shown.record("source_post")
    target_app = shown.text("target_app")
    src_app_label = shown.optional("source_app") or "the other app"
    src = json.dumps(
        {"caption": source_post.get("caption", ""), "hashtags": source_post.get("hashtags", [])},
        ensure_ascii=False,
    )
    clause = (
        f"\n\nFRAME RULE: the first sentence of the adapted post MUST acknowledge "
        f"the cross-post explicitly — e.g. `saw this on {src_app_label}, sharing "
        f"it here`, `crossposting from {src_app_label}`, `this was originally a "
        f"{src_app_label} post`, or another natural phrasing that names "
        f"{src_app_label}. A repost that omits the source-app reference looks "
        f"like an organic original post; the eval graders this task on whether "
        f"the agent surfaces the cross-app provenance."
    )
    fields = (
        '"final_answer": "<the adapted caption text in the user’s voice>", "hashtags": ["#..."]'
    )
    text = f"""# Task T9: Cross-app repost with style adaptation

The user wants to repost content from {src_app_label} onto {target_app}, but phrased
the way they normally would on {target_app} (different voice, length, format
conventions).

Source post (from {src_app_label}):
```json
{src}
```

Adapt it for {target_app} while preserving the core point. {_GROUNDED}{clause}

{COMPOSE_LENGTH_AND_VOICE_RULE}

{_final_answer(fields, f"mcp__{target_app}__create_post")}"""
    return Prompt(text)


def t10_auto_reply(shown: Shown) -> Prompt:
    inbound = shown.text("inbound_message")
    sender = shown.text("sender_id")
    target_app = shown.optional("target_app", "instagram")
    fields = (
        '"final_answer": "<the reply text the user would send, in their voice>",'
        f' "recipient_id": "{sender}"'
    )
    text = f"""# Task T10: Auto-reply on behalf of the user

The user has authorized you to reply to incoming DMs in their voice. Reply to
the inbound DM below — keep it natural, polite, and appropriate to the
relationship with {sender}. Don't make new commitments the user hasn't
implied, and don't share private info beyond what this thread has already
established.

Inbound message from {sender}:
> {inbound}

{_GROUNDED}

{_final_answer(fields, f"mcp__{target_app}__send_dm")}"""
    return Prompt(text)


def t11_vague_refind(shown: Shown) -> Prompt:
    topic = shown.text("topic")
    text = f"""# Task T11: Vague refind

The user vaguely remembers seeing a post about **{topic}** on one of their apps
but can't find it. Locate it in their history and tell them which app + enough
detail (title / caption / creator / hashtags) to identify it.

{_GROUNDED}
{_NO_TOOLS}


This is a SEARCH task — emit the JSON response below. Do NOT post anything.

{_RESPONSE_TEXT}"""
    return Prompt(text)


def t13_send_post(shown: Shown) -> Prompt:
    target_app = shown.text("target_app")
    context = send_post_body(shown)
    fields = (
        '"final_answer": "<the post caption in the user’s voice on this app>", "hashtags": ["#..."]'
    )
    text = f"""# Task T13: Directed cross-app dispatch from chatbot

The user just said in chat: "Post that thing we just talked about to {target_app}."
Here's the chat context:

> {context}

Generate the post content appropriate for {target_app} — in the user's voice on
that platform. {_GROUNDED}

{COMPOSE_LENGTH_AND_VOICE_RULE}

Do NOT compose for any app other than {target_app}.

{_final_answer(fields, f"mcp__{target_app}__create_post")}"""
    return Prompt(text)


def send_post_body(shown: Shown) -> str:
    """What the user asked to post: a T13-kind row's `context` (a chat narration), else
    a T12-kind row's `update` (a one-line seed), as the authors' runner reads it
    (`inst.get("context") or inst.get("update")`, tasks/agentic_tasks.py@8e2a111f
    `_prompt_for`); a row with neither is an error naming `update`."""
    if shown.has("context"):
        return shown.text("context")
    return shown.text("update")


def t16_group_dm_summary(shown: Shown) -> Prompt:
    thread_id = shown.text("thread_id")
    text = f"""# Task T16: Group-DM summary + suggested reply

Catch the user up on group chat {thread_id}. Summarize per-participant in 2-3
sentences, identify decision points, and suggest a reply in the user's voice —
but don't send it (the user should approve first).

{_GROUNDED}
{_NO_TOOLS}


## Output
```json
{{
  "summary": "per-participant summary",
  "decision_points": ["...", "..."],
  "suggested_reply": "draft reply in user's voice",
  "reasoning": "<=2 sentences"
}}
```
"""
    return Prompt(text)


def t18_daily(shown: Shown) -> Prompt:
    text = f"""# Task T18: Proactive daily suggestions

The user just opened their agent. Surface 3–5 things they'd want to catch up
on today across their apps.

{_GROUNDED}
{_NO_TOOLS}



## Output
```json
{{"suggestions": [
  {{"headline": "...", "app": "instagram|facebook|threads|chatbot|trending", "why_now": "<=1 sentence"}},
  ...
], "reasoning": "<=2 sentences"}}
```
"""  # noqa: E501
    return Prompt(text)


def t19_trending(shown: Shown) -> Prompt:
    text = f"""# Task T19: Proactive trending alert

Anything trending right now the user would want to know about?

{_GROUNDED}
{_NO_TOOLS}



## Output
```json
{{"alerts": [
  {{"hashtag": "#...", "why_user_cares": "<=1 sentence"}},
  ...
], "reasoning": "<=2 sentences"}}
```
"""
    return Prompt(text)


def proactive(shown: Shown) -> Prompt:
    """`proactive_action_prompt(user_state_summary, history_block=None, text_only=True)`:
    the same words for every proactive task type; the polarity stays with the judge.
    No real row carries a `user_state_summary` (the authors' runner builds it from the
    profile, proactive_actions.py@8e2a111f); none is read from the instance."""
    summary = ""
    text = f"""# Task: Proactive Action Decision

You are an AI assistant for a specific user. The user has NOT just sent
you a message. You have access to the user's interaction history up to
right now. In modes with tools (mcp_agent, agent_tools) you fetch what
you need via tool calls or filesystem reads; in modes without tools
(llm_longctx) the relevant history is included as a block below.

Decide whether this is a moment when sending the user an unprompted
short chat message is appropriate. You do not have authority to take
actions on the user's behalf — only to send a proactive chat message
or to stay silent.

## User state summary
{summary or "(no summary)"}

{_NO_TOOLS}


Return ONLY this JSON, nothing else:

```json
{{
  "should_act": <bool>,
  "action_class": "<one of: follow_up | friend_alert | stay_silent>",
  "content": "<the chat message you would send. Empty string if staying quiet.>",
  "evidence_cited": "<the specific thing in this user's history that grounds your action. Empty string if staying quiet.>",
  "reasoning": "<≤2 sentences explaining your decision>"
}}
```
"""  # noqa: E501
    return Prompt(text)
