"""The answering solver run once on a given history (`answer/reply.py`): what the
model was sent and what `state.messages` holds after."""

from __future__ import annotations

import asyncio
from typing import Any

from inspect_ai.model import ChatMessage, ChatMessageUser, ModelName, ModelOutput
from inspect_ai.solver import TaskState

from inspect_personamem.answer.reply import replying_solver
from inspect_personamem.data.asked import AskedAt
from inspect_personamem.history.seen import Seen
from inspect_personamem.types import SystemMessagePolicy

QUESTION: list[ChatMessage] = [ChatMessageUser(content="which one?")]


def answered(
    seen: Seen,
    *,
    policy: SystemMessagePolicy = "keep",
    keep: bool = False,
    breakpoints: bool = True,
    model: str = "mockllm/model",
) -> tuple[list[ChatMessage], list[ChatMessage]]:
    """Run the solver once: (what the model was sent, `state.messages` after)."""
    sent: list[ChatMessage] = []

    async def see(state: TaskState) -> Seen:
        return seen

    async def generate(state: TaskState, **kwargs: Any) -> TaskState:
        sent.extend(state.messages)
        state.output = ModelOutput.from_content(model, "(b)")
        state.messages.append(state.output.message)
        return state

    solve = replying_solver(see, lambda state: QUESTION, policy, keep, breakpoints)
    state = TaskState(
        model=ModelName(model),
        sample_id=1,
        epoch=1,
        input="which one?",
        messages=[],
        metadata=AskedAt("c1", 4, "which one?", cache_prefix_ends=(2, 4)).metadata(),
    )
    state = asyncio.run(solve(state, generate))  # type: ignore[arg-type]
    return sent, state.messages
