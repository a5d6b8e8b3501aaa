"""The offline models check their part as a task is built, before any sample runs, in one
line naming the fix; on PersonaMem-v3 the oracle grades from the task's samples without a
question file, the types with no faithful judge are scored by the offline stand-in (only
under an offline grader), and the Markdown memory has an offline writer."""

from __future__ import annotations

import asyncio
import math
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog
from support.helpers import DISPLAY

from inspect_personamem.cli import main
from inspect_personamem.datasets.v3 import generator as v3_generator
from inspect_personamem.datasets.v3.judges.base import JudgePrompt
from inspect_personamem.datasets.v3.memory_writer import EMPTY_MEMORY, read_reply, update_prompt
from inspect_personamem.datasets.v3.offline import answers
from inspect_personamem.datasets.v3.offline.writer import written_reply
from inspect_personamem.datasets.v3.scoring import judged
from inspect_personamem.datasets.v3.scoring.judged import NO_FAITHFUL_JUDGE, judge_row
from inspect_personamem.errors import PersonaMemArgumentError

V3 = "inspect_personamem/personamem_v3"


@pytest.fixture(scope="module")
def v3_data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One generated v3 persona, two queries of each type."""
    folder = tmp_path_factory.mktemp("v3") / "data"
    v3_generator.generate(folder, personas=1, queries_per_type=2, seed=0)
    return folder


def queries_file(data: Path) -> Path:
    (found,) = data.glob("benchmark/*/queries.csv")
    return found


def run(task: str, data: Path, logs: Path, **eval_args: Any) -> list[EvalLog]:
    return inspect_eval(
        task, task_args={"data_dir": str(data), **eval_args.pop("task_args", {})},
        log_dir=str(logs), display=DISPLAY, **eval_args,
    )  # fmt: skip


def test_the_oracle_without_its_question_file_stops_as_the_task_is_built(
    small_split: Path, v3_data: Path, tmp_path: Path
) -> None:
    """v1 and v3: one line naming the task's own file (absolute), and no log written."""
    v1_file = small_split / "questions_32k.csv"
    for task, data, named in (
        ("inspect_personamem/personamem_32k", small_split, v1_file),
        (V3, v3_data, queries_file(v3_data)),
    ):
        with pytest.raises(PersonaMemArgumentError) as raised:
            run(task, data, tmp_path, model="personamem/oracle",
                model_roles={"grader": "personamem/oracle"})  # fmt: skip
        assert str(raised.value) == (
            "personamem/oracle answers from the question file the task reads, and was given "
            f"no -M questions: add -M questions={named} (an absolute path)"
        )
    # another version's file names the task's own too
    with pytest.raises(PersonaMemArgumentError, match="another version's question file"):
        run(V3, v3_data, tmp_path, model="personamem/oracle",
            model_args={"questions": str(v1_file)},
            model_roles={"grader": "personamem/oracle"})  # fmt: skip
    assert not list(tmp_path.glob("*.eval"))


def test_the_floor_grades_nothing_and_answers_only_by_choosing(
    small_split: Path, tmp_path: Path
) -> None:
    task = "inspect_personamem/personamem_32k"
    questions = {"questions": str(small_split / "questions_32k.csv")}
    with pytest.raises(PersonaMemArgumentError, match="grades nothing: bind a grader"):
        run(task, small_split, tmp_path, model="personamem/oracle", model_args=questions,
            task_args={"answer": "open"}, model_roles={"grader": "personamem/floor"})  # fmt: skip
    with pytest.raises(PersonaMemArgumentError, match="answer=open: run it with -T answer=choice"):
        run(task, small_split, tmp_path, model="personamem/floor",
            task_args={"answer": "open"}, model_roles={"grader": "personamem/oracle"})  # fmt: skip
    assert not list(tmp_path.glob("*.eval"))


def statuses(log: EvalLog) -> list[tuple[str, str, float]]:
    """Each sample's task type, score status and value."""
    found = []
    for sample in log.samples or []:
        score = next(iter((sample.scores or {}).values()))
        status = str((score.metadata or {}).get("status"))
        found.append((str(sample.metadata["task_type"]), status, float(score.value)))  # type: ignore[arg-type]
    return found


