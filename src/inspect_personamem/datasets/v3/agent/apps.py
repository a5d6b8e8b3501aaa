"""A persona's apps at one query's time, as tools: the one implementation behind the
in-process Inspect tools (`inspect_tools`) and the MCP server the package ships
(`app_server`).

An `AppSession` is built from what a model may see of the persona at the query's time T
(`streams.visible(user_id, T)`: events strictly before T, leak fields stripped, the
profile's safe slice, calendar changes before T) and the row's `mcp_tools_allowed` and
`state_write_policy`. `session.call(name, arguments)` gives a tool's result as canonical
JSON text (`dumps`); a bad call raises `AppToolError`, whose message the model reads.
`session.functions()` gives the offered tools as typed Python callables (for MCP and any
other client). One server serves every app, each tool named `{app}_{tool}` as the
authors' registry names them (`evaluation/mcp_tool_registry.py`@114a1876):

- instagram, facebook, threads (`evaluation/mcp_servers/_social_server.py`@1549bc98):
  reads `get_feed`, `get_post`, `search`, `get_profile`, `list_dms`, `get_dm_thread`;
  writes `create_post` (caption limits 2200 / 63206 / 500), `react` (each app's reaction
  whitelist), `comment`, `send_dm`;
- chatbot (`chatbot_mcp_server.py`@00c8a9f0): reads `get_history`, `search_history`,
  `summarize_inbox`; writes `send_message`, `send_post_to_app` (recorded, as the
  authors', as `{target_app}_create_post` on the target app);
- ai_studio (`ai_studio_mcp_server.py`@02263749): reads `get_history`, `search_history`;
- calendar (`calendar_mcp_server.py`@02263749): `calendar_get_calendar`, the entries
  folded from the changes before T.

Pagination, search and DM threads follow `evaluation/backend_query.py` (@00c8a9f0 and
@af993eb8): feeds and searches newest first and without DMs; `search_type` `post` (a
substring of title, caption or description), `hashtag` (an exact tag, `#` and case
aside) or `user` (an author id); a DM thread is an `is_dm` event carrying `messages`
(its `thread_id`, else its id), or `is_dm` events grouped by `thread_id` (one without
one is a thread alone, `__solo__{id}`), each message `{msg_id, sender, timestamp,
text}`. Every write appends a record `{tool, app, arguments, synthetic_event_id,
timestamp_ms, event}` (`mcp_overlay.py`@1549bc98's `writes.jsonl` record plus the call's
arguments) to `session.writes`; later reads of the same session see the written events,
as the authors' overlay does, and nothing else does (a new session starts empty).

Which tools a row is offered: every read, always (the authors start every app's server,
calendar and AI Studio for every query: `mcp_config_builder.py`@02263749,
`inference_utils.dispatch_agent_run`@00c8a9f0, which never narrows `enabled_mcp_apps`;
their `mcp_tools_allowed` labels only check rules in audits). Writes: the issue asks for
"the write actions the task allows", so a row whose `state_write_policy` allows writes
(`writes_ok`, the authors' registry, or `append_writes`) is offered the write tools its
`mcp_tools_allowed` names (`allowed_writes`), and a `read_only` row none. A write tool
not offered is not in `functions()`, and calling it raises `AppToolError`.

Where ours differs from the authors', and why:
- ids and times are deterministic: the n-th write of a session is `{app}_write_{n}` at
  `timestamp_ms` T*1000 + n (the authors': a uuid and the wall clock), so a run repeats;
- every read is masked strictly before T, `get_post` and `react`/`comment` targets
  included (the authors' `get_event_by_id` is not masked), and the messages inside a DM
  thread too; an id of an event at or after T is "not found", as an unknown one;
  `get_post` finds posts, not DMs (which `get_dm_thread` reads, masked);
- the calendar folds changes strictly before T (theirs `ts <= T`), as `streams` does;
- the profile is `streams`' safe slice; `send_dm` resolves its recipient among the
  authors of the app's visible events (theirs reads the profile's `friends`, which is
  scorer-side here);
- a bad call is an error, not a result: the authors' `{"error": ...}` results (empty
  caption, unknown reaction, unknown post) raise `AppToolError` with their message (an
  unknown id's names the app too; theirs `get_post` returns null), and so do unknown
  ids, unknown arguments, arguments of the wrong type, a `limit` below 1, a `cursor`
  this session did not give and an unknown `search_type` (theirs searches posts);
- one cursor for every paginated tool: the offset of the next page, as a decimal string
  (theirs: that for feeds, an opaque `base64(ts:id)` for searches and DMs);
- sent DMs are threads of their own in later `list_dms` and `get_dm_thread` reads, and
  searches see written posts (the authors' overlay reaches feeds and `get_post` only);
- writes of one query never reach another (the authors' runner keeps one overlay per
  persona run, so a query sees the writes of the queries before it).
"""

