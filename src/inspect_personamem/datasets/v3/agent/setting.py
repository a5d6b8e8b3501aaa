"""PersonaMem-v3's agent settings (`-T history=tools`): the persona's apps at the query's
time as tools (`apps.py`), served in process (`tools=apps`, the default) or by the
package's MCP server over stdio (`tools=mcp`, `app_server.py`, one process per persona
and query time, through Inspect's `mcp_server_stdio()`), and Inspect's `react()` agent
answering with them within the authors' budgets. `tools=history` keeps the generic
search_history/read_history tools over the event timeline (`history/tools.py`).

The authors run this setting as Claude Code with their four mock MCP servers
(evaluation/claude_subagent.py@d50925ff `run_subagent`, evaluation/inference_utils.py@
00c8a9f0 `dispatch_agent_run`, mode `mcp_agent`). What is theirs here:

- the prompt: their `_ACCESS_MCP + _OVERPERS_RAIL + prompt`, verbatim (`ACCESS_MCP`,
  `OVERPERS_RAIL`; their digests in the run's facts), sent as they send it: one user
  message (`claude -p`), the task's prompt after the two framings. `_ACCESS_MCP` names
  the tools as Claude Code does (`mcp__instagram__get_feed`); the tools here are named
  as their registry names them within a server (`instagram_get_feed`);
- the budgets: 15 turns, 30 for their nine heavy task types (`HEAVY_TASKS`, their
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
fault of the MCP server (it does not start, does not answer a call within
`tool_timeout`, dies, or answers what is not one JSON text) is never handed to the
model as a tool's error, which it could read as "no results": the query stops with one
line naming the server, the persona and the query (`AppServerError`, the sample's
error), and is not scored. Whether the server starts and lists the tools the apps
offer is checked once as the task is made, for its first query (`check_server`).

Per sample, `state.metadata["actions"]` records what the agent did (`Actions`).
"""

from __future__ import annotations

import importlib.util
import json
import math
import shlex
import tempfile
import threading
from collections.abc import Mapping, Sequence
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import anyio
from inspect_ai.agent import AgentState, react
from inspect_ai.model import ChatMessageAssistant, ChatMessageUser
from inspect_ai.scorer import Metric, SampleScore, Value, metric
from inspect_ai.solver import TaskState
from inspect_ai.tool import ContentText, Tool, ToolDef, ToolError, mcp_server_stdio
from inspect_ai.util import LimitExceededError, token_limit

from inspect_personamem.datasets.v3.agent.catalogue import is_write
from inspect_personamem.datasets.v3.agent.inspect_tools import inspect_tools
from inspect_personamem.datasets.v3.agent.server import server_command
from inspect_personamem.datasets.v3.agent.session import session_for
from inspect_personamem.datasets.v3.persona.streams import PersonaStreams
from inspect_personamem.errors import PersonaMemArgumentError, PersonaMemDataError
from inspect_personamem.history.seen import See, Seen

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
"""The fixed texts the agent settings send, by where they are defined (the run's facts)."""

HEAVY_TASKS: Final = frozenset(
    {
        "over_personalization_repetition_recsys",
        "over_personalization_repetition_chatbot",
        "active_mistake_prevention",
        "agentic_auto_reply",
        "agentic_vague_refind",
        "personalized_recommendation",
        "agentic_send_post",
        "agentic_cross_app_repost",
        "agentic_community_post",
    }
)
"""The task types the authors give double budgets (`HEAVY_TASKS` of
evaluation/claude_subagent.py@d50925ff)."""
TURNS: Final = 15
HEAVY_TURNS: Final = 30
"""Their `--max-turns`: 15, 30 for a heavy task type."""
TOKENS: Final = 300_000
HEAVY_TOKENS: Final = 600_000
"""The token cap standing for their $0.30 and $0.60 (docs/personamem-v3.md, "Agent
settings")."""
TOOLS: Final = ("apps", "mcp", "history")
"""`-T tools=`: the apps in process, the apps' MCP server, the generic history tools."""
AGENT_TOOLS: Final = ("apps", "mcp")
"""The values of `tools` an agent answers with."""
TOOL_TIMEOUT: Final = 30
"""Seconds the MCP server has to answer one call (`-T tool_timeout=`)."""
START_TIMEOUT: Final = 120
"""Seconds the MCP server has to start and list its tools (a Python process importing
the package, several at once on a busy machine), or `tool_timeout` where longer."""


