"""The rubric judges' evidence for the agentic types, as the authors build it: from the
persona's backend at the row's time, not from the row (whose instance carries no
`top_k_relevant_prefs`, `gt_slice` or `privacy_flagged_prefs`).

The authors' agentic runner scores every reply with `pr.score(task_id, response,
ground_truth=gt)` where `gt = pr.build_source_a(bq, user_id, t, query_text=
_query_text_for(task_id, inst), query_hashtags=[])` (evaluation/tasks/agentic_tasks.py
@8e2a111f `_dispatch_and_score`, `_run_generic`, `_query_text_for`). The row's own
`groundtruth_preference` (the prompt's ground-truth block as text) is NOT passed: the
judge's evidence is Source A, read from `backend/{uid}/*.json`
(`build_source_a`, evaluation/personalization_rubric.py, rubric v3, 33,210 characters,
commit not shown; the same builder at 8fd0dd9b without the `query_text` key and with
the older privacy rule). The hub export says the same of the published judge prompt:
"EVIDENCE — assembled at evaluation time from profile.json ground truth + the persona's
pre-T history (build_source_a ...)" (scripts/export_hf_release.py, 82,960 characters,
`_SENT_EV`).

Source A, key by key (the authors' `APPS`: instagram, facebook, threads, chatbot):
- `query_text` (rubric v3 only): `_query_text_for`'s line (`QUERY_LINES`);
- `user_top_preferences`: the preferences of the events before T (strict, DM threads
  included, a preference superseded before T left out: `get_preferences`@af993eb8),
  one per `persona_item` in time order, the 8 most relevant to the query line
  (`_rank_relevant`: token Jaccard of the line with item + category, 0.5 where a query
  token is in the category; no hashtags are passed);
- `user_negatives_nearby`: the preferences of the negative events in [T - 24 h,
  T + 24 h] (`_build_same_day_slice`: "after-T_test is allowed here because the scorer
  uses ground-truth only"): the judge sees them, the model never does;
- `privacy_flagged_prefs`: those of the deduplicated preferences whose hashtags meet a
  privacy-flagged hidden persona's `evidence_hashtags` or whose category is its label
  (rubric v3: type `sensitive_life_event`; 8fd0dd9b: also `intimate_interest`,
  `covert_concern`, `compensatory_need`, `medical_aesthetic_concern`, or a
  `privacy_ratio` over 0.7), plus the active sensitive event's exemplar items
  (`sensitive_event_leak_pool`);
- `update_history_contradictions`: the preferences before T whose last update is
  `contradicted` or `faded`;
- `user_style_refs`: the user's own voice before T, 6 at most: self-authored posts
  (4 at most), one DM message of the user's, one chatbot user turn (`_style_refs`);
- `user_friends`: the profile's `friends`, whole.
Each app's file is read in its own order, as theirs; `update_history` is read here
(the judge's side: the model's view strips it).

Where ours differs: T is the row's `ts` (theirs the instance's `t_test`, which the row's
`ts` is written from); a `source_timestamp` missing or a malformed event stops the load
(`persona.streams`), where theirs reads 0. The re-judging script
(scripts/rejudge_existing.py `_build_gt`) passes the row's `user_query` as the query
line instead; the runner's line is followed here, since the row's `query_text` column
("[system prompt] ...") is a label, not a request.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Final

from inspect_personamem.datasets.v3.judges.base import JudgeChoice
from inspect_personamem.datasets.v3.persona.streams import Event, Persona
from inspect_personamem.datasets.v3.reading.reply import tokenize
from inspect_personamem.datasets.v3.release.spec import AUTHORS_APPS
from inspect_personamem.datasets.v3.rules.leaks import jaccard

SOURCE_A_KEY: Final = "source_a"
"""The scorer metadata key of a row's Source A (one per judge: `JudgeChoice`)."""
DAY: Final = 24 * 3600
TOP_K: Final = 8
STYLE_LIMIT: Final = 6
_SOCIAL: Final = ("instagram", "facebook", "threads")
PRIVACY_TYPES: Final[Mapping[JudgeChoice, frozenset[str]]] = {
    "unified": frozenset({"sensitive_life_event"}),
    "per_dimension": frozenset(
        {
            "intimate_interest",
            "covert_concern",
            "compensatory_need",
            "medical_aesthetic_concern",
            "sensitive_life_event",
        }
    ),
}
"""The hidden-persona types whose evidence is privacy-flagged, rubric v3's and 8fd0dd9b's
(which also flags any with `privacy_ratio` over `PRIVACY_RATIO`)."""
PRIVACY_RATIO: Final = 0.7


