"""The session's tools as Inspect tools (`apps_transport=process`): the one module of
the apps that imports Inspect, so that the MCP server (`server.py`) serves without it."""

from __future__ import annotations

from typing import Any

from inspect_ai.tool import Tool, ToolDef, ToolError

from inspect_personamem.datasets.v3.agent.catalogue import TOOLS, AppToolError, ToolSpec
from inspect_personamem.datasets.v3.agent.session import AppSession, typed


def inspect_tools(session: AppSession) -> list[Tool]:
    """The session's offered tools as Inspect tools: the same text as `session.call`
    (never truncated, `max_output=0`), an `AppToolError` as a `ToolError` with its
    message."""
    return [_inspect_tool(session, TOOLS[name]) for name in session.offered()]


def _inspect_tool(session: AppSession, spec: ToolSpec) -> Tool:
    async def run(**arguments: Any) -> str:
        try:
            return session.call(spec.name, arguments)
        except AppToolError as error:
            raise ToolError(error.message) from None

    return ToolDef(
        typed(run, spec, str),
        name=spec.name,
        description=spec.doc,
        parameters={p.name: p.doc for p in spec.params},
        max_output=0,
    ).as_tool()
