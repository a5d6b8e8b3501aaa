"""The MCP server the package ships (`datasets/v3/agent/server.py`), reached by the `mcp`
SDK's own client over stdio: it lists exactly the session's tools, answers the same
calls (reads, writes, refusals, reads after writes) with the same bytes as
`AppSession.call`, and appends the same write records to its `--writes` file; bad
arguments stop it in one line before it serves."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import anyio
import pytest

from inspect_personamem.datasets.v3.agent.catalogue import TOOLS, AppToolError, dumps
from inspect_personamem.datasets.v3.agent.server import server_command, session_from
from inspect_personamem.datasets.v3.agent.session import AppSession, session_for
from inspect_personamem.datasets.v3.generator import generate
from inspect_personamem.datasets.v3.persona.streams import PersonaStreams
from inspect_personamem.datasets.v3.release.records import V3Query, read_queries


@pytest.fixture(scope="module")
def persona(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, V3Query]:
    """A generated backend folder and its latest query (the most history)."""
    root = tmp_path_factory.mktemp("v3server")
    [uid] = generate(root, personas=1, queries_per_type=1, seed=3).personas
    queries = read_queries(root / f"benchmark/{uid}/queries.csv")
    return root / "backend", max(queries, key=lambda q: q.ts)


def metadata(query: V3Query, allowed: str = "social", policy: str = "writes_ok") -> dict[str, Any]:
    """A sample's metadata as `samples.query_to_sample` gives it (the keys read)."""
    return {
        "query_id": query.query_id,
        "user_id": query.user_id,
        "ts": query.ts,
        "mcp_tools_allowed": allowed,
        "state_write_policy": policy,
    }


def calls(session: AppSession) -> list[tuple[str, dict[str, Any]]]:
    """Reads of every tool, refusals, writes and the reads after them."""
    feed = json.loads(session.call("facebook_get_feed", {"limit": 3}))["results"]
    threads = json.loads(session.call("instagram_list_dms", {"limit": 2}))["results"]
    out: list[tuple[str, dict[str, Any]]] = [(name, {}) for name in TOOLS if not TOOLS[name].params]
    for app in ("instagram", "facebook", "threads"):
        out += [
            (f"{app}_get_feed", {"limit": 2}),
            (f"{app}_get_feed", {"cursor": "2", "limit": 10**9}),
            (f"{app}_get_feed", {"cursor": "abc"}),
            (f"{app}_get_feed", {"limit": 0}),
            (f"{app}_search", {"query": "coffee", "limit": 3}),
            (f"{app}_search", {"query": "#nope", "search_type": "hashtag"}),
            (f"{app}_search", {"query": "x", "search_type": "tag"}),
            (f"{app}_list_dms", {}),
            (f"{app}_get_dm_thread", {"thread_id": "nope"}),
            (f"{app}_get_post", {"post_id": "nope"}),
        ]
    out += [("facebook_get_post", {"post_id": item["post_id"]}) for item in feed]
    out += [("instagram_get_dm_thread", {"thread_id": t["thread_id"]}) for t in threads]
    out += [
        ("chatbot_get_history", {"limit": 2}),
        ("chatbot_search_history", {"query": "help", "limit": 2}),
        ("chatbot_summarize_inbox", {"target_app": "instagram", "window_hours": 48}),
        ("chatbot_summarize_inbox", {"target_app": "tiktok"}),
        ("ai_studio_get_history", {"limit": 1}),
        ("ai_studio_search_history", {"query": "a"}),
        ("facebook_create_post", {"caption": "a #new post", "media_refs": ["m1"]}),
        ("threads_create_post", {"caption": "x" * 501}),
        ("facebook_react", {"post_id": "facebook_write_1", "reaction_type": "care"}),
        ("facebook_react", {"post_id": "facebook_write_1", "reaction_type": "save"}),
        ("facebook_comment", {"post_id": feed[0]["post_id"], "text": "nice"}),
        ("instagram_send_dm", {"recipient_id": "friend_2", "message": "hello"}),
        ("facebook_get_feed", {"limit": 3}),
        ("facebook_get_post", {"post_id": "facebook_write_1"}),
        ("instagram_list_dms", {"limit": 1}),
        ("instagram_get_dm_thread", {"thread_id": "__solo__instagram_write_4"}),
        ("facebook_get_feed", {"limit": "3"}),  # the session checks arguments itself
        ("facebook_get_feed", {"since": 1}),
        ("facebook_get_post", {}),
    ]
    return out


