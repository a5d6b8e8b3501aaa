"""A dataset version's part of the report (`report/sections.py`): what every version's
runs get where the version adds no sections of its own."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.reports import Logs

from inspect_personamem.datasets.registry import VERSIONS
from inspect_personamem.report.accuracy import summarise
from inspect_personamem.report.labels import run_labels
from inspect_personamem.report.read.logs import read_runs
from inspect_personamem.report.sections import Inclusion, ReportContext
from inspect_personamem.report.tables import Table

pytest.importorskip("matplotlib", reason="needs the report extra: pip install -e '.[report]'")

from inspect_personamem.report import figures  # noqa: E402
from inspect_personamem.report.html_page import FigureFile  # noqa: E402


def test_a_version_without_sections_of_its_own_gets_the_common_ones(
    logs: Logs, tmp_path: Path
) -> None:
    """The common sections (`ReportContext.common`): overall, runs, a table per group
    with its title and every value's column (known ones by title), the figure of a group
    with known values before its table, the cost beside accuracy with its dollars per
    point gained (and its figure), and every estimate, each named after the version's
    key and titled after its name."""
    version = VERSIONS["v1"]
    runs = [run for run in read_runs([logs.folder]).runs if run.entry is version]
    summaries = [summarise(run, label) for run, label in zip(runs, run_labels(runs), strict=True)]
    context = ReportContext(figures, tmp_path, tmp_path / "figures", "", {}, Inclusion(), [])
    sections = context.common(version, summaries)
    tables = {section.name: section for section in sections if isinstance(section, Table)}
    drawn = [section.files[0].name for section in sections if isinstance(section, FigureFile)]
    known = [f"v1_{group.metric}.png" for group in version.groups if group.values]
    assert drawn == [*known, "v1_cost.png"]  # v1 declares no at-a-glance group
    assert all((tmp_path / "figures" / name).is_file() for name in drawn)
    by_group = [f"v1_{group.metric}" for group in version.groups]
    assert list(tables) == ["v1_overall", "v1_runs", *by_group, "v1_cost", "v1_estimates"]
    assert tables["v1_cost"].columns[-3:] == ("accuracy", "gain", "USD per point")
    assert len(tables["v1_cost"].rows) == len([s for s in summaries if s.overall.n])
    assert all(table.title.startswith(f"{version.name}: ") for table in tables.values())
    category = version.groups[0]
    columns = tables[f"v1_{category.metric}"].columns
    assert columns == ("run", *category.values.values(), "macro average", "questions")
    assert tables["v1_overall"].note.count(version.reported.cluster_words) == 1
    families = {row[1] for row in tables["v1_estimates"].rows}
    assert families == {"overall", *(group.metric for group in version.groups)}
