"""A version's part of the report as PersonaMem-v3's runs give it (issue 50 item 3):
a figure per known group with every run in it, the 31 task types drawn per family and
tabled one row per type (width bounded by the runs, not the types), no column empty for
every run nor headed "None", a score below 0 called what it is, and the lifecycle rows
reconciled with the viewer's count once (groups and values written by hand)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from support.reports import a_run, v1_groups

from inspect_personamem.datasets.base import Group
from inspect_personamem.report.accuracy import RunSummary, accuracy_of, by_group
from inspect_personamem.report.glance import summary_table
from inspect_personamem.report.read.samples import SampleResult
from inspect_personamem.report.read.tool_use import ToolUse
from inspect_personamem.report.tables import TRANSPOSE_AT, group_table, overall_table
from inspect_personamem.scoring.metrics import group_value

pytest.importorskip("matplotlib", reason="needs the report extra: pip install -e '.[report]'")

from inspect_personamem.report import figures  # noqa: E402 (after the extra's check)
from inspect_personamem.report.sections import (  # noqa: E402
    Inclusion,
    ReportContext,
    figure_parts,
)

TYPES = {f"type_{i:02d}": f"type {i:02d}" for i in range(16)}
FAMILY_OF = {t: "first" if i < 8 else "second" for i, t in enumerate(list(TYPES)[:14])}
"""Fourteen types a run has (eight in the first family, six in the second); the last two
are known and empty for every run."""
FAMILY = Group("family", "family", "task family", values={"first": "First", "second": "Second"})
TYPE = Group("task_type", "type", "task type", mean_of_values="macro", values=TYPES)
APP = Group("app_context", "app", "app context")
GROUPS = (FAMILY, TYPE, APP)


def summary(label: str, score: float, tool_use: tuple[ToolUse, ...] = (), **run: Any) -> RunSummary:
    """A run of two personas, one question per known type they have, each scored
    `score` but the first type's (1.0); the second family's with no app context."""
    samples = [
        SampleResult(
            f"{persona}-{t}",
            {
                **v1_groups("c"),
                "family": family,
                "task_type": t,
                "app_context": group_value(None if family == "second" else "threads"),
            },
            persona,
            1.0 if t == "type_00" else score,
            {"single": 1.0},
            1,
            "single",
        )
        for persona in ("p1", "p2")
        for t, family in FAMILY_OF.items()
    ]
    made = a_run(samples, tool_use=tool_use, **run)
    return RunSummary(
        made, label, accuracy_of(samples), {g.key: by_group(samples, g) for g in GROUPS}, {}, 28
    )


RUNS = [
    summary("full history", 0.5),
    summary("no history", 0.25),
    summary("apps agent", 0.75, tool_use=(ToolUse(4, 3, 1, 5, None),)),
]


def test_many_values_are_a_row_each_and_none_empty_for_every_run_is_shown() -> None:
    table = group_table(RUNS, TYPE, "v3_type", "Accuracy per task type")
    assert len(TYPES) > TRANSPOSE_AT
    # a column per run, not per type: the width is bounded by the runs
    assert table.columns == ("task type", *(s.label for s in RUNS))
    shown = [*list(TYPES.values())[:14], "macro average", "questions"]
    assert [row[0] for row in table.rows] == shown
    for row in table.rows:  # no row of dashes: every type shown has a run with questions
        assert not all(isinstance(c, float) and math.isnan(c) for c in row[1:])
    assert "No run has a question of: type 14, type 15." in table.note
    assert table.rows[1][1:] == (0.5, 0.25, 0.75)
    # few values stay a column each
    families = group_table(RUNS, FAMILY, "v3_family", "Accuracy per task family")
    assert families.columns == ("run", "First", "Second")


def test_a_value_not_given_is_named_and_no_column_is_headed_none() -> None:
    table = group_table(RUNS, APP, "v3_app", "Accuracy per app context")
    assert "None" not in table.columns
    assert table.columns == ("run", "threads", "no app context")  # as inspect view orders them


def test_a_score_below_zero_is_a_mean_score_with_the_authors_clamped_value() -> None:
    negative = summary("old log", -0.5)
    table = group_table([RUNS[0], negative], TYPE, "v3_type", "Accuracy per task type")
    assert table.title == "Mean score per task type"  # not called an accuracy
    # type_01: two rows at -0.5; the authors clamp each at 0
    assert "old log · type 01: mean -0.500, 2 of 2 rows below 0, 0.000 on the authors' scale" in (
        table.note
    )
    assert "full history ·" not in table.note
    assert "Accuracy" in group_table(RUNS, TYPE, "t", "Accuracy per task type").title
    overall = overall_table([negative], a_run().entry, "v3_overall")
    # 2 rows of 28 at 1.0, 26 at -0.5: mean -11/28; clamped 2/28
    assert "old log: mean -0.393, 26 of 28 rows below 0, 0.071 on the authors' scale" in (
        overall.note
    )


def captured(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str, list[str]]]:
    """What each figure saved draws: its stem, its title and its legend's entries."""
    seen: list[tuple[str, str, list[str]]] = []
    save = figures.save

    def recording(figure: Any, folder: Path, stem: str) -> list[Path]:
        [axes, *_] = figure.axes
        legend = [text.get_text() for text in figure.legends[0].get_texts()]
        seen.append((stem, axes.get_title(), legend))
        return save(figure, folder, stem)

    monkeypatch.setattr(figures, "save", recording)
    return seen