from __future__ import annotations

import inspect
import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal, TypeVar

from inspect_ai.tool import Tool, ToolDef, ToolError

from inspect_personamem.datasets.v3.persona.streams import PersonaStreams, PersonaView
from inspect_personamem.errors import PersonaMemDataError

SOCIAL_APPS: Final = ("instagram", "facebook", "threads")
CAPTION_LIMITS: Final = {"instagram": 2200, "facebook": 63206, "threads": 500}
REACTIONS: Final = {
    "instagram": frozenset({"like", "save", "share", "not_interested"}),
    "facebook": frozenset({"like", "love", "haha", "wow", "sad", "angry", "care"}),
    "threads": frozenset({"like", "quote_repost", "not_interested"}),
}
SEARCH_TYPES: Final = ("post", "hashtag", "user")
READ_ONLY_POLICIES: Final = ("read_only", "")
WRITE_POLICIES: Final = ("writes_ok", "append_writes")
"""`state_write_policy` values: the authors' registry has `read_only` / `writes_ok`;
`append_writes` is the generated rows' name for the latter; a row without one (empty)
is offered no write."""
LABELS: Final = {
    "none": (),
    "social": SOCIAL_APPS,
    "chatbot": ("chatbot",),
    "all": (*SOCIAL_APPS, "chatbot"),
}
"""`mcp_tools_allowed` labels and the apps whose writes they allow
(`ALLOWED_LABEL_TO_APPS`, `mcp_tool_registry.py`@114a1876)."""
HASHTAG = re.compile(r"#\w+")


class AppToolError(Exception):
    """A call the tools refuse; the message goes back to the model."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def dumps(value: Any) -> str:
    """A tool result as text: canonical JSON, the same in every client."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


# --- the tool table -------------------------------------------------------------------

Kind = Literal["str", "int", "strs"]
_F = TypeVar("_F", bound=Callable[..., Any])
_PYTHON_TYPES: Final[dict[Kind, Any]] = {"str": str, "int": int, "strs": list[str]}
_TYPE_WORDS: Final[dict[Kind, str]] = {
    "str": "a string",
    "int": "an integer",
    "strs": "a list of strings",
}


@dataclass(frozen=True)
class Param:
    name: str
    kind: Kind
    doc: str
    default: Any = inspect.Parameter.empty
    """`empty`: required; anything else (None included) makes it optional."""

    @property
    def required(self) -> bool:
        return self.default is inspect.Parameter.empty

    def annotation(self) -> Any:
        python = _PYTHON_TYPES[self.kind]
        return python | None if self.default is None else python


@dataclass(frozen=True)
class ToolSpec:
    name: str
    app: str
    write: bool
    doc: str
    params: tuple[Param, ...]
    run: Callable[[AppSession, str, dict[str, Any]], Any]
    """(session, app, arguments with defaults filled) -> the result's value."""

    def docstring(self) -> str:
        args = "".join(f"\n    {p.name}: {p.doc}" for p in self.params)
        return f"{self.doc}\n\nArgs:{args}" if self.params else self.doc


def _cursor() -> Param:
    return Param("cursor", "str", "The nextCursor of the previous page; none: the first.", None)


def _limit(default: int) -> Param:
    return Param("limit", "int", f"The most results to return (default {default}).", default)


# --- reads ----------------------------------------------------------------------------


def _get_feed(session: AppSession, app: str, args: dict[str, Any]) -> Any:
    items = [
        {
            "post_id": str(e.get("source_object_id", "")),
            "timestamp": e.get("source_timestamp"),
            "hashtags": e.get("source_hashtags", []),
            "content_type": e.get("content_type"),
            "title": _content(e).get("title"),
            "caption": _content(e).get("caption"),
            "author_id": e.get("author_id", "unknown"),
            "is_self_authored": bool(e.get("is_self_authored")),
        }
        for e in session.posts(app)
    ]
    return _page(items, args["cursor"], args["limit"])


