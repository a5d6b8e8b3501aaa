"""The agentic templates and `proactive_action_prompt` as the authors' newest readable
`evaluation/prompts_agentic.py` writes them (@b8d90778, 28,408 characters), called as the
newest readable runners call them (`tasks/agentic_tasks.py`@8e2a111f `_prompt_for` and
`_run_generic`; `tasks/proactive_actions.py`@8e2a111f `run_proactive_task`), with
`history_block=None` (the history reaches the model through the history axis) and
`text_only=True`, `allow_extra_tools=False` (their `llm_longctx` call: no tools, the
answer graded as text).

Each agentic template places the query's ground-truth block (`Shown.ground_truth`, which
`prompts.ground_truth` builds as `evaluation/ground_truth_builders.py`@651b9588 does, in
every mode; "" where the runner gives none) before the directive and, as theirs
does, follows it with the grounded directive ("The ground-truth context above ...") or,
without one, with the template's own read directive. `agentic_vague_refind` never takes
a block (the runner sets it to None: a search task must find the post itself) and, text
only, says "Search the user history shown below". `agentic_send_post` is T12 for every
row (the runner's `t_send_post`: the row's `context`, else its `update`). The field
names are the runner's (`inst["target_app"]`, `inst["topic"]`, ...).

Where ours differs, and why:
- T6: the runner@8e2a111f passes the row's `user_query` (where its builder wrote one)
  to a `t6_user_tone_post` that takes it; no stored copy of that template does
  (@b8d90778 has no such parameter), so a query is not shown (persona 115's release
  rows of the type @4756046e carry none);
- one text for every setting: their `mcp_agent` mode (tools, `text_only=False`) asks
  for a write through the MCP tool instead of the final-answer contract; the package's
  agent settings send the same text-only prompt.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Final

from inspect_personamem.datasets.v3.prompts.shown import Prompt, Shown

PROMPTS_AGENTIC: Final = "prompts_agentic.py@b8d90778"
"""The source of the templates, as a task type's `TaskPrompt` names it."""

_RESPONSE_TEXT: Final = """## Output
Respond with a single fenced ```json``` block:
```json
{"response": "your reply or draft, as plain text", "reasoning": "<=2 sentences on why"}
```
"""
_NO_TOOLS: Final = (
    "\n**Mode**: final-answer-only. Do NOT attempt to call any tools — "
    "none are available in this run. Use only the ground-truth context "
    "above to compose your answer.\n"
)
"""`_no_tools_note()` as the text-only templates place it (a line of its own)."""
GROUNDED: Final = (
    "The ground-truth context above contains the actual user data needed "
    "for this task. Base your response strictly on it. Do NOT refuse, do "
    "NOT claim you cannot access the data, and do NOT ask the user to "
    "paste anything — the data is already provided."
)
"""`_grounded_directive(allow_extra_tools=False)`."""
COMPOSE_LENGTH_AND_VOICE_RULE: Final = (
    "**Length & voice-coverage requirement**: the message MUST be at least "
    "**60 words** long and visibly cover **3-5 distinct user voice points** "
    "(e.g. recurring phrases, register, signature opinions, topical anchors, "
    "emoji/punctuation habits) drawn from the user's history. A short one- or "
    "two-line post does NOT satisfy this task. Do not pad past a natural "
    "caption length just to add words."
)


def _block(shown: Shown) -> str:
    """`_ground_truth_block`: the query's ground-truth block (`shown.ground_truth`, built
    by `prompts.ground_truth`) between blank lines, nothing without one."""
    return f"\n\n{shown.ground_truth}\n" if shown.ground_truth else ""


def _directive(shown: Shown, read_first: str) -> str:
    """The grounded directive where the query has a block, else the template's read one."""
    return GROUNDED if shown.ground_truth else read_first


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
    """`t6_user_tone_post(inst["target_app"], ...)`."""
    app = shown.text("target_app")
    directive = _directive(
        shown,
        f"Before responding, call `mcp__{app}__get_feed` (and `mcp__{app}__search`) "
        f"to gather context about the user's recent activity on {app}. Do not compose "
        f"a response from generic priors — ground it in what the user has actually done.",
    )
    text = f"""# Task T6: Community digest post

Look at what the user has engaged with on {app} over the past week. Draft ONE
short post they could share with their community that summarizes or highlights
something meaningful from that pattern.
{_block(shown)}
{directive}{_NO_TOOLS}

This is an ADVISORY task — produce the draft text in the JSON response below.
Do NOT call any write tool. (If the user wants to publish, that's a follow-up.)

{_RESPONSE_TEXT}"""
    return Prompt(text)