def local(session: AppSession, name: str, arguments: dict[str, Any]) -> tuple[str, bool]:
    try:
        return session.call(name, arguments), False
    except AppToolError as error:
        return error.message, True


async def through_mcp(
    command: tuple[str, list[str]], asked: list[tuple[str, dict[str, Any]]]
) -> tuple[list[Any], list[tuple[str, bool]]]:
    """The server's tools, and its answers to `asked` in order, through the SDK's client."""
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    executable, args = command
    async with (
        stdio_client(StdioServerParameters(command=executable, args=args)) as (read, write),
        ClientSession(read, write) as client,
    ):
        await client.initialize()
        listed = (await client.list_tools()).tools
        answers = []
        for name, arguments in asked:
            result = await client.call_tool(name, arguments)
            [content] = result.content
            answers.append((getattr(content, "text", repr(content)), result.is_error))
        return listed, answers


@pytest.mark.slow
@pytest.mark.memory
def test_the_servers_tools_and_answers_are_the_sessions_byte_for_byte(
    persona: tuple[Path, V3Query], tmp_path: Path
) -> None:
    backend, query = persona
    writes = tmp_path / "writes.jsonl"
    streams = PersonaStreams(backend)
    session = session_for(streams, metadata(query))
    asked = calls(session_for(streams, metadata(query)))
    expected = [local(session, name, arguments) for name, arguments in asked]
    listed, answers = anyio.run(
        through_mcp, server_command(backend, metadata(query), writes), asked
    )

    assert [tool.name for tool in listed] == session.offered()
    for tool in listed:
        params = TOOLS[tool.name].params
        assert list(tool.input_schema["properties"]) == [p.name for p in params]
        assert sorted(tool.input_schema.get("required", [])) == sorted(
            p.name for p in params if p.required
        )
    for (name, arguments), answer, wanted in zip(asked, answers, expected, strict=True):
        assert answer == wanted, (name, arguments)
    refused = [name for (name, _), (_, error) in zip(asked, expected, strict=True) if error]
    assert len(refused) == 3 * 5 + 3 + 3  # not vacuous: the refusals were compared too
    assert [r["tool"] for r in session.writes] == [
        "facebook_create_post",
        "facebook_react",
        "facebook_comment",
        "instagram_send_dm",
    ]
    assert writes.read_text(encoding="utf-8") == "".join(dumps(r) + "\n" for r in session.writes)


# --- bad arguments --------------------------------------------------------------------


def args(folder: Path, **changes: str) -> list[str]:
    given = {"backend": str(folder), "user": "", "at": "1775500000", "allowed": "none"}
    given |= {"policy": "read_only"} | changes
    return [part for key, value in given.items() for part in (f"--{key}", value)]


def one_line_exit(capsys: pytest.CaptureFixture[str], argv: list[str]) -> str:
    with pytest.raises(SystemExit) as exited:
        session_from(argv)
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    return err.strip()


