"""PersonaMem-v3's apps agent (`-T history=apps`, `datasets/v3/agent/setting.py`), end to
end under `inspect eval` on generated personas with scripted models: the arguments
refused before any data are read, the authors' budgets, what a query's record keeps
(`actions`), a budget run out (an Inspect limit: the query unscored), the MCP server's
faults (the query retried, then unscored with one line, never handed to the model), and
the same tool results in process and over MCP. The time mask over every read tool is
`test_v3_time_mask.py`'s."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from inspect_ai.log import EvalLog, EvalSample
from inspect_ai.model import ChatMessage
from inspect_ai.tool import ToolChoice, ToolInfo
from support.helpers import mock_model, run_task, tool_calling_model
from support.servers.mcp_apps import stand_in_command

from inspect_personamem.datasets.v3.agent import served
from inspect_personamem.datasets.v3.agent.server import server_command
from inspect_personamem.datasets.v3.agent.setting import (
    ACCESS_MCP,
    OVERPERS_RAIL,
    AgentSetting,
)
from inspect_personamem.datasets.v3.generator import generate
from inspect_personamem.datasets.v3.release.spec import V3Folder
from inspect_personamem.datasets.v3.task_types.registry import TASK_TYPES
from inspect_personamem.datasets.v3.version import VERSION as V3
from inspect_personamem.errors import PersonaMemArgumentError, PersonaMemDataError
from inspect_personamem.report.axes import axes_label, axis_settings, no_history_settings
from inspect_personamem.run.arguments import parameters
from inspect_personamem.run.facts import FACTS
from inspect_personamem.run.migration import current_arguments
from inspect_personamem.run.tasks import personamem_v3
from inspect_personamem.scoring.actions import Budget

TASK = "inspect_personamem/personamem_v3"
REPLY = json.dumps({"ranked_indices": list(range(16)), "response": "a reply " * 10})
READ_CALL = ("instagram_get_feed", {"limit": 2})
Script = Callable[[list[ChatMessage], list[ToolInfo], ToolChoice], Any]


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> V3Folder:
    return generate(tmp_path_factory.mktemp("v3"), personas=1, queries_per_type=1, seed=5)


def sample_ids(folder: V3Folder, *task_types: str) -> list[str]:
    """The first query of each of `task_types`, in that order."""
    task = personamem_v3(data_dir=str(folder.root))
    by_type = {str((s.metadata or {})["task_type"]): str(s.id) for s in reversed(task.dataset)}
    return [by_type[t] for t in task_types]


def run(
    folder: V3Folder, log_dir: Path, script: Script, ids: list[str], **arguments: Any
) -> EvalLog:
    grader = mock_model(lambda messages: "{}", "mockllm/grader")  # unread: judged rows unscored
    return run_task(
        TASK,
        tool_calling_model(script),
        log_dir,
        {"data_dir": str(folder.root), "history": "apps", **arguments},
        model_roles={"grader": grader},
        sample_id=ids,
        fail_on_error=False,
    )


def read_then_write_then_reply(
    messages: list[ChatMessage], tools: list[ToolInfo], choice: ToolChoice
) -> Any:
    """Read a feed; then make the first write offered (if any); then reply."""
    turns = sum(m.role == "assistant" for m in messages)
    writes = sorted(t.name for t in tools if t.name.endswith("_create_post"))
    if turns == 0:
        return [READ_CALL]
    if turns == 1 and writes:
        return [(writes[0], {"caption": "a post of mine"})]
    return REPLY


def always_reading(messages: list[ChatMessage], tools: list[ToolInfo], choice: ToolChoice) -> Any:
    return [READ_CALL]


def by_id(log: EvalLog) -> dict[str, EvalSample]:
    assert log.samples is not None
    return {str(s.id): s for s in log.samples}


def is_unscored(sample: EvalSample) -> bool:
    scores = sample.scores or {}
    value = scores["v3_scorer"].value if "v3_scorer" in scores else None
    return value is None or (isinstance(value, float) and math.isnan(value))


# --- arguments and budgets ------------------------------------------------------------


@pytest.mark.parametrize(
    ("arguments", "words"),
    [
        (
            {"history": "full", "apps_transport": "mcp"},
            "apps_transport have no effect with history='full'",
        ),
        ({"history": "none", "turn_budget": 3}, "turn_budget have no effect with history='none'"),
        (
            {"history": "tools", "token_budget": 9},
            "token_budget have no effect with history='tools'",
        ),
        (
            {"history": "apps", "tool_budget": 3},
            "tool_budget have no effect with history='apps'",
        ),
        (
            {"history": "apps", "tool_timeout": 5},
            "tool_timeout has no effect with apps_transport='process'",
        ),
    ],
)
def test_an_agent_argument_that_means_nothing_is_refused_in_one_line(
    folder: V3Folder, arguments: dict[str, Any], words: str
) -> None:
    with pytest.raises(PersonaMemArgumentError, match=words.replace("(", r"\(")) as raised:
        personamem_v3(data_dir=str(folder.root), **arguments)
    assert "\n" not in str(raised.value)


def test_tools_mcp_without_the_mcp_package_is_refused(
    folder: V3Folder, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    with pytest.raises(PersonaMemArgumentError, match="apps_transport='mcp' needs the mcp package"):
        personamem_v3(data_dir="/no/such/folder", history="apps", apps_transport="mcp")


HEAVY = {
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
"""The authors' nine heavy types (`HEAVY_TASKS` of evaluation/claude_subagent.py@d50925ff)."""