def _voice_line(inst: Mapping[str, Any]) -> str:
    return f"compose a post in the user's voice on {inst.get('target_app')}"


def _source_caption(inst: Mapping[str, Any]) -> str:
    post = inst.get("source_post")
    return str(post.get("caption", "")) if isinstance(post, Mapping) else ""


QueryLine = Callable[[Mapping[str, Any]], str]
QUERY_LINES: Final[Mapping[str, QueryLine]] = {
    "agentic_community_post": lambda i: str(i.get("user_query") or _voice_line(i)),
    "agentic_send_post": lambda i: str(i.get("context") or i.get("update") or _voice_line(i)),
    "agentic_dm_digest": lambda i: f"dm digest on {i.get('target_app')}",
    "agentic_cross_app_repost": _source_caption,
    "agentic_auto_reply": lambda i: str(i.get("inbound_message", "")),
    "agentic_vague_refind": lambda i: f"find post about {i.get('topic', '')}",
    "agentic_group_dm_summary": lambda i: "group dm summary",
    "agentic_proactive_daily_catchup": lambda i: "what should I catch up on today",
    "agentic_trending_alert": lambda i: "anything trending I care about",
}
"""`_query_text_for` (agentic_tasks.py@8e2a111f): each agentic type's query line, from
its instance (`None` rendered as the authors' f-string renders it)."""


def backend_source_a(
    task_type: str, instance: Mapping[str, Any], persona: Persona, t: int
) -> dict[JudgeChoice, dict[str, Any]] | None:
    """A row's Source A for each judge, where the authors rebuild it from the backend (the
    agentic types, `QUERY_LINES`); None for any other type."""
    line = QUERY_LINES.get(task_type)
    if line is None:
        return None
    query = line(instance)
    return {
        "unified": {"query_text": query, **build_source_a(persona, t, query, "unified")},
        "per_dimension": build_source_a(persona, t, query, "per_dimension"),
    }


def build_source_a(persona: Persona, t: int, query: str, version: JudgeChoice) -> dict[str, Any]:
    """`build_source_a(bq, user_id, t, query_text=query)` of `version`'s rubric (module
    docstring), without `query_text`."""
    profile = persona.profile
    prefs = _dedup_preferences(persona, t)
    flagged = _privacy_flagged(profile, prefs, version)
    seen = {(p.get("persona_item"), p.get("category")) for p in flagged}
    for item in sensitive_event_pool(profile, t):
        key = (item["persona_item"], item["category"])
        if key not in seen:
            flagged.append(item)
            seen.add(key)
    return {
        "user_top_preferences": _rank_relevant(prefs, query),
        "user_negatives_nearby": _negatives_nearby(persona, t),
        "privacy_flagged_prefs": flagged,
        "update_history_contradictions": _contradictions(persona, t),
        "user_style_refs": _style_refs(persona, t),
        "user_friends": list(profile.get("friends") or []),
    }


def _in_file_order(persona: Persona, apps: Iterable[str]) -> list[Event]:
    """The apps' events each in its file's order, app after app (how theirs reads them)."""
    return [
        event
        for app in apps
        for event in sorted((e for e in persona.events if e.app == app), key=lambda e: e.index)
    ]


def _preferences(event: Event) -> list[Mapping[str, Any]]:
    prefs = event.fields.get("preferences")
    return [p for p in prefs if isinstance(p, Mapping)] if isinstance(prefs, list) else []


def _hashtags(event: Event) -> list[Any]:
    tags = event.fields.get("source_hashtags")
    return list(tags) if isinstance(tags, list) else []


