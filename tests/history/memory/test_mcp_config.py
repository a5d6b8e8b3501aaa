"""The config of `memory=mcp`: checked whole before any sample (`memory/mcp_config.py`)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from support.servers.mcp_memory import (
    GOOD_CONFIG,
    changed_config,
    documented_config,
    stand_in_config,
)

from inspect_personamem.history.memory.mcp_config import McpConfigError, Reading, parse_mcp_config


def test_the_stand_in_config_is_read_whole() -> None:
    config = parse_mcp_config(GOOD_CONFIG)
    assert config.server.command is not None and config.server.url is None
    assert config.add.tool == "remember" and config.add_per == "message"
    assert config.search.arguments == {"query": "{query}", "limit": "{top_k}"}
    assert config.reading == Reading(results="json", items="results")
    assert (config.start_timeout, config.call_timeout) == (60.0, 60.0)
    command_line = " ".join([GOOD_CONFIG["server"]["command"], *GOOD_CONFIG["server"]["args"]])
    assert config.server.name == f"MCP server '{command_line}'"


@pytest.mark.parametrize(
    ("config", "problem"),
    [
        ({}, "the config: missing: memory=mcp needs -T memory_config=FILE"),
        (changed_config("serch", {}), "unknown key 'serch' (did you mean search?)"),
        (changed_config("server", ...), "server: missing, or not a mapping"),
        (changed_config("server.url", "http://x/mcp"), "server: name either command"),
        (changed_config("server.args", "one string"), "server.args: 'one string': expected a list"),
        (
            changed_config("server.env", {"A": 1}),
            "server.env: {'A': 1}: expected a mapping of names",
        ),
        (
            changed_config("server.args", ["{query}"]),
            "server: unknown placeholder {query}; known here",
        ),
        (changed_config("add.tool", ""), "add.tool: '': expected a non-empty string"),
        (changed_config("add.per", "turn"), "add.per: 'turn': choose message or session"),
        (
            changed_config("add.arguments", {"role": "{role}"}),
            "add.arguments: uses none of {content}",
        ),
        (changed_config("add.arguments", {"content": "{contnt}"}), "unknown placeholder {contnt}"),
        (changed_config("add.arguments", {"content": "{text}"}), "unknown placeholder {text}"),
        (changed_config("search.arguments", {"limit": "{top_k}"}), "uses no {query}"),
        (changed_config("search.results", "xml"), "search.results: 'xml': choose text or json"),
        (changed_config("search.results", "text"), "search: items apply to results: json only"),
        (changed_config("search.score", 3), "search.score: 3: expected a field name"),
        (changed_config("call_timeout", 0), "call_timeout: 0: expected a positive number"),
        (changed_config("start_timeout", "soon"), "start_timeout: 'soon': expected a positive"),
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
    http = changed_config("server", {"url": "http://127.0.0.1:8000/mcp"})
    with pytest.raises(McpConfigError, match="server.url: a server the run reaches but does not"):
        parse_mcp_config(http)
    for where in ("add", "search"):
        http[where]["arguments"]["user"] = "{memory_id}"
    assert parse_mcp_config(http).server.url == "http://127.0.0.1:8000/mcp"
    in_url = changed_config("server", {"url": "http://127.0.0.1:8000/{memory_id}/mcp"})
    assert (
        parse_mcp_config(in_url).server.name == "MCP server http://127.0.0.1:8000/{memory_id}/mcp"
    )


def test_a_session_per_call_takes_its_own_placeholders() -> None:
    config = parse_mcp_config(stand_in_config(Path("/records"), per="session"))
    assert config.add_per == "session" and config.add.tool == "remember_session"
    with pytest.raises(McpConfigError, match=re.escape("unknown placeholder {content}")):
        parse_mcp_config(changed_config("add", {"tool": "t", "per": "session",
                                         "arguments": {"x": "{content}"}}))  # fmt: skip


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
    path.write_text(json.dumps(changed_config("add.per", "turn")), encoding="utf-8")
    missing = tmp_path / "no data here"  # never read: the config is checked first
    with pytest.raises(ValueError, match=re.escape(f"memory_config={path} (memory=mcp): add.per")):
        TASKS["personamem_32k"](
            data_dir=str(missing), history="memory", memory="mcp", memory_config=str(path)
        )
