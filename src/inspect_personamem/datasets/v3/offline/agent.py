"""The offline oracle as an agent over a persona's apps (`declared.Offline.act`): what
`personamem/oracle` calls when a PersonaMem-v3 run offers it the apps as tools
(`-T history=apps`, in process or `apps_transport=mcp`), before it replies.

Per query it makes one plan, then its calls one a turn, in order. Where the prompt is
several queries' (a persona's proactive rows share one), no reply is known before a
read tells them apart: the plan starts with the reads that do (`separating_reads`:
their apps, at their times, answer them differently; the first read of one row's apps
may not, where nothing in that app changed between two rows), and the reads made name
the query (`answers.V3Questions.query_of`). Then the query's own (`agent_calls`):

- reads: every listing read of each app where the query's evidence lies (the
  generator's `_generated_evidence`, which the oracle reads from the question file and
  no model is shown), then of the row's `app_context`: each offered read of that app
  (`catalogue.READ_TOOLS`) that takes no required argument (`{app}_get_feed`,
  `{app}_get_profile`, `{app}_list_dms`, `chatbot_get_history`,
  `calendar_get_calendar`); a row without either reads the chatbot's. So every
  query reads something, and the oracle answers with its chance with a history, as it
  does when sent the whole history;
- writes: what the row's `mcp_tools_allowed` names under its `state_write_policy`
  (`catalogue.allowed_writes`: the authors' `mcp__threads__create_post` is the apps'
  `threads_create_post`), where the tool is offered:
  `{app}_create_post` with the reply as its caption, `{app}_send_dm` to the row's
  `sender_id` with the reply as its message (the parameters of the authors' servers,
  evaluation/mcp_servers/_social_server.py@1549bc98). A read-only row, and a proactive
  row (restraint included: its `mcp_tools_allowed` is `none`), writes nothing. The
  writes the generator never asks for (react, comment, the chatbot's sends) the oracle
  does not make.

The reply a write carries is the one the oracle then gives (`Agentic.reply`): the gold
with its chance, else the low reply (`answers.known_replies`), so a write and the reply
never disagree. The authors run no offline agent; this one exists to check the
plumbing (tools, writes, budgets, scoring of actions) without a model.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from inspect_ai.model import ChatMessageTool
from inspect_ai.tool import ToolInfo

from inspect_personamem.data.known import KnownQuestions
from inspect_personamem.datasets.declared import Agentic
from inspect_personamem.datasets.v3.agent.catalogue import READ_TOOLS, TOOLS, allowed_writes
from inspect_personamem.datasets.v3.offline.answers import V3Questions
from inspect_personamem.datasets.v3.release.records import V3Query

Call = tuple[str, dict[str, Any]]
DEFAULT_APP: Final = "chatbot"
"""The app a row read where it names neither evidence nor an app."""


def read_apps(query: V3Query) -> list[str]:
    """The apps a query's evidence lies in, in its order, then its `app_context`; the
    chatbot where it names neither."""
    evidence = query.instance.get("_generated_evidence") or []
    apps = [str(ref["app"]) for ref in evidence if isinstance(ref, dict) and ref.get("app")]
    if query.app_context:
        apps.append(query.app_context)
    return list(dict.fromkeys(apps)) or [DEFAULT_APP]


def write_arguments(query: V3Query, tool: str, reply: str) -> dict[str, Any] | None:
    """The arguments of the write `tool` carrying `reply`; None for a write the oracle
    does not make (module docstring)."""
    if tool.endswith("_create_post"):
        return {"caption": reply}
    if tool.endswith("_send_dm"):
        return {"recipient_id": str(query.instance.get("sender_id") or ""), "message": reply}
    return None


def agent_calls(query: V3Query, tools: Sequence[ToolInfo], reply: str) -> list[Call]:
    """Every call the oracle makes on `query` offered `tools`, in order: the reads, then
    the writes (module docstring)."""
    offered = {tool.name: tool for tool in tools if tool.name in TOOLS}
    calls: list[Call] = [
        (name, {})
        for app in read_apps(query)
        for name, tool in offered.items()
        if name in READ_TOOLS and TOOLS[name].app == app and not tool.parameters.required
    ]
    for name in sorted(allowed_writes(query.mcp_tools_allowed, query.state_write_policy)):
        arguments = write_arguments(query, name, reply)
        if name in offered and arguments is not None:
            calls.append((name, arguments))
    return calls


def separating_reads(questions: V3Questions, agentic: Agentic) -> list[Call]:
    """The reads that tell apart the queries sharing `agentic`'s prompt (module
    docstring): of the offered reads that take no argument, in their order, each one
    that splits a group of them the reads before it leave together (their apps, at
    their times, answering it differently), until none is left or no read splits one.
    Empty where the prompt is one query's. The same for every query sharing the prompt,
    as it is all the oracle knows before it reads."""
    sharing = [query for query, _ in questions.sharing(agentic.prompt)]
    reads = [
        tool.name
        for tool in agentic.tools
        if tool.name in READ_TOOLS and not tool.parameters.required
    ]
    groups = [sharing] if len(sharing) > 1 else []
    chosen: list[Call] = []
    for name in reads:
        if not groups:
            break
        split: list[list[V3Query]] = []
        for group in groups:
            by_answer: dict[str | None, list[V3Query]] = {}
            for query in group:
                by_answer.setdefault(questions.answer(query, name, {}), []).append(query)
            split += by_answer.values()
        if len(split) > len(groups):
            chosen.append((name, {}))
        groups = [group for group in split if len(group) > 1]
    return chosen


def act(questions: KnownQuestions, agentic: Agentic) -> Call | None:
    """The oracle's next call (`Offline.act`): the first of its plan it has not made (a
    call made is a tool result in the exchange), None once all are (or where the
    question file is no v3 one)."""
    if not isinstance(questions, V3Questions):
        return None
    query, _ = questions.query_of(agentic.prompt, agentic.exchange)
    calls = separating_reads(questions, agentic) + agent_calls(query, agentic.tools, agentic.reply)
    made = sum(isinstance(message, ChatMessageTool) for message in agentic.exchange)
    return calls[made] if made < len(calls) else None
