"""The persona's apps as tools (`datasets/v3/agent/session.py` and the modules under it),
over a generated persona whose every event, calendar change, DM message, stripped field
and hidden profile key is marked: every read tool called with every argument shape, at
queries' times across the history, returns nothing at or after the query's time and no
hidden field; writes reach the session's later reads and no other session; the offered
tools follow the row.

The markers: event k carries `EVM{k}X` in its hashtags, caption, user message and
conversation (every rendering the tools give shows one of them); each of its stripped
fields a `LEAK-` value; calendar change i `CAL{i}X` in the title or notes it sets; a
thread of messages embedded in one DM event (`thread-embedded`, as the authors' newer
backend has them) `MSG{n}X` in message n; the profile's hidden keys `PROFILEHIDDENX`.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from inspect_ai.tool import ToolDef, ToolError
from support.v3_backend import STRIPPED_PREFERENCE, leak

from inspect_personamem.datasets.v3.agent.catalogue import (
    READ_TOOLS,
    SEARCH_TYPES,
    TOOLS,
    WRITE_TOOLS,
    AppToolError,
    allowed_writes,
    dumps,
    is_write,
)
from inspect_personamem.datasets.v3.agent.inspect_tools import inspect_tools
from inspect_personamem.datasets.v3.agent.reads import READS
from inspect_personamem.datasets.v3.agent.session import AppSession, session_for
from inspect_personamem.datasets.v3.agent.writes import WRITES
from inspect_personamem.datasets.v3.generator import generate
from inspect_personamem.datasets.v3.persona.histories import PersonaContexts
from inspect_personamem.datasets.v3.persona.streams import PersonaStreams
from inspect_personamem.datasets.v3.release.records import V3Query, read_queries
from inspect_personamem.datasets.v3.release.spec import APPS
from inspect_personamem.datasets.v3.task_types.samples import query_to_sample
from inspect_personamem.errors import PersonaMemDataError

EVENT = re.compile(r"EVM(\d+)X")
CALENDAR = re.compile(r"CAL(\d+)X")
MESSAGE = re.compile(r"MSG(\d+)X")
HIDDEN = re.compile(r"LEAK-|PROFILEHIDDENX")
EMBEDDED = "thread-embedded"
MESSAGE_OFFSETS = (-100, -1, 0, 1, 100)
"""The embedded thread's message times around the anchor query's time."""
SOCIAL = ("instagram", "facebook", "threads")


class Marked:
    """The marked persona: its folder, and each marker's time; its files read once, at
    the first session (after the fixture marks them), and shared by every session as a
    run shares them across its samples."""

    def __init__(self, root: Path, uid: str) -> None:
        self.root, self.uid = root, uid
        self.backend = root / "backend"
        self.streams = PersonaStreams(self.backend)
        self.queries: list[V3Query] = read_queries(root / f"benchmark/{uid}/queries.csv")
        self.events: dict[int, int] = {}
        self.ids: dict[str, list[tuple[str, int]]] = {app: [] for app in APPS}
        self.calendar: dict[int, int] = {}
        self.messages: dict[int, int] = {}
        self.anchor = self.query("agentic_auto_reply").ts

    def query(self, task_type: str) -> V3Query:
        return next(q for q in self.queries if q.task_type == task_type)

    def session(self, query: V3Query, allowed: str = "", policy: str = "") -> AppSession:
        view = self.streams.visible(self.uid, query.ts)
        return AppSession(
            view,
            mcp_tools_allowed=allowed or query.mcp_tools_allowed,
            state_write_policy=policy or query.state_write_policy,
        )


def _mark_event(event: dict[str, Any], k: int) -> None:
    mark = f"EVM{k}X"
    event["source_hashtags"] = [*event.get("source_hashtags", []), f"#{mark}"]
    if isinstance(event.get("content"), dict):
        event["content"]["caption"] = f"{event['content'].get('caption', '')} {mark}"
    event["interaction_format"]["user_message"] = f"{mark} said"
    for turn in event.get("conversation") or []:
        turn["content"] = f"{turn['content']} {mark}"
    event["split"] = leak("split", mark)
    for preference in event.get("preferences", []):
        preference |= {field: leak(field, mark) for field in STRIPPED_PREFERENCE}


@pytest.fixture(scope="module")
def marked(tmp_path_factory: pytest.TempPathFactory) -> Marked:
    root = tmp_path_factory.mktemp("v3apps")
    [uid] = generate(root, personas=1, queries_per_type=2, seed=5).personas
    persona = Marked(root, uid)
    folder = persona.backend / uid
    for app in APPS:
        path = folder / f"{app}.json"
        events = json.loads(path.read_text(encoding="utf-8"))
        if app == "instagram":  # a DM thread whose messages straddle the anchor's time
            t = persona.anchor
            messages = [
                {"msg_id": f"m{n}", "sender": "friend_1", "timestamp": t + dt, "text": f"MSG{n}X"}
                for n, dt in enumerate(MESSAGE_OFFSETS)
            ]
            persona.messages = {n: t + dt for n, dt in enumerate(MESSAGE_OFFSETS)}
            events.append(
                {
                    "source_object_id": "dm-embedded-1",
                    "source_timestamp": t - 3600,
                    "source_hashtags": [],
                    "source_interaction_type": "explicit_positive",
                    "interaction_format": {"app": "Instagram", "action": "dm_thread"},
                    "is_dm": True,
                    "thread_id": EMBEDDED,
                    "participants": ["friend_1", "self"],
                    "messages": messages,
                }
            )
        for event in events:
            k = len(persona.events)
            persona.events[k] = event["source_timestamp"]
            persona.ids[app].append((str(event["source_object_id"]), event["source_timestamp"]))
            _mark_event(event, k)
        path.write_text(json.dumps(events), encoding="utf-8")
    calendar_path = folder / "calendar.json"
    calendar = json.loads(calendar_path.read_text(encoding="utf-8"))
    for i, mod in enumerate(calendar["modifications"]):
        persona.calendar[i] = mod["ts"]
        if mod["action"] == "added":
            mod["entry"]["title"] += f" CAL{i}X"
        if mod["action"] == "updated":
            mod["diff"]["notes"]["to"] += f" CAL{i}X"
    calendar_path.write_text(json.dumps(calendar), encoding="utf-8")
    profile_path = folder / "profile.json"
    profile = json.loads(profile_path.read_text(encoding="utf-8"))
    profile["secret"] = "PROFILEHIDDENX"
    profile["hidden_personas"][0]["label"] = "PROFILEHIDDENX"
    profile["friends"][0]["display_name"] = "PROFILEHIDDENX"
    profile_path.write_text(json.dumps(profile), encoding="utf-8")
    return persona


# --- leaks ----------------------------------------------------------------------------

CURSORS = (None, "", "0", "1", "2", "39", str(10**9), "-1", "abc", "1.5", " 3", "٣")
LIMITS = (1, 2, 20, 10**9, 0, -5)


def _paged(extra: dict[str, Any]) -> Iterator[dict[str, Any]]:
    for cursor in CURSORS:
        for limit in LIMITS:
            yield {**extra, "cursor": cursor, "limit": limit}


def every_read_call(persona: Marked, session: AppSession) -> Iterator[tuple[str, dict[str, Any]]]:
    """Every read tool with every argument shape: first, last and out-of-range pages,
    bad cursors and limits, every id of the persona (before, at and after T, unknown),
    and search terms that only events at or after T contain."""
    t = session.t
    future_marks = [f"EVM{k}X" for k, ts in persona.events.items() if ts >= t][:40]
    past_marks = [f"EVM{k}X" for k, ts in persona.events.items() if ts < t][:5]
    terms = [*future_marks, *past_marks, "", "#", "MSG4X", "CAL1X", "LEAK-", "PROFILEHIDDENX"]
    for app in SOCIAL:
        yield from ((f"{app}_get_feed", a) for a in _paged({}))
        yield from ((f"{app}_list_dms", a) for a in _paged({}))
        for post_id, _ in persona.ids[app]:
            yield f"{app}_get_post", {"post_id": post_id}
        for post_id in ("", "nope", "-1", f"{app}_write_1"):
            yield f"{app}_get_post", {"post_id": post_id}
        for term in terms:
            for kind in ("post", "hashtag", "user", "bogus"):
                yield f"{app}_search", {"query": term, "search_type": kind}
                yield f"{app}_search", {"query": term, "search_type": kind, "limit": 10**9}
        yield from ((f"{app}_search", a) for a in _paged({"query": ""}))
        listed = json.loads(session.call(f"{app}_list_dms", {"limit": 10**9}))["results"]
        threads = {f"__solo__{i}" for i, _ in persona.ids[app]} | {EMBEDDED, "", "nope"}
        threads |= {row["thread_id"] for row in listed}
        for thread_id in sorted(threads):
            yield f"{app}_get_dm_thread", {"thread_id": thread_id, "limit": 10**9}
        yield from ((f"{app}_get_dm_thread", a) for a in _paged({"thread_id": EMBEDDED}))
        yield f"{app}_get_profile", {}
    for app in ("chatbot", "ai_studio"):
        yield from ((f"{app}_get_history", a) for a in _paged({}))
        for term in terms:
            for limit in (1, 10, 10**9, 0, -3):
                yield f"{app}_search_history", {"query": term, "limit": limit}
    for target in (*SOCIAL, "Instagram", "chatbot", ""):
        for hours in (1, 24, 10**6, 0, -5):
            yield "chatbot_summarize_inbox", {"target_app": target, "window_hours": hours}
    yield "calendar_get_calendar", {}


TIME_KEYS = {"timestamp", "source_timestamp", "latest_ts", "ts"}
"""Keys whose value is when something happened (a calendar entry's start and end may
lie ahead: what the user had planned by T)."""


def times_in(value: Any) -> Iterator[int]:
    """Every time in a JSON value, at any depth."""
    if isinstance(value, dict):
        for key, item in value.items():
            if key in TIME_KEYS and isinstance(item, int):
                yield item
            yield from times_in(item)
    elif isinstance(value, list):
        for item in value:
            yield from times_in(item)


def shown(session: AppSession, name: str, arguments: dict[str, Any]) -> str:
    """What the model reads back: the result, or the refusal's message."""
    try:
        return session.call(name, arguments)
    except AppToolError as error:
        return error.message