def _item(pref: Mapping[str, Any], event: Event) -> dict[str, Any]:
    return {
        "persona_item": pref.get("persona_item"),
        "category": pref.get("category"),
        "source_hashtags": _hashtags(event),
    }


def _update_time(update: Mapping[str, Any]) -> int | None:
    """An update's `timestamp`, else its `formatted_timestamp` read as UTC
    (`_parse_formatted_ts`@af993eb8), else None."""
    stamp = update.get("timestamp")
    if isinstance(stamp, int) and stamp:
        return stamp
    text = update.get("formatted_timestamp")
    for form in ("%H:%M, %m/%d/%Y", "%Y-%m-%d %H:%M"):
        try:
            parsed = dt.datetime.strptime(str(text or ""), form)
        except ValueError:
            continue
        return int(parsed.replace(tzinfo=dt.timezone.utc).timestamp())
    return None


def _superseded(pref: Mapping[str, Any], event_ts: int, t: int) -> bool:
    """`_is_superseded_at`@af993eb8: a `contradicted` update resolved
    `stance_shift_with_precedent` at or before T, after the preference's own time."""
    own = pref.get("source_timestamp") or event_ts
    for update in pref.get("update_history") or []:
        if not isinstance(update, Mapping) or update.get("update_type") != "contradicted":
            continue
        if update.get("resolution") != "stance_shift_with_precedent":
            continue
        when = _update_time(update)
        if when and when <= t and own and own < when:
            return True
    return False


def _dedup_preferences(persona: Persona, t: int) -> list[dict[str, Any]]:
    """`_dedup_user_prefs`: `get_preferences(since_timestamp=T)` (events before T of the
    authors' apps, time order), one per `persona_item`."""
    seen: set[str] = set()
    out: list[dict[str, Any]] = []
    for event in persona.events_before(t):
        if event.app not in AUTHORS_APPS:
            continue
        for pref in _preferences(event):
            item = pref.get("persona_item")
            if not item or item in seen or _superseded(pref, event.source_timestamp, t):
                continue
            seen.add(item)
            out.append(_item(pref, event) | {"category": pref.get("category", "")})
    return out


def _rank_relevant(prefs: list[dict[str, Any]], query: str) -> list[dict[str, Any]]:
    """`_rank_relevant(prefs, query, [], k=8)`: a stable sort by relevance, descending."""
    tokens = tokenize(query)

    def score(pref: Mapping[str, Any]) -> float:
        text = f"{pref.get('persona_item') or ''} {pref.get('category') or ''}"
        value = jaccard(query, text) if query else 0.0
        if any(token in str(pref.get("category") or "").lower() for token in tokens):
            value += 0.5
        return value

    return sorted(prefs, key=score, reverse=True)[:TOP_K]


def _negatives_nearby(persona: Persona, t: int) -> list[dict[str, Any]]:
    """`_build_same_day_slice(...)["avoid"]`: the negative events' preferences within a
    day either side of T, bounds included."""
    return [
        _item(pref, event)
        for event in _in_file_order(persona, AUTHORS_APPS)
        if t - DAY <= event.source_timestamp <= t + DAY
        and _negative(str(event.fields.get("source_interaction_type", "")))
        for pref in _preferences(event)
    ]


def _negative(interaction: str) -> bool:
    """The slice's `avoid` side: "negative" in the type and not "positive" (which wins)."""
    return "negative" in interaction and "positive" not in interaction


def _privacy_flagged(
    profile: Mapping[str, Any], prefs: list[dict[str, Any]], version: JudgeChoice
) -> list[dict[str, Any]]:
    tags: set[str] = set()
    labels: set[str] = set()
    for hidden in profile.get("hidden_personas") or []:
        if not isinstance(hidden, Mapping):
            continue
        ratio = hidden.get("privacy_ratio") or 0
        by_ratio = version == "per_dimension" and ratio > PRIVACY_RATIO
        if by_ratio or hidden.get("type") in PRIVACY_TYPES[version]:
            tags |= {str(tag).lower().lstrip("#") for tag in hidden.get("evidence_hashtags") or []}
            if hidden.get("label"):
                labels.add(str(hidden["label"]).lower())
    return [
        {key: pref[key] for key in ("persona_item", "category", "source_hashtags")}
        for pref in prefs
        if {str(h).lower().lstrip("#") for h in pref["source_hashtags"]} & tags
        or str(pref.get("category") or "").lower() in labels
    ]


