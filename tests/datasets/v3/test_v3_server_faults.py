"""A crash of an app server costs its query at most (`datasets/v3/agent/served.py`,
`apps_transport=mcp`): under Inspect's default `fail_on_error`, with six queries in
flight at once, servers killed (SIGKILL, as `kill -9`) during their start, in a call and
after their last call, and one that hangs. Each faulty server is a real one (the
package's session and tools, served by `support/servers/mcp_apps.py`, which kills itself
at the chosen moment, or is killed by the test); the well-behaved query is served by the
package's own server command. The other queries are scored as usual, a query whose
server failed is tried again from its start on a fresh server (its tries recorded), and
one whose server failed on every try is unscored and counted, never scored; the run
succeeds."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from inspect_ai.log import EvalLog, EvalSample
from inspect_ai.model import ChatMessage
from inspect_ai.model._model import init_model_roles
from inspect_ai.tool import ToolChoice, ToolInfo
from support.helpers import mock_model, run_task, tool_calling_model
from support.servers.mcp_apps import killed_now, stand_in_command

from inspect_personamem.datasets.v3.agent import served
from inspect_personamem.datasets.v3.agent.served import RETRIES
from inspect_personamem.datasets.v3.agent.server import MODULE, server_command
from inspect_personamem.datasets.v3.agent.setting import ACCESS_MCP, OVERPERS_RAIL
from inspect_personamem.datasets.v3.generator import generate
from inspect_personamem.report.read.logs import read_runs
from inspect_personamem.run.tasks import personamem_v3
from inspect_personamem.scoring.scorer import SERVER_FAILED

pytestmark = [pytest.mark.slow, pytest.mark.memory]  # server processes; the mcp package

READ = ("instagram_get_feed", {"limit": 2})
REPLY = json.dumps({"ranked_indices": list(range(16)), "response": "a reply " * 10})
TOOL_TIMEOUT = 5
"""Seconds a call may take: the hung server's try ends after them."""


@dataclass(frozen=True)
class Fault:
    """How one query's server misbehaves (`mcp_apps.py`'s mode, after how many calls,
    only its first server or every one); None: the package's own server."""

    mode: str | None
    after: int = 0
    once: bool = True


FAULTS: Mapping[str, Fault] = {
    "local_recommendation_geo_shift": Fault(None),  # the package's server, left alone
    "active_mistake_prevention": Fault("killed"),  # at its start, the first server
    "agentic_send_post": Fault("die", after=2),  # in its third call, after its write
    "personalized_recommendation": Fault("die", after=1, once=False),  # every server
    "at_ai_directive_followup": Fault("well"),  # killed by the test after its last call
    "hidden_persona_recommendation": Fault("hang"),  # its first call, the first server
}
"""A query of each type (rule-scored, but for the post, scored by its checks) and its
server's fault. The server checked as the task is made (the dataset's first query's,
whichever type it is) is the package's own, left alone;
`test_a_server_killed_as_the_task_is_checked_is_started_again` kills the check's."""
KILLED_AFTER = "at_ai_directive_followup"


def script(messages: list[ChatMessage], tools: list[ToolInfo], choice: ToolChoice) -> Any:
    """Read; post where a post is offered, else read; read; reply."""
    turns = sum(m.role == "assistant" for m in messages)
    posts = sorted(t.name for t in tools if t.name.endswith("_create_post"))
    if turns == 1 and posts:
        return [(posts[0], {"caption": "a post of mine"})]
    return [READ] if turns < 3 else REPLY


@dataclass(frozen=True)
class Run:
    log: EvalLog
    samples: dict[str, EvalSample]
    """By task type."""
    servers: dict[str, int]
    """The stand-in servers started, by task type."""
    killed: int | None
    """The server the test killed after its last call."""


