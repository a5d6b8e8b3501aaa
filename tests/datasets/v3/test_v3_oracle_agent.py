"""The offline oracle as an agent over PersonaMem-v3's apps (`datasets/v3/offline/agent.py`):
the calls it plans (the listing reads of the evidence's apps and the row's, then the write
the reply implies, under the row's `mcp_tools_allowed` and `state_write_policy`), and
`personamem/oracle` making them one a turn on a real `AppSession` over generated data,
then replying without a call, as `react(submit=False)` ends."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest
from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageTool,
    ChatMessageUser,
    GenerateConfig,
    get_model,
)
from inspect_ai.tool import ToolDef, ToolInfo, ToolParam, ToolParams
from support.helpers import run_task
from support.v3_backend import checkout_streams, prompt_text, query_row, write_queries

from inspect_personamem.datasets.v3.agent.catalogue import (
    READ_TOOLS,
    TOOLS,
    AppToolError,
    allowed_writes,
)
from inspect_personamem.datasets.v3.agent.inspect_tools import inspect_tools
from inspect_personamem.datasets.v3.agent.session import AppSession
from inspect_personamem.datasets.v3.generator import generate
from inspect_personamem.datasets.v3.offline.agent import agent_calls, read_apps
from inspect_personamem.datasets.v3.offline.answers import (
    AGENT_FRAMING,
    JUDGE_PROMPTS,
    V3Questions,
    known_replies,
)
from inspect_personamem.datasets.v3.persona.streams import PersonaStreams
from inspect_personamem.datasets.v3.prompts.shown import SCORER_KEY
from inspect_personamem.datasets.v3.release.records import V3Query, read_queries
from inspect_personamem.datasets.v3.scoring.by_rule import RULE_TASKS
from inspect_personamem.datasets.v3.task_types.registry import TASK_TYPES
from inspect_personamem.offline.oracle import OracleModel


def offered(*writes: str) -> list[ToolInfo]:
    """Every read of the apps and `writes`, as an agent offers them."""
    infos = [
        ToolInfo(
            name=name,
            description=spec.doc,
            parameters=ToolParams(
                properties={
                    p.name: ToolParam(type="string", description=p.doc) for p in spec.params
                },
                required=[p.name for p in spec.params if p.required],
            ),
        )
        for name, spec in TOOLS.items()
        if name in READ_TOOLS or name in writes
    ]
    return infos


def one_query(tmp_path: Path, **changes: Any) -> V3Query:
    instance = changes.pop("instance", {})
    row = query_row(task_type="agentic_send_post", instance_json=json.dumps(instance), **changes)
    (query,) = read_queries(write_queries(tmp_path, [row]))
    return query


def test_a_send_post_reads_the_chat_and_the_app_then_posts_the_reply(tmp_path: Path) -> None:
    evidence = [{"app": "chatbot", "id": "c1", "ts": 1}, {"app": "chatbot", "id": "c2", "ts": 2}]
    query = one_query(
        tmp_path,
        app_context="instagram",
        mcp_tools_allowed="mcp__threads__create_post",
        state_write_policy="append_writes",
        instance={"_generated_evidence": evidence},
    )
    assert read_apps(query) == ["chatbot", "instagram"]
    calls = agent_calls(query, offered("threads_create_post"), "my post")
    assert calls == [
        ("chatbot_get_history", {}),
        ("instagram_get_feed", {}),
        ("instagram_get_profile", {}),
        ("instagram_list_dms", {}),
        ("threads_create_post", {"caption": "my post"}),
    ]
    # a write the agent is not offered is not made
    assert agent_calls(query, offered(), "my post") == calls[:4]


def test_an_auto_reply_sends_the_reply_to_the_sender(tmp_path: Path) -> None:
    query = one_query(
        tmp_path,
        app_context="facebook",
        mcp_tools_allowed="mcp__facebook__send_dm",
        state_write_policy="append_writes",
        instance={"sender_id": "f_7", "_generated_evidence": [{"app": "facebook", "id": "d"}]},
    )
    assert agent_calls(query, offered("facebook_send_dm"), "yes!") == [
        ("facebook_get_feed", {}),
        ("facebook_get_profile", {}),
        ("facebook_list_dms", {}),
        ("facebook_send_dm", {"recipient_id": "f_7", "message": "yes!"}),
    ]


def test_a_row_naming_no_app_and_no_evidence_reads_the_chat_and_writes_nothing(
    tmp_path: Path,
) -> None:
    query = one_query(tmp_path)  # app_context empty, mcp_tools_allowed none
    assert agent_calls(query, offered("threads_create_post"), "x") == [("chatbot_get_history", {})]
    # a read-only row writes nothing whatever it names
    named = one_query(tmp_path, mcp_tools_allowed="mcp__threads__create_post")
    assert agent_calls(named, offered("threads_create_post"), "x") == [("chatbot_get_history", {})]


def run_agent(
    oracle: OracleModel, prompt: list[ChatMessage], session: AppSession
) -> tuple[list[tuple[str, dict[str, Any]]], str]:
    """The oracle's turns as react() loops them, each call run on `session` (its tools
    offered as Inspect offers them), until it replies without a call: every call it
    made, in order, and its reply."""
    tools = [ToolDef(tool) for tool in inspect_tools(session)]
    infos = [
        ToolInfo(name=t.name, description=t.description, parameters=t.parameters) for t in tools
    ]
    messages = list(prompt)
    made: list[tuple[str, dict[str, Any]]] = []
    for _ in range(20):
        output = anyio.run(oracle.generate, messages, infos, "auto", GenerateConfig())
        message = output.message
        if not message.tool_calls:
            return made, output.completion
        (call,) = message.tool_calls
        made.append((call.function, call.arguments))
        try:
            result = session.call(call.function, call.arguments)
        except AppToolError as error:
            raise AssertionError(f"{call.function}: {error.message}") from None
        messages += [
            message,
            ChatMessageTool(content=result, tool_call_id=call.id, function=call.function),
        ]
    raise AssertionError("the oracle never replied")


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[V3Query]]:
    # every type, the five proactive ones included: they share one prompt a persona
    # (no real row carries a user-state summary), and the oracle tells their rows apart
    # by the reads it makes first (`test_the_oracle_tells_apart_proactive_rows...`)
    written = generate(tmp_path_factory.mktemp("v3"), personas=1, queries_per_type=1, seed=3)
    path = written.queries_file(written.personas[0])
    return path, read_queries(path)


def session_of(path: Path, query: V3Query, streams: PersonaStreams | None = None) -> AppSession:
    """A fresh session of `query` over its persona, read from `streams`, else from the
    checkout of `path`."""
    view = (streams or checkout_streams(path)).visible(query.user_id, query.ts)
    return AppSession(
        view,
        mcp_tools_allowed=query.mcp_tools_allowed,
        state_write_policy=query.state_write_policy,
        query_id=query.query_id,
    )


def listing(app: str) -> list[str]:
    """An app's reads that take no required argument, in the apps' order."""
    return [
        name
        for name, spec in TOOLS.items()
        if name in READ_TOOLS and spec.app == app and not any(p.required for p in spec.params)
    ]


@pytest.mark.parametrize(
    "task",
    ["agentic_cross_app_repost", "agentic_auto_reply", "restraint_sensitive_event_silence"],
)
def test_the_oracle_reads_writes_its_reply_and_replies(
    generated: tuple[Path, list[V3Query]], task: str
) -> None:
    path, queries = generated
    query = next(q for q in queries if q.task_type == task)
    oracle = OracleModel("personamem/oracle", questions=str(path), accuracy=1.0)
    framed = AGENT_FRAMING + prompt_text(query, path)  # as agent.py sends
    prompt: list[ChatMessage] = [ChatMessageUser(content=framed)]
    session = session_of(path, query)
    gold = known_replies(query)[0]
    made, reply = run_agent(oracle, prompt, session)
    reads: list[tuple[str, dict[str, Any]]] = [
        (name, {}) for app in read_apps(query) for name in listing(app)
    ]
    sharing = V3Questions(path).by_prompt[prompt_text(query, path)]
    if len(sharing) > 1:  # the proactive prompt is the persona's, one for its five types
        # (proactive_actions.py@8e2a111f): no agent can tell the rows apart before it
        # reads, so the oracle first makes the reads that tell them apart (each a read
        # with no argument, once), then the row's own (a proactive row writes nothing)
        separating = made[: len(made) - len(reads)]
        assert separating and all(name in READ_TOOLS and not a for name, a in separating)
        assert len({name for name, _ in separating}) == len(separating)
        reads = [*separating, *reads]
    assert made[: len(reads)] == reads and reply == gold
    written = made[len(reads) :]
    # each write recorded in the session, its arguments with the defaults filled
    assert [w["tool"] for w in session.writes] == [name for name, _ in written]
    assert all(
        w["arguments"].items() >= arguments.items()
        for w, (_, arguments) in zip(session.writes, written, strict=True)
    )
    allowed = sorted(allowed_writes(query.mcp_tools_allowed, query.state_write_policy))
    if task == "agentic_cross_app_repost":  # the source post's app, then the target's
        assert read_apps(query) == [query.instance["source_app"], query.instance["target_app"]]
        (tool,) = allowed  # the row's write, as its mcp_tools_allowed names it
        assert tool.endswith("_create_post")
        assert written == [(tool, {"caption": gold})]
    elif task == "agentic_auto_reply":
        sender = query.instance["sender_id"]
        (tool,) = allowed
        assert tool.endswith("_send_dm")
        assert written == [(tool, {"recipient_id": sender, "message": gold})]
    else:  # restraint: the trigger's app read, nothing written, silence its reply
        assert query.mcp_tools_allowed == "none" and json.loads(gold)["should_act"] is False
        assert written == []
    if len(sharing) == 1:  # the prompt alone names the row
        assert V3Questions(path).query_of(prompt)[0].query_id == query.query_id


def test_offered_no_tools_the_oracle_replies_as_before(
    generated: tuple[Path, list[V3Query]],
) -> None:
    path, queries = generated
    query = next(q for q in queries if q.task_type == "agentic_send_post")
    oracle = OracleModel("personamem/oracle", questions=str(path), accuracy=1.0)
    prompt: list[ChatMessage] = [ChatMessageUser(content=prompt_text(query, path))]
    output = anyio.run(oracle.generate, prompt, [], "none", GenerateConfig())
    assert isinstance(output.message, ChatMessageAssistant)
    assert not output.message.tool_calls and output.completion in known_replies(query)


@pytest.mark.slow
def test_the_oracle_always_right_reaches_its_gold_through_the_apps(tmp_path: Path) -> None:
    """`-T history=tools` (the apps in process) on one generated persona, the oracle always
    right and bound as the grader: every rule-scored row at its top (a lifecycle pair's
    probes at 1 and 0), every judge call's judgement the top one, and each write
    carrying the gold it replies with."""
    written = generate(tmp_path / "data", personas=1, queries_per_type=2, seed=5)
    path = written.queries_file(written.personas[0])
    oracle = get_model("personamem/oracle", questions=str(path), accuracy=1.0)
    log = run_task(
        "inspect_personamem/personamem_v3",
        oracle,
        tmp_path / "logs",
        {"data_dir": str(tmp_path / "data"), "history": "apps"},
        model_roles={"grader": oracle},
    )
    assert log.status == "success" and len(log.samples or []) == 62
    tops = [dict(kind.top) for kind in JUDGE_PROMPTS]
    judged = writes = 0
    for sample in log.samples or []:
        score = next(iter((sample.scores or {}).values()))
        actions = sample.metadata["actions"]
        assert actions["reads"] >= 1 and actions["out_of_budget"] is None, sample.id
        if sample.metadata["task_type"] in RULE_TASKS:
            phase = sample.metadata[SCORER_KEY].get("phase")
            assert score.value == (0.0 if phase == "post" else 1.0), sample.id
        for call in (score.metadata or {}).get("judge_calls", []):
            judgement = json.loads(call["reply"].strip().removeprefix("```json").strip("`\n"))
            judgement.pop("reasoning")
            assert judgement in tops, (sample.id, judgement)
            judged += 1
        gold = str(sample.metadata[SCORER_KEY].get("example_response") or "")
        for write in actions["writes"]:
            assert gold and gold in write["arguments"].values(), sample.id
            writes += 1
    # every agentic row with a write (send_post, repost, auto-reply) made it, twice each
    assert judged > 0 and writes == 3 * 2


PROACTIVE = (
    "proactive_close_friend_update",
    "restraint_sensitive_event_silence",
    "proactive_friend_feed_react",
    "proactive_trending_feed_react",
    "proactive_overactive_check",
)


def test_the_oracle_tells_apart_proactive_rows_a_first_read_does_not(tmp_path: Path) -> None:
    """A persona's proactive rows share one prompt; rows close in time may share the
    first read of one row's app (nothing in it changed between them) though another
    app tells them apart. The oracle always right reaches each row's gold wherever any
    read tells it from every row of another gold (the 0.3 of a `restrain` row answered
    as an `act` one, seen under `history=apps` at the release's size)."""
    types = {name: TASK_TYPES[name] for name in PROACTIVE}
    written = generate(
        tmp_path, personas=1, queries_per_type=7, seed=1, history_tokens=20_000, task_types=types
    )
    path = written.queries_file(written.personas[0])
    queries = read_queries(path)
    streams = checkout_streams(path)  # the persona read once, a fresh session a read
    oracle = OracleModel("personamem/oracle", questions=str(path), accuracy=1.0)
    reads = [name for app in sorted({TOOLS[n].app for n in READ_TOOLS}) for name in listing(app)]
    views = {
        q.query_id: [session_of(path, q, streams).call(name, {}) for name in reads] for q in queries
    }
    # the read the oracle made first before: the listing of the first row's first app
    first = reads.index(listing(read_apps(queries[0])[0])[0])
    separable = shared_first = 0
    for query in queries:
        gold = known_replies(query)[0]
        others = [other for other in queries if known_replies(other)[0] != gold]
        if any(views[o.query_id] == views[query.query_id] for o in others):
            continue  # no read tells them apart: no agent could answer both right
        separable += 1
        prompt: list[ChatMessage] = [
            ChatMessageUser(content=AGENT_FRAMING + prompt_text(query, path, streams))
        ]
        session = session_of(path, query, streams)
        assert run_agent(oracle, prompt, session)[1] == gold, query.query_id
        shared_first += any(
            views[o.query_id][first] == views[query.query_id][first] for o in others
        )
    # the case in point: rows the first row's first read leaves together, yet separable
    assert separable > 0 and shared_first > 0