def shown_in_time(marked: Marked, session: AppSession, name: str, arguments: dict[str, Any]) -> str:
    """What the model reads back from a call, checked: no hidden field, no time at or
    after the session's, no marker of an event, a calendar change or a message at or
    after it."""
    t, text = session.t, shown(session, name, arguments)
    assert not HIDDEN.search(text), (name, arguments, HIDDEN.search(text))
    if text.startswith("{"):
        assert all(ts < t for ts in times_in(json.loads(text))), (name, arguments)
    late = [k for k in map(int, EVENT.findall(text)) if marked.events[k] >= t]
    assert not late, (name, arguments, late)
    late = [i for i in map(int, CALENDAR.findall(text)) if marked.calendar[i] >= t]
    assert not late, (name, arguments, late)
    late = [n for n in map(int, MESSAGE.findall(text)) if marked.messages[n] >= t]
    assert not late, (name, arguments, late)
    return text


LEAK_QUERIES = (
    "agentic_auto_reply",
    "agentic_dm_digest",
    "agentic_group_dm_summary",
    "agentic_vague_refind",
    "active_mistake_prevention",
    "proactive_close_friend_update",
)


@pytest.mark.parametrize("task_type", LEAK_QUERIES)
def test_no_read_with_any_argument_returns_the_future_or_a_hidden_field(
    marked: Marked, task_type: str
) -> None:
    query = marked.query(task_type)
    session = marked.session(query)
    t, calls = session.t, 0
    seen_events: set[int] = set()
    seen_messages: set[int] = set()
    seen_calendar: set[int] = set()
    for name, arguments in every_read_call(marked, session):
        text = shown_in_time(marked, session, name, arguments)
        calls += 1
        seen_events |= set(map(int, EVENT.findall(text)))
        seen_messages |= set(map(int, MESSAGE.findall(text)))
        seen_calendar |= set(map(int, CALENDAR.findall(text)))
    assert session.writes == []
    # not vacuous: every event before T was shown by some read, and so was the calendar
    before = {k for k, ts in marked.events.items() if ts < t}
    assert seen_events == before
    assert seen_messages == {n for n, ts in marked.messages.items() if ts < t}
    assert seen_calendar
    assert calls > 2000