def test_bad_arguments_stop_in_one_line(
    persona: tuple[Path, V3Query], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    backend, query = persona
    uid = query.user_id
    cases = {
        (("backend", str(tmp_path / "none")),): f"app_server: --backend {tmp_path / 'none'}: "
        "no such folder",
        (("user", "1"),): f"app_server: --user 1: no persona folder {backend / '1'}",
        (("user", uid), ("at", "soon")): "app_server: --at 'soon': not an integer (the query's "
        "time, unix seconds)",
        (("user", uid), ("policy", "sometimes")): f"app_server: persona {uid}: field "
        "'state_write_policy': 'sometimes' is not one of read_only, writes_ok, append_writes",
        (("user", uid), ("allowed", "tiktok_post")): f"app_server: persona {uid}: field "
        "'mcp_tools_allowed': 'tiktok_post' is neither a tool nor one of none, social, "
        "chatbot, all",
    }
    for changes, line in cases.items():
        assert one_line_exit(capsys, args(backend, **dict(changes))) == line
    assert one_line_exit(capsys, ["--user", uid]) == (
        "app_server: the following arguments are required: --backend, --at, --allowed, --policy"
    )
    broken = tmp_path / "backend"
    (broken / "42").mkdir(parents=True)
    (broken / "42" / "profile.json").write_text("{", encoding="utf-8")
    line = one_line_exit(capsys, args(broken, user="42"))
    assert line.startswith(f"app_server: {broken / '42' / 'profile.json'} (persona 42): not valid")


@pytest.mark.slow
def test_the_command_line_exits_2_with_one_line(persona: tuple[Path, V3Query]) -> None:
    backend, query = persona
    executable, arguments = server_command(backend, {**metadata(query), "ts": "later"})
    done = subprocess.run([executable, *arguments], capture_output=True, text=True, timeout=120)
    assert (done.returncode, done.stdout) == (2, "")
    assert (
        done.stderr == "app_server: --at 'later': not an integer (the query's time, unix seconds)\n"
    )


@pytest.mark.slow
@pytest.mark.memory
def test_inspects_mcp_client_reads_the_same_text(persona: tuple[Path, V3Query]) -> None:
    """The path `-T tools=mcp` takes: Inspect's stdio MCP client, its tools' text the
    session's, a refusal a `ToolError` with the session's message."""
    from inspect_ai.tool import ToolDef, ToolError, mcp_server_stdio

    backend, query = persona
    session = session_for(PersonaStreams(backend), metadata(query))
    executable, arguments = server_command(backend, metadata(query))

    async def read() -> tuple[list[str], Any, str]:
        async with mcp_server_stdio(command=executable, args=arguments) as server:
            tools = {ToolDef(tool).name: tool for tool in await server.tools()}
            feed = await tools["threads_get_feed"](limit=2)
            with pytest.raises(ToolError) as refused:
                await tools["threads_get_post"](post_id="nope")
            return list(tools), feed, refused.value.message

    names, feed, refusal = anyio.run(read)
    assert names == session.offered()
    [content] = feed
    assert content.text == session.call("threads_get_feed", {"limit": 2})
    assert refusal == "post_id 'nope' not found on threads"


def test_the_server_serves_without_inspect_or_the_mcp_sdk(persona: tuple[Path, V3Query]) -> None:
    """Its start imports what serving needs (one start per sample): its command makes
    Inspect unimportable; it speaks MCP itself (`mcp_stdio`), so neither the `mcp` SDK
    nor pydantic nor an async framework is loaded. Started by its own command, it
    answers a client's handshake and its listing, serves until its input ends and
    exits, with none of them loaded."""
    backend, query = persona
    executable, (flag, code, *options) = server_command(backend, metadata(query))
    heavy = ("inspect_ai", "mcp", "mcp_types", "pydantic", "anyio", "httpx", "starlette")
    loaded = f"[m for m, module in sys.modules.items() if m.split('.')[0] in {heavy} and module]"
    asked = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "x"}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
    ]
    done = subprocess.run(
        [executable, flag, f"{code}; print({loaded})", *options],
        input="".join(json.dumps(message) + "\n" for message in asked),
        capture_output=True,
        text=True,
        timeout=120,
    )
    *replies, modules = done.stdout.splitlines()
    assert (done.returncode, modules, done.stderr) == (0, "[]", "")
    handshake, listing = (json.loads(reply) for reply in replies)
    assert handshake["result"]["protocolVersion"] == "2025-11-25"
    session = session_for(PersonaStreams(backend), metadata(query))
    assert [tool["name"] for tool in listing["result"]["tools"]] == session.offered()
