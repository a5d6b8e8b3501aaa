"""The agentic ground-truth block: the per-task slice of the persona the authors' runner
puts before the directive of every agentic prompt, in every mode
(`evaluation/tasks/agentic_tasks.py`@8e2a111f `_run_generic`:
`ground_truth_builders.build_for_task(task_id, bq, user_id, t, inst)`, then None for
`agentic_vague_refind`, "a SEARCH task"). The builders are
`evaluation/ground_truth_builders.py`@651b9588 (newer than @3d5a4d18: it holds the
`has_enough_user_voiced_history` that the runner @8e2a111f calls, and the scoped voice
renderer, `prompts.voice`); headers, lines, caps and windows are theirs, verbatim.

Per task type (theirs is keyed by task id; a type it has no key for gets no block):
- `agentic_send_post`: the voice on `target_app`, its self-authored posts of the last 21
  days (6 at most) (`_t13_send_post`, the key `agentic_send_post`);
- `agentic_cross_app_repost`: the same (`_t9_cross_app_repost`);
- `agentic_dm_digest`: `target_app`'s DM threads with a message in the `window` (`24h`,
  else 7 days), 20 threads at most, their last 15 messages (`_t8_dm_digest`);
- `agentic_auto_reply`: the voice, the thread `thread_id` (its last 30 messages), the
  sender `sender_id` from the friends graph (`_t10_auto_reply`);
- `agentic_group_dm_summary`: the voice, the thread (its last 40 messages), its
  participants from the friends graph (`_t16_group_dm_summary`);
- `agentic_proactive_daily_catchup`: the last 24 h per app (10 events each), the 10 top
  hashtags (`_t18_proactive_daily`);
- `agentic_trending_alert`: the trending list (15), the user's top positive and negative
  hashtags (`_t19_trending_alert`);
- `agentic_community_post`: none (their builder is keyed `agentic_user_tone_post`, the
  type's older name, so `build_for_task("agentic_community_post", ...)` is "");
- `agentic_vague_refind`: none (the runner drops it).

The mask is theirs (`evaluation/backend_query.py`@af993eb8): an event is read only if
`source_timestamp < T` (strict), DM threads are left out of event reads
(`include_dms=False`) but not of the hashtag counts (`hashtag_summary` reads every
event), a DM thread shows its messages with `timestamp < T` (`persona.dms`); events are
read without the stripped fields (`Event.visible_fields`). The profile is read whole:
the voice (`prompts.voice`), `friends` (`get_friend`, `get_full_profile`), as theirs.
The instance fields are read through `Shown` (recorded, scorer-only keys refused), with
the authors' defaults where absent (`target_app` "instagram", the digest's "facebook",
`window` "24h"); `app` is read where `target_app` is absent (the generator's older name).

Where ours differs, and why:
- trending: theirs (`get_trending`) lists the feed's `is_trending` events UNMASKED, else
  `trending.json` (no per-item time: shown whole, as theirs), else the 20 most used
  hashtags of every event, unmasked; ours reads the `is_trending` events and counts the
  hashtags before T only: nothing at or after the query's time reaches the model. The
  release's hub export (`scripts/export_hf_release.py`) ships no `trending.json`, so
  there the list is the fallback's;
- T is the row's `ts` (the time the history is masked at), theirs the instance's
  `t_test` (the row's `ts` is written from it);
- an error building the block stops the load (theirs writes "_(error building context:
  ...)_" into the prompt).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping
from typing import Any, Final

from inspect_personamem.datasets.v3.persona.dms import Thread, content_of, threads_before
from inspect_personamem.datasets.v3.persona.streams import Event, Persona
from inspect_personamem.datasets.v3.prompts.shown import Shown
from inspect_personamem.datasets.v3.prompts.voice import voice_section
from inspect_personamem.datasets.v3.release.spec import AUTHORS_APPS

DAY: Final = 24 * 3600
HEADING: Final = "## Ground-truth context (real user data — base your response on this)\n"
_SOCIAL: Final = ("instagram", "facebook", "threads")
Fields = Mapping[str, Any]
"""An event's fields as a model may see them."""