def read_shapes(marked: Marked, name: str) -> Iterator[dict[str, Any]]:
    """A read tool's arguments: its required ones filled, then each argument varied
    (ids and threads of each app's first and last events, hashtags of the last)."""
    ids = [i for app in SOCIAL for i, _ in marked.ids[app][:1] + marked.ids[app][-2:]]
    tags = [f"#EVM{k}X" for k in sorted(marked.events, reverse=True)[:6]]
    values: dict[str, list[Any]] = {
        "limit": [1, 100_000, 0],
        "cursor": ["1", "100000", "not-a-cursor"],
        "query": ["EVM", *tags],
        "search_type": list(SEARCH_TYPES),
        "post_id": ids,
        "thread_id": [f"__solo__{i}" for i in ids] + [EMBEDDED],
        "target_app": ["instagram", "threads"],
        "window_hours": [100_000],
    }
    params = TOOLS[name].params
    base = {p.name: values.get(p.name, ["x"])[0] for p in params if p.required}
    yield base
    for param in params:
        for value in values.get(param.name, ["x"]):
            yield {**base, param.name: value}


def test_at_times_across_the_history_no_read_returns_the_future_or_a_hidden_field(
    marked: Marked,
) -> None:
    """The sweep above at six queries' times; this one at the first and last query's
    and every eighth between, each read tool with each argument varied (as
    `test_v3_time_mask` once ran it end to end, at every query)."""
    by_time = sorted(marked.queries, key=lambda q: q.ts)
    queries = [*by_time[::8], by_time[-1]]
    calls = 0
    for query in queries:
        session = marked.session(query)
        for name in sorted(READ_TOOLS):
            for arguments in read_shapes(marked, name):
                shown_in_time(marked, session, name, arguments)
                calls += 1
        assert session.writes == []
    assert len(queries) >= 8 and calls > len(queries) * 200