def test_the_budgets_are_the_authors_unless_given() -> None:
    assert {name for name, task in TASK_TYPES.items() if task.heavy} == HEAVY
    authors = AgentSetting("process")
    assert authors.budget("agentic_send_post") == Budget(30, 600_000)
    assert authors.budget("chatbot_personalized_response") == Budget(15, 300_000)
    given = AgentSetting("mcp", turn_budget=4, token_budget=1_000)
    assert given.budget("agentic_send_post") == Budget(4, 1_000)


def test_a_run_label_says_which_agent_and_the_budgets_given() -> None:
    defaults = {p.name: p.default for p in parameters(V3).values()}

    def label(**given: Any) -> str:
        return axes_label({**defaults, **given}, V3)

    assert label(history="apps") == "apps agent"
    assert label(history="apps", apps_transport="mcp", turn_budget=4, token_budget=9_000) == (
        "apps agent over MCP (4 turns, 9,000 tokens)"
    )
    assert label(history="tools") == "tools (bm25, budget 6)"
    assert {"apps_transport", "turn_budget", "token_budget"} <= axis_settings(V3)


def test_an_agent_run_is_measured_against_the_no_history_run_of_its_other_settings() -> None:
    """The apps agent's parameters are a history source's: the reference run has them at
    their defaults, as it has every other source's."""
    defaults = {name: str(p.default) for name, p in parameters(V3).items()}
    agent = defaults | {"history": "apps", "apps_transport": "mcp", "turn_budget": "4"}
    assert no_history_settings(agent) == defaults | {"history": "none"}


def test_an_old_logs_agent_run_reads_as_history_apps() -> None:
    """Logs made when the apps agent was `history=tools` with `tools=apps|mcp`."""
    old = {"history": "tools", "tools": "mcp", "turn_budget": 4}
    now = current_arguments(old, V3.release)
    assert now == {"history": "apps", "apps_transport": "mcp", "turn_budget": 4}
    defaults = {name: p.default for name, p in parameters(V3).items()}
    assert axes_label(defaults | now, V3) == "apps agent over MCP (4 turns)"


def test_the_authors_framing_is_verbatim_and_in_the_facts(folder: V3Folder) -> None:
    digests = {  # ../shared/data/personamem_v3/prompts_verbatim.txt
        "datasets/v3/agent.py:ACCESS_MCP": (418, "ccb3a8d675e43a44a2eba5bd7e27c442"),
        "datasets/v3/agent.py:OVERPERS_RAIL": (337, "ccb1beada5b3a6f4938173270b7116b7"),
    }
    for text, (length, digest) in zip((ACCESS_MCP, OVERPERS_RAIL), digests.values(), strict=True):
        assert (len(text), hashlib.sha256(text.encode()).hexdigest()[:32]) == (length, digest)
    facts = (personamem_v3(data_dir=str(folder.root), history="apps").metadata or {})[FACTS]
    for name in digests:
        assert facts["prompts"][name].startswith(digests[name][1])
    plain = personamem_v3(data_dir=str(folder.root), history="tools")
    assert not set(digests) & set((plain.metadata or {})[FACTS]["prompts"])


