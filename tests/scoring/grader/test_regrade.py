"""Re-grading a finished open run with another grader through Inspect's `score`, as
docs/open-answers.md shows it: the scorer's recorded options replayed, the grader role
bound to another model; the model under test is never called again, and the report
names the new grader, not the one the log's header still names."""

from __future__ import annotations

from pathlib import Path

from inspect_ai import score
from inspect_ai.event import ModelEvent
from inspect_ai.log import EvalLog, read_eval_log, write_eval_log
from support.graders import first, grader, metrics, open_run
from support.helpers import DISPLAY

from inspect_personamem.report.logs import read_runs
from inspect_personamem.scoring.grader.scorer import GRADER_RECORD, graded_scorer

ORACLE = "personamem/oracle"


def answering_calls(log: EvalLog) -> list[int]:
    """Per sample, the calls to a model not bound to the grader role."""
    return [
        sum(isinstance(e, ModelEvent) and e.role != "grader" for e in sample.events)
        for sample in log.samples or []
    ]


def test_an_open_run_regraded_by_another_grader(small_split: Path, tmp_path: Path) -> None:
    """Graded first by a grader that always names the first candidate, then re-graded
    by the oracle, which names the candidate the reply is."""
    log = open_run(small_split, tmp_path, {"grader": grader(first)}, grader_calibration=3)
    assert metrics(log)["grader_position_bias"] == 1.0
    original = read_eval_log(str(log.location))
    [recorded] = original.eval.scorers or []
    regraded = score(
        original,
        graded_scorer(**(recorded.options or {})),
        model_roles={"grader": ORACLE},
        action="overwrite",
        display=DISPLAY,
    )
    assert answering_calls(regraded) == answering_calls(original)
    found = metrics(regraded)
    assert found["grader_identity"] == 1.0 and found["grader_position_bias"] == 0.0
    assert found["grader_calibrated"] == 3  # the run's calibration questions, replayed
    assert found["accuracy"] == 1.0  # the oracle answered right (accuracy 1.0)
    for sample in regraded.samples or []:
        assert sample.scores is not None
        metadata = sample.scores["graded_scorer"].metadata or {}
        assert metadata["grader"] == ORACLE and metadata[GRADER_RECORD]["model"] == ORACLE
    # the header still names the run's grader; the report names the one that graded
    roles = regraded.eval.model_roles or {}
    assert getattr(roles["grader"], "model", None) == "mockllm/grader"
    write_eval_log(regraded, str(tmp_path / "regraded.eval"))
    [run] = read_runs([tmp_path / "regraded.eval"]).runs
    assert run.grader is not None and run.grader.model == (ORACLE, ())