def _get_post(session: AppSession, app: str, args: dict[str, Any]) -> Any:
    return session.post(app, args["post_id"])


def _search(session: AppSession, app: str, args: dict[str, Any]) -> Any:
    kind, query = args["search_type"], args["query"].lower().lstrip("#")
    if kind not in SEARCH_TYPES:
        raise AppToolError(f"search_type must be one of {', '.join(SEARCH_TYPES)}, got {kind!r}")
    hits = []
    for event in session.posts(app):
        if kind == "hashtag":
            match = query in [h.lower().lstrip("#") for h in event.get("source_hashtags") or []]
        elif kind == "user":
            match = bool(event.get("author_id")) and str(event["author_id"]).lower() == query
        else:
            content = _content(event)
            fields = (
                content.get("title"),
                content.get("caption"),
                content.get("overall_description"),
            )
            match = query in " ".join(str(v) for v in fields if v).lower()
        if match:
            hits.append({**event, "_app": app})
    return _page(hits, args["cursor"], args["limit"])


def _get_profile(session: AppSession, app: str, args: dict[str, Any]) -> Any:
    return dict(session.view.profile)


def _list_dms(session: AppSession, app: str, args: dict[str, Any]) -> Any:
    return _page(
        [thread.summary() for thread in session.threads(app)], args["cursor"], args["limit"]
    )


def _get_dm_thread(session: AppSession, app: str, args: dict[str, Any]) -> Any:
    thread = session.thread(app, args["thread_id"])
    return {**thread.header(), **_page(thread.messages, args["cursor"], args["limit"])}


def _get_history(session: AppSession, app: str, args: dict[str, Any]) -> Any:
    items = [
        {
            "conversation_id": str(e.get("source_object_id", "")),
            "timestamp": e.get("source_timestamp"),
            "conversation_type": e.get("conversation_type"),
            "conversation": e.get("conversation", []),
            "interaction_format": e.get("interaction_format", {}),
        }
        for e in session.posts(app)
    ]
    return _page(items, args["cursor"], args["limit"])


def _search_history(session: AppSession, app: str, args: dict[str, Any]) -> Any:
    query, limit = args["query"].lower(), _checked_limit(args["limit"])
    hits: list[dict[str, Any]] = []
    for event in reversed(session.posts(app)):  # oldest first, as the authors scan
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


def _summarize_inbox(session: AppSession, app: str, args: dict[str, Any]) -> Any:
    target, hours = _social_target(args["target_app"], "a social app"), args["window_hours"]
    since = max(0, session.t - hours * 3600)
    out = []
    for thread in session.threads(target)[:50]:
        recent = [m for m in thread.messages if _message_time(m) >= since]
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


def _get_calendar(session: AppSession, app: str, args: dict[str, Any]) -> Any:
    state: dict[str, dict[str, Any]] = {}
    for change in session.view.calendar:
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


# --- writes ---------------------------------------------------------------------------


def _create_post(session: AppSession, app: str, args: dict[str, Any]) -> Any:
    caption, media = _caption(args["caption"]), args["media_refs"]
    if len(caption) > CAPTION_LIMITS[app]:
        raise AppToolError(f"caption exceeds {app} limit of {CAPTION_LIMITS[app]} chars")
    event = {
        "source_interaction_type": "explicit_positive",
        "source_hashtags": HASHTAG.findall(caption),
        "content_type": "image" if media else "text",
        "content": {"caption": caption, "media_refs": media or [], "alt_text": args["alt_text"]},
        "author_id": "self",
        "relationship": "self",
        "is_self_authored": True,
        "is_dm": False,
        "interaction_format": {
            "app": app.capitalize(),
            "action": "posted_photo" if media else "posted_text",
        },
    }
    record = session.write(f"{app}_create_post", app, args, event)
    return {"post_id": record["synthetic_event_id"], "created_at": record["timestamp_ms"]}