# --- a query's record -----------------------------------------------------------------


def test_the_record_keeps_every_call_read_write_and_turn(folder: V3Folder, tmp_path: Path) -> None:
    ids = sample_ids(folder, "local_recommendation_geo_shift", "agentic_send_post")
    log = run(folder, tmp_path, read_then_write_then_reply, ids)
    assert log.status == "success", log.error
    samples = by_id(log)
    geo, post = (samples[i] for i in ids)
    prompt = geo.messages[0].text
    assert prompt == ACCESS_MCP + OVERPERS_RAIL + str(geo.input)  # one user message, theirs
    read = {"tool": "instagram_get_feed", "arguments": {"limit": 2}, "error": None}
    assert geo.metadata["actions"] == {
        "setting": "apps",
        "server": None,
        "calls": [read],
        "reads": 1,
        "writes": [],
        "turns": 2,
        "budget": {"turns": 15, "tokens": 300_000},
        "out_of_budget": None,
        "finished": True,
        "stopped": None,
        "retries": 0,
        "faults": [],
    }
    assert not is_unscored(geo)  # rule-scored: its reply is read
    actions = post.metadata["actions"]
    [tool] = [c["tool"] for c in actions["calls"][1:]]
    app = tool.removesuffix("_create_post")
    t = int(post.metadata["ts"])
    assert (actions["reads"], actions["turns"], actions["budget"]["turns"]) == (1, 3, 30)
    [made] = actions["writes"]
    assert (made["tool"], made["app"], made["synthetic_event_id"], made["timestamp_ms"]) == (
        tool,
        app,
        f"{app}_write_1",
        t * 1000 + 1,
    )
    assert made["arguments"]["caption"] == "a post of mine"
    metrics = log.results.scores[0].metrics if log.results else {}
    # over both scored queries: the post is scored by its checks (its caption misses
    # what the authors' send_post verifier asks of it), with no judge call
    assert not is_unscored(post)
    assert {k: metrics[k].value for k in ("agent_calls", "agent_reads", "agent_writes")} == {
        "agent_calls": 1.5,
        "agent_reads": 1.0,
        "agent_writes": 0.5,
    }
    assert metrics["agent_turns"].value == 2.5


@pytest.mark.parametrize(
    ("budget", "limit", "ran_out"),
    [({"turn_budget": 2}, "turn", "turns"), ({"token_budget": 2}, "token", "tokens")],
)
def test_a_budget_run_out_leaves_the_query_unscored(
    folder: V3Folder, tmp_path: Path, budget: dict[str, int], limit: str, ran_out: str
) -> None:
    [sample_id] = sample_ids(folder, "local_recommendation_geo_shift")
    log = run(folder, tmp_path, always_reading, [sample_id], **budget)
    [sample] = by_id(log).values()
    assert sample.limit is not None and sample.limit.type == limit
    actions = sample.metadata["actions"]
    assert (actions["out_of_budget"], actions["finished"], actions["turns"]) == (ran_out, False, 2)
    # two generations, no third (each mock generation counts one token)
    assert sum(e.event == "model" and e.role != "grader" for e in sample.events) == 2
    assert is_unscored(sample)
    assert "Not answered" in str(sample.scores["v3_scorer"].explanation)  # type: ignore[index]


# --- the MCP server -------------------------------------------------------------------


def stand_in(monkeypatch: pytest.MonkeyPatch, mode: str, after: int = 0) -> None:
    """Serve every query by the misbehaving stand-in (`support/servers/mcp_apps.py`)."""
    monkeypatch.setattr(
        served,
        "server_command",
        lambda backend, metadata, writes=None: stand_in_command(
            server_command(backend, metadata, writes), mode, after
        ),
    )


