"""One report from many logs: read, recompute, check, then write tables, figures, page.

Output folder layout::

    index.html               the page (figures embedded; links to the files below),
                             opening with `glance.py`'s summary
    tables/<name>.md, .csv   summary, overall, graders, runs, categories, methods,
                             method_differences, gain, floor, choice_open, cost,
                             sessions, published, published_methods, topics, estimates
                             (graders, methods, method_differences, gain, floor,
                             choice_open and the published ones only when they apply);
                             PersonaMem-v2's apart (`v2.py`): v2_overall, v2_graders,
                             v2_judges, v2_runs, v2_published, v2_groups
    figures/<name>.png, .svg categories, cost, sessions, methods_<n>_<model>,
                             choice_open_<n>_<run>, published_<n>_<run>; v2

Each benchmark's part is there only when the logs hold runs of it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from inspect_personamem.cost.prices import load_prices
from inspect_personamem.datasets.v2.report import TITLE as V2_TITLE
from inspect_personamem.datasets.v2.report import v2_tables
from inspect_personamem.report.accuracy import RunSummary, summarise
from inspect_personamem.report.check import check
from inspect_personamem.report.costs import cost_table, run_costs
from inspect_personamem.report.glance import caveat_lines, headline, summary_table
from inspect_personamem.report.graded import (
    choice_open_pairs,
    choice_open_table,
    graded,
    grader_notes,
    grader_table,
)
from inspect_personamem.report.html_page import FigureFile, write_page
from inspect_personamem.report.labels import run_labels
from inspect_personamem.report.logs import ReportError, Run, read_runs
from inspect_personamem.report.published import (
    DEFAULT_NAMES,
    SPLIT,
    PublishedMethod,
    PublishedModel,
    published_method,
    published_methods,
    published_models,
    published_name,
)
from inspect_personamem.report.tables import (
    Table,
    category_table,
    estimates_table,
    floor_pairs,
    floor_table,
    gain_pairs,
    gain_table,
    method_differences_table,
    method_groups,
    methods_table,
    not_above_floor,
    overall_table,
    published_methods_table,
    published_table,
    runs_table,
    sessions_table,
    topic_table,
)

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


@dataclass(frozen=True)
class Inclusion:
    """Which runs over other questions than the published numbers' are compared with
    them all the same (runs on synthetic data never are)."""

    subsets: bool = False
    """Runs over part of their split (`--include-subsets`)."""
    unreleased: bool = False
    """Runs on another question file than the released one (`--include-unreleased-data`)."""


def _published_matches(
    summaries: Sequence[RunSummary],
    overrides: Mapping[str, str],
    notes: list[str],
    include: Inclusion,
) -> list[tuple[RunSummary, PublishedModel]]:
    """Runs compared with published numbers; notes say why the others are not (where
    the summary does not: `_left_out`).

    The published numbers are full-history runs of the official prompt over the whole
    released split, so only runs with `history=full` and `answer=choice` are compared,
    and runs over a subset of the split or on other data only as `include` says.
    """
    models = published_models()
    matches = []
    unmapped: set[str] = set()
    for s in summaries:
        name = published_name(s.run.model, overrides)
        if name is None:
            unmapped.add(s.run.model)
        elif s.run.split != SPLIT:
            notes.append(
                f"{s.label}: ran on the {s.run.split} split; the published numbers are "
                f"for {SPLIT}, so it is not compared with {name}"
            )
        elif (s.run.settings["history"], s.run.settings["answer"]) != ("full", "choice"):
            notes.append(
                f"{s.label}: history={s.run.settings['history']}, "
                f"answer={s.run.settings['answer']}; the published numbers are full-history "
                f"runs of the official prompt, so it is not compared with {name}"
            )
        elif _left_out(s, include):
            pass
        else:
            matches.append((s, models[name]))
            if s.overall.n < s.run.planned:
                notes.append(
                    f"{s.label}: compared with {name} on the {s.overall.n} of "
                    f"{s.run.planned} questions it scored (a partial run)"
                )
    if unmapped:
        notes.append(
            f"no published name for {', '.join(sorted(unmapped))}: add "
            "--published-name MODEL=NAME to compare (published names: "
            f"{', '.join(models)}; {len(DEFAULT_NAMES)} Inspect names are mapped by default)"
        )
    return matches


def _left_out(s: RunSummary, include: Inclusion) -> bool:
    """Whether a run on synthetic data, or (unless `include` says) over part of its
    split or on other data than the released file, is left out of the comparison with
    published numbers; the summary says why, once for all such runs
    (`glance.caveat_lines`)."""
    run = s.run
    return bool(
        run.synthetic
        or (run.subset and not include.subsets)
        or (run.unreleased and not include.unreleased)
    )


def _published_method_matches(
    summaries: Sequence[RunSummary],
    overrides: Mapping[str, str],
    include: Inclusion,
) -> list[tuple[RunSummary, PublishedMethod]]:
    """Runs next to the published number of their model, split and method, if any."""
    matches: list[tuple[RunSummary, PublishedMethod]] = []
    for s in summaries:
        name = published_name(s.run.model, overrides)
        method = published_method(s.run.settings)
        published = [
            p
            for p in published_methods()
            if (p.model, p.split, p.method) == (name, s.run.split, method)
        ]
        if published and name and not _left_out(s, include):
            matches.extend((s, p) for p in published)
    return matches


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

    `name_overrides` maps Inspect model names to published names (see `published.py`);
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
    v1, v2 = (_summaries([run for run in read.runs if run.benchmark == b]) for b in ("v1", "v2"))
    summaries = v1 + v2
    notes.extend(f"{s.label}: {check(s).text}" for s in summaries)
    notes.extend(
        f"{s.label}: no question scored, so it is left out of every comparison of runs "
        "(methods side by side, gain over no history, published numbers)"
        for s in summaries
        if not s.overall.n
    )
    notes.extend(grader_notes(summaries))
    figure_dir = out / "figures"
    for pattern in ("published_*", "methods_*", "choice_open_*", "v2.*"):  # of an earlier report
        for stale in figure_dir.glob(pattern):
            stale.unlink()
    context = _Context(figures, out, figure_dir, title)
    include = Inclusion(include_subsets, include_unreleased)
    sections = _v1_sections(v1, context, name_overrides or {}, include, notes) if v1 else []
    if v2:
        sections += _v2_sections(v2, context)
    notes = list(dict.fromkeys(notes))  # both published comparisons may say the same
    tables = [section for section in sections if isinstance(section, Table)]
    table_dir = out / "tables"
    table_dir.mkdir(parents=True, exist_ok=True)
    page_title = f"{TITLE}: {title}" if title else TITLE
    first_line, caveats = headline(summaries), caveat_lines(summaries)
    summary = summary_table(summaries)
    tables.insert(0, summary)
    for table in tables:
        (table_dir / f"{table.name}.md").write_text(table.markdown(), encoding="utf-8")
        (table_dir / f"{table.name}.csv").write_text(table.csv(), encoding="utf-8")
    index = write_page(
        out / "index.html", page_title, first_line, summary, caveats, [STATISTICS, *notes],
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


def _summaries(runs: Sequence[Run]) -> list[RunSummary]:
    """The runs of one benchmark, summarised under labels that tell them apart."""
    return [summarise(run, label) for run, label in zip(runs, run_labels(runs), strict=True)]


@dataclass(frozen=True)
class _Context:
    """Where and how a report's figures are drawn."""

    figures: ModuleType
    out: Path
    folder: Path
    title: str

    def figure(self, caption: str, paths: Sequence[Path]) -> FigureFile:
        """A drawn figure, its files relative to the report's folder."""
        return FigureFile(caption, _relative(paths, self.out))


