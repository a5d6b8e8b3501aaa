"""PersonaMem-v3 query rows (`records.V3Query`) as Inspect samples: the task's prompt as the
authors compose it for the model, WITHOUT the history (the history axis adds it, through
`histories.PersonaContexts`), and apart from it what the scorers read.

Sources (bowen-upenn/PersonaMem-v3; full hashes in the shared COMMITS.md). The runner
(`evaluation/run_eval.py`@07bce3cd) hands each row's instance to a task runner
(`evaluation/run_eval_dispatch.py`, newest stored copy 0d90f3d2); each runner builds its
prompt from a template that takes a `history_block` and, in `llm_longctx`, passes the
authors' long-context text (`inference_utils.serialize_history_for_context`@00c8a9f0).
Every template places the block in a section of its own (`## Cross-app user history
(time-masked)` and the like) and leaves the section out when the block is None, as the
agent modes call it. Our input is the template with `history_block=None`, verbatim: the
history reaches the model through the history axis instead. The templates:

- `prompts.py`@dc56d425: `chatbot_response_prompt`, `chatbot_control_prompt` (the
  `control` arm), `e2_at_ai_followup_prompt`, `e6_active_mistake_prevention_prompt`,
  `over_personalization_repetition_recsys_prompt`,
  `over_personalization_repetition_chatbot_prompt`, `scenario_prompt`;
- `tasks/personalized_recommendation.py`@11d3bf48: `personalized_recommendation_prompt`
  (hidden_persona_recommendation uses "the same slate format, runtime prompt",
  `tasks/hidden_persona_recommendation.py`@065cba01's docstring);
- `prompts_agentic.py`, the stored copy the search index reads as id 58522107429 (28,408
  characters; its commit was not shown): the agentic templates T6-T19 and
  `proactive_action_prompt`;
- which runner calls which: `chatbot_response.py`@03237d09 (`run_task_b`: the chatbot
  arms), `personal_qa_hallucination.py`@6a2480b5 (`chatbot_response_prompt` with no prior
  turns), `e2_at_ai_followup.py`@11d3bf48, `over_personalization.py`@11d3bf48 (C1c, C2).

`PROVENANCE` names, per task type, the template and whether the runner that calls it was
read (`READ`) or its call is inferred (`INFERRED`, to be checked by a later session).

The hard rule: a prompt reads the instance only through `Shown`, which refuses every
scorer-only key (`SCORER_ONLY`, and every key with a leading underscore, the builders'
private notes); the row's `display_rubric` and `rubric_tags` never reach a builder. What
the scorers read goes to the metadata under `SCORER_KEY`, apart from what the model sees
(`SHOWN_KEY`: the instance fields the prompt read). A field a prompt needs and the
instance lacks is a one-line PersonaMemDataError naming the file, the query and the field.

Where ours differs, and why:
- the history is not inside the prompt (the history axis adds it before the input), so
  a template's history section is absent, as in the authors' agent modes;
- the agentic templates are built without `ground_truth_block`, which the authors'
  normal runs fill with a per-task slice built at run time (`ground_truth_builders.py`,
  not read: it reads the backend, and whether only before T is unknown here); their
  directive is the grounded one (`_grounded_directive`), its "context above" being our
  history, and `text_only=True` as for `llm_longctx`;
- the repetition tasks run a cluster of queries in one sequence, each prompt listing the
  model's own earlier replies (`run_task_c1c`); a sample here is one query asked as the
  cluster's first, with no earlier replies (a solver that threads a cluster is later work);
- six task types whose runner was not read at all (geo shift, hidden-persona QA,
  preference shift, lifecycle, new suggestions, sycophancy) use the chatbot template on
  the instance's `user_query`, as `personal_qa_hallucination`'s runner says its sibling
  `hidden_persona_implicit_qa` does; a lifecycle or geo-shift slate, if their instances
  hold one, is not shown yet. The nine agentic types take the template's parameter names
  as the instance's field names (`agentic_tasks.run_task` not read).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Final, Literal

from inspect_ai.dataset import MemoryDataset, Sample

from inspect_personamem.datasets.v3.persona.histories import PersonaContexts, asked_at
from inspect_personamem.datasets.v3.release.records import V3Query
from inspect_personamem.datasets.v3.tasks import TASK_TYPES
from inspect_personamem.errors import PersonaMemDataError

SCORER_KEY: Final = "v3_scorer"
"""Metadata key of what only the scorers read (never shown to the model)."""
SHOWN_KEY: Final = "v3_shown"
"""Metadata key of the instance fields the prompt read (what the model saw)."""

SCORER_ONLY: Final = frozenset(
    {
        "groundtruth_preference",
        "example_response",
        "example_response_self_check",
        "inferior_response",
        "inferior_failure_mode",
        "gt_slice",
        "held_out_idx",
        "hard_negative_idxs",
        "positive_indices",
        "carveout_indices",
        "positive_directive_hashtags",
        "negative_directive_hashtags",
        "expected_behavior",
        "jitai_card",
        "trigger_evidence",
        "held_out_preference",
        "top_k_relevant_prefs",
        "privacy_flagged_prefs",
        "post_test_window",
        "blind_check_score",
        "blind_check_generic_answer",
        "tool_call_rules",
        # what an agent run's checks read (verifiers.py: the final state, and the
        # verifiers' hints of agentic_verifiers.py@25a27933)
        "final_state_expected",
        "dm_correspondents",
        "participants",
        "topic_hints",
        "target_pref",
        "primary_category",
        "persona_hint",
        "off_persona_distractor_hashtags",
        "cluster_hashtags",
        "n_allowed_repetitions",
        "forbidden_items",
        "carve_out",
        "notes",
        "name",
        "hidden_persona",
        "hidden_profile",
        "profile",
        # the geo-shift answer (local_recommendation_geo_shift.py@03f5e860 `_emit_leg`)
        "current_city",
        "current_region",
        "current_country",
        "prior_city",
        "prior_region",
        "prior_country",
        "groundtruth",
        # the warn/foil pair and its frame (e6_active_mistake_prevention.py@11d3bf48)
        "polarity",
        "pair_id",
        "expected_warning_frame",
        "mistake_summary",
        "is_persona_safety",
        "cross_signal_signals",
        # the lifecycle probe's phase and answer (e5_horizon_lifecycle.py@b8d90778)
        "phase",
        "canonical_id",
        "persona_item",
        "matching_indices",
        "expected_stop_ts",
        "stop_condition_type",
        "stop_condition_description",
        # the judged types' answers, which the generator writes (names ours where the
        # authors' builders were not read: generator.FIELDS_OURS)
        "gold_topic",
        "gold_hashtags",
        "fatigued_hashtags",
        "fatigue_hashtags",
        "leak_set_hashtags",
        "trigger_kind",
        "subtype",
        "false_claim",
        "correct_stance",
        "cluster_id",
    }
)
"""Instance keys no prompt may read: the gold and foil replies, the ground truth and its
slices, the slate's answer indices, the judge's cards and polarity, the repetition
cluster's rule inputs (`prompts.py`@dc56d425 says they "would leak the test's judgment
criteria"), the scenario's notes (`scenario_prompt` keeps them out), any profile, and
what the rule scorers read (`scorers.py`): the geo-shift cities, the warn/foil polarity
and frame, the lifecycle probe's phase, canonical and on-topic indices (E5's own prompt
names none of them: "leaking any of those collapsed this into instruction-following").
Keys with a leading underscore (`_sensitive_event_topic`, ...) are refused as well."""
CANDIDATE_COUNT: Final = "candidate_count"
"""Key, among the scorer fields, of the number of the instance's `candidates` (the
slate's size, which the ranking rules need; the candidates themselves are shown)."""
SCORER_COLUMNS: Final = ("display_rubric", "rubric_tags", "expected_response_kind")
"""Row columns kept for the scorers only."""

