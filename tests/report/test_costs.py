"""What each run cost beside what it scored (`report/costs.py`)."""

from __future__ import annotations

from pathlib import Path

import pytest
from inspect_ai.log import read_eval_log, write_eval_log
from support.reports import (
    QUESTIONS,
    Logs,
    close,
    counting_model,
    expected_from_log,
    mean,
    png_size,
    read_csv,
    run,
)

from inspect_personamem.report import build_report

pytest.importorskip("matplotlib", reason="needs the report extra: pip install -e '.[report]'")

from inspect_personamem.report.figures import DPI, SIZES  # noqa: E402


def test_cost_beside_accuracy_with_the_stand_ins_tokens_and_a_known_price(
    logs: Logs, tmp_path: Path
) -> None:
    """model-a's full- and no-history runs, recorded as `openai/gpt-4o-mini` (0.15 and
    0.60 dollars per million input and output tokens in the shipped table)."""
    locations: dict[str, str] = {}
    counts: dict[str, list[int]] = {}
    for history in ("full", "none"):
        counts[history] = []
        model = counting_model(counts[history])
        location = run(model, tmp_path / history, logs.data, task_args={"history": history})
        log = read_eval_log(location)
        log.eval.model = "openai/gpt-4o-mini"
        locations[history] = str(tmp_path / f"{history}.json")
        write_eval_log(log, locations[history])
    report = build_report(list(locations.values()), tmp_path / "out")
    rows = {row["method"]: row for row in read_csv(tmp_path / "out", "cost")}
    dollars = {}
    for history in ("full", "none"):
        row = rows[{"full": "full history", "none": "no history"}[history]]
        sent, replied = sum(counts[history]) / QUESTIONS, len(counts[history]) / QUESTIONS
        assert close(row["input tokens"], sent) and close(row["output tokens"], replied)
        assert row["cached input tokens"] == "0.0" and row["memory input tokens"] == ""
        dollars[history] = (sent * 0.15 + replied * 0.60) / 1e6
        assert close(row["USD"], dollars[history]) and row["USD from"] == "computed"
    full, none = (expected_from_log(locations[k]) for k in ("full", "none"))
    gain = mean(list(full.values.values())) - mean(list(none.values.values()))
    assert gain > 0 and close(rows["full history"]["gain"], gain)
    per_point = (dollars["full"] - dollars["none"]) / (100 * gain)
    assert close(rows["full history"]["USD per point"], per_point)
    assert rows["no history"]["gain"] == rows["no history"]["USD per point"] == ""
    [figure] = [f for f in report.figures if f.files[0].name == "cost.png"]
    width, height = SIZES["cost"]
    assert png_size(tmp_path / "out" / figure.files[0]) == (round(width * DPI), round(height * DPI))
