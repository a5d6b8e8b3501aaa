"""`inspect-personamem try --dataset v3` end to end: its runs (the oracle with and without
the history, the oracle always right, the floor, the oracle as an agent over the apps in
process and over MCP) and their report; what its models are sent (tool results
included) holds no event at or after the query's time (the generator's decoys included)
and no scorer-only answer."""

from __future__ import annotations

import csv
import dataclasses
import json
import math
import shlex
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest
from inspect_ai.log import EvalLog, list_eval_logs, read_eval_log
from inspect_ai.model import ChatMessage, GenerateConfig, ModelOutput
from inspect_ai.tool import ToolChoice, ToolInfo
from support.doc_commands import printed
from support.v3_backend import timeline_events

from inspect_personamem.cli import main
from inspect_personamem.datasets.v3.judges.proactive import Proactive
from inspect_personamem.datasets.v3.judges.task_judge import foil_text
from inspect_personamem.datasets.v3.offline import answers as offline
from inspect_personamem.datasets.v3.persona.longctx import event_line
from inspect_personamem.datasets.v3.persona.streams import PersonaStreams
from inspect_personamem.datasets.v3.prompts.shown import SCORER_KEY
from inspect_personamem.datasets.v3.scoring.by_rule import RULE_TASKS
from inspect_personamem.datasets.v3.task_types.registry import TASK_TYPES
from inspect_personamem.offline import try_it
from inspect_personamem.offline.floor import FloorModel
from inspect_personamem.offline.oracle import OracleModel

pytest.importorskip("matplotlib", reason="needs the report extra: pip install -e '.[report]'")


def texts(messages: list[ChatMessage]) -> str:
    return "\n".join(message.text for message in messages)


@pytest.fixture(scope="module")
def tried(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str], list[EvalLog]]:
    """`try --dataset v3` run once, as the docs print it (in this process, by the
    command's own entry point, to record what its models are sent), its runs keeping the
    history in their logs, and every input its models were sent."""
    sent: list[str] = []
    patch = pytest.MonkeyPatch()
    for model in (OracleModel, FloorModel):

        async def recording(
            self: Any,
            input: list[ChatMessage],
            tools: list[ToolInfo],
            tool_choice: ToolChoice,
            config: GenerateConfig,
            _generate: Any = model.generate,
        ) -> ModelOutput:
            if not is_judge_prompt(input[-1].text):  # the grader is shown the answers
                sent.append(texts([m for m in input if m.role != "assistant"]))
            return await _generate(self, input, tools, tool_choice, config)  # type: ignore[no-any-return]

        patch.setattr(model, "generate", recording)
    kept = tuple(
        dataclasses.replace(run, task_args={**run.task_args, "keep_history_in_log": True})
        for run in offline.TRIAL_RUNS
    )
    patch.setattr(offline, "TRIAL_RUNS", kept)
    folder = tmp_path_factory.mktemp("try")
    patch.chdir(folder)
    command = printed("inspect-personamem try --dataset v3")  # as docs/offline.md prints it
    try:
        assert main(shlex.split(command)[1:]) == 0
    finally:
        patch.undo()
    out = folder / "personamem-try"
    logs = [read_eval_log(info) for info in list_eval_logs(str(out / "logs"))]
    return out, sent, logs


def is_judge_prompt(text: str) -> bool:
    return any(kind.fields(text) is not None for kind in offline.JUDGE_PROMPTS)


def judgements(log: EvalLog) -> list[dict[str, object]]:
    """Every judge call's judgement in `log`, less its reasoning."""
    found = []
    for sample in log.samples or []:
        score = next(iter((sample.scores or {}).values()))
        for call in (score.metadata or {}).get("judge_calls", []):
            judgement = json.loads(call["reply"].strip().removeprefix("```json").strip("`\n"))
            judgement.pop("reasoning")
            found.append(judgement)
    return found