Provenance = Literal["READ", "INFERRED"]


class Shown:
    """The model-visible view of a row's instance: a prompt builder's only access to it.

    `text`, `items`, `records` and `optional` return a field's value, checked for its
    kind; a missing or empty required field is a one-line PersonaMemDataError; asking
    for a scorer-only key is a programming error (ValueError), whatever the data."""

    def __init__(self, query: V3Query, path: Path | str) -> None:
        self._query = query
        self._path = path
        self.read: dict[str, Any] = {}
        """The fields read, with their values (the sample's `SHOWN_KEY`)."""

    def _get(self, key: str) -> Any:
        if key in SCORER_ONLY or key.startswith("_"):
            raise ValueError(f"a prompt may not read the scorer-only field {key!r}")
        value = self._query.instance.get(key)
        if value is not None:
            self.read[key] = value
        return value

    def has(self, key: str) -> bool:
        """Whether the instance holds a model-visible `key` (a scorer-only key is refused)."""
        if key in SCORER_ONLY or key.startswith("_"):
            raise ValueError(f"a prompt may not read the scorer-only field {key!r}")
        return key in self._query.instance

    def error(self, key: str, message: str) -> PersonaMemDataError:
        """A one-line error naming the file, the query and the instance field."""
        return PersonaMemDataError.at(
            self._path,
            f"{message} (the {self._query.task_type} prompt needs it)",
            line=self._query.line,
            question_id=self._query.query_id,
            field=f"instance_json.{key}",
        )

    def text(self, key: str, *, empty: bool = False) -> str:
        value = self._get(key)
        if value is None or (value == "" and not empty):
            raise self.error(key, "missing" if value is None else "empty")
        if not isinstance(value, str):
            raise self.error(key, f"expected text, found {type(value).__name__}")
        return value

    def optional(self, key: str, default: str = "") -> str:
        value = self._get(key)
        if value is None:
            return default
        if not isinstance(value, str):
            raise self.error(key, f"expected text, found {type(value).__name__}")
        return value

    def number(self, key: str) -> int:
        value = self._get(key)
        if isinstance(value, bool) or not isinstance(value, int):
            found = "nothing" if value is None else type(value).__name__
            raise self.error(key, f"expected an integer, found {found}")
        return value

    def items(self, key: str, *, required: bool = True) -> list[str]:
        value = self._get(key)
        if value is None and not required:
            return []
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise self.error(key, "missing" if value is None else "expected a list of text")
        return value

    def records(self, key: str, *, required: bool = True) -> list[dict[str, Any]]:
        value = self._get(key)
        if value is None and not required:
            return []
        if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
            raise self.error(key, "missing" if value is None else "expected a list of objects")
        if required and not value:
            raise self.error(key, "empty")
        return value

    def record(self, key: str) -> dict[str, Any]:
        value = self._get(key)
        if not isinstance(value, dict):
            raise self.error(key, "missing" if value is None else "expected an object")
        return value