@pytest.mark.slow  # two v3 runs over a persona
def test_the_oracle_grades_v3_from_the_task_and_every_query_is_scored(
    v3_data: Path, tmp_path: Path
) -> None:
    """The oracle bound as the grader with no question file: the ceiling (the oracle
    always right) scores every query at its top (a lifecycle `post` probe at 0), the
    repetition types through the offline stand-in; the floor's echoes score 0 there."""
    questions = {"questions": str(queries_file(v3_data)), "accuracy": 1.0}
    (ceiling,) = run(V3, v3_data, tmp_path / "ceiling", model="personamem/oracle",
                     model_args=questions, model_roles={"grader": "personamem/oracle"})  # fmt: skip
    (floor,) = run(V3, v3_data, tmp_path / "floor", model="personamem/floor",
                   model_args={"rule": "question"}, task_args={"history": "none"},
                   model_roles={"grader": "personamem/oracle"})  # fmt: skip
    for log in (ceiling, floor):
        assert log.status == "success", log.error
        assert all(not math.isnan(value) for _, _, value in statuses(log))
    stand_ins = [(t, s, v) for t, s, v in statuses(ceiling) if t in NO_FAITHFUL_JUDGE]
    assert len(stand_ins) == 2 * len(NO_FAITHFUL_JUDGE)
    assert all(status == "offline_stand_in" and value == 1.0 for _, status, value in stand_ins)
    assert sum(value for _, _, value in statuses(ceiling)) == len(statuses(ceiling)) - 1
    judged_ = [(t, s, v) for t, s, v in statuses(ceiling) if s == "judged"]
    assert judged_ and all(value == 1.0 for _, _, value in judged_)
    floored = [(s, v) for t, s, v in statuses(floor) if t in NO_FAITHFUL_JUDGE]
    assert floored == [("offline_stand_in", 0.0)] * len(floored)


def test_the_stand_in_only_under_an_offline_grader() -> None:
    """A real grader is never sent the stand-in: the rows stay unscored; an offline one
    is, and its match (or an unreadable reply) is read."""
    task_type = sorted(NO_FAITHFUL_JUDGE)[0]
    gold = "Try a 25-minute timer with a short walk between blocks."
    fields = {"example_response": gold}
    sent: list[str] = []

    def asking(answer: str) -> Any:
        async def ask(prompt: str) -> str:
            sent.append(prompt)
            return answer

        return ask

    real = asyncio.run(judge_row(task_type, gold, fields, {}, asking("{}")))
    assert (real.status, real.accuracy, sent) == ("no_faithful_judge", None, [])
    offline = asyncio.run(
        judge_row(task_type, gold, fields, {}, asking('{"stand_in_match": 1}'), stand_in=True)
    )
    assert (offline.status, offline.accuracy) == ("offline_stand_in", 100.0)
    assert offline.metrics == {"stand_in_match": 1} and offline.note  # why no judge is built
    (prompt,) = sent
    # the oracle's judgement of that prompt: the match, read off the gold it shows
    assert '"stand_in_match": 1' in str(answers.judge_reply(prompt, answers.JudgedGold([])))
    other = prompt.replace(f"## Reply to judge\n\n{gold}", "## Reply to judge\n\nno")
    assert '"stand_in_match": 0' in str(answers.judge_reply(other, answers.JudgedGold([])))
    unread = asyncio.run(judge_row(task_type, gold, fields, {}, asking("a match"), stand_in=True))
    assert (unread.status, unread.accuracy) == ("judge_unreadable", None)
    assert "names no stand_in_match" in unread.note and len(unread.calls) == 1


def test_the_offline_writer_writes_the_days_activity_into_the_memory() -> None:
    lines = ["07:55, 04/03/2026 [chatbot] explicit_positive | Liked", "09:56, 04/03/2026 [x] y"]
    reply = written_reply(update_prompt(EMPTY_MEMORY, "", "\n".join(lines), 4096))
    assert reply is not None
    memory, summary = read_reply(reply)
    assert memory is not None and summary is not None
    assert memory.splitlines()[0] == "# USER MEMORY (last activity seen: 09:56, 04/03/2026)"
    assert memory.endswith("## Currently active\n" + "\n".join(f"- {line}" for line in lines))
    assert "2 activity line(s)" in summary
    # the next day's lines go after, and a prompt that is not the writer's is not answered
    next_day = update_prompt(memory, summary, "10:00, 04/04 [a] b", 4096)
    again = read_reply(str(written_reply(next_day)))
    assert again[0] is not None and again[0].endswith(f"- {lines[1]}\n- 10:00, 04/04 [a] b")
    assert written_reply("# Task: produce a chatbot response") is None
    assert isinstance(answers.JUDGE_PROMPTS[-1], JudgePrompt)


@pytest.mark.slow  # two runs of try's floor
@pytest.mark.report
def test_try_exits_1_where_a_run_is_incomplete(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The floor's run over every query: complete (the stand-in scores the repetition
    types), so 0; with the stand-in off they are unscored, the run incomplete, so 1."""
    floor_run = next(run for run in answers.TRIAL_RUNS if run.model == "personamem/floor")
    monkeypatch.setattr(answers, "TRIAL_RUNS", (floor_run,))
    assert main(["try", "--dataset", "v3", "--out", str(tmp_path / "complete")]) == 0

    class NoOfflineModel:  # the grader is then taken for a real one
        pass

    monkeypatch.setattr(judged, "OfflineModel", NoOfflineModel)
    capsys.readouterr()
    assert main(["try", "--dataset", "v3", "--out", str(tmp_path / "short")]) == 1
    printed = capsys.readouterr().out.splitlines()
    assert printed[-1].startswith("incomplete: personamem/floor") and "exit status 1" in printed[-1]
