"""The read tools: what each returns from an `AppStore` (`READS`, by the action the
catalogue names).

Pagination, search and DM threads follow `evaluation/backend_query.py` (@00c8a9f0 and
@af993eb8): feeds and searches newest first and without DMs; `search_type` `post` (a
substring of title, caption or description), `hashtag` (an exact tag, `#` and case
aside) or `user` (an author id). The calendar folds its changes strictly before T
(`calendar_mcp_server.py`@02263749: theirs `ts <= T`), as `streams` does.

Where ours differs from the authors', and why:
- the profile is `streams`' safe slice;
- a bad call is an error (`AppToolError`), not an `{"error": ...}` result: an unknown
  id (the message names the app; theirs `get_post` returns null), a `limit` below 1, a
  `cursor` this session did not give and an unknown `search_type` (theirs searches
  posts);
- one cursor for every paginated tool: the offset of the next page, as a decimal string
  (theirs: that for feeds, an opaque `base64(ts:id)` for searches and DMs).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from inspect_personamem.datasets.v3.agent.catalogue import (
    SEARCH_TYPES,
    AppToolError,
    social_target,
)
from inspect_personamem.datasets.v3.agent.store import AppStore, Run
from inspect_personamem.datasets.v3.persona.dms import content_of, message_time


def _get_feed(store: AppStore, app: str, args: dict[str, Any]) -> Any:
    items = [
        {
            "post_id": str(e.get("source_object_id", "")),
            "timestamp": e.get("source_timestamp"),
            "hashtags": e.get("source_hashtags", []),
            "content_type": e.get("content_type"),
            "title": content_of(e).get("title"),
            "caption": content_of(e).get("caption"),
            "author_id": e.get("author_id", "unknown"),
            "is_self_authored": bool(e.get("is_self_authored")),
        }
        for e in store.posts(app)
    ]
    return _page(items, args["cursor"], args["limit"])


def _get_post(store: AppStore, app: str, args: dict[str, Any]) -> Any:
    return store.post(app, args["post_id"])


def _search(store: AppStore, app: str, args: dict[str, Any]) -> Any:
    kind, query = args["search_type"], args["query"].lower().lstrip("#")
    if kind not in SEARCH_TYPES:
        raise AppToolError(f"search_type must be one of {', '.join(SEARCH_TYPES)}, got {kind!r}")
    hits = []
    for event in store.posts(app):
        if kind == "hashtag":
            match = query in [h.lower().lstrip("#") for h in event.get("source_hashtags") or []]
        elif kind == "user":
            match = bool(event.get("author_id")) and str(event["author_id"]).lower() == query
        else:
            content = content_of(event)
            fields = (
                content.get("title"),
                content.get("caption"),
                content.get("overall_description"),
            )
            match = query in " ".join(str(v) for v in fields if v).lower()
        if match:
            hits.append({**event, "_app": app})
    return _page(hits, args["cursor"], args["limit"])


def _get_profile(store: AppStore, app: str, args: dict[str, Any]) -> Any:
    return dict(store.view.profile)


def _list_dms(store: AppStore, app: str, args: dict[str, Any]) -> Any:
    return _page([thread.summary() for thread in store.threads(app)], args["cursor"], args["limit"])


def _get_dm_thread(store: AppStore, app: str, args: dict[str, Any]) -> Any:
    thread = store.thread(app, args["thread_id"])
    return {**thread.header(), **_page(thread.messages, args["cursor"], args["limit"])}


def _get_history(store: AppStore, app: str, args: dict[str, Any]) -> Any:
    items = [
        {
            "conversation_id": str(e.get("source_object_id", "")),
            "timestamp": e.get("source_timestamp"),
            "conversation_type": e.get("conversation_type"),
            "conversation": e.get("conversation", []),
            "interaction_format": e.get("interaction_format", {}),
        }
        for e in store.posts(app)
    ]
    return _page(items, args["cursor"], args["limit"])


def _search_history(store: AppStore, app: str, args: dict[str, Any]) -> Any:
    query, limit = args["query"].lower(), _checked_limit(args["limit"])
    hits: list[dict[str, Any]] = []
    for event in reversed(store.posts(app)):  # oldest first, as the authors scan
        for turn in event.get("conversation") or []:
            text = (turn.get("content") if isinstance(turn, dict) else None) or ""
            if isinstance(text, str) and query in text.lower():
                hits.append(
                    {
                        "conversation_id": str(event.get("source_object_id", "")),
                        "timestamp": event.get("source_timestamp"),
                        "role": turn.get("role"),
                        "snippet": text[:200],
                    }
                )
                if len(hits) >= limit:
                    return {"results": hits}
    return {"results": hits}


def _summarize_inbox(store: AppStore, app: str, args: dict[str, Any]) -> Any:
    target, hours = social_target(args["target_app"], "a social app"), args["window_hours"]
    since = max(0, store.t - hours * 3600)
    out = []
    for thread in store.threads(target)[:50]:
        recent = [m for m in thread.messages if message_time(m) >= since]
        if thread.latest_ts >= since and recent:
            header = thread.header()
            out.append(
                {
                    "thread_id": thread.thread_id,
                    "participants": header["participants"],
                    "is_group": header["is_group"],
                    "messages": recent,
                }
            )
    return {"threads": out, "window_hours": hours, "target_app": target}


def _get_calendar(store: AppStore, app: str, args: dict[str, Any]) -> Any:
    state: dict[str, dict[str, Any]] = {}
    for change in store.view.calendar:
        action, entry_id = change.get("action"), str(change.get("entry_id"))
        entry = change.get("entry")
        if action == "added" and isinstance(entry, dict) and entry.get("entry_id"):
            state[str(entry["entry_id"])] = dict(entry)
        elif action == "updated" and entry_id in state and isinstance(change.get("diff"), dict):
            for field, diff in change["diff"].items():
                if isinstance(diff, dict) and "to" in diff:
                    state[entry_id][field] = diff["to"]
        elif action == "removed" and entry_id in state:
            del state[entry_id]
    entries = []
    for entry in sorted(state.values(), key=lambda e: _number(e.get("start_ts"))):
        where = entry.get("location") or {}
        entries.append(
            {
                "title": entry.get("title", ""),
                "start": entry.get("formatted_timestamp") or entry.get("start_ts"),
                "start_ts": entry.get("start_ts"),
                "end_ts": entry.get("end_ts"),
                "location": where.get("city", "") if isinstance(where, dict) else where,
                "attendees": entry.get("attendees"),
                "notes": entry.get("notes") or entry.get("description"),
            }
        )
    return {"results": entries}


READS: Final[Mapping[str, Run]] = {
    "get_feed": _get_feed,
    "get_post": _get_post,
    "search": _search,
    "get_profile": _get_profile,
    "list_dms": _list_dms,
    "get_dm_thread": _get_dm_thread,
    "get_history": _get_history,
    "search_history": _search_history,
    "summarize_inbox": _summarize_inbox,
    "get_calendar": _get_calendar,
}
"""Each read tool's implementation, by its action (`ToolSpec.action`)."""


def _page(items: Sequence[Any], cursor: str | None, limit: int) -> dict[str, Any]:
    """One page of `items` from the offset `cursor` names: `{results, nextCursor?}`."""
    limit = _checked_limit(limit)
    if cursor is None or cursor == "":
        start = 0
    elif cursor.isascii() and cursor.isdigit():
        start = int(cursor)
    else:
        raise AppToolError(f"cursor {cursor!r} is not a nextCursor these tools give")
    out: dict[str, Any] = {"results": list(items[start : start + limit])}
    if start + limit < len(items):
        out["nextCursor"] = str(start + limit)
    return out


def _checked_limit(limit: int) -> int:
    if limit < 1:
        raise AppToolError(f"limit must be at least 1, got {limit}")
    return limit


def _number(value: Any) -> float:
    return value if isinstance(value, int | float) and not isinstance(value, bool) else 0