def _react(session: AppSession, app: str, args: dict[str, Any]) -> Any:
    post_id, reaction = args["post_id"], args["reaction_type"]
    if reaction not in REACTIONS[app]:
        valid = sorted(REACTIONS[app])
        raise AppToolError(f"reaction '{reaction}' not allowed on {app}; valid: {valid}")
    target = session.post(app, post_id)
    negative = reaction == "not_interested"
    event = {
        "source_interaction_type": "explicit_negative" if negative else "explicit_positive",
        "source_hashtags": target.get("source_hashtags", []),
        "content_type": "text",
        "content": {"caption": f"reaction={reaction} on post={post_id}"},
        "author_id": "self",
        "is_self_authored": False,
        "is_dm": False,
        "interaction_format": {"app": app.capitalize(), "action": f"reacted_{reaction}"},
        "reacted_to_post_id": post_id,
    }
    record = session.write(f"{app}_react", app, args, event)
    return {"ok": True, "reaction_id": record["synthetic_event_id"]}


def _comment(session: AppSession, app: str, args: dict[str, Any]) -> Any:
    post_id, text = args["post_id"], args["text"]
    if not text.strip():
        raise AppToolError("comment text must be non-empty")
    target = session.post(app, post_id)
    event = {
        "source_interaction_type": "explicit_positive",
        "source_hashtags": target.get("source_hashtags", []),
        "content_type": "text",
        "content": {"caption": text},
        "author_id": "self",
        "is_self_authored": True,
        "is_dm": False,
        "interaction_format": {"app": app.capitalize(), "action": "commented"},
        "commented_on_post_id": post_id,
    }
    record = session.write(f"{app}_comment", app, args, event)
    return {"ok": True, "comment_id": record["synthetic_event_id"]}


def _send_dm(session: AppSession, app: str, args: dict[str, Any]) -> Any:
    recipient, message = args["recipient_id"], args["message"]
    if not message.strip():
        raise AppToolError("message must be non-empty")
    relationship = session.relationship(app, recipient)
    event = {
        "source_interaction_type": "explicit_positive",
        "source_hashtags": [],
        "content_type": "text",
        "content": {"caption": message},
        "author_id": "self",
        "recipient_id": recipient,
        "relationship": relationship or "unknown",
        "is_self_authored": True,
        "is_dm": True,
        "interaction_format": {"app": app.capitalize(), "action": "sent_dm"},
    }
    record = session.write(f"{app}_send_dm", app, args, event)
    return {
        "ok": True,
        "message_id": record["synthetic_event_id"],
        "recipient_resolved": relationship is not None,
    }


def _send_message(session: AppSession, app: str, args: dict[str, Any]) -> Any:
    if not args["message"]:
        raise AppToolError("empty message")
    event = {
        "author_id": "self",
        "content": {"caption": args["message"]},
        "interaction_format": {"app": "Chatbot", "action": "user_message"},
        "is_self_authored": True,
    }
    record = session.write("chatbot_send_message", "chatbot", args, event)
    return {"ok": True, "message_id": record["synthetic_event_id"]}


def _send_post_to_app(session: AppSession, app: str, args: dict[str, Any]) -> Any:
    target = _social_target(args["target_app"], "instagram|facebook|threads")
    caption, media = _caption(args["caption"]), args["media_refs"]
    event = {
        "source_interaction_type": "explicit_positive",
        "source_hashtags": HASHTAG.findall(caption),
        "content_type": "image" if media else "text",
        "content": {"caption": caption, "media_refs": media or []},
        "author_id": "self",
        "is_self_authored": True,
        "is_dm": False,
        "interaction_format": {"app": target.capitalize(), "action": "posted_via_chatbot"},
        "dispatched_from": "chatbot",
    }
    record = session.write(f"{target}_create_post", target, args, event)
    return {"ok": True, "post_id": record["synthetic_event_id"], "target_app": target}