class AppServerError(RuntimeError):
    """A fault of the apps' MCP server during a query: one line naming the server, the
    persona and the query; the sample ends in this error and is not scored."""


@dataclass(frozen=True)
class Budget:
    """One query's budget: model turns, and tokens (None: no cap)."""

    turns: int
    tokens: int | None


@dataclass(frozen=True)
class AgentSetting:
    """The agent setting a run's arguments chose."""

    tools: str
    """`apps` or `mcp` (`AGENT_TOOLS`)."""
    turn_budget: int | None = None
    """Every query's turns; None: the authors' (`TURNS`, `HEAVY_TURNS`)."""
    token_budget: int | None = None
    """Every query's tokens; None: the authors' cap in tokens (`TOKENS`, `HEAVY_TOKENS`)."""
    tool_timeout: int = TOOL_TIMEOUT

    @classmethod
    def of(cls, arguments: Mapping[str, Any]) -> AgentSetting | None:
        """The setting of a run's arguments; None where no agent answers (a history other
        than `tools`, or `tools=history`)."""
        if arguments.get("history") != "tools" or arguments.get("tools", "apps") not in AGENT_TOOLS:
            return None
        return cls(
            str(arguments.get("tools", "apps")),
            _count(arguments.get("turn_budget")),
            _count(arguments.get("token_budget")),
            _count(arguments.get("tool_timeout")) or TOOL_TIMEOUT,
        )

    def budget(self, task_type: str) -> Budget:
        """A query's budget: the one given, else the authors' for its task type."""
        heavy = task_type in HEAVY_TASKS
        return Budget(
            self.turn_budget or (HEAVY_TURNS if heavy else TURNS),
            self.token_budget or (HEAVY_TOKENS if heavy else TOKENS),
        )


def _count(value: Any) -> int | None:
    """A budget as a run's arguments give it, or as a log's settings read it back (text:
    `"None"` where it was not given)."""
    return None if value is None or str(value) in ("", "None") else int(value)


def check_arguments(arguments: Mapping[str, Any], generic_tools: Mapping[str, Any]) -> None:
    """A one-line error, before any data are read, for an agent parameter that means
    nothing with the run's other arguments; `generic_tools`: the generic history tools'
    parameters (`history=tools`) by name, with their defaults."""
    history, tools = arguments.get("history"), arguments.get("tools", "apps")
    own = {"tools": "apps", "turn_budget": None, "token_budget": None, "tool_timeout": TOOL_TIMEOUT}
    changed = [name for name, default in own.items() if arguments.get(name, default) != default]
    if history != "tools" and changed:
        raise PersonaMemArgumentError(
            f"PersonaMem-v3 task parameter(s) {', '.join(changed)} have no effect with "
            f"history={history!r}: the persona's apps are offered with history='tools'"
        )
    if tools not in TOOLS:
        raise PersonaMemArgumentError(
            f"PersonaMem-v3 task parameter tools={tools!r}: choose one of {', '.join(TOOLS)}"
        )
    if history != "tools":
        return
    if tools == "history":
        budgets = [name for name in changed if name != "tools"]
        if budgets:
            raise PersonaMemArgumentError(
                f"PersonaMem-v3 task parameter(s) {', '.join(budgets)} have no effect with "
                "tools='history' (its budget is tool_budget): leave them out"
            )
        return
    generic = [name for name, default in generic_tools.items() if arguments[name] != default]
    if generic:
        raise PersonaMemArgumentError(
            f"PersonaMem-v3 task parameter(s) {', '.join(generic)} have no effect with "
            f"tools={tools!r} (they set the generic history tools, tools='history'): "
            "leave them out"
        )
    if tools != "mcp" and "tool_timeout" in changed:
        raise PersonaMemArgumentError(
            "PersonaMem-v3 task parameter tool_timeout has no effect with tools='apps' "
            "(it bounds the MCP server's calls, tools='mcp'): leave it out"
        )
    if tools == "mcp" and importlib.util.find_spec("mcp") is None:
        raise PersonaMemArgumentError(
            "PersonaMem-v3 tools='mcp' needs the mcp package: pip install "
            "'inspect-personamem[memory]' (or run tools='apps', the same tools in process)"
        )


