"""Old logs and arguments in today's terms: task version 1's `method=` in the two axes."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

LEGACY_METHODS: Final[dict[str, dict[str, str]]] = {
    "generate": {},
    "logprob": {"answer": "logprob"},
    "rag": {"history": "rag"},
    "memory": {"history": "memory"},
}
"""Task version 1's `method=` in the two axes (what `method=X` now is)."""


def current_arguments(task_args: Mapping[str, Any]) -> dict[str, Any]:
    """A log's task arguments in today's terms: version 1's `method` becomes the axes."""
    arguments = dict(task_args)
    method = arguments.pop("method", None)
    if method is not None:
        arguments.update(LEGACY_METHODS.get(str(method), {}))
    return arguments
