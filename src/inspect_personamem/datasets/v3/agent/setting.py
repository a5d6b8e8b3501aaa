"""PersonaMem-v3's apps agent (`-T history=apps`, `APPS`: an axis value PersonaMem-v3
adds to the history sources it offers): the persona's apps at the query's time as tools
(`session.py` and the modules under it), served in process (`apps_transport=process`,
the default) or by the package's MCP server over stdio (`apps_transport=mcp`,
`served.py`), and Inspect's
`react()` agent answering with them within the authors' budgets, its own parameters.
`history=tools` stays the generic search_history/read_history tools over the event
timeline (`history/tools.py`).

The authors run this setting as Claude Code with their four mock MCP servers
(evaluation/claude_subagent.py@d50925ff `run_subagent`, evaluation/inference_utils.py@
00c8a9f0 `dispatch_agent_run`, mode `mcp_agent`). What is theirs here:

- the prompt: their `_ACCESS_MCP + _OVERPERS_RAIL + prompt`, verbatim (`ACCESS_MCP`,
  `OVERPERS_RAIL`; their digests in the run's facts), sent as they send it: one user
  message (`claude -p`), the task's prompt after the two framings. `_ACCESS_MCP` names
  the tools as Claude Code does (`mcp__instagram__get_feed`); the tools here are named
  as their registry names them within a server (`instagram_get_feed`);
- the budgets: 15 turns, 30 for their nine heavy task types (`TaskType.heavy`, their
  `HEAVY_TASKS`), and a cap on what a query may spend. Theirs is in dollars, $0.30 and
  $0.60 at Claude Sonnet 4.6's prices, times a model's price factor, "so the same TOKEN
  allowance holds across models"; Inspect meters tokens, so the cap here is in tokens
  (`TOKENS`, `HEAVY_TOKENS`: see `docs/personamem-v3.md`, "Agent settings", for the
  conversion). `-T turn_budget=N` and `-T token_budget=N` set one budget for every query;
- the reply scored: the agent's last message once it stops calling tools, as they read
  Claude Code's final `result` text (so `react(submit=False)`: no submit tool).

What differs: Inspect's `react()` on any model, not Claude Code (its own system prompt,
its tool-result handling); one server for all apps, not four; and writes are seen by
later reads of the same query only (theirs accumulate in one `writes.jsonl` across a
persona's queries, run in order).

A query whose agent ran out of its budget has no reply: the budget is an Inspect limit
(the token cap Inspect's `token_limit`; the turn budget is checked as each turn ends,
and raised as Inspect's `turn` limit, so no turn past it is generated), the sample's
`limit` says which, and the scorer leaves it unscored (`scoring.scorer.replied`). A
fault of the MCP server ends the query's try, never the run: the query is tried again
on a fresh server, and left unscored where every try failed (`served.py`).

Per sample, `state.metadata["actions"]` records what the agent did
(`scoring.actions.Actions`).
"""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from inspect_ai.agent import AgentState, react
from inspect_ai.dataset import Sample
from inspect_ai.model import ChatMessageAssistant, ChatMessageUser
from inspect_ai.scorer import Metric, SampleScore, Value, metric
from inspect_ai.solver import TaskState
from inspect_ai.tool import Tool
from inspect_ai.util import LimitExceededError, token_limit

from inspect_personamem.datasets.v3.agent.served import (
    Recorded,
    check_server,
    found,
    in_process,
    over_mcp,
)
from inspect_personamem.datasets.v3.persona.histories import PersonaContexts
from inspect_personamem.datasets.v3.persona.streams import PersonaStreams
from inspect_personamem.datasets.v3.task_types.registry import TASK_TYPES
from inspect_personamem.history.seen import Past, See, Seen
from inspect_personamem.parameters import AxisValue, Parameter
from inspect_personamem.scoring.actions import Budget

