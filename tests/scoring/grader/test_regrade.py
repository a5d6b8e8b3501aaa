"""Re-grading a finished open run with another grader, as docs/open-answers.md shows
it: through Inspect's `score` in Python and `inspect score` on the command line, the
scorer reading each question's calibration and candidate order from the log's samples;
the model under test is never called again, every score names the new grader, and the
report names it, not the one the log's header still names."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from inspect_ai import score
from inspect_ai.event import ModelEvent
from inspect_ai.log import EvalLog, read_eval_log, write_eval_log
from support.graders import first, grader, metrics, open_run
from support.helpers import DISPLAY, ROOT, offline_env

from inspect_personamem.report.read.logs import read_runs
from inspect_personamem.scoring.grader.scorer import GRADER_RECORD, graded_scorer

ORACLE = "personamem/oracle"


def answering_calls(log: EvalLog) -> list[int]:
    """Per sample, the calls to a model not bound to the grader role."""
    return [
        sum(isinstance(e, ModelEvent) and e.role != "grader" for e in sample.events)
        for sample in log.samples or []
    ]


def gradings(log: EvalLog) -> dict[str, tuple[list[str], bool]]:
    """Per question, the order its candidates were shown in and whether it was
    calibrated."""
    found = {}
    for sample in log.samples or []:
        assert sample.scores is not None
        meta = sample.scores["graded_scorer"].metadata or {}
        found[str(sample.id)] = (meta["candidate_order"], "grader_trials" in meta)
    return found


@pytest.mark.slow  # a run, then its regrading
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
    assert found["grader_calibrated"] == 3  # the run's calibration questions, from the samples
    assert gradings(regraded) == gradings(original)
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


@pytest.mark.slow  # a run, then its regrading
def test_inspect_score_regrades_from_the_log_alone(small_split: Path, tmp_path: Path) -> None:
    """`inspect score LOG --scorer inspect_personamem/graded_scorer --model-role
    grader=...`, with no scorer argument: the run's candidate orders (of a seed not the
    default) and calibration questions come back from its samples."""
    log = open_run(
        small_split,
        tmp_path,
        {"grader": grader(first)},
        limit=6,
        grader_calibration=24,
        grader_seed=5,
    )
    regraded = tmp_path / "regraded.eval"
    command = [
        str(Path(sys.executable).parent / "inspect"),
        "score",
        str(log.location),
        "--scorer", "inspect_personamem/graded_scorer",
        "--model-role", f"grader={ORACLE}",
        "--action", "overwrite",
        "--output-file", str(regraded),
        "--display", "none",
    ]  # fmt: skip
    env = offline_env(tmp_path) | {"PYTHONPATH": str(ROOT / "src")}
    subprocess.run(command, env=env, check=True, capture_output=True, timeout=300)
    original, after = read_eval_log(str(log.location)), read_eval_log(str(regraded))
    assert answering_calls(after) == answering_calls(original)
    assert gradings(after) == gradings(original)
    assert all(calibrated for _, calibrated in gradings(after).values())
    found = metrics(after)
    assert found["grader_identity"] == 1.0 and found["grader_reorder"] == 1.0
    for sample in after.samples or []:
        assert sample.scores is not None
        record = (sample.scores["graded_scorer"].metadata or {})[GRADER_RECORD]
        assert record["model"] == ORACLE