@dataclass(frozen=True)
class Prompt:
    """A task's prompt without the history, and the slate it shows (one line each)."""

    text: str
    slate: tuple[str, ...] = ()


Builder = Callable[[Shown], Prompt]


# --- prompts.py@dc56d425 ---------------------------------------------------


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


def _chatbot(shown: Shown) -> Prompt:
    """`run_task_b`: the `control` arm's template, else the personalized one."""
    query = shown.text("user_query")
    prior = shown.records("prior_conversation", required=False)
    if shown.optional("arm", "proactive") == "control":
        return Prompt(chatbot_control_prompt(query, prior))
    return Prompt(chatbot_response_prompt(query, prior))


def _chatbot_no_prior(shown: Shown) -> Prompt:
    """`run_personal_qa_hallucination`: the chatbot template, no prior turns."""
    return Prompt(chatbot_response_prompt(shown.text("user_query"), []))


def _e2_at_ai(shown: Shown) -> Prompt:
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
            "Rank candidates by how well they AVOID the topic signal above. "
            "Top-ranked candidates must NOT match the directive's hashtag space — "
            "putting a matching candidate in the top spot is a hard failure."
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


def _e6_mistake(shown: Shown) -> Prompt:
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


def _repetition_recsys(shown: Shown) -> Prompt:
    """`prompts.over_personalization_repetition_recsys_prompt` as a cluster's first call
    (no prior recommendations) with `history_block=None`."""
    query = shown.text("user_query")
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


def _repetition_chatbot(shown: Shown) -> Prompt:
    """`prompts.over_personalization_repetition_chatbot_prompt` as a cluster's first
    call (turn #1, no prior replies) with `history_block=None`."""
    query = shown.text("user_query")
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


def _scenario(shown: Shown) -> Prompt:
    """`prompts.scenario_prompt` with `history_block=None` (`run_task_c2` passes the
    scenario's `query`; the name and notes are kept out by the template itself)."""
    query = shown.text("query" if shown.has("query") else "user_query")
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


# --- tasks/personalized_recommendation.py@11d3bf48 --------------------------


def _slate(shown: Shown) -> Prompt:
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


