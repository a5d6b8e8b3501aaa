"""What a history source is built from (`Past`), and what it hands to the answer: the
past as the model is to see it (`Seen`), and tools over the past where the model is to
search it itself (`ToolUse`)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from inspect_ai.model import ChatMessage
from inspect_ai.solver import TaskState
from inspect_ai.tool import Tool

from inspect_personamem.data.contexts import Contexts
from inspect_personamem.data.evidence import Evidence
from inspect_personamem.history.memory.prompts import OwnPrompt


@dataclass(frozen=True)
class Past:
    """A run's histories, and its dataset version's rule for where a question's
    evidence lies in them (`DatasetVersion.evidence`)."""

    contexts: Contexts
    locate: Callable[[Mapping[str, Any]], Evidence]
    """A sample's metadata -> its question's evidence."""
    prompts: Mapping[str, OwnPrompt] = field(default_factory=dict)
    """The whole prompts around retrieved items its dataset version offers besides the
    official one, by name (`DatasetVersion.memory_prompts`)."""

    def evidence(self, state: TaskState) -> Evidence:
        """The question's evidence, recorded in its metadata (`evidence`) for the log,
        the metrics and the report."""
        found = self.locate(state.metadata)
        state.metadata["evidence"] = found.record()
        return found


@dataclass(frozen=True)
class ToolUse:
    """Tools over one question's visible history, for the model to call before it
    answers (`history=tools`)."""

    tools: Sequence[Tool]
    budget: int
    """The most tool calls the model may make; then it must answer."""
    record: Callable[[int, bool], None]
    """Keeps in the sample's record (tool calls the model has made so far, whether its
    turns have ended, its last output the reply to score): the answer calls it after
    each of the model's turns."""


Answerer = Callable[[TaskState], Awaitable[TaskState]]
"""An agent answering one question: its state, with the question's messages -> the
state with its reply (`Seen.agent`)."""


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
    tools: ToolUse | None = None
    """Tools the model may call over the history before answering; None: none."""
    agent: Answerer | None = None
    """An agent that answers in place of the generation (`answer/tool_loop.py`): it is
    handed the state holding the question's messages and leaves its reply in
    `state.output`, running its own tools, turns and budgets and keeping its own record
    (PersonaMem-v3's apps, `history=tools`); None: none."""


See = Callable[[TaskState], Awaitable[Seen]]
"""A history source, built for a run: a sample's state -> what its model sees."""
