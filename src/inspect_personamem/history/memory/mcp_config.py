"""The config of `memory=mcp` (`-T memory_config=FILE`): which MCP server, which of its
tools add and search, and how to read what the search returns.

Checked whole when the task is made, before any data are read: every key, the
transport (`server.command` for a server the run starts over stdio, `server.url` for
one it reaches over streamable HTTP), the tools' argument templates and the
placeholders they use. What only the server can answer is checked when a memory
connects (`mcp.py`; the task connects once as it is made, also before any data are
read): the tools exist, and every template fits the tool's input schema
(`McpConfig.fitted`).

Argument templates are JSON-like values whose strings may hold placeholders, `{name}`:
a string that is one placeholder alone takes the value itself, of the type `KINDS`
gives it (`{position}` an integer, `{messages}` a list), except where the tool's input
schema takes a string there and not that type: an integer is then sent as its digits
(the reference server names an entity by a string); elsewhere the value is written
into the text. A template that no value of its type could make fit (text where the
schema takes a number, a field it lacks or one it requires left out) is an error
naming the config file, the tool and the field.

Placeholders everywhere: `{context_id}`; `{memory_id}`, new for every memory (one per
shared context, a new one at each rebuild); `{scratch}`, an empty folder of the
memory's own, removed when its server stops. In `add.arguments`, per message:
`{role}`, `{content}`, `{position}`; per session: `{text}` (the messages as
`role: content` lines), `{messages}` (a list of `{"role", "content"}` objects) and
`{position}` (the first message's). In `search.arguments`: `{query}` and `{top_k}`.

Pure: no MCP client here; `read_items` reads a search result's text blocks and
structured content.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Final, Literal

from inspect_personamem.errors import PersonaMemArgumentError
from inspect_personamem.history.memory.interface import HistoryMessage, MemoryItem

PLACEHOLDER: Final = re.compile(r"\{(\w+)\}")
KINDS: Final[dict[str, str]] = {
    "context_id": "string", "memory_id": "string", "scratch": "string", "role": "string",
    "content": "string", "text": "string", "query": "string", "messages": "array",
    "position": "integer", "top_k": "integer",
}  # fmt: skip
"""Each placeholder's JSON type: what a template that is the placeholder alone sends."""
WORDS: Final = {
    "string": "a string", "integer": "an integer", "number": "a number",
    "boolean": "a boolean", "null": "null", "object": "an object", "array": "a list",
}  # fmt: skip
COMMON: Final = frozenset({"context_id", "memory_id", "scratch"})
PER_MESSAGE: Final = COMMON | {"role", "content", "position"}
PER_SESSION: Final = COMMON | {"text", "messages", "position"}
SEARCH: Final = COMMON | {"query", "top_k"}

AddPer = Literal["message", "session"]
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


class _Misfit(Exception):
    """A template that does not fit the tool's input schema at `field`."""

    def __init__(self, field: str, problem: str) -> None:
        super().__init__(problem)
        self.field, self.problem = field, problem


