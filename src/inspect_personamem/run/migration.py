"""Old logs and arguments in today's terms: task version 1's `method=` in the two axes,
PersonaMem-v3's apps agent as it was spelt (`history=tools` with `tools=apps|mcp`), and
a dataset repository's former name."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from inspect_personamem.data.release import Release

LEGACY_METHODS: Final[dict[str, dict[str, str]]] = {
    "generate": {},
    "logprob": {"answer": "logprob"},
    "rag": {"history": "rag"},
    "memory": {"history": "memory"},
}
"""Task version 1's `method=` in the two axes (what `method=X` now is)."""
LEGACY_TOOLS: Final[dict[str, dict[str, str]]] = {
    "apps": {"history": "apps", "apps_transport": "process"},
    "mcp": {"history": "apps", "apps_transport": "mcp"},
    "history": {},
}
"""PersonaMem-v3's former `tools=` with `history=tools` (what it now is): its apps agent,
in process or over MCP, is `history=apps`; `tools=history` was the generic tools."""


def current_arguments(task_args: Mapping[str, Any], release: Release) -> dict[str, Any]:
    """A log's task arguments (or the defaults its facts record) in today's terms:
    version 1's `method` becomes the axes, PersonaMem-v3's `tools` its apps agent
    (`LEGACY_TOOLS`), and a former name of `release`'s repository (`repo_id`) its
    current one, so that a run on the renamed repository is of the same setting."""
    arguments = dict(task_args)
    method = arguments.pop("method", None)
    if method is not None:
        arguments.update(LEGACY_METHODS.get(str(method), {}))
    tools = arguments.pop("tools", None)
    if tools is not None and arguments.get("history") == "tools":
        arguments.update(LEGACY_TOOLS.get(str(tools), {}))
    if "repo_id" in arguments:
        arguments.update(repo_id=release.resolved(str(arguments.get("repo_id"))))
    return arguments
