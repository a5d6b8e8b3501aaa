"""The tables of open answers' graders (`report/graded_tables.py`): which of them a
report gets, a grader's row and its trials kind by kind, gradings of the same replies
side by side; on hand-built runs (through real logs: test_open_report.py)."""

from __future__ import annotations

from dataclasses import replace

from support.reports import a_summary, results

from inspect_personamem.report.accuracy import RunSummary
from inspect_personamem.report.graded_tables import grader_table, grader_tables, trial_table
from inspect_personamem.report.read.identity import Grader
from inspect_personamem.report.read.samples import Calibration
from inspect_personamem.scoring.grader.correction import TrialCounts
from inspect_personamem.scoring.grader.trials import RIGHT_VERDICTS, TRIAL_KINDS

GRADER = Grader(("mockllm/grader", ()))


def graded(label: str, eval_id: str, calibrated: bool = True, **changes: object) -> RunSummary:
    """An open run over 8 questions in 4 histories, every other one right, each reply's
    verdict `(a)` or `(b)`; calibrated: each question with 4 trials of every kind, 3
    right."""
    trials: TrialCounts = {
        kind: {"trials": 4, "right": 3, "named_correct": 0} for kind in TRIAL_KINDS
    }
    samples = [
        replace(
            s, statuses={"named": 1.0}, answers={1: "(a)" if s.value else "(b)"},
            trials=trials if calibrated else {},
            calibration=Calibration(questions=1) if calibrated else Calibration(),
        )
        for s in results(*[[1.0, 0.0]] * 4)
    ]  # fmt: skip
    settings = {"answer": "open"}
    return a_summary(label, samples, settings=settings, eval_id=eval_id, **changes)


def test_a_report_gets_the_tables_its_graders_call_for() -> None:
    """None without a graded run; the trials only where a grader was measured; the
    agreement only where the same replies were graded twice."""
    chosen = a_summary("chosen", results([1.0]))
    assert grader_tables([chosen]) == []
    uncalibrated = graded("uncalibrated", "e1", calibrated=False, grader=GRADER)
    assert [t.name for t in grader_tables([chosen, uncalibrated])] == ["graders"]
    first = graded("first", "e2", grader=GRADER)
    again = graded("again", "e2", grader=Grader(("mockllm/other", ())))
    assert [t.name for t in grader_tables([first, again], "v2_")] == [
        "v2_graders", "v2_grader_trials", "v2_grader_agreement",
    ]  # fmt: skip


def test_a_graders_row_and_its_trials_kind_by_kind() -> None:
    """32 trials of each kind, 24 right (0.75): each kind fails, so the grader is not
    to be trusted; a grader that is the model under test is self-graded."""
    run = graded("run", "e1", grader=GRADER)
    itself = graded("itself", "e2", grader=Grader(("mockllm/model-a", ())))
    table = grader_table([run, itself])
    rows = [dict(zip(table.columns, row, strict=True)) for row in table.rows]
    assert [(r["run"], r["grader"], r["self-graded"]) for r in rows] == [
        ("run", "mockllm/grader", "no"),
        ("itself", "mockllm/model-a itself", "yes"),
    ]
    assert rows[0]["accuracy"] == 0.5 and rows[0]["calibrated questions"] == 8
    assert rows[0]["none share"] == rows[0]["unreadable share"] == 0.0
    assert str(rows[0]["trustworthy"]).startswith("NO: identity_correct 0.75 [")
    trials = trial_table([run, graded("not measured", "e3", calibrated=False, grader=GRADER)])
    assert [(row[0], row[1], row[2], row[3], row[4], row[5], row[8]) for row in trials.rows] == [
        ("run", kind, RIGHT_VERDICTS[kind], 32, 24, 0.75, "fails") for kind in TRIAL_KINDS
    ]


def test_two_gradings_of_the_same_replies_side_by_side() -> None:
    """The same 8 replies graded alike by two graders: 8 questions over 4 histories,
    the same accuracy, full agreement."""
    first = graded("first", "e", grader=GRADER)
    again = graded("again", "e", grader=Grader(("mockllm/other", ())))
    [table] = [t for t in grader_tables([first, again]) if t.name == "grader_agreement"]
    [row] = [dict(zip(table.columns, row, strict=True)) for row in table.rows]
    assert (row["grading"], row["other grading"], row["questions"], row["contexts"]) == (
        "first", "again", 8, 4,
    )  # fmt: skip
    assert (row["accuracy"], row["other accuracy"], row["agreement"]) == (0.5, 0.5, 1.0)
