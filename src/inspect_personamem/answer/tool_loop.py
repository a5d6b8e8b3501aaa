"""Generating an answer where the history source offers tools (`history=tools`).

The model is offered the tools and generates; each tool call it makes is run (Inspect
runs them, one model turn at a time, `generate(tool_calls="single")`) and it generates
again, until it replies without a call. Once it has made the budget's calls it is
asked once more with `tool_choice="none"`, so that it must reply; a call past the
budget within a turn gets an error back (`history/tools.py`). The reply is then
scored as any other (a last output that still calls tools is read as it stands: no
answer, as a rule). After each turn the source's record learns the calls made so far,
and at the end that the turns finished: a question an Inspect limit stops in between
is recorded as not finished, and is not scored (`scoring.scorer.replied`).

Where the source offers an agent instead (`Seen.agent`: PersonaMem-v3's apps), the agent
answers: it runs its own tools, turns and budgets and keeps its own record.
"""

from __future__ import annotations

from inspect_ai.solver import Generate, TaskState

from inspect_personamem.history.seen import Seen


async def generate_answer(state: TaskState, generate: Generate, seen: Seen) -> TaskState:
    """One generation; with tools offered (`seen.tools`), the model's turns within the
    budget; with an agent (`seen.agent`), the agent's answer."""
    if seen.agent is not None:
        return await seen.agent(state)
    use = seen.tools
    if use is None:
        return await generate(state)
    state.tools = list(use.tools)
    state.tool_choice = "auto"
    asked = 0
    while True:
        state = await generate(state, tool_calls="single")
        calls = len(state.output.message.tool_calls or [])
        asked += calls
        use.record(asked, False)
        if not calls:
            break
        if asked >= use.budget:
            state.tool_choice = "none"
            state = await generate(state, tool_calls="none")
            asked += len(state.output.message.tool_calls or [])
            break
    use.record(asked, True)
    return state
