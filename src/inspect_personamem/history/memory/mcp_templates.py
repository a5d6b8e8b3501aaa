"""The argument templates of `memory=mcp`'s tool calls (`mcp_config.py`): filled with
each call's values, and fitted to the tool's input schema when a memory connects.

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

Pure: no MCP client, no config reading.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal

from inspect_personamem.history.memory.interface import HistoryMessage

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
"""The placeholders each template may use (the docstring's list)."""

AddPer = Literal["message", "session"]


class Misfit(Exception):
    """A template that does not fit the tool's input schema at `field`."""

    def __init__(self, field: str, problem: str) -> None:
        super().__init__(problem)
        self.field, self.problem = field, problem


@dataclass(frozen=True)
class AsText:
    """A template that is one placeholder alone, filled as text: the tool's input schema
    takes a string there (`{position}` for an entity's name)."""

    template: str


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


def fit(template: Any, schema: Mapping[str, Any], root: Mapping[str, Any], field: str) -> Any:
    """`template` as the tool takes it at `field` (whose `schema` is part of `root`): a
    lone integer placeholder wrapped in `AsText` where the schema takes a string and no
    integer; a `Misfit` where no value the template makes could fit."""
    if isinstance(template, str):
        whole = PLACEHOLDER.fullmatch(template)
        kind = KINDS[whole.group(1)] if whole else "string"
        if _taking(schema, root, kind) is not None:
            if whole and whole.group(1) == "messages":  # a list of role/content objects
                fit([{"role": "{role}", "content": "{content}"}], schema, root, field)
            return template
        if kind == "integer" and _taking(schema, root, "string") is not None:
            return AsText(template)
        raise Misfit(field, f"takes {_declared(schema, root)} here, and {template!r} is "
                      f"{WORDS[kind]}")  # fmt: skip
    kind = _kind(template)
    taking = _taking(schema, root, kind)
    if taking is None:
        raise Misfit(field, f"takes {_declared(schema, root)} here, not {WORDS[kind]}: "
                      f"{json.dumps(template)[:80]}")  # fmt: skip
    if isinstance(template, Mapping):
        return _fit_object(template, taking, root, field)
    if isinstance(template, list):
        items = taking.get("items")
        prefix = taking.get("prefixItems") or (items if isinstance(items, list) else [])
        rest = items if isinstance(items, Mapping) else {}
        return [
            fit(value, prefix[index] if index < len(prefix) else rest, root, f"{field}[{index}]")
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
            raise Misfit(at(field, str(key)), f"takes no such field (it takes: {taken})")
    missing = sorted(set(schema.get("required") or ()) - set(template))
    if missing:
        raise Misfit(field, f"requires {', '.join(map(repr, missing))}, which the config does "
                      "not give")  # fmt: skip
    rest = extra if isinstance(extra, Mapping) else {}
    return {
        key: fit(value, properties.get(key, rest), root, at(field, key))
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


def at(field: str, key: str) -> str:
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