@pytest.mark.slow  # a stand-in server process
@pytest.mark.memory  # the mcp package
def test_a_server_that_does_not_start_stops_the_run_before_any_sample(
    folder: V3Folder, monkeypatch: pytest.MonkeyPatch
) -> None:
    stand_in(monkeypatch, "fail")
    with pytest.raises(PersonaMemDataError, match="did not start") as raised:
        personamem_v3(data_dir=str(folder.root), history="apps", apps_transport="mcp")
    message = str(raised.value)
    first = next(iter(personamem_v3(data_dir=str(folder.root)).dataset))
    assert "mcp_apps.py fail" in message and "\n" not in message
    assert f"persona {folder.personas[0]}, query {first.id}" in message


@pytest.mark.slow  # a stand-in server process
@pytest.mark.memory  # the mcp package
@pytest.mark.parametrize(
    ("mode", "after", "said"),
    [
        ("malformed", 0, "answered instagram_get_feed with what is not one JSON text"),
        ("hang", 0, "gave no answer to instagram_get_feed within 3 s"),
        ("die", 1, "instagram_get_feed"),
    ],
)
def test_a_server_fault_leaves_the_query_unscored_in_one_line_and_is_never_read_by_the_model(
    folder: V3Folder,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    mode: str,
    after: int,
    said: str,
) -> None:
    """A server that faults on every try: the query tried `RETRIES` more times, then
    unscored (`server_failed`), never the sample's error; the crashes at chosen moments
    beside queries in flight are `test_v3_server_faults.py`'s."""
    [sample_id] = sample_ids(folder, "local_recommendation_geo_shift")
    stand_in(monkeypatch, mode, after)
    # only the hung call is bounded by a short timeout: a call that answers may be slow
    bounded = {"tool_timeout": 3} if mode == "hang" else {}
    log = run(folder, tmp_path, always_reading, [sample_id], apps_transport="mcp", **bounded)
    [sample] = by_id(log).values()
    assert log.status == "success" and sample.error is None
    actions = sample.metadata["actions"]
    assert (actions["retries"], len(actions["faults"])) == (served.RETRIES, served.RETRIES + 1)
    for fault in actions["faults"]:
        assert said in fault and f"mcp_apps.py {mode}" in fault and "\n" not in fault
        assert f"persona {sample.metadata['user_id']}, query {sample_id}" in fault
    assert actions["stopped"].endswith(actions["faults"][-1]) and not actions["finished"]
    tool_texts = [m.text for m in sample.messages if m.role == "tool"]
    assert len(tool_texts) == after  # the last try's calls answered before the fault
    inputs = [m.text for e in sample.events if e.event == "model" for m in e.input]
    assert not any("not json" in text or "Connection" in text for text in inputs)
    assert is_unscored(sample)
    assert sample.scores["v3_scorer"].reason == "server_failed"  # type: ignore[index]


@pytest.mark.slow  # the server's processes
@pytest.mark.memory  # the mcp package
def test_the_same_calls_give_the_same_text_in_process_and_over_mcp(
    folder: V3Folder, tmp_path: Path
) -> None:
    ids = sample_ids(folder, "agentic_send_post", "proactive_close_friend_update")

    def script(messages: list[ChatMessage], tools: list[ToolInfo], choice: ToolChoice) -> Any:
        turns = sum(m.role == "assistant" for m in messages)
        names = sorted(t.name for t in tools)
        if turns == 0:
            return [(name, {}) for name in names if not name.endswith("_create_post")]
        if turns == 1:
            return [(n, {"caption": "mine"}) for n in names if n.endswith("_create_post")] or [
                READ_CALL
            ]
        if turns == 2:
            return [(n, {"limit": 50}) for n in names if n.endswith(("_get_feed", "_search"))]
        return REPLY

    results = {}
    for transport, setting in (("process", "apps"), ("mcp", "mcp")):
        log = run(folder, tmp_path / transport, script, ids, apps_transport=transport)
        assert log.status == "success", log.error
        results[setting] = {
            sample_id: [(m.function, m.text, m.error) for m in s.messages if m.role == "tool"]
            for sample_id, s in by_id(log).items()
        }
        for sample in by_id(log).values():
            assert sample.metadata["actions"]["setting"] == setting
    assert results["apps"] == results["mcp"]
    assert all(len(calls) > 20 for calls in results["apps"].values())
    assert any(error is not None for calls in results["apps"].values() for *_, error in calls)
