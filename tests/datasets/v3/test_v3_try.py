"""`inspect-personamem try --dataset v3` end to end: its runs (the oracle with and without
the history, the oracle always right, the floor) and their report; what its models are
sent holds no event at or after the query's time (the generator's decoys included) and
no scorer-only answer."""

from __future__ import annotations

import csv
import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest
from inspect_ai.log import EvalLog, list_eval_logs, read_eval_log
from inspect_ai.model import ChatMessage, GenerateConfig, ModelOutput
from inspect_ai.tool import ToolChoice, ToolInfo

from inspect_personamem.cli import main
from inspect_personamem.datasets.v3 import offline
from inspect_personamem.datasets.v3.histories import PersonaContexts
from inspect_personamem.datasets.v3.longctx import event_line
from inspect_personamem.datasets.v3.samples import SCORER_KEY
from inspect_personamem.datasets.v3.scorers import RULE_TASKS
from inspect_personamem.datasets.v3.streams import PersonaStreams
from inspect_personamem.offline.floor import FloorModel
from inspect_personamem.offline.oracle import OracleModel

pytest.importorskip("matplotlib", reason="needs the report extra: pip install -e '.[report]'")


def texts(messages: list[ChatMessage]) -> str:
    return "\n".join(message.text for message in messages)


@pytest.fixture(scope="module")
def tried(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str], list[EvalLog]]:
    """`try --dataset v3` run once, its runs keeping the history in their logs, and
    every input its models were sent."""
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
                sent.append(texts(input))
            return await _generate(self, input, tools, tool_choice, config)  # type: ignore[no-any-return]

        patch.setattr(model, "generate", recording)
    kept = tuple(
        dataclasses.replace(run, task_args={**run.task_args, "keep_history_in_log": True})
        for run in offline.TRIAL_RUNS
    )
    patch.setattr(offline, "TRIAL_RUNS", kept)
    out = tmp_path_factory.mktemp("try") / "out"
    try:
        assert main(["try", "--dataset", "v3", "--out", str(out), "--questions-count", "62"]) == 0
    finally:
        patch.undo()
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
    """Each log by model, history and `-M accuracy`."""
    return {
        (
            log.eval.model,
            str(log.eval.task_args["history"]),
            log.eval.model_args.get("accuracy"),
        ): log
        for log in logs
    }


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
    }
    assert all(log.status == "success" and len(log.samples or []) == 3 * 62 for log in logs)
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
    # the report's first table: each run's accuracy, the floor and the ceiling beside
    with (out / "report" / "tables" / "summary.csv").open(encoding="utf-8") as file:
        rows = list(csv.DictReader(file))
    assert len(rows) == 4 and all(row["data"] == "PersonaMem-v3 all" for row in rows)
    shown = {row["run"]: float(row["accuracy"]) for row in rows}
    assert shown["personamem/oracle (accuracy=1.0), full history, synthetic data"] == (
        pytest.approx(accuracy(ceiling), abs=5e-4)
    )
    assert shown["personamem/floor, no history, synthetic data"] == pytest.approx(
        accuracy(floor_run), abs=5e-4
    )
    assert (out / "report" / "tables" / "v3_cost.md").is_file()
    # under it, on the first screen, each run's accuracy per family
    with (out / "report" / "tables" / "v3_at_a_glance.csv").open(encoding="utf-8") as file:
        families = {row["run"]: row for row in csv.DictReader(file)}
    assert set(families) == set(shown)
    top = families["personamem/oracle (accuracy=1.0), full history, synthetic data"]
    # below 1 only where the rubric's maximum counts the telegraph check at 3, which
    # gives 1 as the authors' does (the agentic types: 6.089 / 8; over-personalization's
    # rubric types, e.g. chatbot text 4 of 6, the family's mean 2/3)
    ceilings = [1.0, 1.0, 2 / 3, 0.7611, 1.0]
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
    contexts = PersonaContexts(PersonaStreams(out / "data" / "backend"))
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
            events = contexts.events(user)
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
                (fields.get("inferior_response") or {}).get("text"),
            ]
            for answer in answers:
                # where the query shows it (a repost's original), the prompt holds it
                if isinstance(answer, str) and len(answer) > 20 and answer not in prompt:
                    assert answer not in received, (sample.id, answer[:40])
            assert "_generated" not in received
            for hidden in hidden_profile[user]:  # the profile's scorer-side part
                assert hidden not in received, (sample.id, hidden[:40])
    assert checked > 0 and decoys > 0
    assert len(sent) == sum(len(log.samples or []) for log in logs)


def test_the_offline_recipe_counts_the_runs_try_makes_of_v3() -> None:
    words = ["no", "one", "two", "three", "four", "five", "six", "seven", "eight"]
    page = (Path(__file__).parents[3] / "docs" / "offline.md").read_text(encoding="utf-8")
    assert f"runs `personamem_v3` on them {words[len(offline.TRIAL_RUNS)]} times" in page