def test_the_embedded_thread_shows_only_its_messages_before_the_query(marked: Marked) -> None:
    session = marked.session(marked.query("agentic_auto_reply"))
    thread = json.loads(session.call("instagram_get_dm_thread", {"thread_id": EMBEDDED}))
    assert [m["msg_id"] for m in thread["results"]] == ["m0", "m1"]  # T-100, T-1
    assert thread["participants"] == ["friend_1", "self"]
    assert "nextCursor" not in thread
    page = json.loads(session.call("instagram_get_dm_thread", {"thread_id": EMBEDDED, "limit": 1}))
    assert ([m["msg_id"] for m in page["results"]], page["nextCursor"]) == (["m0"], "1")
    listed = json.loads(session.call("instagram_list_dms", {"limit": 10**6}))["results"]
    [row] = [r for r in listed if r["thread_id"] == EMBEDDED]
    assert (row["latest_ts"], row["last_message_preview"]) == (session.t - 1, "MSG1X")
    earlier = marked.session(min(marked.queries, key=lambda q: q.ts))  # before the event
    assert earlier.t < session.t - 3600
    with pytest.raises(AppToolError, match="thread_id 'thread-embedded' not found on instagram"):
        earlier.call("instagram_get_dm_thread", {"thread_id": EMBEDDED})


def test_pages_limits_and_cursors(marked: Marked) -> None:
    session = marked.session(marked.query("agentic_auto_reply"))
    everything = json.loads(session.call("facebook_get_feed", {"limit": 10**9}))["results"]
    n = len(everything)
    assert n > 3 and "nextCursor" not in json.loads(
        session.call("facebook_get_feed", {"limit": 10**9})
    )
    times = [item["timestamp"] for item in everything]
    assert times == sorted(times, reverse=True) and max(times) < session.t
    first = json.loads(session.call("facebook_get_feed", {"limit": 2}))
    assert (first["results"], first["nextCursor"]) == (everything[:2], "2")
    last = json.loads(session.call("facebook_get_feed", {"cursor": str(n - 1), "limit": 2}))
    assert last == {"results": everything[-1:]}
    assert json.loads(session.call("facebook_get_feed", {"cursor": str(n)})) == {"results": []}
    for limit in (0, -5):
        with pytest.raises(AppToolError, match=f"^limit must be at least 1, got {limit}$"):
            session.call("facebook_get_feed", {"limit": limit})
    for cursor in ("-1", "abc", " 3"):
        with pytest.raises(AppToolError, match="is not a nextCursor these tools give"):
            session.call("facebook_get_feed", {"cursor": cursor})