def by_run(logs: list[EvalLog]) -> dict[tuple[str, str, object], EvalLog]:
    """Each log by model, history (the apps agent's with its transport: `apps mcp`) and
    `-M accuracy`."""
    return {
        (log.eval.model, history(log), log.eval.model_args.get("accuracy")): log for log in logs
    }


def history(log: EvalLog) -> str:
    """A run's history, with the apps agent's transport (`apps mcp`)."""
    given = str(log.eval.task_args["history"])
    transport = log.eval.task_args.get("apps_transport", "process")
    return f"apps {transport}" if given == "apps" else given


def scores(log: EvalLog) -> dict[str, float | None]:
    """Each sample's score by id (None: unscored)."""
    found: dict[str, float | None] = {}
    for sample in log.samples or []:
        value = float(next(iter((sample.scores or {}).values())).value)  # type: ignore[arg-type]
        found[str(sample.id)] = None if math.isnan(value) else value
    return found


def named(labels: Iterable[str], part: str) -> str:
    """The one run label holding `part`."""
    (label,) = [label for label in labels if part in label]
    return label


def accuracy(log: EvalLog) -> float:
    assert log.results is not None
    return float(log.results.scores[0].metrics["accuracy"].value)


@pytest.mark.slow
@pytest.mark.report
def test_try_runs_the_oracle_its_ceiling_and_the_floor_and_writes_the_report(
    tried: tuple[Path, list[str], list[EvalLog]],
) -> None:
    out, _, logs = tried
    runs = by_run(logs)
    oracle, floor = "personamem/oracle", "personamem/floor"
    assert set(runs) == {
        (oracle, "full", 0.8),
        (oracle, "none", 0.8),
        (oracle, "full", 1.0),
        (floor, "none", None),
        (oracle, "apps process", 0.8),
        (oracle, "apps mcp", 0.8),
    }
    mcp = runs[oracle, "apps mcp", 0.8]
    assert all(log.status == "success" for log in logs)
    # every run asks the 3 personas' 62 queries; the MCP run the agentic tasks' 9 types, twice
    assert [len(log.samples or []) for log in logs] == [
        3 * 62 if log is not mcp else 3 * 9 * 2 for log in logs
    ]
    assert all((log.eval.metadata or {})["data_release"].startswith("synthetic: ") for log in logs)
    # the ceiling: every rule-scored row at the top (each lifecycle pair's probes at 1 and 0)
    ceiling, floor_run = runs[oracle, "full", 1.0], runs[floor, "none", None]
    for sample in ceiling.samples or []:
        if sample.metadata["task_type"] in RULE_TASKS:
            score = next(iter((sample.scores or {}).values()))
            phase = sample.metadata[SCORER_KEY].get("phase")
            assert score.value == (0.0 if phase == "post" else 1.0), sample.id
    # and every judge call judging it top (the floor's, lowest)
    tops = [dict(kind.top) for kind in offline.JUDGE_PROMPTS]
    lows = [dict(kind.low) for kind in offline.JUDGE_PROMPTS]
    assert judgements(ceiling) and all(j in tops for j in judgements(ceiling))
    assert judgements(floor_run) and all(j in lows for j in judgements(floor_run))
    scripted, alone = accuracy(runs[oracle, "full", 0.8]), accuracy(runs[oracle, "none", 0.8])
    assert accuracy(ceiling) > scripted > alone > accuracy(floor_run)
    # the oracle as an agent: it reads before it replies, so it has its chance with a
    # history, drawn as with the whole history: every query scores as in the full run,
    # but where the checks only an agent's run gets (the authors' write and output
    # checks) fail a reply that is not the gold: 0 there
    apps = runs[oracle, "apps process", 0.8]
    full, agent = scores(runs[oracle, "full", 0.8]), scores(apps)
    for sample in apps.samples or []:
        value = agent[str(sample.id)]
        if isinstance(TASK_TYPES[sample.metadata["task_type"]].scorer, Proactive):
            # a persona's proactive queries share one prompt and history
            # (proactive_actions.py@8e2a111f), so the oracle cannot tell them apart
            # by what it is shown, and either run may answer one with the other's gold
            continue
        if value != full[str(sample.id)]:
            gold = sample.metadata[SCORER_KEY].get("example_response")
            assert value == 0.0 and sample.output.completion != gold, sample.id
            assert str(sample.metadata["family"]).startswith("agentic"), sample.id
    # and over MCP as in process, query by query (the same tools, the same texts)
    assert scores(mcp) == {key: agent[key] for key in scores(mcp)}
    for log in (apps, mcp):
        for sample in log.samples or []:
            actions = sample.metadata["actions"]
            assert actions["out_of_budget"] is None and actions["reads"] >= 1, sample.id
            assert all(call["error"] is None for call in actions["calls"]), sample.id
            # a write where the row names one (a post, a DM), its caption or message the reply
            expected = 0 if sample.metadata["mcp_tools_allowed"] == "none" else 1
            assert len(actions["writes"]) == expected, sample.id
            for write in actions["writes"]:
                text = write["arguments"].get("caption") or write["arguments"]["message"]
                assert text == sample.output.completion, sample.id
    # the report's first table: each run's accuracy, the floor and the ceiling beside
    with (out / "report" / "tables" / "summary.csv").open(encoding="utf-8") as file:
        rows = list(csv.DictReader(file))
    assert len(rows) == 6
    assert [row["data"] for row in rows].count("PersonaMem-v3 all") == 5
    shown = {row["run"]: float(row["accuracy"]) for row in rows}
    assert shown[named(shown, "(accuracy=1.0)")] == pytest.approx(accuracy(ceiling), abs=5e-4)
    assert shown[named(shown, "personamem/floor")] == pytest.approx(accuracy(floor_run), abs=5e-4)
    assert (out / "report" / "tables" / "v3_cost.md").is_file()
    # the agents' tool use beside every run's accuracy
    with (out / "report" / "tables" / "v3_tool_use.csv").open(encoding="utf-8") as file:
        used = {row["run"]: row for row in csv.DictReader(file)}
    assert set(used) == set(shown)
    agents = {run: row for run, row in used.items() if row["questions with tools"]}
    assert sorted(int(row["questions with tools"]) for row in agents.values()) == [54, 186]
    for row in agents.values():
        assert float(row["reads per question"]) >= 1 and row["out of budget"] == "0"
    # under it, on the first screen, each run's accuracy per family
    with (out / "report" / "tables" / "v3_family.csv").open(encoding="utf-8") as file:
        families = {row["run"]: row for row in csv.DictReader(file)}
    assert set(families) == set(shown)
    top = families[named(shown, "(accuracy=1.0)")]
    # 1 in every family: the unified judge (the default) tops at 10 of 10 (under the
    # per-dimension judge the rubric's maximum counts the telegraph check at 3, which
    # gives 1, so its families' ceilings were 2/3 and 0.7611). Two proactive queries of
    # a persona at one time share their prompt and history, so the oracle answers both
    # with one's gold; in the data `try` writes (seed 0) the two pairs that do both
    # expect a restraint, so either gold is right
    ceilings = [1.0, 1.0, 1.0, 1.0, 1.0]
    order = ("personalization", "recommendation", "over_personalization", "agentic_tasks")
    assert [float(top[family]) for family in (*order, "agentic_proactiveness")] == (
        pytest.approx(ceilings, abs=1e-4)
    )
    page = (out / "report" / "index.html").read_text(encoding="utf-8")
    assert page.index("accuracy per task family") < page.index("Not comparable with published")