def _social_tools(app: str) -> list[ToolSpec]:
    name = app.capitalize()
    return [
        ToolSpec(
            f"{app}_get_feed",
            app,
            False,
            f"The user's recent {name} feed, newest first, with the posts written in this session.",
            (_cursor(), _limit(20)),
            _get_feed,
        ),
        ToolSpec(
            f"{app}_get_post",
            app,
            False,
            f"Full detail of one {name} post.",
            (Param("post_id", "str", "The post's id (post_id in the feed)."),),
            _get_post,
        ),
        ToolSpec(
            f"{app}_search",
            app,
            False,
            f"Search {name} posts, newest first.",
            (
                Param("query", "str", "What to look for."),
                Param(
                    "search_type",
                    "str",
                    "post (title, caption, description), hashtag (an exact hashtag) or "
                    "user (an author id).",
                    "post",
                ),
                _cursor(),
                _limit(20),
            ),
            _search,
        ),
        ToolSpec(
            f"{app}_get_profile",
            app,
            False,
            "The user's profile: app personas and bio (no preferences).",
            (),
            _get_profile,
        ),
        ToolSpec(
            f"{app}_list_dms",
            app,
            False,
            f"The user's {name} DM threads, the most recent first.",
            (_cursor(), _limit(20)),
            _list_dms,
        ),
        ToolSpec(
            f"{app}_get_dm_thread",
            app,
            False,
            f"The messages of one {name} DM thread, oldest first.",
            (Param("thread_id", "str", "The thread's id (from list_dms)."), _cursor(), _limit(50)),
            _get_dm_thread,
        ),
        ToolSpec(
            f"{app}_create_post",
            app,
            True,
            f"Publish a post on {name} on the user's behalf (caption at most "
            f"{CAPTION_LIMITS[app]} characters).",
            (
                Param("caption", "str", "The post's text."),
                Param("media_refs", "strs", "References to the media attached, if any.", None),
                Param("alt_text", "str", "Alt text for the media, if any.", None),
            ),
            _create_post,
        ),
        ToolSpec(
            f"{app}_react",
            app,
            True,
            f"React to a {name} post.",
            (
                Param("post_id", "str", "The post's id."),
                Param(
                    "reaction_type",
                    "str",
                    f"One of {', '.join(sorted(REACTIONS[app]))}.",
                    "like",
                ),
            ),
            _react,
        ),
        ToolSpec(
            f"{app}_comment",
            app,
            True,
            f"Comment on a {name} post.",
            (Param("post_id", "str", "The post's id."), Param("text", "str", "The comment.")),
            _comment,
        ),
        ToolSpec(
            f"{app}_send_dm",
            app,
            True,
            f"Send a {name} direct message on the user's behalf.",
            (
                Param("recipient_id", "str", "The recipient's id (a friend or thread member)."),
                Param("message", "str", "The message."),
            ),
            _send_dm,
        ),
    ]


def _history_tools(app: str, what: str) -> list[ToolSpec]:
    return [
        ToolSpec(
            f"{app}_get_history",
            app,
            False,
            f"The user's recent {what} conversations, newest first, each with its turns.",
            (_cursor(), _limit(20)),
            _get_history,
        ),
        ToolSpec(
            f"{app}_search_history",
            app,
            False,
            f"Search past {what} turns (a substring of what the user or assistant said).",
            (Param("query", "str", "What to look for."), _limit(10)),
            _search_history,
        ),
    ]


def _build_tools() -> dict[str, ToolSpec]:
    specs = [spec for app in SOCIAL_APPS for spec in _social_tools(app)]
    specs += _history_tools("chatbot", "chatbot")
    specs += [
        ToolSpec(
            "chatbot_summarize_inbox",
            "chatbot",
            False,
            "The DMs of the last window_hours on a social app, by thread (raw messages, "
            "for you to summarize).",
            (
                Param("target_app", "str", "instagram, facebook or threads."),
                Param("window_hours", "int", "How many hours back (default 24).", 24),
            ),
            _summarize_inbox,
        ),
        ToolSpec(
            "chatbot_send_message",
            "chatbot",
            True,
            "Send a turn to the chatbot as the user.",
            (Param("message", "str", "The message."),),
            _send_message,
        ),
        ToolSpec(
            "chatbot_send_post_to_app",
            "chatbot",
            True,
            "Post on a social app from the chatbot, on the user's behalf.",
            (
                Param("target_app", "str", "instagram, facebook or threads."),
                Param("caption", "str", "The post's text."),
                Param("media_refs", "strs", "References to the media attached, if any.", None),
            ),
            _send_post_to_app,
        ),
    ]
    specs += _history_tools("ai_studio", "AI Studio companion-chat")
    specs.append(
        ToolSpec(
            "calendar_get_calendar",
            "calendar",
            False,
            "The user's current calendar entries (title, start, end, location, attendees, "
            "notes), by start time.",
            (),
            _get_calendar,
        )
    )
    return {spec.name: spec for spec in specs}


TOOLS: Final[Mapping[str, ToolSpec]] = _build_tools()
"""Every tool, by name, in a fixed order."""
READ_TOOLS: Final = frozenset(name for name, spec in TOOLS.items() if not spec.write)
WRITE_TOOLS: Final = frozenset(name for name, spec in TOOLS.items() if spec.write)


