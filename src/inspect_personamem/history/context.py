"""`history=full` (the whole history before the question), `history=none` and
`history=evidence` (only the evidence: the upper bound)."""

from __future__ import annotations

from inspect_ai.solver import TaskState

from inspect_personamem.data.contexts import sample_history
from inspect_personamem.history.seen import Past, See, Seen


def full_history(past: Past) -> See:
    """`context[:end_index]` of the question's shared context, shared, never copied."""

    async def see(state: TaskState) -> Seen:
        return Seen(sample_history(past.contexts, state.metadata), prefix=True)

    return see


def evidence_history(past: Past) -> See:
    """Only the question's evidence, as its dataset version locates it and shows it (a
    session; a persona card and a snippet): what a perfect retriever would hand over,
    the upper bound of every retrieval and memory run. A label reaches the model here,
    and only here, by design."""

    async def see(state: TaskState) -> Seen:
        return Seen(past.evidence(state).shown)

    return see


def no_history(past: Past) -> See:
    """Nothing of the past: the no-history baseline."""

    async def see(state: TaskState) -> Seen:
        return Seen(())

    return see