@dataclass
class Actions:
    """What one query's agent did, kept in `state.metadata["actions"]` as it happens (so
    that a query cut short keeps it too)."""

    state: TaskState
    setting: str
    server: str | None
    budget: Budget
    calls: list[dict[str, Any]] = field(default_factory=list)
    writes: list[dict[str, Any]] = field(default_factory=list)
    turns: int = 0
    out_of_budget: str | None = None
    finished: bool = False
    stopped: str | None = None

    def call(self, tool: str, arguments: Mapping[str, Any], error: str | None) -> None:
        self.calls.append({"tool": tool, "arguments": dict(arguments), "error": error})
        self.write()

    def write(self) -> None:
        self.state.metadata["actions"] = {
            "setting": self.setting,
            "server": self.server,
            "calls": self.calls,
            "reads": sum(c["error"] is None and not is_write(c["tool"]) for c in self.calls),
            "writes": self.writes,
            "turns": self.turns,
            "budget": {"turns": self.budget.turns, "tokens": self.budget.tokens},
            "out_of_budget": self.out_of_budget,
            "finished": self.finished,
            "stopped": self.stopped,
        }


LIMITS: Final = {"token": "tokens", "turn": "turns", "time": "time", "working": "time"}
"""An Inspect limit's type -> the budget the record says ran out."""


def apps_agent(streams: PersonaStreams, setting: AgentSetting) -> See:
    """The history source of an agent setting: no history sent; the agent answers."""

    async def see(state: TaskState) -> Seen:
        return Seen((), agent=lambda answering: answer(answering, streams, setting))

    return see


async def answer(state: TaskState, streams: PersonaStreams, setting: AgentSetting) -> TaskState:
    """The agent's answer to one query: its tools, its turns within the budget, its
    record (`Actions`)."""
    metadata = state.metadata
    budget = setting.budget(str(metadata["task_type"]))
    if setting.tools == "apps":
        session = session_for(streams, metadata)
        actions = Actions(state, "apps", None, budget, writes=session.writes)
        actions.write()
        tools = [_recorded(tool, actions, None) for tool in inspect_tools(session)]
        return await _run(state, tools, actions)
    with tempfile.TemporaryDirectory(prefix="personamem-apps-") as folder:
        writes = Path(folder) / "writes.jsonl"
        command, args = server_command(streams.backend, metadata, writes)
        server = Server(shlex.join([command, *args]), metadata, setting.tool_timeout)
        actions = Actions(state, "mcp", server.line, budget)
        actions.write()
        try:
            client = mcp_server_stdio(command=command, args=args)
            return await _served(state, client, server, actions)
        finally:
            actions.writes[:] = _written(writes, server)
            actions.write()


async def _served(state: TaskState, client: Any, server: Server, actions: Actions) -> TaskState:
    """Start the query's server (within its start deadline), list its tools and answer
    with them; the server stopped after."""
    with anyio.CancelScope() as scope:
        scope.deadline = anyio.current_time() + server.start_timeout
        async with AsyncExitStack() as stack:
            try:
                await stack.enter_async_context(client)
                listed = await client.tools()
            except Exception as ex:
                raise server.fault(actions, "did not start", ex) from ex
            scope.deadline = math.inf
            tools = [_recorded(tool, actions, server) for tool in listed]
            return await _run(state, tools, actions)
    raise server.fault(actions, f"did not start within {server.start_timeout} s")


async def _run(state: TaskState, tools: Sequence[Tool], actions: Actions) -> TaskState:
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
        fault = _found(ex, AppServerError)
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


@dataclass(frozen=True)
class Server:
    """One query's MCP server: its command line, whom it serves, its deadline."""

    line: str
    metadata: Mapping[str, Any]
    timeout: int

    @property
    def start_timeout(self) -> int:
        return max(START_TIMEOUT, self.timeout)

    def where(self) -> str:
        return (
            f"PersonaMem-v3 app server `{self.line}` (persona {self.metadata['user_id']}, "
            f"query {self.metadata['query_id']})"
        )

    def fault(
        self, actions: Actions, what: str, cause: BaseException | None = None
    ) -> AppServerError:
        """The fault, one line, also kept in the query's record."""
        detail = "" if cause is None else ": " + _said(cause).rstrip(": ")
        actions.stopped = f"{self.where()} {what}{detail}"
        actions.write()
        return AppServerError(actions.stopped)


