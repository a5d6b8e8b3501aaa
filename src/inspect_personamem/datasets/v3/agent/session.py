"""A persona's apps at one query's time, as tools: the one implementation behind the
in-process Inspect tools (`inspect_tools.py`) and the MCP server the package ships
(`server.py`).

An `AppSession` is an `AppStore` (what the apps hold at the query's time T, masked
before T, with this session's writes) offered the tools of its row: every read, and the
writes its `mcp_tools_allowed` and `state_write_policy` allow (`catalogue.allowed_writes`).
`session.call(name, arguments)` gives a tool's result as canonical JSON text (`dumps`);
a bad call raises `AppToolError`, whose message the model reads: an unknown tool, a
write not offered, an argument the tool does not take, a missing one or one of the wrong
type. `session.offered()` names the tools it offers, in the catalogue's order.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from typing import Any, Final, TypeVar

from inspect_personamem.datasets.v3.agent.catalogue import (
    TOOLS,
    AppToolError,
    Kind,
    ToolSpec,
    allowed_writes,
    dumps,
)
from inspect_personamem.datasets.v3.agent.reads import READS
from inspect_personamem.datasets.v3.agent.store import AppStore
from inspect_personamem.datasets.v3.agent.writes import WRITES
from inspect_personamem.datasets.v3.persona.streams import PersonaStreams, PersonaView
from inspect_personamem.errors import PersonaMemDataError

_F = TypeVar("_F", bound=Callable[..., Any])
_TYPE_WORDS: Final[dict[Kind, str]] = {
    "str": "a string",
    "int": "an integer",
    "strs": "a list of strings",
}


class AppSession(AppStore):
    """The persona's apps at one query's time T, with the writes of this session."""

    def __init__(
        self,
        view: PersonaView,
        *,
        mcp_tools_allowed: str,
        state_write_policy: str,
        query_id: str = "",
    ) -> None:
        try:
            self.offered_writes = allowed_writes(mcp_tools_allowed, state_write_policy)
        except ValueError as error:
            where = f"persona {view.user_id}" + (f", query {query_id}" if query_id else "")
            raise PersonaMemDataError(f"{where}: {error}") from None
        super().__init__(view)

    def offered(self) -> list[str]:
        """The tools this session offers, in the catalogue's order."""
        return [n for n, spec in TOOLS.items() if not spec.write or n in self.offered_writes]

    def call(self, name: str, arguments: Mapping[str, Any]) -> str:
        """Run one tool: its result as canonical JSON text, or AppToolError."""
        spec = TOOLS.get(name)
        if spec is None:
            raise AppToolError(f"unknown tool {name!r}")
        if spec.write and name not in self.offered_writes:
            raise AppToolError(f"{name} is not offered for this query (it allows no such write)")
        run = (WRITES if spec.write else READS)[spec.action]
        return dumps(run(self, spec.app, _checked(spec, arguments)))


def session_for(streams: PersonaStreams, metadata: Mapping[str, Any]) -> AppSession:
    """A sample's session: its persona (`user_id`) at its time (`ts`), offered the
    writes its row allows (`mcp_tools_allowed`, `state_write_policy`)."""
    return AppSession(
        streams.visible(str(metadata["user_id"]), int(metadata["ts"])),
        mcp_tools_allowed=str(metadata["mcp_tools_allowed"]),
        state_write_policy=str(metadata["state_write_policy"]),
        query_id=str(metadata.get("query_id", "")),
    )


def typed(function: _F, spec: ToolSpec, returns: Any) -> _F:
    """`function` (taking keyword arguments) with the tool's name, docstring and typed
    signature."""
    parameters = [
        inspect.Parameter(
            p.name, inspect.Parameter.KEYWORD_ONLY, default=p.default, annotation=p.annotation()
        )
        for p in spec.params
    ]
    named: Any = function
    named.__name__ = named.__qualname__ = spec.name
    named.__doc__ = spec.docstring()
    named.__signature__ = inspect.Signature(parameters, return_annotation=returns)
    named.__annotations__ = {p.name: p.annotation() for p in spec.params} | {"return": returns}
    return function


def _checked(spec: ToolSpec, arguments: Mapping[str, Any]) -> dict[str, Any]:
    """The arguments with defaults filled, each of its kind; else AppToolError."""
    known = {p.name: p for p in spec.params}
    for key in arguments:
        if key not in known:
            takes = ", ".join(known) or "no arguments"
            raise AppToolError(f"{spec.name}: unknown argument {key!r} (it takes {takes})")
    out: dict[str, Any] = {}
    for param in spec.params:
        value = arguments.get(param.name)
        if value is None:
            if param.required:
                raise AppToolError(f"{spec.name}: missing required argument {param.name!r}")
            out[param.name] = param.default
        elif not _of_kind(value, param.kind):
            raise AppToolError(
                f"{spec.name}: argument {param.name!r} must be {_TYPE_WORDS[param.kind]}, "
                f"got {dumps(value)[:80]}"
            )
        else:
            out[param.name] = value
    return out


def _of_kind(value: Any, kind: Kind) -> bool:
    if kind == "int":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "str":
        return isinstance(value, str)
    return isinstance(value, list) and all(isinstance(v, str) for v in value)
