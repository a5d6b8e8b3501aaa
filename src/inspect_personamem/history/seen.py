"""What a history source hands to the answer: the past as the model is to see it."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

from inspect_ai.model import ChatMessage
from inspect_ai.solver import TaskState


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