def t8_dm_digest(shown: Shown) -> Prompt:
    """`t8_dm_digest(inst["target_app"], ...)`."""
    app = shown.text("target_app")
    directive = _directive(
        shown,
        f"Before responding, call `mcp__{app}__list_dms` to enumerate threads and "
        f"`mcp__{app}__get_dm_thread` to read their content.",
    )
    text = f"""# Task T8: DM digest

Summarize the user's {app} direct messages from today in 3 sentences. Cover the
key threads and their main points. Do NOT quote private content verbatim, and do
NOT reveal sender identities beyond what the user would already know.
{_block(shown)}
{directive}{_NO_TOOLS}

This is a SUMMARY task — emit the JSON response below. Do NOT send any DMs as
part of this task; do NOT call `send_dm`.

{_RESPONSE_TEXT}"""
    return Prompt(text)


def t9_cross_app_repost(shown: Shown) -> Prompt:
    """`t9_cross_app_repost(inst["source_post"], inst["target_app"], ...,
    source_app=inst.get("source_app"))`."""
    source_post = shown.record("source_post")
    target_app = shown.text("target_app")
    src_app_label = shown.optional("source_app") or "the other app"
    src = json.dumps(
        {"caption": source_post.get("caption", ""), "hashtags": source_post.get("hashtags", [])},
        ensure_ascii=False,
    )
    directive = _directive(
        shown,
        f"Match the user's {target_app} voice (call `mcp__{target_app}__get_feed` "
        f"first to see how they typically write on {target_app} — voice, length, "
        f"hashtag style).",
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
{_block(shown)}
Adapt it for {target_app} while preserving the core point. {directive}{clause}

{COMPOSE_LENGTH_AND_VOICE_RULE}

{_final_answer(fields, f"mcp__{target_app}__create_post")}"""
    return Prompt(text)


def t10_auto_reply(shown: Shown) -> Prompt:
    """`t10_auto_reply(inst["inbound_message"], inst["sender_id"], ...,
    target_app=inst.get("target_app", "instagram"))`."""
    inbound = shown.text("inbound_message")
    sender = shown.text("sender_id")
    target_app = shown.optional("target_app", "instagram")
    directive = _directive(
        shown,
        f"To match the user's voice and avoid violating any prior context with this "
        f"sender, first call `mcp__{target_app}__get_dm_thread` (with the relevant "
        f"thread_id) to see the conversation history, and `mcp__{target_app}__get_feed` "
        f"to see the user's general writing style on {target_app}.",
    )
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
{_block(shown)}
{directive}

{_final_answer(fields, f"mcp__{target_app}__send_dm")}"""
    return Prompt(text)


VAGUE_REFIND_DIRECTIVE: Final = (
    "Search the user history shown below to locate the post the user "
    "is describing. Identify it precisely — app + title/caption/creator/"
    "hashtags — so they can recognize it. Do NOT just restate the topic."
)
"""T11's text-only directive, which it has in place of a ground-truth block."""


def t11_vague_refind(shown: Shown) -> Prompt:
    """`t11_vague_refind(inst["topic"], ..., ground_truth_block=None, text_only=True)`."""
    topic = shown.text("topic")
    text = f"""# Task T11: Vague refind

The user vaguely remembers seeing a post about **{topic}** on one of their apps
but can't find it. Locate it in their history and tell them which app + enough
detail (title / caption / creator / hashtags) to identify it.

{VAGUE_REFIND_DIRECTIVE}{_NO_TOOLS}

This is a SEARCH task — emit the JSON response below. Do NOT post anything.

{_RESPONSE_TEXT}"""
    return Prompt(text)


def t12_send_post(shown: Shown) -> Prompt:
    """`t12_agent_composed_post(inst["target_app"], inst.get("context") or
    inst.get("update") or "", ...)` (`send_post_body`)."""
    app = shown.text("target_app")
    update = send_post_body(shown)
    directive = _directive(
        shown,
        f"To match the user's voice on {app} (length, tone, hashtag habits), first "
        f"call `mcp__{app}__get_feed` to see their past self-authored posts on this "
        f"platform.",
    )
    fields = '"final_answer": "<the rewritten caption in the user’s voice>", "hashtags": ["#..."]'
    text = f"""# Task T12: Agent-composed post in the user's voice

The user has asked you to publish the following update on {app} on their behalf:

> {update}
{_block(shown)}
{directive}

{COMPOSE_LENGTH_AND_VOICE_RULE}

{_final_answer(fields, f"mcp__{app}__create_post")}"""
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
    """`t16_group_dm_summary(inst["thread_id"], ...,
    target_app=inst.get("target_app", "instagram"))`."""
    thread_id = shown.text("thread_id")
    target_app = shown.optional("target_app", "instagram")
    directive = _directive(
        shown,
        f'To do this, call `mcp__{target_app}__get_dm_thread` with thread_id="{thread_id}" '
        f"to read the conversation, and `mcp__{target_app}__get_feed` to see how the user "
        f"typically writes on {target_app} (for the suggested reply).",
    )
    text = f"""# Task T16: Group-DM summary + suggested reply

Catch the user up on group chat {thread_id}. Summarize per-participant in 2-3
sentences, identify decision points, and suggest a reply in the user's voice —
but don't send it (the user should approve first).
{_block(shown)}
{directive}{_NO_TOOLS}

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
    """`t18_proactive_daily(...)` (it reads nothing of the row)."""
    directive = _directive(
        shown,
        "Before responding, call `mcp__instagram__get_feed`, `mcp__facebook__get_feed`, "
        "`mcp__threads__get_feed`, and `mcp__chatbot__get_history` to see what the user "
        "has actually been engaging with — ground each suggestion in real recent activity.",
    )
    text = f"""# Task T18: Proactive daily suggestions

The user just opened their agent. Surface 3–5 things they'd want to catch up
on today across their apps.
{_block(shown)}
{directive}{_NO_TOOLS}


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
    """`t19_trending_alert(...)` (it reads nothing of the row)."""
    directive = _directive(
        shown,
        "Before responding, call `mcp__instagram__get_feed` and `mcp__threads__get_feed` "
        "to see what hashtags the user has recently engaged with positively, and "
        "`mcp__chatbot__get_history` for any explicit dislikes / opt-outs. Match "
        "trending against this signal.",
    )
    text = f"""# Task T19: Proactive trending alert

Anything trending right now the user would want to know about?
{_block(shown)}
{directive}{_NO_TOOLS}


## Output
```json
{{"alerts": [
  {{"hashtag": "#...", "why_user_cares": "<=1 sentence"}},
  ...
], "reasoning": "<=2 sentences"}}
```
"""
    return Prompt(text)


def user_state_summary(profile: Mapping[str, Any]) -> str:
    """`_build_user_state_summary` (proactive_actions.py@8e2a111f): the whole profile's
    name, Big Five and first five hidden personas less the sensitive-life-event ones
    (type and label cut to 60 characters), formatted as Python formats them."""
    name = profile.get("name", "(user)")
    big_five = profile.get("big_five", {}) or {}
    hidden = profile.get("hidden_personas") or []
    if not isinstance(big_five, Mapping):
        raise ValueError(f"`big_five` is {type(big_five).__name__}, not an object")
    if not isinstance(hidden, list) or not all(isinstance(h, Mapping) for h in hidden):
        raise ValueError("`hidden_personas` is not a list of objects")
    big_five_str = ", ".join(f"{k}={v}" for k, v in big_five.items())
    brief = "; ".join(
        f"[{h.get('type')}] {(h.get('label') or '')[:60]}"
        for h in hidden[:5]
        if h.get("type") not in ("sensitive_life_event",)
    )
    return f"User: {name}. Big Five: {big_five_str}. Top hidden personas: {brief or '(none)'}."


def proactive(shown: Shown) -> Prompt:
    """`proactive_action_prompt(user_state_summary=..., history_block=None,
    text_only=True)`: the same words for every proactive task type and every row of a
    persona (the polarity stays with the judge); the summary is the persona's
    (`user_state_summary`), as the runner builds it once per user."""
    profile = shown.persona().profile
    try:
        summary = user_state_summary(profile)
    except ValueError as ex:
        raise shown.persona_error(str(ex)) from None
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
{summary}
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