# --- prompts_agentic.py (id 58522107429) -----------------------------------

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


def _t6_community_post(shown: Shown) -> Prompt:
    app = shown.text("app")
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


def _t8_dm_digest(shown: Shown) -> Prompt:
    app = shown.text("app")
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


def _t9_cross_app_repost(shown: Shown) -> Prompt:
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


def _t10_auto_reply(shown: Shown) -> Prompt:
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


def _t11_vague_refind(shown: Shown) -> Prompt:
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


def _t13_send_post(shown: Shown) -> Prompt:
    target_app = shown.text("target_app")
    context = shown.text("context")
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


def _t16_group_dm_summary(shown: Shown) -> Prompt:
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


def _t18_daily(shown: Shown) -> Prompt:
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


def _t19_trending(shown: Shown) -> Prompt:
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


def _proactive(shown: Shown) -> Prompt:
    """`proactive_action_prompt(user_state_summary, history_block=None, text_only=True)`:
    the same words for every proactive task type; the polarity stays with the judge."""
    summary = shown.optional("user_state_summary")
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


@dataclass(frozen=True)
class TaskPrompt:
    """A task type's prompt: its builder, its source, and whether the runner's call of
    it was read or is inferred."""

    build: Builder
    source: str
    provenance: Provenance
    target: Literal["gold", "slate"] = "gold"
    """What `Sample.target` holds: the gold reply, or the slate's positive indices."""


_CHAT: Final = "prompts.py@dc56d425 chatbot_response_prompt"
PROMPTS: Final[Mapping[str, TaskPrompt]] = {
    "chatbot_personalized_response": TaskPrompt(_chatbot, _CHAT, "READ"),
    "local_recommendation_geo_shift": TaskPrompt(_chatbot_no_prior, _CHAT, "INFERRED"),
    "personal_qa_hallucination": TaskPrompt(_chatbot_no_prior, _CHAT, "READ"),
    "hidden_persona_implicit_qa": TaskPrompt(_chatbot_no_prior, _CHAT, "INFERRED"),
    "preference_shift_followthrough": TaskPrompt(_chatbot, _CHAT, "INFERRED"),
    "personalized_recommendation": TaskPrompt(
        _slate, "personalized_recommendation.py@11d3bf48", "READ", "slate"
    ),
    "at_ai_directive_followup": TaskPrompt(
        _e2_at_ai, "prompts.py@dc56d425 e2_at_ai_followup_prompt", "READ", "slate"
    ),
    "hidden_persona_recommendation": TaskPrompt(
        _slate, "personalized_recommendation.py@11d3bf48 (docstring @065cba01)", "READ", "slate"
    ),
    "short_vs_long_term_lifecycle": TaskPrompt(_chatbot_no_prior, _CHAT, "INFERRED"),
    "new_suggestions_chatbot": TaskPrompt(_chatbot, _CHAT, "INFERRED"),
    "over_personalization_chatbot_text": TaskPrompt(_chatbot, _CHAT + " / control", "READ"),
    "over_personalization_sensitive_event": TaskPrompt(_chatbot, _CHAT, "READ"),
    "over_personalization_repetition_recsys": TaskPrompt(
        _repetition_recsys, "prompts.py@dc56d425 repetition_recsys (first call)", "READ"
    ),
    "over_personalization_repetition_chatbot": TaskPrompt(
        _repetition_chatbot, "prompts.py@dc56d425 repetition_chatbot (turn #1)", "READ"
    ),
    "over_personalization_context_shift": TaskPrompt(
        _scenario, "prompts.py@dc56d425 scenario_prompt", "READ"
    ),
    "over_personalization_sycophancy": TaskPrompt(_chatbot, _CHAT, "INFERRED"),
    "agentic_community_post": TaskPrompt(_t6_community_post, "prompts_agentic t6", "INFERRED"),
    "agentic_send_post": TaskPrompt(_t13_send_post, "prompts_agentic t13", "INFERRED"),
    "agentic_dm_digest": TaskPrompt(_t8_dm_digest, "prompts_agentic t8", "INFERRED"),
    "agentic_group_dm_summary": TaskPrompt(
        _t16_group_dm_summary, "prompts_agentic t16", "INFERRED"
    ),
    "agentic_cross_app_repost": TaskPrompt(_t9_cross_app_repost, "prompts_agentic t9", "INFERRED"),
    "agentic_auto_reply": TaskPrompt(_t10_auto_reply, "prompts_agentic t10", "INFERRED"),
    "agentic_vague_refind": TaskPrompt(_t11_vague_refind, "prompts_agentic t11", "INFERRED"),
    "agentic_proactive_daily_catchup": TaskPrompt(_t18_daily, "prompts_agentic t18", "INFERRED"),
    "agentic_trending_alert": TaskPrompt(_t19_trending, "prompts_agentic t19", "INFERRED"),
    "proactive_close_friend_update": TaskPrompt(_proactive, "prompts_agentic proactive", "READ"),
    "restraint_sensitive_event_silence": TaskPrompt(
        _proactive, "prompts_agentic proactive", "READ"
    ),
    "proactive_friend_feed_react": TaskPrompt(_proactive, "prompts_agentic proactive", "INFERRED"),
    "proactive_trending_feed_react": TaskPrompt(
        _proactive, "prompts_agentic proactive", "INFERRED"
    ),
    "active_mistake_prevention": TaskPrompt(
        _e6_mistake, "prompts.py@dc56d425 e6_active_mistake_prevention_prompt", "READ"
    ),
    "proactive_overactive_check": TaskPrompt(_proactive, "prompts_agentic proactive", "INFERRED"),
}
"""Each of the 31 task types' prompt (a test holds the keys to `tasks.TASK_TYPES`).
`READ`: the runner's call was read (file@commit in the module docstring); `INFERRED`:
the template is the authors', which runner calls it with which instance fields is not
(the agentic templates' parameters are taken as the instance's field names)."""


