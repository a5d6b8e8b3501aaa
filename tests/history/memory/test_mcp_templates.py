"""The argument templates of `memory=mcp`: filled keeping a lone placeholder's type, and
fitted to the tool's input schema, or named by file, tool and field where they cannot
fit (`memory/mcp_templates.py`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from support.servers.mcp_memory import (
    GOOD_CONFIG,
    documented_config,
    stand_in_config,
)
from support.servers.mcp_memory import (
    changed_config as changed,
)

from inspect_personamem.history.memory.interface import HistoryMessage
from inspect_personamem.history.memory.mcp_config import McpConfigError, parse_mcp_config
from inspect_personamem.history.memory.mcp_templates import add_values, fill


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
    add, search = parse_mcp_config(GOOD_CONFIG).fitted({"remember": remember, "recall": recall})
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
