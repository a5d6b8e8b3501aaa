"""The long-context setting's history text: a persona's masked view as one block of text,
after the authors' newest readable `serialize_history_for_context`
(`evaluation/inference_utils.py`@7758d563, with `_compact_event`; the events as
`BackendQuery.get_events` gives them, backend_query.py@af993eb8).

The text is, as theirs: per app (instagram, facebook, threads, chatbot, in that order)
a header `# App: {app} — {n} events` and one compact JSON object per event, one a line,
in time order. No profile comes first: theirs is "DELIBERATELY NOT prepended" (the
eval-side firewall hides profile.json, so personalization is inferred from the events
alone; the older @00c8a9f0 began with a `# User profile` card). DM thread entries
(`is_dm`) are left out, as `get_events` leaves them out by default (`include_dms=False`:
"DMs are private and feed/content queries should not leak them"). A compact event keeps
`t` (source_timestamp), `when` (formatted_timestamp), `action`
(interaction_format.action_label), `user_message`, `type` (source_interaction_type),
`hashtags`, `content_type`, `title` and `caption` (where the content has the key),
`desc` (a non-empty overall_description), `conversation` (a non-empty one, turns as
released) and `inferred_prefs` (each preference's `persona_item` and `category`: the
authors show the model these, superseded ones too: only `get_preferences` drops a
superseded stance, and the text is built from `get_events`), dropping values that are
None, "" or []. JSON is written as theirs is (`ensure_ascii=False`, default
separators). It is built from `streams.visible` (`history_text`), or from the same
lines of the events before the query's time kept in a persona's timeline
(`sections_text`), so it holds nothing at or after the query's time and no leak field.

Where ours differs, and why:
- token annotations (`~N tokens (running total before: ...)`, `[After {app}: running
  total N]`) are written only when a `count_tokens` is given: theirs count with tiktoken
  (or characters / 4 without it), a count tied to a tokenizer that is not the model's;
  without a counter the lines are left out, not made up;
- no budget sampling: theirs thins an app's events when the text would pass the budget
  (700k tokens in `run_eval.py`@07bce3cd); their prompts ran ≈416-417k tokens
  (`RESULTS_SECTION.md`@32a47dd3), under it, so the published runs did not thin;
- `apps` may add `ai_studio` (the authors' view has the four apps alone); the calendar
  and trending have no serialisation of theirs and are left out;
- an `interaction_format` of null reads as empty (theirs would fail on it).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from inspect_personamem.datasets.v3.persona.streams import PersonaView
from inspect_personamem.datasets.v3.release.spec import AUTHORS_APPS, App


def compact_event(event: Mapping[str, Any]) -> dict[str, Any]:
    """An event (its visible fields) trimmed to what the long-context text shows."""
    form = event.get("interaction_format") or {}
    out: dict[str, Any] = {
        "t": event.get("source_timestamp"),
        "when": event.get("formatted_timestamp"),
        "action": form.get("action_label"),
        "user_message": form.get("user_message"),
        "type": event.get("source_interaction_type"),
        "hashtags": event.get("source_hashtags", []),
        "content_type": event.get("content_type"),
    }
    content = event.get("content") or {}
    if "title" in content:
        out["title"] = content.get("title")
    if "caption" in content:
        out["caption"] = content.get("caption")
    if content.get("overall_description"):
        out["desc"] = content["overall_description"]
    if event.get("conversation"):
        out["conversation"] = event["conversation"]
    if event.get("preferences"):
        out["inferred_prefs"] = [
            {"persona_item": p.get("persona_item"), "category": p.get("category")}
            for p in event["preferences"]
        ]
    return {key: value for key, value in out.items() if value not in (None, "", [])}


def profile_card(profile: Mapping[str, Any]) -> str:
    """`# User profile` and the profile's safe slice as indented JSON: the older text's
    preface (@00c8a9f0), which the `events` layout still sends first (`histories`)."""
    return "# User profile\n" + json.dumps(dict(profile), ensure_ascii=False, indent=2)


def event_line(event: Mapping[str, Any]) -> str:
    """An event's line in the text: its compact form as one line of JSON."""
    return json.dumps(compact_event(event), ensure_ascii=False)


def history_text(
    view: PersonaView,
    apps: Sequence[App] = AUTHORS_APPS,
    count_tokens: Callable[[str], int] | None = None,
) -> str:
    """The long-context history of `view`, as the authors lay it out."""
    lines = [(e.app, event_line(e.visible_fields)) for e in view.events if not e.is_dm]
    return sections_text(lines, apps, count_tokens)


def sections_text(
    lines: Sequence[tuple[App, str]],
    apps: Sequence[App] = AUTHORS_APPS,
    count_tokens: Callable[[str], int] | None = None,
) -> str:
    """The long-context text of events given as their app and line (`event_line`), in
    time order: each app of `apps` in turn, its events' lines. What `history_text`
    writes of a view, from lines already made (`timeline.Timeline`): it holds nothing at
    or after the query's time only where `lines` holds none (`histories` gives it the
    events before it)."""
    running = 0
    sections = []
    for app in apps:
        mine = [line for of, line in lines if of == app]
        body = "\n".join(mine)
        header = f"\n# App: {app} — {len(mine)} events"
        if count_tokens:
            tokens = count_tokens(body)
            header += f", ~{tokens} tokens (running total before: {running})"
        sections.append(header + "\n")
        if body:
            sections.append(body)
        if count_tokens:
            running += tokens
            sections.append(f"\n[After {app}: running total {running}]\n")
    return "\n".join(sections)
