"""A dataset version's part of the report, drawn from what it declares
(`DatasetVersion.reported`): the layout its part follows, and the numbers published about
it. The report names no version: a version's data choose the layout.

- no layout: the sections every version's runs get (`ReportContext.common`), and its
  runs beside its published numbers where it declares some (`published.py`);
- `PaperLayout` (PersonaMem's): the paper's figures and tables (`paper.py`);
- `BesideLayout` (PersonaMem-v2's): its runs beside its published numbers, a figure of
  them, its judged runs and its label groups (`beside.py`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from inspect_personamem.datasets.base import DatasetVersion
from inspect_personamem.datasets.declared import BesideLayout, PaperLayout
from inspect_personamem.report.accuracy import RunSummary
from inspect_personamem.report.beside import beside_sections
from inspect_personamem.report.paper import paper_sections
from inspect_personamem.report.published import published_table
from inspect_personamem.report.sections import ReportContext, Section, titled


def version_sections(
    version: DatasetVersion[Any], summaries: Sequence[RunSummary], report: ReportContext
) -> list[Section]:
    """The version's part of the page (its runs' `summaries`), in the page's order."""
    layout, published = version.reported.layout, version.reported.published
    if isinstance(layout, PaperLayout):
        return paper_sections(version, layout, summaries, report)
    if isinstance(layout, BesideLayout) and published is not None:  # `Reported` has both
        return beside_sections(version, layout, published, summaries, report)
    beside = [published_table(summaries, version, published)] if published else []
    return [*report.common(version, summaries), *(titled(t, version) for t in beside)]
