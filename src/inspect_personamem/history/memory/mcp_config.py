"""The config of `memory=mcp` (`-T memory_config=FILE`): which MCP server, which of its
tools add and search, and how to read what the search returns.

Checked whole when the task is made, before any data are read: every key, the
transport (`server.command` for a server the run starts over stdio, `server.url` for
one it reaches over streamable HTTP), the tools' argument templates and the
placeholders they use. What only the server can answer is checked when a memory
connects (`mcp.py`; the task connects once as it is made, also before any data are
read): the tools exist, and every template fits the tool's input schema
(`McpConfig.fitted`).

The templates and their placeholders: `mcp_templates.py`; a search result read as
`Reading` says: `mcp_results.py`. Pure: no MCP client here.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, Literal

from inspect_personamem.errors import PersonaMemArgumentError
from inspect_personamem.history.memory.mcp_templates import (
    COMMON,
    PER_MESSAGE,
    PER_SESSION,
    PLACEHOLDER,
    SEARCH,
    AddPer,
    Misfit,
    at,
    fit,
)

Results = Literal["text", "json"]


class McpConfigError(PersonaMemArgumentError):
    """The memory config of `memory=mcp` is incomplete or wrong (`file`: the config
    file, where there is one)."""

    def __init__(self, where: str, problem: str, file: str | None = None) -> None:
        self.where, self.problem = where, problem
        named = f"={file}" if file else ""
        super().__init__(
            f"PersonaMem task parameter memory_config{named} (memory=mcp): {where}: {problem}"
        )


@dataclass(frozen=True)
class Server:
    """How to start the server (stdio: `command`) or reach it (streamable HTTP: `url`).
    Strings may hold the common placeholders."""

    command: str | None
    args: tuple[str, ...]
    env: dict[str, str]
    cwd: str | None
    url: str | None
    headers: dict[str, str]

    @property
    def name(self) -> str:
        """The server in words, for errors: its command line, or its URL."""
        if self.url is not None:
            return f"MCP server {self.url}"
        return f"MCP server '{' '.join([str(self.command), *self.args])}'"


@dataclass(frozen=True)
class ToolCall:
    """A tool and the template of its arguments."""

    tool: str
    arguments: dict[str, Any]


@dataclass(frozen=True)
class Reading:
    """How a search result becomes items: `text`, one item per text block; `json`, the
    list at `items` (a dotted key path, "" for the top level) of the structured content,
    or of the one text block parsed as JSON, each element a string or an object whose
    `text` field (a string, or a list of strings, one a line) is the item's text, and
    whose `score` and `position` fields, where named and present, its score and history
    position."""

    results: Results = "text"
    items: str = ""
    text: str = "text"
    score: str | None = "score"
    position: str | None = "position"


@dataclass(frozen=True)
class McpConfig:
    server: Server
    add: ToolCall
    add_per: AddPer
    search: ToolCall
    reading: Reading
    start_timeout: float
    """Seconds to start the server (or reach it), initialize the session and list its
    tools."""
    call_timeout: float
    """Seconds one tool call may take."""
    file: str | None = None
    """The config file, for errors."""

    def fitted(self, schemas: Mapping[str, Any]) -> tuple[ToolCall, ToolCall]:
        """The add and search calls fitted to the server's tools (`schemas`: each tool's
        input schema, by name, as `list_tools` gives them); an `McpConfigError` naming
        the file, the tool and the field where they cannot fit."""
        fitted = []
        for section, call in (("add", self.add), ("search", self.search)):
            if call.tool not in schemas:
                raise McpConfigError(
                    f"{section}.tool", f"{call.tool!r}: the {self.server.name} has no such "
                    f"tool (its tools: {', '.join(sorted(schemas)) or 'none'})", self.file,
                )  # fmt: skip
            schema = schemas[call.tool] or {}
            try:
                arguments = fit(call.arguments, schema, schema, "")
            except Misfit as misfit:
                raise McpConfigError(
                    at(f"{section}.arguments", misfit.field),
                    f"tool {call.tool!r} of the {self.server.name} {misfit.problem}",
                    self.file,
                ) from None
            fitted.append(ToolCall(call.tool, arguments))
        return fitted[0], fitted[1]


def parse_mcp_config(config: Mapping[str, Any], file: str | None = None) -> McpConfig:
    """The checked config (`file`: where it was read, for errors); an `McpConfigError`
    naming the file and the key at fault."""
    try:
        return replace(_parsed(config), file=file)
    except McpConfigError as error:
        raise McpConfigError(error.where, error.problem, file) from None


def _parsed(config: Mapping[str, Any]) -> McpConfig:
    if not config:
        raise McpConfigError(
            "the config", "missing: memory=mcp needs -T memory_config=FILE naming the server "
            "(server.command or server.url) and its add and search tools"
        )  # fmt: skip
    _known_keys("the config", config, {"server", "add", "search", "start_timeout", "call_timeout"})
    server = _server(_mapping(config, "server"))
    add_section = _mapping(config, "add")
    _known_keys("add", add_section, {"tool", "per", "arguments"})
    per = add_section.get("per", "message")
    if per not in ("message", "session"):
        raise McpConfigError("add.per", f"{per!r}: choose message or session")
    add = _tool_call("add", add_section, PER_MESSAGE if per == "message" else PER_SESSION)
    sent = {"content"} if per == "message" else {"text", "messages"}
    if not sent & _placeholders(add.arguments):
        raise McpConfigError(
            "add.arguments", f"uses none of {_braced(sent)}: no message would reach the server"
        )
    search_section = _mapping(config, "search")
    _known_keys(
        "search", search_section,
        {"tool", "arguments", "results", "items", "text", "score", "position"},
    )  # fmt: skip
    search = _tool_call("search", search_section, SEARCH)
    if "query" not in _placeholders(search.arguments):
        raise McpConfigError("search.arguments", "uses no {query}: the question would not be sent")
    if server.url is not None:
        _check_namespaced(server, add, search)
    return McpConfig(
        server=server,
        add=add,
        add_per=per,
        search=search,
        reading=_reading(search_section),
        start_timeout=_seconds(config, "start_timeout", 60.0),
        call_timeout=_seconds(config, "call_timeout", 60.0),
    )


def _server(section: Mapping[str, Any]) -> Server:
    command, url = section.get("command"), section.get("url")
    if (command is None) == (url is None):
        raise McpConfigError(
            "server", "name either command (a server the run starts over stdio) or url (one "
            "it reaches over streamable HTTP)"
        )  # fmt: skip
    if command is not None:
        _known_keys("server", section, {"command", "args", "env", "cwd"})
    else:
        _known_keys("server", section, {"url", "headers"})
    server = Server(
        command=_string(section, "command", "server") if command is not None else None,
        args=tuple(_strings(section.get("args", []), "server.args")),
        env=_string_map(section.get("env", {}), "server.env"),
        cwd=_string(section, "cwd", "server") if section.get("cwd") is not None else None,
        url=_string(section, "url", "server") if url is not None else None,
        headers=_string_map(section.get("headers", {}), "server.headers"),
    )
    if server.url is not None and not re.match(r"https?://", server.url):
        raise McpConfigError("server.url", f"{server.url!r}: expected http:// or https://")
    texts = [server.command, *server.args, *server.env.values(), server.cwd, server.url]
    _check_placeholders("server", [*texts, *server.headers.values()], COMMON)
    return server


def _tool_call(where: str, section: Mapping[str, Any], known: frozenset[str]) -> ToolCall:
    tool = _string(section, "tool", where)
    arguments = section.get("arguments")
    if not isinstance(arguments, Mapping) or not arguments:
        raise McpConfigError(
            f"{where}.arguments", "missing: a mapping of the tool's argument names to templates"
        )
    _check_placeholders(f"{where}.arguments", [arguments], known)
    return ToolCall(tool=tool, arguments=dict(arguments))


def _reading(section: Mapping[str, Any]) -> Reading:
    results = section.get("results", "text")
    if results not in ("text", "json"):
        raise McpConfigError("search.results", f"{results!r}: choose text or json")
    fields = {key: section[key] for key in ("items", "text", "score", "position") if key in section}
    if results == "text" and fields:
        raise McpConfigError(
            "search", f"{', '.join(fields)} apply to results: json only (results: text makes "
            "each text block an item)"
        )  # fmt: skip
    for key, value in fields.items():
        if not (isinstance(value, str) or (value is None and key in ("score", "position"))):
            raise McpConfigError(f"search.{key}", f"{value!r}: expected a field name")
    return Reading(results=results, **fields)


def _check_namespaced(server: Server, add: ToolCall, search: ToolCall) -> None:
    """A server the run does not start outlives each memory: unless every memory names
    its own `{memory_id}`, a rebuilt memory (or another context's) would find what an
    earlier one was given."""
    in_server = "memory_id" in _placeholders([server.url, *server.headers.values()])
    in_calls = all("memory_id" in _placeholders(c.arguments) for c in (add, search))
    if not (in_server or in_calls):
        raise McpConfigError(
            "server.url", "a server the run reaches but does not start keeps what it was given "
            "across memories: put {memory_id} in add.arguments and search.arguments (a user or "
            "collection of its own for each memory), or in server.url or server.headers"
        )  # fmt: skip


def _placeholders(template: Any) -> set[str]:
    if isinstance(template, str):
        return set(PLACEHOLDER.findall(template))
    if isinstance(template, Mapping):
        template = list(template.values())
    if isinstance(template, list):
        return set().union(*map(_placeholders, template)) if template else set()
    return set()


def _check_placeholders(where: str, templates: list[Any], known: frozenset[str]) -> None:
    unknown = sorted(_placeholders(templates) - known)
    if unknown:
        raise McpConfigError(
            where, f"unknown placeholder {_braced(unknown)}; known here: {_braced(sorted(known))}"
        )


def _braced(names: Any) -> str:
    return ", ".join(f"{{{name}}}" for name in sorted(names))


def _known_keys(where: str, section: Mapping[str, Any], known: set[str]) -> None:
    for key in section:
        if key not in known:
            close = difflib.get_close_matches(str(key), sorted(known), n=1)
            hint = f" (did you mean {close[0]}?)" if close else ""
            raise McpConfigError(
                where, f"unknown key {key!r}{hint}; known: {', '.join(sorted(known))}"
            )


def _mapping(section: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    value = section.get(key)
    if not isinstance(value, Mapping):
        raise McpConfigError(key, "missing, or not a mapping")
    return value


def _string(section: Mapping[str, Any], key: str, where: str) -> str:
    value = section.get(key)
    if not isinstance(value, str) or not value:
        raise McpConfigError(f"{where}.{key}", f"{value!r}: expected a non-empty string")
    return value


def _strings(value: Any, where: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise McpConfigError(where, f"{value!r}: expected a list of strings")
    return value


def _string_map(value: Any, where: str) -> dict[str, str]:
    if not isinstance(value, Mapping) or not all(isinstance(v, str) for v in value.values()):
        raise McpConfigError(where, f"{value!r}: expected a mapping of names to strings")
    return {str(k): v for k, v in value.items()}


def _seconds(config: Mapping[str, Any], key: str, default: float) -> float:
    value = config.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
        raise McpConfigError(key, f"{value!r}: expected a positive number of seconds")
    return float(value)