class _At:
    """The persona at T as the builders read it (`BackendQuery` with `since_timestamp=T`)."""

    def __init__(self, persona: Persona, t: int) -> None:
        self.persona, self.t = persona, t
        self.before = persona.events_before(t)

    def events(self, app: str) -> list[Fields]:
        """`get_events(app, T)`: the app's events before T but DMs, in time order, stripped."""
        return [
            e.visible_fields
            for e in self.before
            if e.app == app and not e.visible_fields.get("is_dm")
        ]

    def threads(self, app: str) -> list[Thread]:
        """`list_dm_threads(app, T)`: every DM thread of the app, its messages before T."""
        return threads_before(
            (e.visible_fields for e in self.persona.events if e.app == app), self.t
        )

    def thread(self, app: str, thread_id: str) -> Thread | None:
        return next((t for t in self.threads(app) if t.thread_id == thread_id), None)

    def friend(self, friend_id: object) -> Mapping[str, Any] | None:
        """`get_friend`: the profile's friend of that id."""
        friends = self.persona.profile.get("friends")
        for friend in friends if isinstance(friends, list) else []:
            if isinstance(friend, dict) and friend.get("friend_id") == friend_id:
                return friend
        return None

    def in_file_order(self, app: str) -> list[Event]:
        """The app's events before T in its file's order (`_load_events`, masked)."""
        return sorted((e for e in self.before if e.app == app), key=lambda e: e.index)

    def hashtag_summary(self) -> list[dict[str, Any]]:
        """`hashtag_summary(T)`: per hashtag, its positive and negative events before T
        (DMs included), the most engaged first; ties in first-seen order (app, file)."""
        counts: dict[str, dict[str, Any]] = {}
        for app in AUTHORS_APPS:
            for event in self.in_file_order(app):
                kind = str(event.visible_fields.get("source_interaction_type") or "")
                polarity = (
                    "positive"
                    if "positive" in kind
                    else "negative"
                    if "negative" in kind
                    else "other"
                )
                for tag in event.visible_fields.get("source_hashtags") or []:
                    row = counts.setdefault(
                        tag, {"hashtag": tag, "positive": 0, "negative": 0, "other": 0}
                    )
                    row[polarity] += 1
        return sorted(counts.values(), key=lambda r: r["positive"] + r["negative"], reverse=True)

    def trending(self) -> list[dict[str, Any]]:
        """`get_trending`, masked (the module's note): the feed's trending events before T,
        the aligned first; else `trending.json`; else the 20 most used hashtags before T."""
        found = [
            {
                "hashtag": e.get("trending_primary_hashtag")
                or (e.get("source_hashtags") or [""])[0],
                "user_aligned": e.get("trending_relevance", "relevant") == "relevant",
            }
            for app in _SOCIAL
            for e in (event.visible_fields for event in self.in_file_order(app))
            if e.get("is_trending")
        ]
        if found:
            ordered = [t for t in found if t["user_aligned"]] + [
                t for t in found if not t["user_aligned"]
            ]
            return [{**t, "rank": i + 1} for i, t in enumerate(ordered)]
        if self.persona.trending:
            return [
                {"hashtag": t.hashtag, "rank": t.rank, "user_aligned": t.user_aligned}
                for t in self.persona.trending
            ]
        counts: dict[str, int] = {}
        for app in AUTHORS_APPS:
            for event in self.in_file_order(app):
                for tag in event.visible_fields.get("source_hashtags") or []:
                    counts[tag] = counts.get(tag, 0) + 1
        top = sorted(counts.items(), key=lambda kv: kv[1], reverse=True)[:20]
        return [{"hashtag": tag, "rank": i + 1} for i, (tag, _) in enumerate(top)]


def _when(ts: object) -> str:
    if not ts or not isinstance(ts, int | float):
        return "?"
    return dt.datetime.fromtimestamp(int(ts), tz=dt.timezone.utc).strftime("%Y-%m-%d %H:%M")


def _cut(text: object, n: int) -> str:
    text = str(text or "").strip()
    return text if len(text) <= n else text[:n].rstrip() + "…"


def _header(title: str) -> str:
    return f"\n### {title}\n"


