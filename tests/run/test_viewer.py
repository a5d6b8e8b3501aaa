"""What a run's log declares for `inspect view`: its headline, its sample list and what
its score panel shows."""

from __future__ import annotations

from pathlib import Path

import pytest
from inspect_ai.log import EvalLog, headline_metric
from support.helpers import mock_model, run_task

from inspect_personamem.run.viewer import HEADER
from inspect_personamem.scoring.intervals import INTERVAL_NAMES


@pytest.fixture
def answered_c(small_split: Path, tmp_path: Path) -> EvalLog:
    """Six questions of the small split, each answered (c)."""
    return run_task(
        "inspect_personamem/personamem_32k",
        mock_model(lambda _: "<final_answer>(c)"),
        tmp_path / "logs",
        {"data_dir": str(small_split)},
        limit=6,
    )


@pytest.mark.slow  # a run read through the viewer's data
def test_the_log_declares_accuracy_its_headline(answered_c: EvalLog) -> None:
    assert answered_c.eval.headline_metric is not None
    assert answered_c.eval.headline_metric.metric == "accuracy"
    resolved = headline_metric(answered_c)
    assert resolved is not None and resolved.name == "accuracy"
    assert answered_c.results is not None
    assert resolved.metric.value == answered_c.results.scores[0].metrics["accuracy"].value


@pytest.mark.slow  # a run read through the viewer's data
def test_the_sample_list_shows_the_logged_scorer_as_its_verdict_column(
    answered_c: EvalLog,
) -> None:
    viewer = answered_c.eval.viewer
    assert viewer is not None and viewer.task_samples_view is not None
    view = viewer.task_samples_view
    assert not isinstance(view, list) and view.columns is not None
    [scorer] = [s.name for s in answered_c.eval.scorers or []]
    ids = [column.id for column in view.columns]
    assert f"score__{scorer}__{scorer}" in ids  # the column of the score the log keys
    assert ids[:4] == ["sampleId", "input", "target", "answer"]


@pytest.mark.slow  # a run read through the viewer's data
def test_the_score_panel_names_the_correct_options_text(answered_c: EvalLog) -> None:
    for sample in answered_c.samples or []:
        assert sample.scores is not None
        [score] = sample.scores.values()
        letter = sample.target if isinstance(sample.target, str) else sample.target[0]
        index = ord(letter.strip("() ")) - ord("a")
        assert isinstance(sample.choices, list)
        assert score.explanation is not None
        assert score.explanation.endswith(f"({letter.strip('() ')}): {sample.choices[index]}")
        assert score.answer == "(c)"


@pytest.mark.slow  # a run read through the viewer's data
def test_the_header_holds_the_result_and_the_breakdowns_read_whole(answered_c: EvalLog) -> None:
    """What `inspect view` draws from the metrics: those without a `group_key` in its
    header card (`HEADER` first), the rest under "All scoring" with their trailing
    digits stripped, so none of theirs ends in one."""
    assert answered_c.results is not None
    metrics = answered_c.results.scores[0].metrics
    header = [name for name, m in metrics.items() if "group_key" not in m.params]
    assert header == [*HEADER, "unparsed"]
    assert all(metrics[name].name == name for name in header)  # no registry prefix
    breakdowns = [name for name, m in metrics.items() if "group_key" in m.params]
    assert any(name.startswith("sessions_") for name in breakdowns)
    assert [name for name in breakdowns if name[-1].isdigit() or "None" in name] == []
    low, high = (metrics[name].value for name in INTERVAL_NAMES)
    assert 0.0 <= low <= metrics["accuracy"].value <= high <= 1.0
