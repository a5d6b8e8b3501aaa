"""`answer=choice`: the official prompt; the model writes its answer.

The history the source gives, then the official final user message (the sample's
input: question, instruction, the four options), under the system-message policy.
Composing, generating and removing the history happen in one solver step, so
Inspect's state diff for the step holds only the model's reply; the one logged copy
of the history is the one inside the model call. `keep_history_in_log=True` leaves
it in `state.messages` as well.
"""

from __future__ import annotations

from inspect_ai.solver import Generate, Solver, TaskState, solver

from ..history.seen import See
from ..history.system_messages import conversation
from ..types import SystemMessagePolicy
from .cache_breakpoints import with_cache_breakpoints


@solver
def choice_solver(
    see: See,
    system_messages: SystemMessagePolicy = "keep",
    keep_history_in_log: bool = False,
    cache_breakpoints: bool = True,
) -> Solver:
    """Answer one question after what the model sees of its past.

    Args:
        see: The history source (`history=...`).
        system_messages: What to do with system messages inside the history.
        keep_history_in_log: Leave the history in `state.messages` after generation.
        cache_breakpoints: On Anthropic models, with a history that is a prefix of the
            shared context, mark the sample's `cache_prefix_ends` (its own history end
            and earlier siblings' ends) as explicit prompt-cache breakpoints. Not with
            the `merge` policy, which rewrites the messages.
    """

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        question = list(state.messages)
        seen = await see(state)
        if seen.prompt is not None:
            state.messages = list(seen.prompt)
        else:
            history = seen.messages
            marks = cache_breakpoints and seen.prefix and system_messages != "merge"
            if marks and state.model.api == "anthropic":
                history = with_cache_breakpoints(history, state.metadata["cache_prefix_ends"])
            state.messages = conversation(history, question, system_messages)
        sent = len(state.messages)
        state = await generate(state)
        if not keep_history_in_log:
            state.messages = question + state.messages[sent:]
        return state

    return solve