def context(tmp_path: Path) -> ReportContext:
    return ReportContext(figures, tmp_path, tmp_path / "figures", "", {}, Inclusion(), [])


def test_the_types_are_drawn_per_family_every_run_in_each_figure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert figure_parts(RUNS, FAMILY, GROUPS) == [None]
    assert figure_parts(RUNS, TYPE, GROUPS) == [
        ("First", list(TYPES)[:8]),
        ("Second", list(TYPES)[8:14]),
    ]
    seen = captured(monkeypatch)
    report = context(tmp_path)
    colours: Mapping[str, Any] = figures.palette(RUNS)
    version: Any = SimpleNamespace(key="v3", groups=GROUPS)
    drawn = [
        f
        for group in GROUPS
        for f in report.group_figures(RUNS, group, version, colours, report.chance(RUNS))
    ]
    # the app context has no known values: no figure; the family one, the types two
    assert [f.files[0].name for f in drawn] == [
        "v3_family.png",
        "v3_type_1_first.png",
        "v3_type_2_second.png",
    ]
    assert all((tmp_path / f.files[0]).is_file() for f in drawn)
    labels = [s.label for s in RUNS]
    for stem, _, legend in seen:
        assert [entry for entry in legend if entry in labels] == labels, stem
    assert [title.splitlines()[0] for _, title, _ in seen] == [
        "Accuracy per task family (95% intervals)",
        "Accuracy per task type: First (95% intervals)",
        "Accuracy per task type: Second (95% intervals)",
    ]


def test_the_tool_use_figure_has_every_run_those_without_tools_marked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen = captured(monkeypatch)
    figures.tool_use_figure(RUNS, figures.palette(RUNS), tmp_path, "v3_tool_use", "")
    [(_, _, legend)] = seen
    assert legend == ["apps agent", "full history (no tools)", "no history (no tools)"]


def test_the_lifecycle_rows_are_reconciled_with_the_viewer_once() -> None:
    """A run whose 28 rows are 30 scored questions (two lifecycle pairs joined): the
    summary, where the count is shown first, says so with both numbers; the overall
    table does not say it again."""
    joined = summary("lifecycle", 0.5, questions_scored=30)
    note = summary_table([joined, RUNS[1]]).note
    assert note.startswith("`questions scored` counts rows")
    assert "30 questions scored, as Inspect's viewer counts them, make 28 rows (1 run)" in note
    assert "viewer" not in overall_table([joined], joined.run.entry, "overall").note
    assert "viewer" not in summary_table(RUNS).note


def test_a_run_whose_rows_score_below_zero_is_said_so_in_the_summary() -> None:
    note = summary_table([summary("old log", -0.5)]).note
    assert note.startswith("Some rows scored below 0")
    assert "old log: mean -0.393, 26 of 28 rows below 0, 0.071 on the authors' scale" in note
    assert not summary_table(RUNS).note.startswith("Some rows")