def _wrap(sections: list[str]) -> str:
    return HEADING + "".join(sections) if sections else ""


def _caption(event: Fields, n: int) -> str:
    content = content_of(event)
    return _cut(content.get("caption") or content.get("title") or "", n)


def _tags(item: Mapping[str, Any]) -> str:
    return " ".join(map(str, item.get("source_hashtags") or []))


def _self_posts(at: _At, app: str, days: int, most: int) -> str:
    """`_format_self_posts`: the user's own posts on `app` of the last `days` days."""
    posts = [
        e
        for e in at.events(app)
        if e.get("is_self_authored")
        and not e.get("is_dm")
        and (e.get("source_timestamp") or 0) >= at.t - days * DAY
    ][-most:]
    title = _header(f"Recent self-authored posts on {app} (last {days}d)")
    if not posts:
        return title + f"_(no self-authored posts on {app} in the past {days} days)_\n"
    lines = [title]
    for post in posts:
        form = post.get("interaction_format")
        action = (form.get("action_label") if isinstance(form, dict) else None) or "posted"
        lines.append(
            f'- [{_when(post.get("source_timestamp"))}] _{action}_: "{_caption(post, 360)}"'
        )
        if tags := _tags(post):
            lines.append(f"  · {tags}")
        lines.append("")
    return "\n".join(lines) + "\n"


def _thread(thread: Thread, most: int) -> str:
    """`_format_dm_thread`: a thread's head and its last `most` messages."""
    messages = thread.messages[-most:]
    people = ", ".join(map(str, thread.participants)) if thread.participants else "?"
    lines = [
        f"**thread_id**: {thread.thread_id} — participants: {people} "
        f"(group={thread.is_group}, msgs_shown={len(messages)})\n"
    ]
    for m in messages:
        text = _cut(m.get("text") or "", 280)
        lines.append(f'- [{_when(m.get("timestamp"))}] {m.get("sender") or "?"}: "{text}"')
        if isinstance(forwarded := m.get("forwarded_content"), dict) and forwarded:
            caption = _caption(forwarded, 200)
            app = forwarded.get("source_app", "?")
            lines.append(f'  ↳ forwarded post ({app}): "{caption}" {_tags(forwarded)}'.rstrip())
    return "\n".join(lines) + "\n"


def _friend(friend: Mapping[str, Any]) -> str:
    interests = ", ".join(map(str, friend.get("shared_interests") or []))
    return (
        f"- **{friend.get('friend_id', '?')}** — {friend.get('display_name', '?')} "
        f"(relationship: {friend.get('relationship_depth', '?')}; "
        f"shared interests: {interests or '—'})"
    )


def _app(shown: Shown, default: str) -> str:
    return shown.optional("target_app") or shown.optional("app") or default


def _voice_and_posts(at: _At, shown: Shown) -> str:
    """T9, T12, T13: the voice on the target app and its recent self-authored posts."""
    app = _app(shown, "instagram")
    voice = voice_section(at.persona.profile, app)
    return _wrap([*([voice] if voice else []), _self_posts(at, app, days=21, most=6)])


def _dm_digest(at: _At, shown: Shown) -> str:
    app, window = _app(shown, "facebook"), shown.optional("window") or "24h"
    cutoff = at.t - (DAY if window == "24h" else 7 * DAY)
    recent = [t for t in at.threads(app)[:20] if t.latest_ts >= cutoff]
    sections = [_header(f"DM threads on {app} in past {window} (at T={_when(at.t)})")]
    if not recent:
        sections.append(f"_(no DM threads on {app} with messages in the past {window})_\n")
    sections += [_thread(_page(t, 30), most=15) for t in recent]
    return _wrap(sections)


def _page(thread: Thread, first: int) -> Thread:
    """The thread as `get_dm_thread(limit=first)` pages it: its first `first` messages."""
    return Thread(
        thread.thread_id,
        thread.participants,
        thread.is_group,
        thread.source_hashtags,
        thread.messages[:first],
    )


