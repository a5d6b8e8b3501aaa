"""The offline oracle as an agent over PersonaMem-v3's apps (`datasets/v3/oracle_agent.py`):
which tools a row's `mcp_tools_allowed` names, the calls it plans (reads of the evidence's
apps and the row's app, then the write the reply implies), and `personamem/oracle` making
them one a turn, then submitting its reply through an agent's `submit` tool."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest
from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageTool,
    ChatMessageUser,
    GenerateConfig,
)
from inspect_ai.tool import ToolInfo, ToolParam, ToolParams
from support.v3_backend import query_row, write_queries

from inspect_personamem.datasets.v3.generator import generate
from inspect_personamem.datasets.v3.offline import V3Questions, known_replies
from inspect_personamem.datasets.v3.oracle_agent import agent_calls, allowed_writes, read_apps
from inspect_personamem.datasets.v3.records import V3Query, read_queries
from inspect_personamem.datasets.v3.samples import PROMPTS, Shown
from inspect_personamem.offline.oracle import OracleModel

SOCIAL = ("instagram", "facebook", "threads")


def tool(name: str, *required: str) -> ToolInfo:
    """A tool as an agent offers it: `required` its required string parameters."""
    properties = {p: ToolParam(type="string", description=p) for p in required}
    return ToolInfo(
        name=name,
        description=name,
        parameters=ToolParams(properties=properties, required=list(required)),
    )


def apps_tools(*writes: str) -> list[ToolInfo]:
    """The apps' reads by the contract's names (the listing reads take no required
    argument), `writes` among the writes, and react()'s `submit`."""
    offered = [
        tool(name, *required)
        for app in SOCIAL
        for name, required in (
            (f"{app}_get_feed", ()),
            (f"{app}_get_post", ("post_id",)),
            (f"{app}_search", ("query",)),
            (f"{app}_list_dms", ()),
            (f"{app}_get_dm_thread", ("thread_id",)),
        )
    ]
    offered += [
        tool("chatbot_get_history"),
        tool("chatbot_search_history", "query"),
        tool("calendar_get_events"),
    ]
    arguments = {"create_post": ("caption",), "send_dm": ("recipient_id", "message")}
    offered += [tool(name, *arguments[name.split("_", 1)[1]]) for name in writes]
    return [*offered, tool("submit", "answer")]


def one_query(tmp_path: Path, **changes: Any) -> V3Query:
    instance = changes.pop("instance", {})
    row = query_row(task_type="agentic_send_post", instance_json=json.dumps(instance), **changes)
    (query,) = read_queries(write_queries(tmp_path, [row]))
    return query


def test_allowed_writes_read_the_authors_namespaced_names() -> None:
    assert allowed_writes("mcp__threads__create_post") == ("threads_create_post",)
    assert allowed_writes("none") == () == allowed_writes("")
    assert allowed_writes("mcp__instagram__send_dm; facebook_create_post") == (
        "instagram_send_dm",
        "facebook_create_post",
    )


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
    calls = agent_calls(query, apps_tools("threads_create_post"), "my post")
    assert calls == [
        ("chatbot_get_history", {}),
        ("instagram_get_feed", {}),
        ("instagram_list_dms", {}),
        ("threads_create_post", {"caption": "my post"}),
    ]
    # a write the apps do not offer (the row read-only) is not made
    assert agent_calls(query, apps_tools(), "my post") == calls[:3]


def test_an_auto_reply_sends_the_reply_to_the_sender(tmp_path: Path) -> None:
    query = one_query(
        tmp_path,
        app_context="facebook",
        mcp_tools_allowed="mcp__facebook__send_dm",
        instance={"sender_id": "f_7", "_generated_evidence": [{"app": "facebook", "id": "d"}]},
    )
    assert agent_calls(query, apps_tools("facebook_send_dm"), "yes!") == [
        ("facebook_get_feed", {}),
        ("facebook_list_dms", {}),
        ("facebook_send_dm", {"recipient_id": "f_7", "message": "yes!"}),
    ]


