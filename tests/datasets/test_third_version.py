"""A third dataset version (`support/toy_version.py`: one module, one registry entry)
runs through `inspect eval`, `inspect-personamem try`, `estimate`, `report` and `card` with its
own columns, groups, distance unit, labels and published number. Three options, where
PersonaMem has four, reach every part that reads them (the grader's candidate orders)."""

from __future__ import annotations

import re
from collections.abc import Callable
from contextlib import redirect_stderr, redirect_stdout
from io import StringIO
from pathlib import Path

import pytest
from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai.log import list_eval_logs, read_eval_log, resolve_sample_attachments
from inspect_ai.model import get_model
from support.helpers import offline_env
from support.tasks import assert_declares
from support.toy_version import TOY, generate, registered_toy

from inspect_personamem.cli import main
from inspect_personamem.data.asked import AskedAt
from inspect_personamem.errors import PersonaMemArgumentError
from inspect_personamem.run.tasks import TASKS

__all__ = ["registered_toy"]  # the fixture, for pytest

TASK = "inspect_personamem/personamem_toy_short"
Tasks = dict[str, Callable[..., Task]]


def cli(*args: str, env_root: Path) -> tuple[int, str]:
    """`inspect-personamem ...` in-process, offline: its exit status and what it printed."""
    out = StringIO()
    with pytest.MonkeyPatch.context() as patch, redirect_stdout(out), redirect_stderr(out):
        for name, value in offline_env(env_root).items():
            patch.setenv(name, value)
        code = main(list(args))
    return code, out.getvalue()


@pytest.mark.slow  # an end-to-end run
def test_its_task_runs_under_inspect_eval(registered_toy: Tasks, tmp_path: Path) -> None:
    data = tmp_path / "toy"
    questions = generate(data, "short", questions=12)
    oracle = get_model("personamem/oracle", questions=str(questions), accuracy=1.0, decay=0.0)
    (log,) = inspect_eval(
        TASK, model=oracle, task_args={"data_dir": str(data)}, log_dir=str(tmp_path / "logs"),
        display="none",
    )  # fmt: skip
    assert log.status == "success", log.error
    assert log.results is not None and log.samples is not None
    metrics = {name: m.value for name, m in log.results.scores[0].metrics.items()}
    assert metrics["accuracy"] == 1.0
    assert {"skill_recall", "skill_update"} <= set(metrics)
    assert any(name.startswith("gap_") for name in metrics)
    assert (log.eval.metadata or {})["data_release"].startswith("synthetic: ")
    for sample in log.samples:  # three options, lettered (a)-(c), after the history
        assert len(sample.choices or []) == 3
        resolved = resolve_sample_attachments(sample)
        asked = next(e.input for e in resolved.events if e.event == "model")
        assert asked[-1].text.endswith("Pick one, answering as <final_answer>(x).")
        assert len(asked) - 1 == AskedAt.of(sample.metadata).end_index > 0


def test_its_tasks_declare_its_parameters(registered_toy: Tasks) -> None:
    assert_declares(registered_toy["personamem_toy"], TOY)
    for track in TOY.fixed_values:
        assert_declares(registered_toy[f"personamem_toy_{track}"], TOY, track)


def test_its_own_arguments_are_checked(registered_toy: Tasks, tmp_path: Path) -> None:
    data = tmp_path / "toy"
    generate(data, "short")
    with pytest.raises(PersonaMemArgumentError, match="track='medium': choose one of short"):
        registered_toy["personamem_toy"](track="medium", data_dir=str(data))
    with pytest.raises(PersonaMemArgumentError, match="has no parameter subset"):
        registered_toy["personamem_toy_short"](subset="val", data_dir=str(data))
    assert "personamem_toy" not in TASKS  # registered for this test only


@pytest.mark.report  # `try` ends with the report
def test_try_estimate_and_report_read_its_entry(registered_toy: Tasks, tmp_path: Path) -> None:
    out = tmp_path / "try"
    code, printed = cli("try", "--dataset", "toy", "--out", str(out),
                        "--questions-count", "12", env_root=tmp_path)  # fmt: skip
    assert code == 0, printed
    logs = [read_eval_log(info) for info in list_eval_logs(str(out / "logs"))]
    # seven runs, and the open full-history run graded again
    assert len(logs) == 8 and all(log.status == "success" for log in logs)
    assert {log.eval.task for log in logs} == {TASK}
    tables = out / "report" / "tables"
    published = (tables / "toy_published.md").read_text(encoding="utf-8")
    assert "Beside the published PersonaMem-toy numbers" in published and "0.61" in published
    page = (out / "report" / "index.html").read_text(encoding="utf-8")
    assert "Recall a stated fact" in page and "turns since the evidence" in page
    cards = tmp_path / "cards"
    code, printed = cli("card", str(out / "logs"), "--out", str(cards), "--allow-unreleased",
                        env_root=tmp_path)  # fmt: skip
    assert code == 0, printed
    # one card per model and setting: each log's, the re-grading (another grader) its own
    assert len(list(cards.glob("toy-*.json"))) == len(logs) == 8
    card = (cards / "toy-personamem-oracle-full-history-synthetic-data.md").read_text("utf-8")
    assert "| skill: Recall a stated fact |" in card and "| released questions_short.csv |" in card
    data = str(out / "data")
    code, printed = cli("estimate", "--dataset", "toy", "--track", "short", "--model",
                        "openai/gpt-4.1", "--data-dir", data, env_root=tmp_path)  # fmt: skip
    assert code == 0, printed
    assert "toy short" in printed and re.search(r"questions +12\n", printed)
    assert "synthetic: questions_short.csv" in printed
    code, printed = cli("estimate", "--dataset", "toy", "--split", "32k", "--model", "x/y",
                        "--data-dir", data, env_root=tmp_path)  # fmt: skip
    assert code != 0 and "PersonaMem-toy takes --track" in printed