@pytest.fixture(scope="module")
def faulty_run(tmp_path_factory: pytest.TempPathFactory) -> Run:
    folder = generate(tmp_path_factory.mktemp("v3"), personas=1, queries_per_type=1, seed=5)
    work = tmp_path_factory.mktemp("faults")
    grader = mock_model(lambda messages: "{}", "mockllm/grader")
    init_model_roles({"grader": grader})  # as conftest's `grader_bound`, for the module
    task = personamem_v3(data_dir=str(folder.root))
    first = {str((s.metadata or {})["task_type"]): s for s in reversed(task.dataset)}
    chosen = {task_type: first[task_type] for task_type in FAULTS}
    types = {str(s.id): task_type for task_type, s in chosen.items()}
    by_prompt = {ACCESS_MCP + OVERPERS_RAIL + str(s.input): t for t, s in chosen.items()}
    killed: list[int] = []

    def command(
        backend: Path, metadata: Mapping[str, Any], writes: Path | None = None
    ) -> tuple[str, list[str]]:
        own = server_command(backend, metadata, writes)
        task_type = types.get(str(metadata["query_id"]))  # None: the check's, if not chosen
        fault = FAULTS[task_type] if task_type is not None else Fault(None)
        if fault.mode is None:
            return own
        once = work / f"{task_type}.once" if fault.once else None
        return stand_in_command(own, fault.mode, fault.after, once, work / f"{task_type}.pid")

    def model_turn(messages: list[ChatMessage], tools: list[ToolInfo], choice: ToolChoice) -> Any:
        made = script(messages, tools, choice)
        if made == REPLY and by_prompt.get(messages[0].text) == KILLED_AFTER and not killed:
            killed.append(killed_now(work / f"{KILLED_AFTER}.pid"))  # dead before the reply
        return made

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(served, "server_command", command)
        log = run_task(
            "inspect_personamem/personamem_v3",
            tool_calling_model(model_turn),
            work / "logs",
            {
                "data_dir": str(folder.root),
                "history": "apps",
                "apps_transport": "mcp",
                "tool_timeout": TOOL_TIMEOUT,
            },
            model_roles={"grader": grader},
            sample_id=list(types),
            max_samples=len(types),  # all in flight at once
        )
    assert log.samples is not None
    return Run(
        log,
        {types[str(s.id)]: s for s in log.samples},
        {
            task_type: len(pid.read_text().split())
            for task_type in FAULTS
            if (pid := work / f"{task_type}.pid").is_file()
        },
        killed[0] if killed else None,
    )


def actions(sample: EvalSample) -> dict[str, Any]:
    record: dict[str, Any] = sample.metadata["actions"]
    return record


def value(sample: EvalSample) -> float:
    scores = sample.scores or {}
    return float(scores["v3_scorer"].value)  # type: ignore[arg-type]


def test_the_run_succeeds_under_the_default_fail_on_error(faulty_run: Run) -> None:
    log = faulty_run.log
    assert log.eval.config.fail_on_error in (None, True)  # Inspect's default: stop on an error
    assert log.status == "success", log.error
    assert all(s.error is None for s in faulty_run.samples.values())
    assert len(faulty_run.samples) == len(FAULTS)


def test_the_queries_whose_server_was_left_alone_are_scored_as_usual(faulty_run: Run) -> None:
    sample = faulty_run.samples["local_recommendation_geo_shift"]
    record = actions(sample)
    assert (record["retries"], record["faults"], record["finished"]) == (0, [], True)
    assert MODULE in record["server"] and "mcp_apps.py" not in record["server"]  # the package's
    assert not math.isnan(value(sample))
    assert [m.text for m in sample.messages if m.role == "tool"] != []