def is_write(name: str) -> bool:
    return name in WRITE_TOOLS


def allowed_writes(mcp_tools_allowed: str, state_write_policy: str) -> frozenset[str]:
    """The write tools a row is offered: none under a read-only policy; else those its
    `mcp_tools_allowed` names, as labels (`LABELS`) or tool names (`instagram_send_dm`
    or Claude Code's `mcp__instagram__send_dm`), `;`, `,`, `|` or space separated. A
    read tool named adds nothing (reads are always offered). Raises ValueError naming
    the field for a policy or a name it does not know."""
    policy = state_write_policy.strip()
    if policy not in READ_ONLY_POLICIES + WRITE_POLICIES:
        known = ", ".join(p for p in READ_ONLY_POLICIES + WRITE_POLICIES if p)
        raise ValueError(f"field 'state_write_policy': {policy!r} is not one of {known}")
    writes: set[str] = set()
    for token in re.split(r"[;,|\s]+", mcp_tools_allowed.strip()):
        name = re.sub(r"^mcp__([a-z_]+?)__", r"\1_", token)
        if token in LABELS:
            writes |= {n for n in WRITE_TOOLS if TOOLS[n].app in LABELS[token]}
        elif name in WRITE_TOOLS:
            writes.add(name)
        elif token and name not in READ_TOOLS:
            raise ValueError(
                f"field 'mcp_tools_allowed': {token!r} is neither a tool nor one of "
                f"{', '.join(LABELS)}"
            )
    return frozenset(writes) if policy in WRITE_POLICIES else frozenset()


# --- the session ----------------------------------------------------------------------


@dataclass
class _Thread:
    thread_id: str
    participants: list[Any]
    is_group: bool
    source_hashtags: list[Any]
    messages: list[dict[str, Any]]

    @property
    def latest_ts(self) -> int:
        return max(_message_time(m) for m in self.messages)

    def header(self) -> dict[str, Any]:
        return {
            "thread_id": self.thread_id,
            "participants": self.participants,
            "is_group": self.is_group,
            "source_hashtags": self.source_hashtags,
        }

    def summary(self) -> dict[str, Any]:
        text = self.messages[-1].get("text") or ""
        return {
            **self.header(),
            "latest_ts": self.latest_ts,
            "last_message_preview": text[:80] if isinstance(text, str) else "",
            "unread_count": 0,
        }