def _recorded(tool: Tool, actions: Actions, server: Server | None) -> Tool:
    """`tool`, each call kept in the record; served by `server`, each call within its
    deadline, a fault of the server raised (`AppServerError`), never handed to the model."""
    spec = ToolDef(tool)
    name = spec.name

    async def execute(**arguments: Any) -> Any:
        try:
            if server is None:
                result = await tool(**arguments)
            else:
                result = await _served_call(tool, name, arguments, actions, server)
        except ToolError as error:
            actions.call(name, arguments, error.message)
            raise
        actions.call(name, arguments, None)
        return result

    return ToolDef(
        execute,
        name=name,
        description=spec.description,
        parameters=spec.parameters,
        max_output=0,  # the apps' text whole, as `apps.inspect_tools` gives it
    ).as_tool()


async def _served_call(
    tool: Tool, name: str, arguments: Mapping[str, Any], actions: Actions, server: Server
) -> str:
    """One call to the server: its JSON text. A tool's own error (the apps' message)
    reaches the model; no answer within the deadline, a lost connection or anything but
    one JSON text is a fault."""
    try:
        with anyio.fail_after(server.timeout):
            result = await tool(**arguments)
    except TimeoutError as ex:
        raise server.fault(
            actions, f"gave no answer to {name} within {server.timeout} s (tool_timeout)"
        ) from ex
    except ToolError as ex:
        if ex.__cause__ is None:  # the tool's own error (the MCP result's isError)
            raise
        raise server.fault(actions, f"failed on {name}", ex.__cause__) from ex
    except Exception as ex:
        raise server.fault(actions, f"failed on {name}", ex) from ex
    content = result if isinstance(result, list) else [result]
    texts = [c.text if isinstance(c, ContentText) else c for c in content]
    if len(texts) == 1 and isinstance(texts[0], str):
        try:
            json.loads(texts[0])
            return texts[0]
        except ValueError:
            pass
    raise server.fault(actions, f"answered {name} with what is not one JSON text")


def _written(path: Path, server: Server) -> list[dict[str, Any]]:
    """The write records the server appended to its `--writes` file, in order."""
    if not path.is_file():
        return []
    records = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        try:
            records.append(json.loads(line))
        except ValueError as ex:
            raise AppServerError(
                f"{server.where()}: its writes file, line {number}, is not JSON"
            ) from ex
    return records


def _leaf(ex: BaseException) -> BaseException:
    """The first exception inside nested exception groups (anyio's task groups)."""
    while getattr(ex, "exceptions", None):
        ex = ex.exceptions[0]  # type: ignore[attr-defined]
    return ex


def _said(ex: BaseException) -> str:
    """The first exception inside `ex`, as one line: its type and its text."""
    leaf = _leaf(ex)
    return " ".join(f"{type(leaf).__name__}: {leaf}".split())


def _found(ex: BaseException, kind: type[AppServerError]) -> AppServerError | None:
    """The exception of `kind` that `ex` is, or holds in its exception groups."""
    held: list[BaseException] = [ex]
    while held:
        one = held.pop()
        if isinstance(one, kind):
            return one
        held.extend(getattr(one, "exceptions", ()))
    return None


def check_server(backend: Path, metadata: Mapping[str, Any], timeout: int) -> None:
    """Start the server of a query (the run's first), list its tools and stop it, as the
    task is made: one line naming the server command, the persona and the query where it
    does not start within `START_TIMEOUT` seconds (or `timeout`, where longer) or lists
    other tools than the apps offer."""
    command, args = server_command(backend, metadata)
    server = Server(shlex.join([command, *args]), metadata, timeout)
    where, deadline = server.where(), server.start_timeout
    listed: list[str] = []
    failure: list[BaseException] = []

    async def start() -> None:
        with anyio.fail_after(deadline):
            async with mcp_server_stdio(command=command, args=args) as server:
                listed.extend(ToolDef(tool).name for tool in await server.tools())

    def thread() -> None:  # a loop of its own: the task may be made inside Inspect's
        try:
            anyio.run(start)
        except BaseException as ex:  # noqa: BLE001 - said in one line below
            failure.append(ex)

    runner = threading.Thread(target=thread, name="personamem-v3 app server check")
    runner.start()
    runner.join()
    if failure:
        timed_out = isinstance(_leaf(failure[0]), TimeoutError)
        why = f"within {deadline} s" if timed_out else _said(failure[0])
        raise PersonaMemDataError(f"{where} did not start: {why}")
    offered = set(session_for(PersonaStreams(backend), metadata).functions())
    if set(listed) != offered:
        raise PersonaMemDataError(
            f"{where} lists other tools than the apps offer: "
            f"{', '.join(sorted(set(listed) ^ offered))}"
        )


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