@pytest.mark.parametrize(
    ("task_type", "said"),
    [
        ("active_mistake_prevention", "did not start: MCPError: Connection closed"),
        ("agentic_send_post", "failed on instagram_get_feed"),
        (
            "hidden_persona_recommendation",
            f"gave no answer to instagram_get_feed within {TOOL_TIMEOUT} s",
        ),
    ],
)
def test_a_query_whose_server_failed_once_is_retried_on_a_fresh_server_and_scored(
    faulty_run: Run, task_type: str, said: str
) -> None:
    sample = faulty_run.samples[task_type]
    record = actions(sample)
    assert faulty_run.servers[task_type] == 2
    assert (record["retries"], record["finished"], record["stopped"]) == (1, True, None)
    [fault] = record["faults"]
    assert said in fault and "\n" not in fault
    assert f"persona {sample.metadata['user_id']}, query {sample.id})" in fault
    assert not math.isnan(value(sample))
    assert sample.scores["v3_scorer"].metadata["actions"]["retries"] == 1  # type: ignore[index]
    # the record and the messages are the second try's alone: three calls, then the reply
    assert [c["tool"] for c in record["calls"]][::2] == ["instagram_get_feed"] * 2
    assert len(record["calls"]) == 3 and record["turns"] == 4
    assert sum(m.role == "user" for m in sample.messages) == 1
    assert sample.output.completion == REPLY
    inputs = [m.text for e in sample.events if e.event == "model" for m in e.input]
    assert not any("Connection closed" in text or "timed out" in text for text in inputs)


def test_the_writes_of_a_failed_try_are_seen_by_no_later_try(faulty_run: Run) -> None:
    """The post's first server was killed after its write: the second try posts again,
    and its record holds that one write alone, as its own session numbers it."""
    record = actions(faulty_run.samples["agentic_send_post"])
    [made] = record["writes"]
    assert made["synthetic_event_id"].endswith("_write_1")
    assert made["arguments"]["caption"] == "a post of mine"
    assert all(call["error"] is None for call in record["calls"])


def test_a_query_whose_server_failed_on_every_try_is_unscored_and_counted(
    faulty_run: Run,
) -> None:
    sample = faulty_run.samples["personalized_recommendation"]
    record = actions(sample)
    tries = RETRIES + 1
    assert faulty_run.servers["personalized_recommendation"] == tries
    assert (record["retries"], len(record["faults"]), record["finished"]) == (RETRIES, tries, False)
    assert all(" failed on " in fault for fault in record["faults"])  # its second call
    assert record["stopped"].startswith(f"its server failed on each of its {tries} tries: ")
    score = (sample.scores or {})["v3_scorer"]
    assert math.isnan(float(score.value))  # type: ignore[arg-type]
    assert score.reason == SERVER_FAILED
    assert f"failed on each of its {tries} tries" in str(score.explanation)
    assert sample.limit is None
    results = faulty_run.log.results
    assert results is not None and results.scores[0].unscored_samples == 1  # Inspect counts it
    # the report counts it apart, as unscored for its reason: not an error, not a limit
    [report_run] = read_runs([faulty_run.log.location]).runs
    assert (report_run.unscored, report_run.errors, report_run.unanswered) == (
        {SERVER_FAILED: 1},
        0,
        0,
    )


def test_a_server_killed_after_its_last_call_costs_nothing(faulty_run: Run) -> None:
    """Its calls were all answered: the reply stands, from its one try."""
    sample = faulty_run.samples[KILLED_AFTER]
    record = actions(sample)
    assert faulty_run.killed is not None and faulty_run.servers[KILLED_AFTER] == 1
    assert (record["retries"], record["faults"], record["finished"]) == (0, [], True)
    assert len(record["calls"]) == 3 and sample.output.completion == REPLY
    assert not math.isnan(value(sample))


def test_a_server_killed_as_the_task_is_checked_is_started_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The check of the run's first server (as the task is made) tries its start as a
    query does: a server killed during its start once costs a second start, not the run."""
    folder = generate(tmp_path / "v3", personas=1, queries_per_type=1, seed=5)
    pid = tmp_path / "check.pid"
    monkeypatch.setattr(
        served,
        "server_command",
        lambda backend, metadata, writes=None: stand_in_command(
            server_command(backend, metadata, writes), "killed", once=tmp_path / "once", pid=pid
        ),
    )
    task = personamem_v3(data_dir=str(folder.root), history="apps", apps_transport="mcp")
    assert len(pid.read_text().split()) == 2 and len(task.dataset) > 0