class AppSession:
    """The persona's apps at one query's time T, with the writes of this session."""

    def __init__(
        self,
        view: PersonaView,
        *,
        mcp_tools_allowed: str,
        state_write_policy: str,
        query_id: str = "",
    ) -> None:
        self.view = view
        self.t = view.t
        try:
            self.offered_writes = allowed_writes(mcp_tools_allowed, state_write_policy)
        except ValueError as error:
            where = f"persona {view.user_id}" + (f", query {query_id}" if query_id else "")
            raise PersonaMemDataError(f"{where}: {error}") from None
        self.writes: list[dict[str, Any]] = []
        self._released: dict[str, list[dict[str, Any]]] = {}
        for event in view.events:  # time order
            self._released.setdefault(event.app, []).append(dict(event.visible_fields))

    # -- what the tools read

    def offered(self) -> list[str]:
        """The tools this session offers, in the table's order."""
        return [n for n in TOOLS if n in READ_TOOLS or n in self.offered_writes]

    def events(self, app: str) -> list[dict[str, Any]]:
        """The app's events in time order: those released before T, then this session's
        writes (after T's released events by construction)."""
        written = [_written_event(r) for r in self.writes if r["app"] == app]
        return [*self._released.get(app, []), *written]

    def posts(self, app: str) -> list[dict[str, Any]]:
        """The app's events but DMs, newest first (of events at one time, the later in
        the file first; the session's writes last made first)."""
        return [e for e in reversed(self.events(app)) if not e.get("is_dm")]

    def post(self, app: str, post_id: str) -> dict[str, Any]:
        for event in self.events(app):
            if not event.get("is_dm") and str(event.get("source_object_id")) == post_id:
                return event
        raise AppToolError(f"post_id {post_id!r} not found on {app}")

    def threads(self, app: str) -> list[_Thread]:
        """The app's DM threads with a message before T (or written), the most recent
        first."""
        threads: dict[str, _Thread] = {}
        released = len(self._released.get(app, []))
        for index, event in enumerate(self.events(app)):
            if event.get("is_dm"):
                _add_to_thread(threads, event, masked_at=self.t if index < released else None)
        found = [t for t in threads.values() if t.messages]
        for thread in found:
            thread.messages.sort(key=lambda m: (_message_time(m), str(m.get("msg_id", ""))))
        return sorted(found, key=lambda t: (-t.latest_ts, t.thread_id))

    def thread(self, app: str, thread_id: str) -> _Thread:
        for thread in self.threads(app):
            if thread.thread_id == thread_id:
                return thread
        raise AppToolError(f"thread_id {thread_id!r} not found on {app}")

    def relationship(self, app: str, person: str) -> str | None:
        """How `person` relates to the user, from the latest visible event of the app
        they wrote (None: nobody by that id wrote one)."""
        found: str | None = None
        for event in self._released.get(app, []):
            if str(event.get("author_id")) == person:
                found = str(event.get("relationship") or "unknown")
        return found

    # -- writes

    def write(
        self, tool: str, app: str, arguments: dict[str, Any], event: dict[str, Any]
    ) -> dict[str, Any]:
        n = len(self.writes) + 1
        record = {
            "tool": tool,
            "app": app,
            "arguments": arguments,
            "synthetic_event_id": f"{app}_write_{n}",
            "timestamp_ms": self.t * 1000 + n,
            "event": event,
        }
        self.writes.append(record)
        return record

    # -- calls

    def call(self, name: str, arguments: Mapping[str, Any]) -> str:
        """Run one tool: its result as canonical JSON text, or AppToolError."""
        spec = TOOLS.get(name)
        if spec is None:
            raise AppToolError(f"unknown tool {name!r}")
        if spec.write and name not in self.offered_writes:
            raise AppToolError(f"{name} is not offered for this query (it allows no such write)")
        return dumps(spec.run(self, spec.app, _checked(spec, arguments)))

    def functions(self) -> dict[str, Callable[..., str]]:
        """The offered tools as typed callables (keyword arguments), each returning
        `call`'s text: for MCP servers and other clients that read signatures."""
        return {name: self._function(TOOLS[name]) for name in self.offered()}

    def _function(self, spec: ToolSpec) -> Callable[..., str]:
        def function(**arguments: Any) -> str:
            return self.call(spec.name, arguments)

        return _typed(function, spec, str)


def session_for(streams: PersonaStreams, metadata: Mapping[str, Any]) -> AppSession:
    """A sample's session: its persona (`user_id`) at its time (`ts`), offered the
    writes its row allows (`mcp_tools_allowed`, `state_write_policy`)."""
    return AppSession(
        streams.visible(str(metadata["user_id"]), int(metadata["ts"])),
        mcp_tools_allowed=str(metadata["mcp_tools_allowed"]),
        state_write_policy=str(metadata["state_write_policy"]),
        query_id=str(metadata.get("query_id", "")),
    )


def inspect_tools(session: AppSession) -> list[Tool]:
    """The session's offered tools as Inspect tools: the same text as `session.call`
    (never truncated, `max_output=0`), an `AppToolError` as a `ToolError` with its
    message."""
    return [_inspect_tool(session, TOOLS[name]) for name in session.offered()]


def _inspect_tool(session: AppSession, spec: ToolSpec) -> Tool:
    async def run(**arguments: Any) -> str:
        try:
            return session.call(spec.name, arguments)
        except AppToolError as error:
            raise ToolError(error.message) from None

    return ToolDef(
        _typed(run, spec, str),
        name=spec.name,
        description=spec.doc,
        parameters={p.name: p.doc for p in spec.params},
        max_output=0,
    ).as_tool()


def _typed(function: _F, spec: ToolSpec, returns: Any) -> _F:
    """`function` (taking keyword arguments) with the tool's name, docstring and typed
    signature."""
    parameters = [
        inspect.Parameter(
            p.name, inspect.Parameter.KEYWORD_ONLY, default=p.default, annotation=p.annotation()
        )
        for p in spec.params
    ]
    typed: Any = function
    typed.__name__ = typed.__qualname__ = spec.name
    typed.__doc__ = spec.docstring()
    typed.__signature__ = inspect.Signature(parameters, return_annotation=returns)
    typed.__annotations__ = {p.name: p.annotation() for p in spec.params} | {"return": returns}
    return function


