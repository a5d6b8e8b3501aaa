"""Old logs and arguments in today's terms: task version 1's `method=` in the two axes,
and a dataset repository's former name."""

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


def current_arguments(task_args: Mapping[str, Any], release: Release) -> dict[str, Any]:
    """A log's task arguments in today's terms: version 1's `method` becomes the axes,
    and a former name of `release`'s repository (`repo_id`) its current one, so that a
    run on the renamed repository is of the same setting."""
    arguments = dict(task_args)
    method = arguments.pop("method", None)
    if method is not None:
        arguments.update(LEGACY_METHODS.get(str(method), {}))
    if "repo_id" in arguments:
        arguments["repo_id"] = release.resolved(str(arguments["repo_id"]))
    return arguments
