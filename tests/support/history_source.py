"""A test-only history source: the last `last_n` messages before the question."""

from __future__ import annotations

from inspect_ai.solver import TaskState

from inspect_personamem.data.contexts import sample_history
from inspect_personamem.history.seen import Past, See, Seen


def recent_history(past: Past, last_n: int = 10) -> See:
    async def see(state: TaskState) -> Seen:
        return Seen(list(sample_history(past.contexts, state.metadata))[-last_n:])

    return see