def test_refused_calls_name_what_is_wrong(marked: Marked) -> None:
    query = marked.query("agentic_auto_reply")
    session = marked.session(query)
    future = next(i for i, ts in marked.ids["threads"] if ts >= session.t)
    elsewhere = next(
        f"{app}_send_dm" for app in SOCIAL if f"{app}_send_dm" not in session.offered()
    )
    refusals = {
        ("threads_get_post", (("post_id", future),)): f"post_id '{future}' not found on threads",
        ("threads_get_post", ()): "threads_get_post: missing required argument 'post_id'",
        ("threads_get_post", (("post_id", 7),)): (
            "threads_get_post: argument 'post_id' must be a string, got 7"
        ),
        ("threads_get_feed", (("limit", True),)): (
            "threads_get_feed: argument 'limit' must be an integer, got true"
        ),
        ("threads_get_feed", (("page", 2),)): (
            "threads_get_feed: unknown argument 'page' (it takes cursor, limit)"
        ),
        ("threads_search", (("query", "x"), ("search_type", "tag"))): (
            "search_type must be one of post, hashtag, user, got 'tag'"
        ),
        (elsewhere, (("recipient_id", "a"), ("message", "b"))): (
            f"{elsewhere} is not offered for this query (it allows no such write)"
        ),
        ("nope", ()): "unknown tool 'nope'",
    }
    for (name, arguments), message in refusals.items():
        with pytest.raises(AppToolError) as caught:
            session.call(name, dict(arguments))
        assert caught.value.message == message


# --- what a row is offered ------------------------------------------------------------


def test_every_catalogued_tool_has_one_implementation_of_its_kind() -> None:
    """The catalogue names what the reads and writes implement, no more, no less."""
    assert {TOOLS[n].action for n in READ_TOOLS} == set(READS)
    assert {TOOLS[n].action for n in WRITE_TOOLS} == set(WRITES)
    assert all(spec.name == f"{spec.app}_{spec.action}" for spec in TOOLS.values())


def test_the_writes_a_row_is_offered() -> None:
    social = {
        f"{app}_{w}" for app in SOCIAL for w in ("create_post", "react", "comment", "send_dm")
    }
    chatbot = {"chatbot_send_message", "chatbot_send_post_to_app"}
    assert social | chatbot == WRITE_TOOLS and READ_TOOLS.isdisjoint(WRITE_TOOLS)
    assert len(READ_TOOLS) == 3 * 6 + 3 + 2 + 1
    assert is_write("instagram_react") and not is_write("instagram_get_feed")
    cases = {
        ("none", "read_only"): set(),
        ("all", "read_only"): set(),
        ("mcp__threads__create_post", "read_only"): set(),
        ("mcp__threads__create_post", "append_writes"): {"threads_create_post"},
        ("instagram_send_dm; chatbot_get_history", "writes_ok"): {"instagram_send_dm"},
        ("social", "writes_ok"): social,
        ("chatbot", "writes_ok"): chatbot,
        ("all", "writes_ok"): social | chatbot,
        ("none", "writes_ok"): set(),
        ("", ""): set(),
    }
    for (tools, policy), writes in cases.items():
        assert allowed_writes(tools, policy) == writes, (tools, policy)
    with pytest.raises(ValueError, match="^field 'state_write_policy': 'sometimes' is not one"):
        allowed_writes("all", "sometimes")
    with pytest.raises(ValueError, match="^field 'mcp_tools_allowed': 'tiktok_post' is neither"):
        allowed_writes("instagram_react,tiktok_post", "writes_ok")


def test_a_bad_row_is_one_line_naming_persona_query_and_field(marked: Marked) -> None:
    view = PersonaStreams(marked.backend).visible(marked.uid, marked.anchor)
    with pytest.raises(PersonaMemDataError) as caught:
        AppSession(view, mcp_tools_allowed="x", state_write_policy="read_only", query_id="q7")
    assert str(caught.value) == (
        f"persona {marked.uid}, query q7: field 'mcp_tools_allowed': 'x' is neither a tool "
        "nor one of none, social, chatbot, all"
    )


def _write_named(query: V3Query) -> str:
    """The one write a generated agentic row allows (`mcp__{app}__{action}`), as a tool name."""
    _, app, action = query.mcp_tools_allowed.split("__")
    return f"{app}_{action}"


