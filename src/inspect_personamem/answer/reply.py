"""Answers the model writes: the history, a question, one generation.

`answer=choice` asks the official question (instruction and options); `answer=open`
asks the user's message alone. Both compose the prompt the same way: the history the
source gives, under the system-message policy, with Anthropic prompt-cache markers at
history ends where the history is a prefix of the shared context. Composing,
generating and removing the history happen in one solver step, so Inspect's state
diff for the step holds only the model's reply; the one logged copy of the history is
the one inside the model call. `keep_history_in_log=True` leaves it in
`state.messages` as well. Where the source offers tools over the history instead
(`history=tools`), the generation is the model's turns with them (`tool_loop.py`),
which stay in `state.messages`: the tool calls and what they returned; where it offers
an agent (`Seen.agent`), the agent's messages as it left them (it is sent no history).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from inspect_ai.model import ChatMessage
from inspect_ai.solver import Generate, Solver, TaskState

from inspect_personamem.answer.cache_breakpoints import with_cache_breakpoints
from inspect_personamem.answer.garbage import COLLECTOR
from inspect_personamem.answer.tool_loop import generate_answer
from inspect_personamem.data.asked import AskedAt
from inspect_personamem.history.seen import See
from inspect_personamem.history.system_messages import conversation
from inspect_personamem.types import SystemMessagePolicy

Question = Callable[[TaskState], Sequence[ChatMessage]]
"""The messages a sample asks after the history."""


def replying_solver(
    see: See,
    question: Question,
    system_messages: SystemMessagePolicy,
    keep_history_in_log: bool,
    cache_breakpoints: bool,
) -> Solver:
    """A solve function: what `see` gives, then `question`, then one generation.

    Args:
        see: The history source (`history=...`).
        question: The messages asked after the history.
        system_messages: What to do with system messages inside the history.
        keep_history_in_log: Leave the history in `state.messages` after generation.
        cache_breakpoints: On Anthropic models, with a history that is a prefix of the
            shared context, mark the sample's cache prefix ends (`AskedAt`: its own history end
            and earlier siblings' history ends) as explicit prompt-cache breakpoints.
            Not with the `merge` policy, which rewrites the messages.
    """

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        asked = list(question(state))
        seen = await see(state)
        if seen.prompt is not None:
            state.messages = list(seen.prompt)
        else:
            history = seen.messages
            marks = cache_breakpoints and seen.prefix and system_messages != "merge"
            if marks and state.model.api == "anthropic":
                ends = AskedAt.of(state.metadata).cache_prefix_ends
                history = with_cache_breakpoints(history, ends)
            state.messages = conversation(history, asked, system_messages)
        sent = len(state.messages)
        COLLECTOR.sent(sum(len(message.text) for message in state.messages))
        state = await generate_answer(state, generate, seen)
        if not keep_history_in_log and seen.agent is None:  # an agent's are its own
            state.messages = asked + state.messages[sent:]
        return state

    return solve
