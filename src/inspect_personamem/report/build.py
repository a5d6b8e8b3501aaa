"""One report from many logs: read, recompute, check, then write tables, figures, page.

Output folder layout::

    index.html               the page (figures embedded; links to the files below),
                             opening with `glance.py`'s summary
    tables/<name>.md, .csv   summary, then each dataset version's tables
    figures/<name>.png, .svg each dataset version's figures

Each dataset version with runs in the logs gives its part of the page, in the
registry's order, drawn from what it declares (`layouts.version_sections`): by default
the sections every version's runs get (`sections.ReportContext.common`: `<key>_overall`,
`<key>_graders`, `<key>_runs`, a table per group, `<key>_estimates`); a version that
declares a layout (the paper's figures, published numbers) gets the report's module for
it (`paper.py`, `beside.py`, which their docstrings lay out).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from inspect_personamem.datasets.registry import VERSIONS
from inspect_personamem.report.accuracy import RunSummary, summarise
from inspect_personamem.report.check import check
from inspect_personamem.report.errata import errata_notes
from inspect_personamem.report.errors import ReportError
from inspect_personamem.report.glance import caveat_lines, headline, summary_table
from inspect_personamem.report.graded import grader_notes
from inspect_personamem.report.html_page import FigureFile, write_page
from inspect_personamem.report.labels import run_labels
from inspect_personamem.report.layouts import version_sections
from inspect_personamem.report.read.logs import read_runs
from inspect_personamem.report.read.runs import Run
from inspect_personamem.report.retrieval import earlier_rule_notes, upper_bound_notes
from inspect_personamem.report.sections import Inclusion, ReportContext, Section
from inspect_personamem.report.tables import Table, group_table

TITLE = "PersonaMem report"
STATISTICS = (
    "How the uncertainty is shown: an accuracy's 95% interval is Wilson's score interval "
    "over the effective number of questions (questions over one shared history are "
    "correlated, so fewer count than were asked) with t(contexts − 1): inside [0, 1] and "
    "never a point at 0 or 1. A difference between two runs over the same questions "
    "(gain, methods against each other) is paired question by question, its standard "
    "error clustered by shared context, its interval ± t(contexts − 1) × that error; "
    "`distinguishable from 0` says whether the interval excludes 0."
)
"""The page's first note (the console's notes are about the runs)."""
STALE = (
    "published_*", "methods_*", "choice_open_*", "*evidence_*", *(f"{key}.*" for key in VERSIONS),
)  # fmt: skip
"""The figures of an earlier report that this one may not draw again: one per run or
model, or a version's own (`<key>.png`)."""


@dataclass(frozen=True)
class Report:
    index: Path
    headline: str
    """The first line of the page and of the command's output (`glance.headline`)."""
    caveats: list[str]
    """Why runs are not comparable with published numbers, once per reason
    (`glance.caveat_lines`)."""
    summaries: list[RunSummary]
    tables: list[Table]
    figures: list[FigureFile]
    notes: list[str]


def _figures_module() -> ModuleType:
    try:
        from inspect_personamem.report import figures
    except ModuleNotFoundError as error:
        raise ReportError(
            f"the report's figures need matplotlib ({error}); "
            "install it with: pip install 'inspect-personamem[report]'"
        ) from error
    return figures


def build_report(
    paths: Sequence[str | Path],
    out: Path,
    *,
    name_overrides: Mapping[str, str] | None = None,
    title: str = "",
    include_subsets: bool = False,
    include_unreleased: bool = False,
) -> Report:
    """Read the logs in `paths` and write the report into `out`.

    `name_overrides` maps Inspect model names to published names (a version's
    `published_names`);
    `title` is added to the page's and every figure's title (e.g. "mockllm run");
    `include_subsets` compares runs over part of a split with the published numbers,
    `include_unreleased` runs on another question file than the released one.
    """
    figures = _figures_module()
    read = read_runs(paths)
    if not read.runs:
        skipped = "".join(f"\n  {note}" for note in read.notes)
        raise ReportError(f"no PersonaMem runs in {', '.join(map(str, paths))}{skipped}")
    notes = list(read.notes)
    by_version = {
        key: _summaries([run for run in read.runs if run.benchmark == key]) for key in VERSIONS
    }
    summaries = [s for mine in by_version.values() for s in mine]
    notes.extend(f"{s.label}: {check(s).text}" for s in summaries)
    notes.extend(
        f"{s.label}: no question scored, so it is left out of every comparison of runs "
        "(methods side by side, gain over no history, published numbers)"
        for s in summaries
        if not s.overall.n
    )
    notes.extend(grader_notes(summaries))
    notes.extend(upper_bound_notes(summaries))
    notes.extend(earlier_rule_notes(summaries))
    notes.extend(errata_notes(summaries))
    notes.extend(license_notes(summaries))
    figure_dir = out / "figures"
    for pattern in STALE:  # of an earlier report
        for stale in figure_dir.glob(pattern):
            stale.unlink()
    context = ReportContext(
        figures, out, figure_dir, title, name_overrides or {},
        Inclusion(include_subsets, include_unreleased), notes,
    )  # fmt: skip
    sections: list[Section] = [
        section
        for key, mine in by_version.items()
        if mine
        for section in version_sections(VERSIONS[key], mine, context)
    ]
    notes = list(dict.fromkeys(notes))  # both published comparisons may say the same
    tables = [section for section in sections if isinstance(section, Table)]
    table_dir = out / "tables"
    table_dir.mkdir(parents=True, exist_ok=True)
    page_title = f"{TITLE}: {title}" if title else TITLE
    first_line, caveats = headline(summaries), caveat_lines(summaries)
    summary = summary_table(summaries)
    glance = [summary, *at_a_glance(by_version)]
    tables[:0] = glance
    for table in tables:
        (table_dir / f"{table.name}.md").write_text(table.markdown(), encoding="utf-8")
        (table_dir / f"{table.name}.csv").write_text(table.csv(), encoding="utf-8")
    index = write_page(
        out / "index.html", page_title, first_line, glance, caveats, [STATISTICS, *notes],
        sections,
    )  # fmt: skip
    return Report(
        index=index,
        headline=first_line,
        caveats=caveats,
        summaries=summaries,
        tables=tables,
        figures=[section for section in sections if isinstance(section, FigureFile)],
        notes=notes,
    )


def at_a_glance(by_version: Mapping[str, Sequence[RunSummary]]) -> list[Table]:
    """Under the summary, per version with runs that declares one (`Reported.at_a_glance`),
    its runs' accuracy per value of that group (`<key>_<metric>`, the table its part of
    the page then leaves out: `ReportContext.common`)."""
    tables = []
    for key, mine in by_version.items():
        version = VERSIONS[key]
        name = version.reported.at_a_glance
        if mine and name is not None:
            group = next(g for g in version.groups if g.key == name)
            title = f"{version.name}: accuracy per {group.title}"
            tables.append(group_table(mine, group, f"{key}_{group.metric}", title))
    return tables


def license_notes(summaries: Sequence[RunSummary]) -> list[str]:
    """The data licence of each dataset the runs used, as their logs recorded it (else
    the release's): one note each, in the registry's order."""
    terms = {f"{s.run.entry.name} data: {s.run.license_terms}": None for s in summaries}
    return list(terms)


def _summaries(runs: Sequence[Run]) -> list[RunSummary]:
    """The runs of one dataset version, summarised under labels that tell them apart."""
    return [summarise(run, label) for run, label in zip(runs, run_labels(runs), strict=True)]
