"""`answer=choice`: the official prompt; the model writes its answer.

The history the source gives, then the official final user message (the sample's
input: question, instruction, the four options), under the system-message policy
(`reply.py` composes it).
"""

from __future__ import annotations

from inspect_ai.solver import Solver, solver

from inspect_personamem.answer.reply import replying_solver
from inspect_personamem.history.seen import See
from inspect_personamem.types import SystemMessagePolicy


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
        cache_breakpoints: On Anthropic models, mark history ends as prompt-cache
            breakpoints (see `reply.replying_solver`).
    """
    return replying_solver(
        see,
        lambda state: state.messages,
        system_messages,
        keep_history_in_log,
        cache_breakpoints,
    )