@dataclass(frozen=True)
class AsText:
    """A template that is one placeholder alone, filled as text: the tool's input schema
    takes a string there (`{position}` for an entity's name)."""

    template: str


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
                arguments = _fit(call.arguments, schema, schema, "")
            except _Misfit as misfit:
                raise McpConfigError(
                    _at(f"{section}.arguments", misfit.field),
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


def fill(template: Any, values: Mapping[str, Any]) -> Any:
    """`template` with its placeholders replaced by `values` (checked to be known)."""
    if isinstance(template, AsText):
        return _text(template.template, values)
    if isinstance(template, str):
        whole = PLACEHOLDER.fullmatch(template)
        if whole:
            return values[whole.group(1)]
        return _text(template, values)
    if isinstance(template, Mapping):
        return {key: fill(value, values) for key, value in template.items()}
    if isinstance(template, list):
        return [fill(value, values) for value in template]
    return template


def _text(template: str, values: Mapping[str, Any]) -> str:
    return PLACEHOLDER.sub(lambda m: str(values[m.group(1)]), template)


def _fit(template: Any, schema: Mapping[str, Any], root: Mapping[str, Any], field: str) -> Any:
    """`template` as the tool takes it at `field` (whose `schema` is part of `root`): a
    lone integer placeholder wrapped in `AsText` where the schema takes a string and no
    integer; a `_Misfit` where no value the template makes could fit."""
    if isinstance(template, str):
        whole = PLACEHOLDER.fullmatch(template)
        kind = KINDS[whole.group(1)] if whole else "string"
        if _taking(schema, root, kind) is not None:
            if whole and whole.group(1) == "messages":  # a list of role/content objects
                _fit([{"role": "{role}", "content": "{content}"}], schema, root, field)
            return template
        if kind == "integer" and _taking(schema, root, "string") is not None:
            return AsText(template)
        raise _Misfit(field, f"takes {_declared(schema, root)} here, and {template!r} is "
                      f"{WORDS[kind]}")  # fmt: skip
    kind = _kind(template)
    taking = _taking(schema, root, kind)
    if taking is None:
        raise _Misfit(field, f"takes {_declared(schema, root)} here, not {WORDS[kind]}: "
                      f"{json.dumps(template)[:80]}")  # fmt: skip
    if isinstance(template, Mapping):
        return _fit_object(template, taking, root, field)
    if isinstance(template, list):
        items = taking.get("items")
        prefix = taking.get("prefixItems") or (items if isinstance(items, list) else [])
        rest = items if isinstance(items, Mapping) else {}
        return [
            _fit(value, prefix[index] if index < len(prefix) else rest, root, f"{field}[{index}]")
            for index, value in enumerate(template)
        ]
    return template


def _fit_object(
    template: Mapping[str, Any], schema: Mapping[str, Any], root: Mapping[str, Any], field: str
) -> dict[str, Any]:
    """An object template whose fields the schema takes, every field it requires given."""
    properties = schema.get("properties") or {}
    extra = schema.get("additionalProperties")
    closed = bool(properties) and not (extra is True or isinstance(extra, Mapping))
    for key in template:
        if closed and key not in properties:
            taken = ", ".join(sorted(properties))
            raise _Misfit(_at(field, str(key)), f"takes no such field (it takes: {taken})")
    missing = sorted(set(schema.get("required") or ()) - set(template))
    if missing:
        raise _Misfit(field, f"requires {', '.join(map(repr, missing))}, which the config does "
                      "not give")  # fmt: skip
    rest = extra if isinstance(extra, Mapping) else {}
    return {
        key: _fit(value, properties.get(key, rest), root, _at(field, key))
        for key, value in template.items()
    }


def _kind(value: Any) -> str:
    """A literal's JSON type."""
    if value is None or isinstance(value, bool):
        return "null" if value is None else "boolean"
    if isinstance(value, int | float):
        return "integer" if isinstance(value, int) else "number"
    if isinstance(value, Mapping | list):
        return "object" if isinstance(value, Mapping) else "array"
    return "string"


def _resolved(schema: Any, root: Mapping[str, Any]) -> Mapping[str, Any]:
    """`schema`, its local `$ref` followed (`#/$defs/...`)."""
    while isinstance(schema, Mapping) and str(schema.get("$ref", "")).startswith("#/"):
        target: Any = root
        for key in schema["$ref"][2:].split("/"):
            target = target.get(key) if isinstance(target, Mapping) else None
        schema = target
    return schema if isinstance(schema, Mapping) else {}


def _taking(schema: Any, root: Mapping[str, Any], kind: str) -> Mapping[str, Any] | None:
    """The part of `schema` that takes a value of JSON type `kind` (the member of an
    `anyOf` or `oneOf`; the schema itself where it names no type), or None."""
    resolved = _resolved(schema, root)
    members = resolved.get("anyOf") or resolved.get("oneOf")
    if members:
        for member in members:
            found = _taking(member, root, kind)
            if found is not None:
                return found
        return None
    declared = resolved.get("type")
    if declared is None:
        return resolved
    types = {declared} if isinstance(declared, str) else set(declared)
    return resolved if kind in types or (kind == "integer" and "number" in types) else None


def _declared(schema: Any, root: Mapping[str, Any]) -> str:
    """The JSON types `schema` takes, in words."""
    resolved = _resolved(schema, root)
    members = resolved.get("anyOf") or resolved.get("oneOf")
    if members:
        return " or ".join(dict.fromkeys(_declared(member, root) for member in members))
    declared = resolved.get("type")
    types = [declared] if isinstance(declared, str) else list(declared or [])
    return " or ".join(WORDS.get(str(t), str(t)) for t in types) or "anything"


def _at(field: str, key: str) -> str:
    """The dotted path of `key` in the object at `field` (either may be empty)."""
    return ".".join(filter(None, [field, key]))


def add_values(messages: Sequence[HistoryMessage], per: AddPer) -> list[dict[str, Any]]:
    """The placeholder values of each add call for these messages: one per message, or
    one for them all (a session, or part of one)."""
    if per == "message":
        return [{"role": m.role, "content": m.content, "position": m.position} for m in messages]
    return [
        {
            "text": "\n".join(f"{m.role}: {m.content}" for m in messages),
            "messages": [{"role": m.role, "content": m.content} for m in messages],
            "position": messages[0].position,
        }
    ]


def read_items(texts: Sequence[str], structured: Any, reading: Reading) -> list[MemoryItem]:
    """The items of a search result, from its text blocks and its structured content
    (None where the server sent none); a `ValueError` saying what is malformed."""
    if reading.results == "text":
        return [MemoryItem(text=text) for text in texts]
    value = structured
    if value is None:
        if not texts:
            return []
        if len(texts) > 1:
            raise ValueError(f"{len(texts)} text blocks and no structured content, not one JSON")
        try:
            value = json.loads(texts[0])
        except ValueError:
            raise ValueError(f"text that is not JSON: {texts[0][:80]!r}") from None
    for key in filter(None, reading.items.split(".")):
        if not isinstance(value, Mapping) or key not in value:
            raise ValueError(f"no key {reading.items!r} in {_shape(value)}")
        value = value[key]
    if not isinstance(value, list):
        raise ValueError(f"{_shape(value)} at {reading.items or 'the top level'!r}, not a list")
    return [_item(element, index, reading) for index, element in enumerate(value)]


def _item(element: Any, index: int, reading: Reading) -> MemoryItem:
    """One element of the result's list as an item."""
    if isinstance(element, str):
        return MemoryItem(text=element)
    if not isinstance(element, Mapping):
        raise ValueError(f"item {index} is {_shape(element)}, not a string or an object")
    text = element.get(reading.text)
    if isinstance(text, list) and all(isinstance(line, str) for line in text):
        text = "\n".join(text)
    if not isinstance(text, str):
        raise ValueError(f"item {index} has no text in field {reading.text!r}")
    score = element.get(reading.score) if reading.score else None
    if score is not None and (isinstance(score, bool) or not isinstance(score, int | float)):
        raise ValueError(f"item {index}'s {reading.score!r} is {score!r}, not a number")
    position = element.get(reading.position) if reading.position else None
    if isinstance(position, str) and position.isdecimal():
        position = int(position)
    if position is not None and (isinstance(position, bool) or not isinstance(position, int)):
        raise ValueError(f"item {index}'s {reading.position!r} is {position!r}, not an integer")
    return MemoryItem(text=text, score=score, position=position)


def _shape(value: Any) -> str:
    return f"an object with keys {sorted(value)[:8]}" if isinstance(value, Mapping) else (
        f"a {type(value).__name__}"
    )  # fmt: skip


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