def sensitive_event_pool(profile: Mapping[str, Any], t: int) -> list[dict[str, Any]]:
    """`sensitive_event_leak_pool(profile, T)`: each exemplar item of a sensitive life
    event active at T (`first_seen_ts <= T <= active_window_end`)."""
    pool: list[dict[str, Any]] = []
    for hidden in profile.get("hidden_personas") or []:
        if not isinstance(hidden, Mapping) or hidden.get("type") != "sensitive_life_event":
            continue
        for episode in hidden.get("events") or []:
            first = int(episode.get("first_seen_ts") or 0)
            end = int(episode.get("active_window_end") or 0)
            if not first or not end or not first <= t <= end:
                continue
            tags = list(episode.get("evidence_hashtags") or [])
            pool += [
                {
                    "persona_item": item,
                    "category": f"sensitive:{episode.get('topic', '')}",
                    "source_hashtags": tags,
                }
                for item in episode.get("exemplar_persona_items") or []
            ]
    return pool


def _contradictions(persona: Persona, t: int) -> list[dict[str, Any]]:
    """`_contradictions`: before T, a preference whose last update is `contradicted` or
    `faded`, one per item."""
    seen: set[str] = set()
    out: list[dict[str, Any]] = []
    for event in _in_file_order(persona, AUTHORS_APPS):
        if event.source_timestamp >= t:
            continue
        for pref in _preferences(event):
            history = pref.get("update_history") or []
            last = history[-1].get("update_type", "") if history else ""
            item = pref.get("persona_item")
            if last in ("contradicted", "faded") and item and item not in seen:
                seen.add(item)
                out.append(_item(pref, event))
    return out


def _style_refs(persona: Persona, t: int) -> list[dict[str, Any]]:
    """`_style_refs(limit=6)`: the user's self-authored posts before T (4 at most), then
    per social app the user's first message in its first DM thread that has one, then
    one user turn per chatbot conversation, until there are 6."""
    posts_cap = max(STYLE_LIMIT - 2, 4)
    out: list[dict[str, Any]] = []
    for event in _in_file_order(persona, _SOCIAL):
        if len(out) >= posts_cap:
            break
        fields = event.fields
        if (
            fields.get("is_self_authored")
            and not fields.get("is_dm")
            and event.source_timestamp < t
        ):
            content = fields.get("content") or {}
            caption = content.get("caption", "") if isinstance(content, Mapping) else ""
            out.append(_ref("self_post", event.app, caption, _hashtags(event)))
    for app in _SOCIAL:
        if len(out) >= STYLE_LIMIT:
            break
        threads = (e for e in _in_file_order(persona, (app,)) if e.is_dm and e.source_timestamp < t)
        text = next(
            filter(
                None,
                (_first_text(e.fields.get("messages"), "sender", "self", "text") for e in threads),
            ),
            "",
        )
        if text:
            out.append(_ref("dm_message", app, text, []))
    for event in _in_file_order(persona, ("chatbot",)):
        if len(out) >= STYLE_LIMIT:
            break
        if event.source_timestamp < t:
            turn = _first_text(event.fields.get("conversation"), "role", "user", "content")
            if turn:
                out.append(_ref("chatbot_turn", "chatbot", turn, []))
    return out[:STYLE_LIMIT]


def _first_text(entries: object, who: str, whom: str, key: str) -> str:
    """The first entry's non-blank `key`, stripped, among those whose `who` is `whom`."""
    for entry in entries if isinstance(entries, list) else []:
        if isinstance(entry, Mapping) and entry.get(who) == whom:
            text = str(entry.get(key) or "").strip()
            if text:
                return text
    return ""


def _ref(kind: str, app: str, caption: object, hashtags: list[Any]) -> dict[str, Any]:
    return {"kind": kind, "app": app, "caption": caption, "hashtags": hashtags}