@pytest.mark.slow
@pytest.mark.report
def test_nothing_at_or_after_a_query_and_no_answer_reaches_the_models_try_runs(
    tried: tuple[Path, list[str], list[EvalLog]],
) -> None:
    out, sent, logs = tried
    streams = PersonaStreams(out / "data" / "backend")
    hidden_profile = {}
    for profile in (out / "data" / "backend").glob("*/profile.json"):
        values = json.loads(profile.read_text(encoding="utf-8"))
        hidden_profile[profile.parent.name] = [
            values["hidden_persona_summary"],
            *(h["description"] for h in values["hidden_personas"]),
        ]
    assert len(hidden_profile) == 3
    checked = decoys = 0
    for log in logs:
        for sample in log.samples or []:
            meta = sample.metadata
            received = texts([m for m in sample.messages if m.role != "assistant"])
            prompt = sample.input if isinstance(sample.input, str) else texts(sample.input)
            assert received in sent, sample.id  # the log holds what the model was sent
            user, t = str(meta["user_id"]), int(meta["ts"])
            events = timeline_events(streams, user)
            before = {event_line(e.visible_fields) for e in events if e.source_timestamp < t}
            for event in events:
                line = event_line(event.visible_fields)
                if event.source_timestamp >= t and line not in before:
                    assert line not in received, (log.eval.model, sample.id, event.source_timestamp)
                    checked += 1
            ids = {(e.app, e.source_object_id): e for e in events}
            for ref in meta[SCORER_KEY]["_generated_decoys"]:
                decoy = ids.get((ref["app"], ref["id"]))
                if decoy is not None and event_line(decoy.visible_fields) not in before:
                    assert event_line(decoy.visible_fields) not in received, (sample.id, ref)
                    decoys += 1
            fields = meta[SCORER_KEY]
            answers = [
                fields.get("example_response"),
                foil_text(fields.get("inferior_response")),  # a text on some types' rows
            ]
            for answer in answers:
                # where the query shows it (a repost's original), the prompt holds it
                if isinstance(answer, str) and len(answer) > 20 and answer not in prompt:
                    assert answer not in received, (sample.id, answer[:40])
            assert "_generated" not in received
            for hidden in hidden_profile[user]:  # the profile's scorer-side part
                assert hidden not in received, (sample.id, hidden[:40])
    assert checked > 0 and decoys > 0
    # a model call a turn: one a query, an agent's one for each of its turns
    turns = [
        m for log in logs for s in log.samples or [] for m in s.messages if m.role == "assistant"
    ]
    assert len(sent) == len(turns)


