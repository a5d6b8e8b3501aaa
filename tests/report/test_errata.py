"""The known defects of a run's data in the report (`report/errata.py`): each noted once,
beside the runs whose split and settings it touches."""

from __future__ import annotations

from pathlib import Path

from inspect_ai.log import read_eval_log, write_eval_log
from support.reports import Logs, grafted

from inspect_personamem.data.release import NOT_RELEASED, SYNTHETIC
from inspect_personamem.datasets.v1.spec import PERSONAMEM
from inspect_personamem.report.accuracy import summarise
from inspect_personamem.report.errata import errata_notes, errata_of
from inspect_personamem.report.labels import run_labels
from inspect_personamem.report.read.logs import read_runs


def test_a_defect_is_noted_once_beside_the_runs_it_touches(logs: Logs) -> None:
    """Of 128k's defects, those in the context file touch the full-history run alone; the
    no-history score of #41 touches both; the 32k ones and #26 (never in a score) none."""
    runs = read_runs([logs.locations["a_full"], logs.locations["a_none"]]).runs
    full, none = sorted(runs, key=lambda run: run.settings["history"] == "none")
    by_issue = {e.reported: e for e in PERSONAMEM.errata}
    in_contexts = [
        by_issue["authors' issue #34"],
        by_issue["a third party's inspection (no issue)"],
    ]
    no_history = by_issue["authors' issue #41"]
    assert errata_of(full) == [in_contexts[0], no_history, in_contexts[1]]
    assert errata_of(none) == [no_history]
    summaries = [summarise(run, label) for run, label in zip(runs, run_labels(runs), strict=True)]
    full_label = next(s.label for s in summaries if s.run is full)
    assert errata_notes(summaries) == [
        f"known defect of the data (authors' issue #34), 1 of 2 runs: {full_label}: "
        + in_contexts[0].defect,
        f"known defect of the data (authors' issue #41), all 2 runs: {no_history.defect}",
        "known defect of the data (a third party's inspection (no issue)), 1 of 2 runs: "
        f"{full_label}: {in_contexts[1].defect}",
    ]


def test_runs_on_other_data_than_the_released_files_carry_none_of_their_defects(
    logs: Logs, tmp_path: Path
) -> None:
    """The defects were found in the released files: a run on generated data, on another
    file or on data its log does not name is noted with none of them; a run on the
    released files still is."""
    other = {
        "synthetic": SYNTHETIC + "questions_128k.csv written by a generator",
        "not released": NOT_RELEASED + "questions_128k.csv: 40 rows where the released has 2727",
    }
    for name, release in other.items():
        grafted(logs.locations["a_full"], tmp_path / f"{name}.eval", data_release=release)
    unknown = read_eval_log(logs.locations["a_full"])
    unknown.eval.metadata = {
        k: v for k, v in (unknown.eval.metadata or {}).items() if k != "data_release"
    }
    write_eval_log(unknown, str(tmp_path / "unknown.eval"))
    runs = read_runs([tmp_path]).runs
    assert len(runs) == 3 and all(errata_of(run) == [] for run in runs)
    summaries = [summarise(run, label) for run, label in zip(runs, run_labels(runs), strict=True)]
    assert errata_notes(summaries) == []
    [released] = read_runs([logs.locations["a_full"]]).runs
    assert errata_of(released)