ACCESS_MCP: Final = (
    "You are an assistant acting on behalf of this user. You have access to MCP tools "
    "that let you read the user's cross-app history (`mcp__instagram__get_feed`, "
    "`mcp__facebook__get_feed`, `mcp__threads__get_feed`, `mcp__chatbot__get_history`, "
    "`*_list_dms`, `*_search`) and \u2014 when the task calls for it \u2014 write on their "
    "behalf (`mcp__<app>__create_post`, `mcp__<app>__send_dm`, `mcp__<app>__react`, "
    "`mcp__<app>__comment`).\n"
)
"""`_ACCESS_MCP` of evaluation/claude_subagent.py@d50925ff, verbatim (418 characters)."""
OVERPERS_RAIL: Final = (
    "\nOffer personalized responses based on the user's interaction history when "
    "appropriate. Do not over-personalize: do not volunteer personal preferences when the "
    "user's question is generic, has not invited personalization, or relates to a topic "
    "the user has explicitly disliked, asked you to stop personalizing on, or already "
    "moved past.\n\n"
)
"""`_OVERPERS_RAIL` of evaluation/claude_subagent.py@d50925ff, verbatim (337 characters)."""
PROMPTS: Final = {
    "datasets/v3/agent.py:ACCESS_MCP": ACCESS_MCP,
    "datasets/v3/agent.py:OVERPERS_RAIL": OVERPERS_RAIL,
}
"""The fixed texts the apps agent sends, by where they are defined (the run's facts)."""

TURNS: Final = 15
HEAVY_TURNS: Final = 30
"""Their `--max-turns`: 15, 30 for a heavy task type."""
TOKENS: Final = 300_000
HEAVY_TOKENS: Final = 600_000
"""The token cap standing for their $0.30 and $0.60 (docs/personamem-v3.md, "Agent
settings")."""
TRANSPORTS: Final = ("process", "mcp")
"""`-T apps_transport=`: the apps in process, or served by the apps' MCP server."""
TOOL_TIMEOUT: Final = 30
"""Seconds the MCP server has to answer one call (`-T tool_timeout=`)."""


@dataclass(frozen=True)
class AgentSetting:
    """The apps agent's own parameters (`APPS`): its typed settings (`AxisValue.settings`)."""

    apps_transport: str = "process"
    """`process` or `mcp` (`TRANSPORTS`)."""
    turn_budget: int | None = None
    """Every query's turns; None: the authors' (`TURNS`, `HEAVY_TURNS`)."""
    token_budget: int | None = None
    """Every query's tokens; None: the authors' cap in tokens (`TOKENS`, `HEAVY_TOKENS`)."""
    tool_timeout: int = TOOL_TIMEOUT

    def budget(self, task_type: str) -> Budget:
        """A query's budget: the one given, else the authors' for its task type."""
        heavy = TASK_TYPES[task_type].heavy
        return Budget(
            self.turn_budget or (HEAVY_TURNS if heavy else TURNS),
            self.token_budget or (HEAVY_TOKENS if heavy else TOKENS),
        )


def _label(setting: AgentSetting) -> str:
    """`apps agent` (`over MCP`), with the budgets given."""
    words = [f"{turns} turns" for turns in [setting.turn_budget] if turns]
    words += [f"{tokens:,} tokens" for tokens in [setting.token_budget] if tokens]
    where = "apps agent over MCP" if setting.apps_transport == "mcp" else "apps agent"
    return f"{where} ({', '.join(words)})" if words else where


def _refuses(setting: AgentSetting) -> str | None:
    """A `tool_timeout` without the MCP server it bounds, or the server without the
    `mcp` package, said before any data are read."""
    transport = setting.apps_transport
    if transport != "mcp" and setting.tool_timeout != TOOL_TIMEOUT:
        return (
            f"tool_timeout has no effect with apps_transport={transport!r} (it bounds the "
            "MCP server's calls, apps_transport='mcp'): leave it out"
        )
    if transport == "mcp" and importlib.util.find_spec("mcp") is None:
        return (
            "apps_transport='mcp' needs the mcp package: pip install "
            "'inspect-personamem[memory]' (or run apps_transport='process', the same tools "
            "in process)"
        )
    return None


def apps_history(
    past: Past,
    apps_transport: str,
    turn_budget: int | None,
    token_budget: int | None,
    tool_timeout: int,
) -> See:
    """The history source of `history=apps`: no history sent; the agent answers."""
    contexts = past.contexts
    assert isinstance(contexts, PersonaContexts)
    streams = contexts.streams
    setting = AgentSetting(apps_transport, turn_budget, token_budget, tool_timeout)

    async def see(state: TaskState) -> Seen:
        return Seen((), agent=lambda answering: answer(answering, streams, setting))

    return see


def check_first(
    contexts: PersonaContexts, samples: Sequence[Sample], setting: AgentSetting
) -> None:
    """Over MCP, that the server of the run's first query starts and lists the tools the
    apps offer (`served.check_server`), as the task is made."""
    if setting.apps_transport == "mcp" and samples:
        check_server(contexts.streams.backend, samples[0].metadata or {}, setting.tool_timeout)


