"""The config of `memory=mcp`: checked whole before any sample, its templates filled,
and a search result read as the config says (`memory/mcp_config.py`)."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest
from support.servers.mcp_memory import documented_config, stand_in_config

from inspect_personamem.history.memory.interface import HistoryMessage, MemoryItem
from inspect_personamem.history.memory.mcp_config import (
    McpConfigError,
    Reading,
    add_values,
    fill,
    parse_mcp_config,
    read_items,
)

GOOD = stand_in_config(Path("/records"))


def changed(path: str, value: Any) -> dict[str, Any]:
    """`GOOD` with the key at a dotted `path` set to `value` (deleted where it is ...)."""
    config = copy.deepcopy(GOOD)
    *parents, last = path.split(".")
    section = config
    for key in parents:
        section = section[key]
    if value is ...:
        del section[last]
    else:
        section[last] = value
    return config


def test_the_stand_in_config_is_read_whole() -> None:
    config = parse_mcp_config(GOOD)
    assert config.server.command is not None and config.server.url is None
    assert config.add.tool == "remember" and config.add_per == "message"
    assert config.search.arguments == {"query": "{query}", "limit": "{top_k}"}
    assert config.reading == Reading(results="json", items="results")
    assert (config.start_timeout, config.call_timeout) == (60.0, 60.0)
    command_line = " ".join([GOOD["server"]["command"], *GOOD["server"]["args"]])
    assert config.server.name == f"MCP server '{command_line}'"


@pytest.mark.parametrize(
    ("config", "problem"),
    [
        ({}, "the config: missing: memory=mcp needs -T memory_config=FILE"),
        (changed("serch", {}), "unknown key 'serch' (did you mean search?)"),
        (changed("server", ...), "server: missing, or not a mapping"),
        (changed("server.url", "http://x/mcp"), "server: name either command"),
        (changed("server.args", "one string"), "server.args: 'one string': expected a list"),
        (changed("server.env", {"A": 1}), "server.env: {'A': 1}: expected a mapping of names"),
        (changed("server.args", ["{query}"]), "server: unknown placeholder {query}; known here"),
        (changed("add.tool", ""), "add.tool: '': expected a non-empty string"),
        (changed("add.per", "turn"), "add.per: 'turn': choose message or session"),
        (changed("add.arguments", {"role": "{role}"}), "add.arguments: uses none of {content}"),
        (changed("add.arguments", {"content": "{contnt}"}), "unknown placeholder {contnt}"),
        (changed("add.arguments", {"content": "{text}"}), "unknown placeholder {text}"),
        (changed("search.arguments", {"limit": "{top_k}"}), "uses no {query}"),
        (changed("search.results", "xml"), "search.results: 'xml': choose text or json"),
        (changed("search.results", "text"), "search: items apply to results: json only"),
        (changed("search.score", 3), "search.score: 3: expected a field name"),
        (changed("call_timeout", 0), "call_timeout: 0: expected a positive number"),
        (changed("start_timeout", "soon"), "start_timeout: 'soon': expected a positive"),
    ],
)
def test_a_config_at_fault_is_named_before_any_sample(config: dict[str, Any], problem: str) -> None:
    with pytest.raises(McpConfigError) as error:
        parse_mcp_config(config)
    message = str(error.value)
    assert message.startswith("PersonaMem task parameter memory_config (memory=mcp): ")
    assert problem in message and "\n" not in message


def test_a_server_the_run_only_reaches_must_keep_each_memory_apart() -> None:
    """A server the run does not start keeps what earlier memories were given: the
    config must give each memory its own `{memory_id}`."""
    http = changed("server", {"url": "http://127.0.0.1:8000/mcp"})
    with pytest.raises(McpConfigError, match="server.url: a server the run reaches but does not"):
        parse_mcp_config(http)
    for where in ("add", "search"):
        http[where]["arguments"]["user"] = "{memory_id}"
    assert parse_mcp_config(http).server.url == "http://127.0.0.1:8000/mcp"
    in_url = changed("server", {"url": "http://127.0.0.1:8000/{memory_id}/mcp"})
    assert (
        parse_mcp_config(in_url).server.name == "MCP server http://127.0.0.1:8000/{memory_id}/mcp"
    )


def test_a_session_per_call_takes_its_own_placeholders() -> None:
    config = parse_mcp_config(stand_in_config(Path("/records"), per="session"))
    assert config.add_per == "session" and config.add.tool == "remember_session"
    with pytest.raises(McpConfigError, match=re.escape("unknown placeholder {content}")):
        parse_mcp_config(changed("add", {"tool": "t", "per": "session",
                                         "arguments": {"x": "{content}"}}))  # fmt: skip


def test_templates_are_filled_keeping_a_lone_placeholder_s_type() -> None:
    template = {
        "limit": "{top_k}", "query": "Q: {query} (top {top_k})",
        "nested": [{"name": "{position}", "tags": ["{role}", 7, None]}],
    }  # fmt: skip
    values = {"top_k": 5, "query": "tea?", "position": 12, "role": "user"}
    assert fill(template, values) == {
        "limit": 5, "query": "Q: tea? (top 5)",
        "nested": [{"name": 12, "tags": ["user", 7, None]}],
    }  # fmt: skip
    assert fill("{a} and {b", {"a": "{b}"}) == "{b} and {b"  # filled once; a stray brace kept


STRING, INTEGER = {"type": "string"}, {"type": "integer"}
ENTITIES = {
    "type": "object",
    "properties": {"entities": {"type": "array", "items": {
        "type": "object",
        "properties": {"name": STRING, "entityType": STRING,
                       "observations": {"type": "array", "items": STRING}},
        "required": ["name", "entityType", "observations"],
    }}},
    "required": ["entities"],
}  # fmt: skip
"""The input schema of the reference server's `create_entities` (version 2026.8.31, as
its `list_tools` gives it, less descriptions)."""
NODES = {"type": "object", "properties": {"query": STRING}, "required": ["query"]}
VALUES = {"position": 12, "role": "user", "content": "I drink tea", "top_k": 5, "query": "tea?"}


def test_a_template_sends_what_the_tool_s_input_schema_declares() -> None:
    """The reference server names an entity by a string: `{position}` alone goes as its
    digits there, and stays an integer where a tool takes a number (or either)."""
    config = parse_mcp_config(documented_config(), "server-memory.yaml")
    add, search = config.fitted({"create_entities": ENTITIES, "search_nodes": NODES})
    assert fill(add.arguments, VALUES) == {
        "entities": [{"name": "12", "entityType": "user", "observations": ["I drink tea"]}]
    }
    assert fill(search.arguments, VALUES) == {"query": "tea?"}
    either = {"anyOf": [{"$ref": "#/$defs/Count"}, STRING]}
    remember = {"type": "object", "properties": {"role": STRING, "content": STRING,
                "position": either}, "$defs": {"Count": INTEGER}}  # fmt: skip
    recall = {"type": "object", "properties": {"query": STRING, "limit": {"type": "number"}}}
    add, search = parse_mcp_config(GOOD).fitted({"remember": remember, "recall": recall})
    assert fill(add.arguments, VALUES)["position"] == 12
    assert fill(search.arguments, VALUES) == {"query": "tea?", "limit": 5}


REMEMBER: dict[str, Any] = {"type": "object", "properties": {"role": STRING, "content": STRING,
            "position": INTEGER}}  # fmt: skip
MESSAGE = {"type": "object", "required": ["role", "content", "time"]}
SESSION = {"type": "object", "properties": {"position": INTEGER, "messages": {
    "type": "array", "items": MESSAGE}}}  # fmt: skip


@pytest.mark.parametrize(
    ("config", "schemas", "problem"),
    [
        (changed("add.arguments.position", "{content}"), {"remember": REMEMBER},
         "add.arguments.position: tool 'remember' of the MCP server '{server}' takes an "
         "integer here, and '{{content}}' is a string"),
        (changed("add.arguments.role", "{position}"), {"remember": {**REMEMBER, "properties": {
            **REMEMBER["properties"], "role": {"type": "boolean"}}}},
         "add.arguments.role: tool 'remember' of the MCP server '{server}' takes a boolean "
         "here, and '{{position}}' is an integer"),
        (changed("add.arguments.role", ["user"]), {"remember": REMEMBER},
         "add.arguments.role: tool 'remember' of the MCP server '{server}' takes a string "
         "here, not a list: [\"user\"]"),
        (changed("add.arguments.content", "{position} said {content}"),
         {"remember": {**REMEMBER, "properties": {**REMEMBER["properties"], "content": {
             "anyOf": [INTEGER, {"type": "null"}]}}}},
         "add.arguments.content: tool 'remember' of the MCP server '{server}' takes an integer "
         "or null here, and '{{position}} said {{content}}' is a string"),
        (stand_in_config(Path("/records"), per="session"), {"remember_session": SESSION},
         "add.arguments.messages[0]: tool 'remember_session' of the MCP server '{server}' "
         "requires 'time', which the config does not give"),
        (changed("add.arguments", {"entities": [{"name": "{position}", "content": "{content}"}]}),
         {"remember": ENTITIES}, "add.arguments.entities[0].content: tool 'remember' of the MCP "
         "server '{server}' takes no such field (it takes: entityType, name, observations)"),
    ],
)  # fmt: skip
def test_a_template_the_tool_cannot_take_is_named_by_file_tool_and_field(
    config: dict[str, Any], schemas: dict[str, Any], problem: str
) -> None:
    parsed = parse_mcp_config(config, "memory.yaml")
    server = " ".join([parsed.server.command or "", *parsed.server.args])
    with pytest.raises(McpConfigError) as error:
        parsed.fitted({**schemas, "recall": {}})
    assert str(error.value) == (
        "PersonaMem task parameter memory_config=memory.yaml (memory=mcp): "
        + problem.format(server=server)
    )


def test_add_values_are_one_per_message_or_one_per_session() -> None:
    session = [HistoryMessage(4, "system", "persona"), HistoryMessage(5, "user", "hi")]
    assert add_values(session, "message") == [
        {"role": "system", "content": "persona", "position": 4},
        {"role": "user", "content": "hi", "position": 5},
    ]
    assert add_values(session, "session") == [{
        "text": "system: persona\nuser: hi",
        "messages": [{"role": "system", "content": "persona"}, {"role": "user", "content": "hi"}],
        "position": 4,
    }]  # fmt: skip


JSON = Reading(results="json", items="graph.entities", text="observations", position="name")


@pytest.mark.parametrize(
    ("texts", "structured", "reading", "items"),
    [
        (["one", "two"], None, Reading(), [MemoryItem("one"), MemoryItem("two")]),
        ([], None, Reading(results="json"), []),
        (['["a", {"text": "b", "score": 0.5, "position": 3}]'], None, Reading(results="json"),
         [MemoryItem("a"), MemoryItem("b", 0.5, 3)]),
        (["ignored when structured"], {"graph": {"entities": [
            {"name": "12", "observations": ["likes tea", "hates rain"], "score": 2}]}}, JSON,
         [MemoryItem("likes tea\nhates rain", 2, 12)]),
        ([], {"results": [{"text": "t", "position": None}]},
         Reading(results="json", items="results", score=None), [MemoryItem("t")]),
    ],
)  # fmt: skip
def test_a_search_result_is_read_as_configured(
    texts: list[str], structured: Any, reading: Reading, items: list[MemoryItem]
) -> None:
    assert read_items(texts, structured, reading) == items


@pytest.mark.parametrize(
    ("texts", "structured", "reading", "problem"),
    [
        (["not json"], None, Reading(results="json"), "text that is not JSON: 'not json'"),
        (["[]", "[]"], None, Reading(results="json"), "2 text blocks and no structured content"),
        ([], {"results": []}, JSON, "no key 'graph.entities' in an object with keys ['results']"),
        ([], {"graph": {"entities": {}}}, JSON, "an object with keys [] at 'graph.entities', not"),
        (['{"a": 1}'], None, Reading(results="json"), "an object with keys ['a'] at 'the top"),
        (["[3]"], None, Reading(results="json"), "item 0 is a int, not a string or an object"),
        (['[{"txt": "x"}]'], None, Reading(results="json"), "item 0 has no text in field 'text'"),
        (['[{"text": "x", "score": "high"}]'], None, Reading(results="json"),
         "item 0's 'score' is 'high', not a number"),
        (['[{"text": "x", "position": "3a"}]'], None, Reading(results="json"),
         "item 0's 'position' is '3a', not an integer"),
        (['[{"text": "x", "position": 2.0}]'], None, Reading(results="json"),
         "item 0's 'position' is 2.0, not an integer"),
    ],
)  # fmt: skip
def test_a_malformed_search_result_is_named(
    texts: list[str], structured: Any, reading: Reading, problem: str
) -> None:
    with pytest.raises(ValueError) as error:
        read_items(texts, structured, reading)
    assert problem in str(error.value)


def test_the_documented_config_of_a_real_server_is_valid() -> None:
    config = parse_mcp_config(documented_config())
    assert config.server.command == "npx"
    pinned = r"@modelcontextprotocol/server-memory@\d+(\.\d+)+"  # the version tested
    assert any(re.fullmatch(pinned, arg) for arg in config.server.args)
    assert "{scratch}" in config.server.env["MEMORY_FILE_PATH"]  # a fresh graph per memory
    assert (config.add.tool, config.search.tool) == ("create_entities", "search_nodes")


def test_a_config_at_fault_stops_the_task_before_any_data_are_read(tmp_path: Path) -> None:
    from inspect_personamem.run.tasks import TASKS

    path = tmp_path / "mcp.json"
    path.write_text(json.dumps(changed("add.per", "turn")), encoding="utf-8")
    missing = tmp_path / "no data here"  # never read: the config is checked first
    with pytest.raises(ValueError, match=re.escape(f"memory_config={path} (memory=mcp): add.per")):
        TASKS["personamem_32k"](
            data_dir=str(missing), history="memory", memory="mcp", memory_config=str(path)
        )
