"""The PersonaMem solver: join the history at solve time, generate, drop the history.

Injecting, generating and removing happen in one solver step, so Inspect's state
diff for the step holds only the model's reply; the one logged copy of the history
is the one inside the model call. `keep_history_in_log=True` leaves it in
`state.messages` as well.
"""

from __future__ import annotations

from inspect_ai.solver import Generate, Solver, TaskState, solver

from ..data.contexts import history_store, sample_history
from ..history.system_messages import SystemMessagePolicy, conversation
from .cache_breakpoints import with_cache_breakpoints


@solver
def personamem_solver(
    contexts_file: str | None,
    system_messages: SystemMessagePolicy = "keep",
    keep_history_in_log: bool = False,
    cache_breakpoints: bool = True,
) -> Solver:
    """Answer one question after its history.

    Args:
        contexts_file: The split's shared-context JSONL; None sends the question alone
            (the no-history baseline).
        system_messages: What to do with system messages inside the history.
        keep_history_in_log: Leave the history in `state.messages` after generation.
        cache_breakpoints: On Anthropic models, mark the sample's `cache_prefix_ends`
            (its own history end and earlier siblings' ends) as explicit prompt-cache
            breakpoints. Not with the `merge` policy, which rewrites the messages.
    """
    store = history_store(contexts_file)

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        question = list(state.messages)
        history = sample_history(store, state.metadata)
        if cache_breakpoints and system_messages != "merge" and state.model.api == "anthropic":
            history = with_cache_breakpoints(history, state.metadata["cache_prefix_ends"])
        state.messages = conversation(history, question, system_messages)
        sent = len(state.messages)
        state = await generate(state)
        if not keep_history_in_log:
            state.messages = question + state.messages[sent:]
        return state

    return solve
