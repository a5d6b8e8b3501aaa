"""`answer=open`: the user's message alone, as a deployed chatbot gets it.

The history the source gives, then the in-situ user message
(`AskedAt.message`): no instruction, no options. The reply is scored by a
grader (`scoring/grader/`), which names the candidate reply whose assumptions about
the user it shares.
"""

from __future__ import annotations

from inspect_ai.model import ChatMessageUser
from inspect_ai.solver import Solver, solver

from inspect_personamem.answer.reply import replying_solver
from inspect_personamem.data.asked import AskedAt
from inspect_personamem.history.seen import See
from inspect_personamem.types import SystemMessagePolicy


@solver
def open_solver(
    see: See,
    system_messages: SystemMessagePolicy = "keep",
    keep_history_in_log: bool = False,
    cache_breakpoints: bool = True,
) -> Solver:
    """Reply to the user's message after what the model sees of its past.

    Args:
        see: The history source (`history=...`).
        system_messages: What to do with system messages inside the history.
        keep_history_in_log: Leave the history in `state.messages` after generation.
        cache_breakpoints: On Anthropic models, mark history ends as prompt-cache
            breakpoints (see `reply.replying_solver`).
    """
    return replying_solver(
        see,
        lambda state: [ChatMessageUser(content=AskedAt.of(state.metadata).message)],
        system_messages,
        keep_history_in_log,
        cache_breakpoints,
    )