def _v2_sections(summaries: Sequence[RunSummary], context: _Context) -> list[Table | FigureFile]:
    """PersonaMem-v2's figure and tables (`v2.py`), after v1's."""
    colours = context.figures.palette(summaries)
    figure = context.figure(
        f"{V2_TITLE}: runs beside the published numbers, and accuracy per preference type",
        context.figures.v2_figure(summaries, colours, context.folder, context.title),
    )
    return [figure, *v2_tables(summaries)]


def _v1_sections(
    summaries: Sequence[RunSummary],
    context: _Context,
    name_overrides: Mapping[str, str],
    include: Inclusion,
    notes: list[str],
) -> list[Table | FigureFile]:
    """PersonaMem's (v1) figures and tables; `notes` gets what the comparisons say."""
    figures, figure_dir, title = context.figures, context.folder, context.title
    pairs = gain_pairs(summaries)
    floors = floor_pairs(summaries)
    notes.extend(not_above_floor(floors))
    choice_open = choice_open_pairs(summaries)
    groups = method_groups(summaries)
    compared = [s for s in summaries if s.overall.n]
    matches = _published_matches(compared, name_overrides, notes, include)
    method_matches = _published_method_matches(compared, name_overrides, include)
    colours = figures.palette(summaries)
    category_figure = context.figure(
        "Accuracy per question type (the paper's Figure 3)",
        figures.category_figure(summaries, colours, figure_dir, title),
    )
    prices = load_prices()
    costs = run_costs(compared, prices)
    cost_figure = context.figure(
        "Accuracy against input tokens per question, no-history runs as reference lines",
        figures.cost_figure(costs, colours, figure_dir, title),
    )
    sessions_figure = context.figure(
        "Accuracy by sessions elapsed (the paper's Figure 4)",
        figures.sessions_figure(summaries, colours, figure_dir, title),
    )
    method_figures = [
        context.figure(
            f"Methods per question type: {group.title} (the paper's Figure 5)",
            figures.methods_figure(
                group, colours, figure_dir, f"methods_{i}_{figures.slug(group.title)}", title
            ),
        )
        for i, group in enumerate(groups, start=1)
    ]
    choice_open_figures = [
        context.figure(
            f"Chosen against open answers: {pair.open.label} (the paper's Figure 6)",
            figures.choice_open_figure(
                pair,
                colours,
                figure_dir,
                f"choice_open_{i}_{figures.slug(pair.open.label)}",
                title,
            ),
        )  # fmt: skip
        for i, pair in enumerate(choice_open, start=1)
    ]
    published_figures = [
        context.figure(
            f"{s.label} next to the published {SPLIT} numbers of {published.name}",
            figures.published_figure(
                s,
                published,
                colours,
                figure_dir,
                f"published_{i}_{figures.slug(s.label)}",
                title,
            ),
        )  # fmt: skip
        for i, (s, published) in enumerate(matches, start=1)
    ]
    graders = [grader_table(summaries)] if graded(summaries) else []
    gain = [gain_table(pairs)] if pairs else []
    floor = [floor_table(floors)] if floors else []
    methods = [methods_table(groups), method_differences_table(groups)] if groups else []
    choice_open_tables = [choice_open_table(choice_open)] if choice_open else []
    published_by_method = [published_methods_table(method_matches)] if method_matches else []
    published = [published_table(matches)] if matches else []
    return [
        overall_table(summaries), *graders, runs_table(summaries), category_figure,
        category_table(summaries), *method_figures, *methods, *gain, *floor,
        *choice_open_figures, *choice_open_tables, cost_figure,
        cost_table(costs, pairs, prices), sessions_figure, sessions_table(summaries),
        *published_figures, *published, *published_by_method, topic_table(summaries),
        estimates_table(summaries),
    ]  # fmt: skip


def _relative(paths: Sequence[Path], folder: Path) -> tuple[Path, ...]:
    return tuple(path.relative_to(folder) for path in paths)
