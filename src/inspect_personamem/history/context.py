"""`history=full` (the whole history before the question) and `history=none`."""

from __future__ import annotations

from inspect_ai.solver import TaskState

from inspect_personamem.data.contexts import Contexts, sample_history
from inspect_personamem.history.seen import See, Seen


def full_history(store: Contexts) -> See:
    """`context[:end_index]` of the question's shared context, shared, never copied."""

    async def see(state: TaskState) -> Seen:
        return Seen(sample_history(store, state.metadata), prefix=True)

    return see


def no_history(store: Contexts) -> See:
    """Nothing of the past: the no-history baseline."""

    async def see(state: TaskState) -> Seen:
        return Seen(())

    return see