def _checked(spec: ToolSpec, arguments: Mapping[str, Any]) -> dict[str, Any]:
    """The arguments with defaults filled, each of its kind; else AppToolError."""
    known = {p.name: p for p in spec.params}
    for key in arguments:
        if key not in known:
            takes = ", ".join(known) or "no arguments"
            raise AppToolError(f"{spec.name}: unknown argument {key!r} (it takes {takes})")
    out: dict[str, Any] = {}
    for param in spec.params:
        value = arguments.get(param.name)
        if value is None:
            if param.required:
                raise AppToolError(f"{spec.name}: missing required argument {param.name!r}")
            out[param.name] = param.default
        elif not _of_kind(value, param.kind):
            raise AppToolError(
                f"{spec.name}: argument {param.name!r} must be {_TYPE_WORDS[param.kind]}, "
                f"got {dumps(value)[:80]}"
            )
        else:
            out[param.name] = value
    return out


def _of_kind(value: Any, kind: Kind) -> bool:
    if kind == "int":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "str":
        return isinstance(value, str)
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


# --- helpers --------------------------------------------------------------------------


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


def _caption(caption: str) -> str:
    if not caption.strip():
        raise AppToolError("caption must be non-empty")
    return caption


def _social_target(target_app: str, expected: str) -> str:
    target = target_app.lower()
    if target not in SOCIAL_APPS:
        raise AppToolError(f"target_app must be {expected}, got '{target}'")
    return target


def _content(event: Mapping[str, Any]) -> Mapping[str, Any]:
    content = event.get("content")
    return content if isinstance(content, dict) else {}


def _number(value: Any) -> float:
    return value if isinstance(value, int | float) and not isinstance(value, bool) else 0


def _message_time(message: Mapping[str, Any]) -> int:
    ts = message.get("timestamp")
    return ts if isinstance(ts, int) and not isinstance(ts, bool) else 0


def _written_event(record: Mapping[str, Any]) -> dict[str, Any]:
    """A write record's event as reads show it (`events_for_app`, mcp_overlay.py): at T,
    after every released event."""
    event = dict(record["event"])
    event.setdefault("source_object_id", record["synthetic_event_id"])
    event.setdefault("source_timestamp", record["timestamp_ms"] // 1000)
    event.setdefault("is_self_authored", record["tool"].endswith("_create_post"))
    event.setdefault("is_dm", record["tool"].endswith("_send_dm"))
    return event


def _add_to_thread(
    threads: dict[str, _Thread], event: Mapping[str, Any], masked_at: int | None
) -> None:
    """Add a DM event to its thread: its `messages` (those with a time before
    `masked_at`; a message without an integer time is left out, as it cannot be placed),
    or the event itself as one message."""
    event_id = str(event.get("source_object_id", ""))
    embedded = event.get("messages")
    if isinstance(embedded, list):
        thread_id = str(event.get("thread_id") or event_id)
        messages = [
            dict(m)
            for m in embedded
            if isinstance(m, dict)
            and isinstance(m.get("timestamp"), int)
            and not isinstance(m.get("timestamp"), bool)
            and (masked_at is None or m["timestamp"] < masked_at)
        ]
        people = list(event.get("participants") or [])
    else:
        thread_id = str(event.get("thread_id") or f"__solo__{event_id}")
        sender = event.get("author_id") or "unknown"
        text = _content(event).get("caption") or _format(event).get("user_message") or ""
        messages = [
            {
                "msg_id": event_id,
                "sender": sender,
                "timestamp": event.get("source_timestamp"),
                "text": text,
            }
        ]
        people = [sender, *([event["recipient_id"]] if event.get("recipient_id") else [])]
    thread = threads.get(thread_id)
    if thread is None:
        thread = threads[thread_id] = _Thread(
            thread_id, [], False, list(event.get("source_hashtags") or []), []
        )
    thread.is_group = thread.is_group or bool(event.get("is_group") or event.get("is_group_dm"))
    thread.participants = sorted({*map(str, thread.participants), *map(str, people)})
    thread.messages.extend(messages)


def _format(event: Mapping[str, Any]) -> Mapping[str, Any]:
    value = event.get("interaction_format")
    return value if isinstance(value, dict) else {}