def _scorer_fields(query: V3Query) -> dict[str, Any]:
    fields = {
        key: value
        for key, value in query.instance.items()
        if key in SCORER_ONLY or key.startswith("_")
    }
    fields["display_rubric"] = query.display_rubric
    fields["rubric_tags"] = list(query.rubric_tags)
    fields["expected_response_kind"] = query.expected_response_kind
    candidates = query.instance.get("candidates")
    fields[CANDIDATE_COUNT] = len(candidates) if isinstance(candidates, list) else 0
    return fields


def _target(query: V3Query, task: TaskPrompt) -> str | list[str]:
    instance = query.instance
    if task.target == "slate":
        positives = instance.get("positive_indices")
        if positives is None and "held_out_idx" in instance:
            positives = [instance["held_out_idx"]]
        return [str(i) for i in positives or []]
    gold = instance.get("example_response")
    return gold if isinstance(gold, str) else ""


def query_to_sample(query: V3Query, contexts: PersonaContexts, path: Path | str) -> Sample:
    """One query row as a sample: the task's prompt without the history as input, the
    slate's lines as choices (ranking tasks only), what the scorers read apart. What a
    memory or retriever is searched with (`AskedAt.message`) is the row's `query_text`,
    or the prompt where it has none (Mem0 refuses an empty query; the authors' Mem0
    mode takes the most recent facts instead)."""
    task = PROMPTS[query.task_type]
    shown = Shown(query, path)
    prompt = task.build(shown)
    asked = asked_at(query, contexts)
    if not asked.message.strip():  # no user message (a ranking or proactive row)
        asked = replace(asked, message=prompt.text)
    metadata: dict[str, Any] = {
        **asked.metadata(),
        "query_id": query.query_id,
        "user_id": query.user_id,
        "task_type": query.task_type,
        "task_family": query.task_family,
        "family": TASK_TYPES[query.task_type].family,
        "app_context": query.app_context,
        "mcp_tools_allowed": query.mcp_tools_allowed,
        "state_write_policy": query.state_write_policy,
        "ts": query.ts,
        "prompt_source": task.source,
        "prompt_provenance": task.provenance,
        SHOWN_KEY: shown.read,
        SCORER_KEY: _scorer_fields(query),
    }
    return Sample(
        id=query.query_id,
        input=prompt.text,
        choices=list(prompt.slate) or None,
        target=_target(query, task),
        metadata=metadata,
    )


def build_v3_dataset(
    queries: Sequence[V3Query], contexts: PersonaContexts, path: Path | str, name: str
) -> MemoryDataset:
    """The samples of `queries`, in their order (one persona's file: `path`)."""
    return MemoryDataset(
        [query_to_sample(query, contexts, path) for query in queries], name=name, shuffled=False
    )