def test_a_row_naming_no_app_and_no_evidence_reads_the_chat_and_writes_nothing(
    tmp_path: Path,
) -> None:
    query = one_query(tmp_path)  # app_context empty, mcp_tools_allowed none
    assert agent_calls(query, apps_tools("threads_create_post"), "x") == [
        ("chatbot_get_history", {})
    ]


def run_agent(
    oracle: OracleModel, prompt: list[ChatMessage], tools: list[ToolInfo]
) -> list[tuple[str, dict[str, Any]]]:
    """The oracle's turns as react() loops them, each tool answered `{}`, until it
    submits: every call it made, in order."""
    messages = list(prompt)
    made: list[tuple[str, dict[str, Any]]] = []
    for _ in range(20):
        output = anyio.run(oracle.generate, messages, tools, "auto", GenerateConfig())
        message = output.message
        assert message.tool_calls, message.text  # an agent's oracle ends through submit
        (call,) = message.tool_calls
        made.append((call.function, call.arguments))
        if call.function == "submit":
            return made
        messages += [
            message,
            ChatMessageTool(content="{}", tool_call_id=call.id, function=call.function),
        ]
    raise AssertionError("the oracle never submitted")


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[V3Query]]:
    written = generate(tmp_path_factory.mktemp("v3"), personas=1, queries_per_type=1, seed=3)
    path = written.queries_file(written.personas[0])
    return path, read_queries(path)


@pytest.mark.parametrize("task", ["agentic_cross_app_repost", "restraint_sensitive_event_silence"])
def test_the_oracle_reads_writes_its_reply_and_submits_it(
    generated: tuple[Path, list[V3Query]], task: str
) -> None:
    path, queries = generated
    query = next(q for q in queries if q.task_type == task)
    oracle = OracleModel("personamem/oracle", questions=str(path), accuracy=1.0)
    system = ChatMessageSystem(content="You are an agent.")  # react()'s own
    asking = ChatMessageUser(content=PROMPTS[task].build(Shown(query, path)).text)
    prompt: list[ChatMessage] = [system, asking]
    tools = apps_tools(*allowed_writes(query.mcp_tools_allowed))
    gold = known_replies(query)[0]
    made = run_agent(oracle, prompt, tools)
    reads: list[tuple[str, dict[str, Any]]] = [
        (f"{app}_{read}", {}) for app in read_apps(query) for read in ("get_feed", "list_dms")
    ]
    if task == "agentic_cross_app_repost":  # the source post, then the target app, then a post
        assert read_apps(query) == [query.instance["source_app"], query.instance["target_app"]]
        assert made == [
            *reads,
            ("threads_create_post", {"caption": gold}),
            ("submit", {"answer": gold}),
        ]
    else:  # restraint: the trigger's app read, nothing written, silence submitted
        assert query.mcp_tools_allowed == "none" and json.loads(gold)["should_act"] is False
        assert [name for name, _ in made[:-1]] == [
            name
            for app in read_apps(query)
            for name in (
                ("chatbot_get_history",)
                if app == "chatbot"
                else (f"{app}_get_feed", f"{app}_list_dms")
            )
        ]
        assert made[-1] == ("submit", {"answer": gold})
    assert isinstance(V3Questions(path).query_of(prompt)[0], V3Query)


def test_offered_no_tools_the_oracle_replies_as_before(
    generated: tuple[Path, list[V3Query]],
) -> None:
    path, queries = generated
    query = next(q for q in queries if q.task_type == "agentic_send_post")
    oracle = OracleModel("personamem/oracle", questions=str(path), accuracy=1.0)
    prompt: list[ChatMessage] = [
        ChatMessageUser(content=PROMPTS[query.task_type].build(Shown(query, path)).text)
    ]
    output = anyio.run(oracle.generate, prompt, [], "none", GenerateConfig())
    assert isinstance(output.message, ChatMessageAssistant)
    assert not output.message.tool_calls and output.completion in known_replies(query)