def _auto_reply(at: _At, shown: Shown) -> str:
    app = _app(shown, "instagram")
    thread_id, sender = shown.optional("thread_id"), shown.optional("sender_id")
    voice = voice_section(at.persona.profile, app)
    sections = [voice] if voice else []
    if thread_id and (thread := at.thread(app, thread_id)):
        sections += [_header(f"Full thread {thread_id} on {app}"), _thread(_page(thread, 50), 30)]
    if sender and (friend := at.friend(sender)):
        sections += [_header(f"Sender {sender} (from friends graph)"), _friend(friend) + "\n"]
    return _wrap(sections)


def _group_summary(at: _At, shown: Shown) -> str:
    app, thread_id = _app(shown, "instagram"), shown.optional("thread_id")
    voice = voice_section(at.persona.profile, app)
    sections = [voice] if voice else []
    if thread_id and (thread := at.thread(app, thread_id)):
        sections += [
            _header(f"Group DM thread {thread_id} on {app}"),
            _thread(_page(thread, 80), 40),
        ]
        friends = [at.friend(p) for p in thread.participants if p and p != "self"]
        if found := [f for f in friends if f]:
            sections += [
                _header("Participants (from friends graph)"),
                *(_friend(f) + "\n" for f in found),
            ]
    return _wrap(sections)


def _daily(at: _At, shown: Shown) -> str:
    sections = [_header(f"Activity in past 24h (T={_when(at.t)})")]
    for app in AUTHORS_APPS:
        events = [e for e in at.events(app) if (e.get("source_timestamp") or 0) >= at.t - DAY]
        if events:
            sections.append(f"\n#### {app} ({len(events)} events)\n")
            sections += [_activity(e) for e in events[-10:]]
    if len(sections) == 1:
        sections.append("_(no events in past 24h on any app)_\n")
    if summary := at.hashtag_summary()[:10]:
        sections.append(_header("Top hashtags (lifetime, by total engagement)"))
        sections += [f"- {r['hashtag']}: +{r['positive']} / -{r['negative']}\n" for r in summary]
    return _wrap(sections)


def _activity(event: Fields) -> str:
    form = event.get("interaction_format")
    kind = event.get("source_interaction_type") or "?"
    action = (form.get("action_label") if isinstance(form, dict) else None) or kind
    when = _when(event.get("source_timestamp"))
    return f'- [{when}] _{action}_: "{_caption(event, 220)}" {_tags(event)}'.rstrip() + "\n"


def _trending(at: _At, shown: Shown) -> str:
    sections = [_header("Trending hashtags right now")]
    trending = at.trending()
    if not trending:
        sections.append("_(no trending data available)_\n")
    for tag in trending[:15]:
        note = " (aligned with this user's interests)" if tag.get("user_aligned") else ""
        sections.append(f"- #{tag.get('rank', '?')}: {tag.get('hashtag', '?')}{note}\n")
    summary = at.hashtag_summary()
    positive = [r for r in summary if r["positive"] > 0][:10]
    negative = [r for r in summary if r["negative"] > 0][:10]
    if positive:
        sections.append(_header("User's top positive hashtags"))
        sections += [f"- {r['hashtag']}: +{r['positive']}\n" for r in positive]
    if negative:
        sections.append(_header("User's explicit-negative hashtags (do NOT alert on these)"))
        sections += [f"- {r['hashtag']}: -{r['negative']}\n" for r in negative]
    return _wrap(sections)


BUILDERS: Final[Mapping[str, Callable[[_At, Shown], str]]] = {
    "agentic_send_post": _voice_and_posts,
    "agentic_cross_app_repost": _voice_and_posts,
    "agentic_dm_digest": _dm_digest,
    "agentic_auto_reply": _auto_reply,
    "agentic_group_dm_summary": _group_summary,
    "agentic_proactive_daily_catchup": _daily,
    "agentic_trending_alert": _trending,
}
"""The task types the newest runner gives a block, and their builders."""


def ground_truth_block(task_type: str, persona: Persona, t: int, shown: Shown) -> str:
    """The block of a `task_type` query at `t` ("" for a type without one, or where no
    section applies), built from `persona` masked at `t` and the instance as `shown`."""
    build = BUILDERS.get(task_type)
    return build(_At(persona, t), shown) if build else ""
