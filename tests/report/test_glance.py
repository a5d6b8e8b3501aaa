"""What the report opens with (`report/glance.py`): the first line, the summary, and
each caveat once."""

from __future__ import annotations

import html
import shutil
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import pytest
from support.helpers import mock_model
from support.reports import (
    QUESTIONS,
    Logs,
    close,
    expected_from_log,
    grafted,
    hashed_answer,
    read_csv,
    run,
)

from inspect_personamem.cli import main
from inspect_personamem.report import build_report
from inspect_personamem.report.accuracy import RunSummary
from inspect_personamem.report.glance import CAVEATS, headline


def test_the_first_line_names_every_incomplete_run_and_a_subset_as_not_comparable(
    logs: Logs, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "logs"
    folder.mkdir()
    for key in ("a_full", "a_errors", "b_interrupted"):
        shutil.copy(logs.locations[key], folder / f"{key}.eval")
    model = mock_model(lambda messages: hashed_answer("a", messages), "mockllm/model-a")
    run(model, folder, logs.data, limit=10, task_args={"history": "none"})
    out = tmp_path / "out"
    assert main(["report", str(folder), "--out", str(out)]) == 0
    line = capsys.readouterr().out.splitlines()[0]
    page = (out / "index.html").read_text(encoding="utf-8")
    body = page.split("<body>", 1)[1].lstrip()
    assert body.startswith(f'<p class="headline">{html.escape(line)}</p>')

    labels = {Path(s.run.location).stem: s.label for s in build_report([folder], out).summaries}
    errors = expected_from_log(logs.locations["a_errors"])
    interrupted = expected_from_log(logs.locations["b_interrupted"])
    [limited] = set(labels) - {"a_full", "a_errors", "b_interrupted"}
    assert errors.errors and interrupted.errors
    never = QUESTIONS - len(interrupted.values) - interrupted.errors
    assert line == (
        f"{labels['a_errors']}: {QUESTIONS - len(errors.values)} of {QUESTIONS} questions "
        "unscored (errored); "
        f"{labels['b_interrupted']}: status error, {QUESTIONS - len(interrupted.values)} of "
        f"{QUESTIONS} questions unscored ({interrupted.errors} errored, {never} never run); "
        "not comparable with published numbers: subset (1 of 4)"
    )  # the limited run is complete: every question it asked was scored

    complete = tmp_path / "complete"
    complete.mkdir()
    for key in ("a_full", "a_none"):
        shutil.copy(logs.locations[key], complete / f"{key}.eval")
    assert main(["report", str(complete), "--out", str(tmp_path / "out2")]) == 0
    assert capsys.readouterr().out.splitlines()[0] == "All 2 runs complete."
    page = (tmp_path / "out2" / "index.html").read_text(encoding="utf-8")
    body = page.split("<body>", 1)[1].lstrip()
    assert body.startswith('<p class="headline">All 2 runs complete.</p>')


def test_runs_short_in_the_same_way_are_named_once_together() -> None:
    """One clause per way runs are short: which runs (all counted, some counted and
    named, one by its label) and what is short and why, `in each` where several share
    it; not one bold line per run that reads as if one run were short."""

    def summary(label: str, scored: int = 186, planned: int = 186, **more: Any) -> RunSummary:
        unscored = more.get("unscored", {})
        shortfalls = ["short"] if scored < planned or more.get("status") else []
        run: Any = SimpleNamespace(
            complete=not shortfalls,
            shortfalls=shortfalls,
            status=more.get("status") or "success",
            planned=planned,
            scored_questions=scored,
            errors=more.get("errors", 0),
            unscored=unscored,
            unscored_total=sum(unscored.values()),
            unanswered=0,
            subset="",
            unreleased="",
            synthetic="",
            self_graded=False,
            upper_bound=False,
        )
        return cast(RunSummary, SimpleNamespace(run=run, label=label))

    unjudged = {"scored": 156, "unscored": {"judge_not_built": 30}}
    every = [
        summary(label, **unjudged)  # type: ignore[arg-type]
        for label in ("oracle, full history", "floor, no history", "oracle, no history")
    ]
    assert headline(every) == ("All 3 runs: 30 of 186 questions unscored (judge not built) in each")
    summaries = [
        every[0],
        every[1],
        summary("oracle, apps agent"),
        summary("oracle, apps agent over MCP", 48, 54, errors=2, unscored={"judge_not_built": 4}),
        every[2],
        summary("oracle, cut", 10, 54, status="error"),
    ]
    assert headline(summaries) == (
        "3 of 6 runs (oracle, full history · floor, no history · oracle, no history): "
        "30 of 186 questions unscored (judge not built) in each; "
        "oracle, apps agent over MCP: 6 of 54 questions unscored (2 errored, "
        "4 judge not built); oracle, cut: status error, 44 of 54 questions unscored "
        "(never run)"
    )


def test_the_page_opens_with_one_summary_and_says_each_caveat_once(
    logs: Logs, tmp_path: Path
) -> None:
    """Per dataset and model, each run's accuracy beside its model's no-history run and
    the best model-free floor; a caveat shared by four logs is one line, not four."""
    from inspect_ai.model import get_model

    folder = tmp_path / "logs"
    folder.mkdir()
    other = "not the released file: 24 rows, the released questions_128k.csv has 2727"
    for key in ("a_full", "a_none", "b_epochs"):
        grafted(logs.locations[key], folder / f"{key}.eval", data_release=other)
    for rule in ("longest", "random"):
        location = run(get_model("personamem/floor", rule=rule), tmp_path / "floors", logs.data)
        grafted(location, folder / f"{rule}.eval", data_release=other)
    out = tmp_path / "out"
    report = build_report([folder], out)
    by_stem = {Path(s.run.location).stem: s for s in report.summaries}
    floors = [s for s in report.summaries if s.run.model == "personamem/floor"]
    best = max(floors, key=lambda s: s.overall.accuracy)
    order = [by_stem[key] for key in ("a_none", "a_full", "b_epochs")]
    rows = read_csv(out, "summary")
    assert [row["run"] for row in rows] == [s.label for s in [*order, best]]
    for row, s in zip(rows, [*order, best], strict=True):
        assert row["data"] == "PersonaMem 128k"
        assert close(row["accuracy"], s.overall.accuracy)
        assert close(row["ci95 low"], s.overall.low) and close(row["ci95 high"], s.overall.high)
        assert row["questions scored"] == str(s.overall.n)
    assert report.caveats == [
        "not the released file, all 5 runs (24 rows, the released questions_128k.csv has "
        f"2727): {CAVEATS['not the released file']}"
    ]
    page = (out / "index.html").read_text(encoding="utf-8")
    assert page.count("24 rows, the released questions_128k.csv has 2727") == 1
    body = page.split("<body>", 1)[1]
    assert body.index('<section id="summary">') < body.index('id="caveats"')
    assert body.index('id="caveats"') < body.index('id="notes"')


def test_the_floor_beside_the_runs_is_one_over_all_the_questions(
    logs: Logs, tmp_path: Path
) -> None:
    """A floor run over one question it got right (a run cut short, or `--sample-id`)
    is more accurate than a floor over every question, but is not the floor the
    summary sets beside the runs, nor the one a run is paired with in `floor`."""
    from inspect_ai.log import read_eval_log
    from inspect_ai.model import get_model

    longest = get_model("personamem/floor", rule="longest")
    asked = read_eval_log(run(longest, tmp_path / "asked", logs.data))
    assert asked.samples is not None
    right = next(
        str(s.id) for s in asked.samples if s.scores and s.scores["personamem_scorer"].value == "C"
    )
    folder = tmp_path / "logs"
    run(longest, folder, logs.data, sample_id=[right])
    whole = read_eval_log(run(get_model("personamem/floor", rule="random"), folder, logs.data))
    assert whole.results is not None and whole.results.scores[0].metrics["accuracy"].value < 1
    shutil.copy(logs.locations["a_full"], folder / "a_full.eval")
    report = build_report([folder], tmp_path / "out")
    *_, summary = read_csv(tmp_path / "out", "summary")
    chosen = next(s for s in report.summaries if s.label == summary["run"])
    assert chosen.run.location == whole.location
    assert summary["questions scored"] == str(QUESTIONS)
    assert close(summary["accuracy"], whole.results.scores[0].metrics["accuracy"].value)
    assert {row["floor"] for row in read_csv(tmp_path / "out", "floor")} == {summary["run"]}