async def answer(state: TaskState, streams: PersonaStreams, setting: AgentSetting) -> TaskState:
    """The agent's answer to one query: its tools, its turns within the budget, its
    record (`served.Recorded`)."""
    budget = setting.budget(str(state.metadata["task_type"]))
    if setting.apps_transport == "mcp":
        return await over_mcp(state, streams, budget, setting.tool_timeout, _run)
    return await in_process(state, streams, budget, _run)


LIMITS: Final = {"token": "tokens", "turn": "turns", "time": "time", "working": "time"}
"""An Inspect limit's type -> the budget the record says ran out."""


async def _run(state: TaskState, tools: Sequence[Tool], actions: Recorded) -> TaskState:
    """`react()` without a submit tool over the framed prompt, within the budget."""
    budget = actions.budget
    asked = state.messages[-1]
    prompt = ChatMessageUser(content=ACCESS_MCP + OVERPERS_RAIL + asked.text)

    def counted(agent_state: AgentState) -> None:
        actions.turns = sum(isinstance(m, ChatMessageAssistant) for m in agent_state.messages)
        actions.write()

    async def turn_ended(agent_state: AgentState) -> bool:
        counted(agent_state)
        return bool(agent_state.output.message.tool_calls) and actions.turns < budget.turns

    agent = react(prompt=None, tools=list(tools), submit=False, on_continue=turn_ended)
    agent_state = AgentState(messages=[*state.messages[:-1], prompt])
    try:  # react() works on `agent_state` itself: what it did is there, stopped or not
        with token_limit(budget.tokens):
            await agent(agent_state)
    except LimitExceededError as ex:
        actions.out_of_budget = LIMITS.get(ex.type, ex.type)
        actions.stopped = f"the agent's {ex.type} limit ran out: {ex.message}"
        raise
    except Exception as ex:
        fault = found(ex)
        if fault is None or fault is ex:
            raise
        raise fault from None
    finally:
        state.messages, state.output = agent_state.messages, agent_state.output
        counted(agent_state)
    if state.output.message.tool_calls:
        actions.out_of_budget = "turns"
        actions.stopped = f"the agent's turn budget of {budget.turns} ran out before it replied"
        actions.write()
        raise LimitExceededError(
            "turn", value=actions.turns, limit=budget.turns, message=actions.stopped
        )
    if state.output.stop_reason == "model_length":
        actions.stopped = "the model's context window ran out before it replied"
    else:
        actions.finished = True
    actions.write()
    return state


@metric
def v3_actions() -> Metric:
    """For an agent setting, per answered query: the mean of its tool calls
    (`agent_calls`), reads (`agent_reads`: calls without an error to a read tool),
    writes (`agent_writes`) and model turns (`agent_turns`). A query that ran out of
    its budget is unscored, so no metric sees it: the log's sample limits and the
    report count those."""

    def compute(scores: list[SampleScore]) -> Value:
        records = [(s.score.metadata or {}).get("actions") for s in scores]
        kept = [r for r in records if r]
        if not kept:
            return {}
        count = len(kept)
        return {
            f"agent_{key}": sum(float(r[key]) for r in kept) / count
            for key in ("calls", "reads", "writes", "turns")
        }

    return compute


APPS: Final[AxisValue[AgentSetting]] = AxisValue(
    "apps",
    "PersonaMem-v3 only: no history sent; the persona's apps at the query's time are the "
    "tools of an agent (Inspect's react()) that answers within the authors' budgets, in "
    "process or over MCP",
    apps_history,
    settings=AgentSetting,
    parameters=(
        Parameter(
            "apps_transport",
            "process",
            str,
            "history=apps: process (the apps in process) or mcp (the package's MCP server "
            "over stdio, one per query; the memory extra).",
            choices=TRANSPORTS,
        ),
        Parameter(
            "turn_budget",
            None,
            int,
            "history=apps: the agent's model turns per query; none: the authors' 15 (30 for "
            "their nine heavy task types).",
            minimum=1,
        ),
        Parameter(
            "token_budget",
            None,
            int,
            "history=apps: the tokens a query's agent may use; none: 300,000 (600,000 "
            "heavy), standing for the authors' $0.30 ($0.60) cap.",
            minimum=1,
        ),
        Parameter(
            "tool_timeout",
            TOOL_TIMEOUT,
            int,
            "apps_transport=mcp: seconds the server has to answer one call (120 to start).",
            minimum=1,
            scoring=False,
        ),
    ),
    label=_label,
    refuses=_refuses,
    calls_tools=True,
    metrics=lambda: [v3_actions()],
    prompts=lambda settings: PROMPTS,
)
"""`-T history=apps`: the history source PersonaMem-v3 adds to the shared ones."""
