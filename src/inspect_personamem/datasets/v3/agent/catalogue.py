"""The catalogue of the persona's app tools: each tool's name, app, parameters and
description, which are writes, and which writes a row is offered. Data only: what the
tools do is `reads.py` and `writes.py`, a session calling them `session.py`.

One server serves every app, each tool named `{app}_{action}` as the authors' registry
names them (`evaluation/mcp_tool_registry.py`@114a1876):

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

Which tools a row is offered: every read, always (the authors start every app's server,
calendar and AI Studio for every query: `mcp_config_builder.py`@02263749,
`inference_utils.dispatch_agent_run`@00c8a9f0, which never narrows `enabled_mcp_apps`;
their `mcp_tools_allowed` labels only check rules in audits). Writes: the issue asks for
"the write actions the task allows", so a row whose `state_write_policy` allows writes
(`writes_ok`, the authors' registry, or `append_writes`) is offered the write tools its
`mcp_tools_allowed` names (`allowed_writes`), and a `read_only` row none.

A bad call is an error, not a result (`AppToolError`, whose message the model reads);
a result is canonical JSON text (`dumps`), the same in every client.
"""

from __future__ import annotations

import inspect
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal

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


class AppToolError(Exception):
    """A call the tools refuse; the message goes back to the model."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def dumps(value: Any) -> str:
    """A tool result as text: canonical JSON, the same in every client."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def social_target(target_app: str, expected: str) -> str:
    """`target_app` as one of the social apps (any case), else AppToolError saying
    what was `expected`."""
    target = target_app.lower()
    if target not in SOCIAL_APPS:
        raise AppToolError(f"target_app must be {expected}, got '{target}'")
    return target


Kind = Literal["str", "int", "strs"]
_PYTHON_TYPES: Final[dict[Kind, Any]] = {"str": str, "int": int, "strs": list[str]}


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
    app: str
    action: str
    """What the tool does, the same for every app that has it (`get_feed`): the key of
    its implementation in `reads.READS` or `writes.WRITES`."""
    write: bool
    doc: str
    params: tuple[Param, ...]

    @property
    def name(self) -> str:
        return f"{self.app}_{self.action}"

    def docstring(self) -> str:
        args = "".join(f"\n    {p.name}: {p.doc}" for p in self.params)
        return f"{self.doc}\n\nArgs:{args}" if self.params else self.doc


def _cursor() -> Param:
    return Param("cursor", "str", "The nextCursor of the previous page; none: the first.", None)


def _limit(default: int) -> Param:
    return Param("limit", "int", f"The most results to return (default {default}).", default)


def _social_tools(app: str) -> list[ToolSpec]:
    name = app.capitalize()
    return [
        ToolSpec(
            app,
            "get_feed",
            False,
            f"The user's recent {name} feed, newest first, with the posts written in this session.",
            (_cursor(), _limit(20)),
        ),
        ToolSpec(
            app,
            "get_post",
            False,
            f"Full detail of one {name} post.",
            (Param("post_id", "str", "The post's id (post_id in the feed)."),),
        ),
        ToolSpec(
            app,
            "search",
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
        ),
        ToolSpec(
            app,
            "get_profile",
            False,
            "The user's profile: app personas and bio (no preferences).",
            (),
        ),
        ToolSpec(
            app,
            "list_dms",
            False,
            f"The user's {name} DM threads, the most recent first.",
            (_cursor(), _limit(20)),
        ),
        ToolSpec(
            app,
            "get_dm_thread",
            False,
            f"The messages of one {name} DM thread, oldest first.",
            (Param("thread_id", "str", "The thread's id (from list_dms)."), _cursor(), _limit(50)),
        ),
        ToolSpec(
            app,
            "create_post",
            True,
            f"Publish a post on {name} on the user's behalf (caption at most "
            f"{CAPTION_LIMITS[app]} characters).",
            (
                Param("caption", "str", "The post's text."),
                Param("media_refs", "strs", "References to the media attached, if any.", None),
                Param("alt_text", "str", "Alt text for the media, if any.", None),
            ),
        ),
        ToolSpec(
            app,
            "react",
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
        ),
        ToolSpec(
            app,
            "comment",
            True,
            f"Comment on a {name} post.",
            (Param("post_id", "str", "The post's id."), Param("text", "str", "The comment.")),
        ),
        ToolSpec(
            app,
            "send_dm",
            True,
            f"Send a {name} direct message on the user's behalf.",
            (
                Param("recipient_id", "str", "The recipient's id (a friend or thread member)."),
                Param("message", "str", "The message."),
            ),
        ),
    ]


def _history_tools(app: str, what: str) -> list[ToolSpec]:
    return [
        ToolSpec(
            app,
            "get_history",
            False,
            f"The user's recent {what} conversations, newest first, each with its turns.",
            (_cursor(), _limit(20)),
        ),
        ToolSpec(
            app,
            "search_history",
            False,
            f"Search past {what} turns (a substring of what the user or assistant said).",
            (Param("query", "str", "What to look for."), _limit(10)),
        ),
    ]


def _build_tools() -> dict[str, ToolSpec]:
    specs = [spec for app in SOCIAL_APPS for spec in _social_tools(app)]
    specs += _history_tools("chatbot", "chatbot")
    specs += [
        ToolSpec(
            "chatbot",
            "summarize_inbox",
            False,
            "The DMs of the last window_hours on a social app, by thread (raw messages, "
            "for you to summarize).",
            (
                Param("target_app", "str", "instagram, facebook or threads."),
                Param("window_hours", "int", "How many hours back (default 24).", 24),
            ),
        ),
        ToolSpec(
            "chatbot",
            "send_message",
            True,
            "Send a turn to the chatbot as the user.",
            (Param("message", "str", "The message."),),
        ),
        ToolSpec(
            "chatbot",
            "send_post_to_app",
            True,
            "Post on a social app from the chatbot, on the user's behalf.",
            (
                Param("target_app", "str", "instagram, facebook or threads."),
                Param("caption", "str", "The post's text."),
                Param("media_refs", "strs", "References to the media attached, if any.", None),
            ),
        ),
    ]
    specs += _history_tools("ai_studio", "AI Studio companion-chat")
    specs.append(
        ToolSpec(
            "calendar",
            "get_calendar",
            False,
            "The user's current calendar entries (title, start, end, location, attendees, "
            "notes), by start time.",
            (),
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
