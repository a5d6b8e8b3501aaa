"""Run labels (`report/labels.py`): what tells runs apart."""

from __future__ import annotations

from pathlib import Path

from inspect_ai import eval as inspect_eval
from support.reports import (
    TASK,
    Logs,
    by_measure,
    close,
    expected_from_log,
    mean,
    read_csv,
)

from inspect_personamem.datasets.v1.spec import PERSONAMEM
from inspect_personamem.report import build_report


def test_runs_of_one_model_name_with_other_model_arguments_are_other_models(
    logs: Logs, tmp_path: Path
) -> None:
    """Two `personamem/oracle` models (another `-M decay`), each run with and without the
    history: each full-history run is paired with its own model's baseline."""
    questions = str(logs.data / PERSONAMEM.questions_file("128k"))
    locations: dict[tuple[str, str], str] = {}
    for decay in ("0.0", "0.1"):
        for history in ("full", "none"):
            [log] = inspect_eval(
                TASK,
                task_args={"data_dir": str(logs.data), "history": history},
                model="personamem/oracle",
                model_args={"questions": questions, "decay": float(decay)},
                log_dir=str(tmp_path / "logs"),
                display="none",
            )
            locations[decay, history] = str(log.location)
    report = build_report([tmp_path / "logs"], tmp_path / "out")
    labels = {s.run.location: s.label for s in report.summaries}
    assert len(set(labels.values())) == 4
    assert labels[locations["0.1", "none"]] == "personamem/oracle (decay=0.1), no history"
    gains = by_measure(read_csv(tmp_path / "out", "gain"), "run")
    assert len({run for run, _ in gains}) == 2
    for decay in ("0.0", "0.1"):
        full, none = locations[decay, "full"], locations[decay, "none"]
        row = gains[labels[full], "overall"]
        assert row["baseline (no history)"] == labels[none]
        values = [mean(list(expected_from_log(x).values.values())) for x in (full, none)]
        assert close(row["difference"], values[0] - values[1])
    groups = {row["runs of"] for row in read_csv(tmp_path / "out", "methods")}
    assert groups == {f"personamem/oracle (decay={d}), 128k" for d in ("0.0", "0.1")}
    models = {row["model"] for row in read_csv(tmp_path / "out", "runs")}
    assert models == {"personamem/oracle (decay=0.0)", "personamem/oracle (decay=0.1)"}