def test_the_offline_recipe_counts_the_runs_try_makes_of_v3() -> None:
    words = ["no", "one", "two", "three", "four", "five", "six", "seven", "eight"]
    page = (Path(__file__).parents[3] / "docs" / "offline.md").read_text(encoding="utf-8")
    assert f"runs `personamem_v3` on them {words[len(offline.TRIAL_RUNS)]} times" in page


@pytest.mark.slow
@pytest.mark.report
def test_without_the_mcp_package_try_skips_the_mcp_run_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    mcp_run = next(
        run for run in offline.TRIAL_RUNS if run.task_args.get("apps_transport") == "mcp"
    )
    floor_run = next(run for run in offline.TRIAL_RUNS if run.model == "personamem/floor")
    monkeypatch.setattr(offline, "TRIAL_RUNS", (floor_run, mcp_run))
    monkeypatch.setattr(try_it, "find_spec", lambda name: None if name == "mcp" else object())
    out = tmp_path / "out"
    assert main(["try", "--dataset", "v3", "--out", str(out), "--limit", "3"]) == 0
    printed = capsys.readouterr().out.splitlines()
    skipped = [line for line in printed if "skipped" in line]
    assert skipped == [
        "history=apps, apps_transport=mcp, family=agentic_tasks: skipped: it needs "
        "the `mcp` package, not installed here (pip install -e '.[memory]')"
    ]
    assert len(list_eval_logs(str(out / "logs"))) == 1  # the floor's alone