def test_a_samples_metadata_gives_its_session(marked: Marked) -> None:
    query = marked.query("agentic_send_post")  # mcp__{its app}__create_post, append_writes
    path = marked.root / f"benchmark/{marked.uid}/queries.csv"
    streams = PersonaStreams(marked.backend)
    sample = query_to_sample(query, PersonaContexts(streams), path)
    assert sample.metadata is not None
    session = session_for(streams, sample.metadata)
    assert (session.view.user_id, session.t) == (marked.uid, query.ts)
    assert session.offered_writes == {_write_named(query)}
    bad = {**sample.metadata, "state_write_policy": "often"}
    with pytest.raises(PersonaMemDataError, match=f"query {re.escape(query.query_id)}: field"):
        session_for(streams, bad)


def test_offered_are_the_reads_and_the_rows_writes(marked: Marked) -> None:
    query = marked.query("agentic_auto_reply")  # mcp__{its app}__send_dm, append_writes
    offered = marked.session(query).offered()
    assert offered == [n for n in TOOLS if n in READ_TOOLS or n == _write_named(query)]
    assert not {name for name in offered if name.endswith("_create_post")}
    read_only = marked.session(marked.query("agentic_dm_digest"))
    assert set(read_only.offered()) == READ_TOOLS


def test_inspect_tools_give_the_same_text_and_refusals(marked: Marked) -> None:
    session = marked.session(marked.query("agentic_auto_reply"))
    tools = {ToolDef(tool).name: tool for tool in inspect_tools(session)}
    assert list(tools) == session.offered()
    signature = "(*, cursor: str | None = None, limit: int = 20) -> str"
    assert str(inspect.signature(tools["instagram_get_feed"])) == signature
    described = ToolDef(tools["instagram_search"]).parameters.properties
    assert (described["search_type"].description or "").startswith("post (title")
    text = asyncio.run(tools["threads_get_feed"](limit=3))
    assert text == session.call("threads_get_feed", {"limit": 3})
    with pytest.raises(ToolError, match="^post_id 'nope' not found on facebook$"):
        asyncio.run(tools["facebook_get_post"](post_id="nope"))


# --- writes ---------------------------------------------------------------------------

RECORD_KEYS = {"tool", "app", "arguments", "synthetic_event_id", "timestamp_ms", "event"}


def friend_of(session: AppSession) -> str:
    """A friend who posted on Instagram before T (the generator's `friend_{i}`)."""
    feed = json.loads(session.call("instagram_get_feed", {"limit": 10**6}))["results"]
    return str(next(p["author_id"] for p in feed if p["author_id"].startswith("friend_")))


def act(session: AppSession, friend: str) -> list[str]:
    """A fixed sequence of writes and the reads after them; their texts."""
    feed = json.loads(session.call("instagram_get_feed", {"limit": 1}))["results"][0]
    return [
        session.call("instagram_create_post", {"caption": "hello #garden world"}),
        session.call("instagram_react", {"post_id": feed["post_id"], "reaction_type": "save"}),
        session.call("instagram_comment", {"post_id": "instagram_write_1", "text": "me again"}),
        session.call("instagram_send_dm", {"recipient_id": friend, "message": "see you"}),
        session.call("chatbot_send_post_to_app", {"target_app": "Threads", "caption": "x #y"}),
        session.call("instagram_get_feed", {"limit": 3}),
        session.call("instagram_search", {"query": "hello"}),
        session.call("instagram_list_dms", {"limit": 1}),
        session.call("threads_get_post", {"post_id": "threads_write_5"}),
    ]


