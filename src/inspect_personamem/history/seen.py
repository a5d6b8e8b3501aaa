"""What a history source is built from (`Past`), and what it hands to the answer: the
past as the model is to see it (`Seen`)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from inspect_ai.model import ChatMessage
from inspect_ai.solver import TaskState

from inspect_personamem.data.contexts import Contexts
from inspect_personamem.data.evidence import Evidence


@dataclass(frozen=True)
class Past:
    """A run's histories, and its dataset version's rule for where a question's
    evidence lies in them (`DatasetVersion.evidence`)."""

    contexts: Contexts
    locate: Callable[[Mapping[str, Any]], Evidence]
    """A sample's metadata -> its question's evidence."""

    def evidence(self, state: TaskState) -> Evidence:
        """The question's evidence, recorded in its metadata (`evidence`) for the log,
        the metrics and the report."""
        found = self.locate(state.metadata)
        state.metadata["evidence"] = found.record()
        return found


@dataclass(frozen=True)
class Seen:
    """One question's view of the past."""

    messages: Sequence[ChatMessage]
    """The history to send before the question (before the system-message policy)."""
    prefix: bool = False
    """The messages are the shared context's first ones (`history=full`): a prompt cache
    can hold them for the question's siblings."""
    prompt: Sequence[ChatMessage] | None = None
    """A whole prompt that replaces the answer's own composition (the authors' RAG
    prompt, which puts history, question and options in one message); None: none."""


See = Callable[[TaskState], Awaitable[Seen]]
"""A history source, built for a run: a sample's state -> what its model sees."""