def test_writes_reach_the_sessions_later_reads_only(marked: Marked) -> None:
    query = max(marked.queries, key=lambda q: q.ts)  # the most history: friends have posted
    session = marked.session(query, "all", "writes_ok")
    friend = friend_of(session)
    texts = act(session, friend)
    t = session.t
    assert json.loads(texts[0]) == {"post_id": "instagram_write_1", "created_at": t * 1000 + 1}
    assert json.loads(texts[3]) == {
        "message_id": "instagram_write_4",
        "ok": True,
        "recipient_resolved": True,
    }
    assert json.loads(texts[4]) == {
        "ok": True,
        "post_id": "threads_write_5",
        "target_app": "threads",
    }
    feed = json.loads(texts[5])["results"]
    # newest first: the three writes at T (ids descending), the DM in no feed
    assert [item["post_id"] for item in feed] == [
        "instagram_write_3",
        "instagram_write_2",
        "instagram_write_1",
    ]
    assert feed[2]["caption"] == "hello #garden world" and feed[2]["hashtags"] == ["#garden"]
    assert [r["source_object_id"] for r in json.loads(texts[6])["results"]] == ["instagram_write_1"]
    [dm] = json.loads(texts[7])["results"]
    assert (dm["thread_id"], dm["participants"]) == (
        "__solo__instagram_write_4",
        ["self", friend],  # the sender first, as the thread's first message has them
    )
    assert json.loads(texts[8])["dispatched_from"] == "chatbot"
    assert [set(r) for r in session.writes] == [RECORD_KEYS] * 5
    assert [(r["tool"], r["app"], r["timestamp_ms"]) for r in session.writes] == [
        ("instagram_create_post", "instagram", t * 1000 + 1),
        ("instagram_react", "instagram", t * 1000 + 2),
        ("instagram_comment", "instagram", t * 1000 + 3),
        ("instagram_send_dm", "instagram", t * 1000 + 4),
        ("threads_create_post", "threads", t * 1000 + 5),
    ]
    # the relationship of the friend's latest Instagram event before T, read from the file
    events = json.loads((marked.backend / marked.uid / "instagram.json").read_text("utf-8"))
    theirs = [e for e in events if e.get("author_id") == friend and e["source_timestamp"] < t]
    latest = max(theirs, key=lambda e: e["source_timestamp"])["relationship"]
    assert session.writes[3]["event"]["relationship"] == latest
    assert session.writes[0]["arguments"] == {
        "caption": "hello #garden world",
        "media_refs": None,
        "alt_text": None,
    }
    # a new session, at the same time or another query's, starts empty
    for other in (
        marked.session(query, "all", "writes_ok"),
        marked.session(marked.query("agentic_send_post")),
    ):
        assert other.writes == []
        for name, arguments in (
            ("instagram_get_post", {"post_id": "instagram_write_1"}),
            ("threads_get_post", {"post_id": "threads_write_5"}),
            ("instagram_get_dm_thread", {"thread_id": "__solo__instagram_write_4"}),
        ):
            with pytest.raises(AppToolError, match="not found"):
                other.call(name, arguments)
        assert "_write_" not in other.call("instagram_get_feed", {"limit": 10**6})
    # the same calls give the same bytes: ids and times are no clock's
    again = marked.session(query, "all", "writes_ok")
    assert act(again, friend) == texts and dumps(again.writes) == dumps(session.writes)


def test_the_authors_checks_on_writes(marked: Marked) -> None:
    session = marked.session(marked.query("agentic_auto_reply"), "social", "writes_ok")
    session.call("threads_create_post", {"caption": "x" * 500})
    refusals = {
        (
            "threads_create_post",
            (("caption", "x" * 501),),
        ): "caption exceeds threads limit of 500 chars",
        ("threads_create_post", (("caption", "  "),)): "caption must be non-empty",
        ("instagram_react", (("post_id", "instagram_write_1"), ("reaction_type", "love"))): (
            "reaction 'love' not allowed on instagram; valid: "
            "['like', 'not_interested', 'save', 'share']"
        ),
        (
            "facebook_comment",
            (("post_id", "nope"), ("text", "hi")),
        ): "post_id 'nope' not found on facebook",
        (
            "facebook_send_dm",
            (("recipient_id", "a"), ("message", " ")),
        ): "message must be non-empty",
        ("chatbot_send_message", (("message", "hi"),)): (
            "chatbot_send_message is not offered for this query (it allows no such write)"
        ),
    }
    for (name, arguments), message in refusals.items():
        with pytest.raises(AppToolError) as caught:
            session.call(name, dict(arguments))
        assert caught.value.message == message
    assert [r["tool"] for r in session.writes] == ["threads_create_post"]
    unknown = json.loads(
        session.call("facebook_send_dm", {"recipient_id": "stranger", "message": "hi"})
    )
    assert unknown["recipient_resolved"] is False
    assert session.writes[-1]["event"]["relationship"] == "unknown"


def test_the_feed_puts_the_last_write_first(marked: Marked) -> None:
    session = marked.session(marked.query("agentic_auto_reply"), "social", "writes_ok")
    for n in range(1, 12):
        session.call("threads_create_post", {"caption": f"post {n}"})
    feed = json.loads(session.call("threads_get_feed", {"limit": 12}))["results"]
    assert [item["post_id"] for item in feed[:11]] == [
        f"threads_write_{n}" for n in range(11, 0, -1)
    ]
    assert feed[11]["timestamp"] < session.t  # then the released posts, newest first
