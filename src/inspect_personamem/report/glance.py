"""What the report opens with: a headline, one summary table, and, once, why runs are
not comparable with published numbers.

A reader glances at the first screen and quotes it, so it says the result and its
limits in few words: complete or not (a run is incomplete only where its status is not
success, or questions went unscored, errored or were stopped by a limit), each run's
accuracy beside its model's no-history run and the best model-free floor, and what
keeps runs from being compared with published numbers, each reason said once for all
the runs it concerns (the notes below go into details).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from inspect_personamem.report.accuracy import RunSummary
from inspect_personamem.report.labels import which_runs
from inspect_personamem.report.pairs import FLOOR_MODEL
from inspect_personamem.report.read.runs import Run
from inspect_personamem.report.tables import Cell, Table, below_zero, joined_note

CAVEATS: dict[str, str] = {
    "subset": "run over part of the split (`--limit`, `--sample-id`); the published numbers "
    "are over the whole split, so these are compared with them only with `--include-subsets`",
    "not the released file": "the question file is not the released one, as the task "
    "recorded it; compared with published numbers only with `--include-unreleased-data`",
    "synthetic data": "files the package generated (questions or histories), not "
    "PersonaMem's: their scores say nothing of any model on PersonaMem, and they are never "
    "compared with published numbers (`--include-unreleased-data` notwithstanding)",
    "self-graded": "the model under test graded its own open answers: no independent "
    "grader judged them",
    "upper bound": "shown only each question's evidence (`history=evidence`), located by "
    "its label: what a perfect retriever would hand over, a ceiling for retrieval and "
    "memory runs, not a method's result; never compared with published numbers",
}
"""Why a complete run is not comparable with published numbers, kind -> plain words."""


def caveats(run: Run) -> dict[str, str]:
    """The kinds of `CAVEATS` that apply to `run` -> its details (empty where the kind
    says all)."""
    found = {
        "subset": run.subset,
        "not the released file": run.unreleased,
        "synthetic data": run.synthetic,
    }
    kinds = {kind: detail for kind, detail in found.items() if detail}
    if run.self_graded:
        kinds["self-graded"] = (
            "`-T grader=self`"
            if run.settings["grader"] == "self"
            else "the same model bound to the grader role"
        )
    if run.upper_bound:
        kinds["upper bound"] = ""
    return kinds


def headline(summaries: Sequence[RunSummary]) -> str:
    """The report's first line: whether every run is complete, else, in one clause per
    way runs are short, which runs (`All 6 runs`, `2 of 6 runs (A · B)`, or the one run's
    label; ` · ` apart, since a label holds commas) and what is short and why
    (`shortfall`), `in each` where several share it; then in which ways runs are not
    comparable with published numbers, where any is (with how many runs, where not
    all)."""
    incomplete = [s for s in summaries if not s.run.complete]
    n = len(summaries)
    if incomplete:
        alike: dict[str, list[str]] = defaultdict(list)
        for s in incomplete:  # runs short in the same way are named once, together
            alike[shortfall(s.run)].append(s.label)
        every = [s.label for s in summaries]
        line = "; ".join(
            f"{_which(labels, every)}: {why}{' in each' if len(labels) > 1 else ''}"
            for why, labels in alike.items()
        )
    else:
        line = f"All {n} run{'s' if n != 1 else ''} complete"
    kinds = _by_kind(summaries)
    if not kinds:
        return line if incomplete else f"{line}."
    words = [
        kind if len(runs) == n else f"{kind} ({len(runs)} of {n})" for kind, runs in kinds.items()
    ]
    return f"{line}; not comparable with published numbers: {', '.join(words)}"


def _which(labels: Sequence[str], every: Sequence[str]) -> str:
    """The runs of a clause of the first line (of `every` run's label): all of them
    counted, one by its label, some counted and named (the others named instead where
    they are fewer)."""
    n = len(every)
    if len(labels) == n:
        return f"All {n} runs" if n > 1 else labels[0]
    if len(labels) == 1:
        return labels[0]
    if len(labels) > n - len(labels):
        others = [label for label in every if label not in labels]
        return f"{len(labels)} of {n} runs (all but {' · '.join(others)})"
    return f"{len(labels)} of {n} runs ({' · '.join(labels)})"


def shortfall(run: Run) -> str:
    """What a run lacks, in one clause: its status where not success, then how many of
    its planned questions went unscored and why (errored, each reason its scorer gave,
    stopped by an Inspect limit, never run: an interrupted run), `12 of 186 questions
    unscored (judge not built)`. Counts are of questions as the viewer counts them
    (before a version joins some into rows)."""
    parts = [f"status {run.status}"] if run.status != "success" else []
    why = [
        *([f"{run.errors} errored"] if run.errors else []),
        *(f"{count} {reason.replace('_', ' ')}" for reason, count in sorted(run.unscored.items())),
        *([f"{run.unanswered} stopped by an Inspect limit"] if run.unanswered else []),
    ]
    missing = run.planned - run.scored_questions
    counted = run.errors + run.unscored_total + run.unanswered
    if missing > counted:
        why.append(f"{missing - counted} never run")
    if missing > 0:
        alone = len(why) == 1 and why[0].split(" ", 1)[0] == str(missing)
        causes = why[0].split(" ", 1)[1] if alone else ", ".join(why)
        parts.append(f"{missing} of {run.planned} questions unscored ({causes})")
    elif why:  # every question scored in some epoch, some epochs not
        parts.append(f"sample epochs unscored ({', '.join(why)})")
    return ", ".join(parts) or ", ".join(run.shortfalls)


def _by_kind(summaries: Sequence[RunSummary]) -> dict[str, list[RunSummary]]:
    """Each kind of `CAVEATS` that applies to any run -> those runs, in `CAVEATS` order."""
    kinds: dict[str, list[RunSummary]] = defaultdict(list)
    for s in summaries:
        for kind in caveats(s.run):
            kinds[kind].append(s)
    return {kind: kinds[kind] for kind in CAVEATS if kind in kinds}


def caveat_lines(summaries: Sequence[RunSummary]) -> list[str]:
    """One line per kind of `CAVEATS` that applies: its runs (counted where all, else
    named), what it means, and the runs' details once each."""
    lines = []
    for kind, runs in _by_kind(summaries).items():
        details = list(dict.fromkeys(d for s in runs if (d := caveats(s.run)[kind])))
        said = f" ({'; '.join(details)})" if details else ""
        lines.append(f"{kind}, {which_runs(runs, len(summaries))}{said}: {CAVEATS[kind]}")
    return lines


def _data(run: Run) -> str:
    """The dataset a run asked, as the summary names it: its version's name and which
    questions (`PersonaMem 128k`)."""
    return f"{run.entry.name} {run.split}"


def summary_rows(summaries: Sequence[RunSummary]) -> list[RunSummary]:
    """The summary's runs in its order: per dataset (in the order first met), each
    model's runs with its no-history runs first and its upper bounds last (a ceiling,
    not a method: `Run.upper_bound`), then the model-free floor
    (`personamem/floor`) of that dataset that scored the most questions, the most
    accurate of those: a floor cut short, or asked a few questions, is no floor."""
    datasets: dict[str, list[RunSummary]] = defaultdict(list)
    for s in summaries:
        datasets[_data(s.run)].append(s)
    rows: list[RunSummary] = []
    for runs in datasets.values():
        models: dict[object, list[RunSummary]] = defaultdict(list)
        for s in runs:
            if s.run.model != FLOOR_MODEL:
                models[s.run.model_id].append(s)
        for model in models.values():
            rows.extend(
                sorted(
                    model, key=lambda s: (s.run.settings["history"] != "none", s.run.upper_bound)
                )
            )
        floors = [s for s in runs if s.run.model == FLOOR_MODEL and s.overall.n]
        if floors:
            rows.append(max(floors, key=lambda s: (s.overall.n, s.overall.accuracy)))
    return rows


def summary_table(summaries: Sequence[RunSummary]) -> Table:
    """The result at a glance: each run's accuracy and 95% interval (`summary_rows`)."""
    rows: tuple[tuple[Cell, ...], ...] = tuple(
        (
            _data(s.run),
            s.label,
            s.overall.accuracy,
            s.overall.low,
            s.overall.high,
            s.overall.n,
            s.run.planned,
        )  # fmt: skip
        for s in summary_rows(summaries)
    )
    said_once = (below_zero(summaries), joined_note(summaries))  # where the counts are shown
    lead = "".join(f"{text.strip()} " for text in said_once if text)
    return Table(
        "summary",
        "Summary",
        f"{lead}Each run's accuracy (of a run judged against the "
        "preference label: its mean score) with its 95% interval, as in `overall`, per "
        "dataset and model: a model's "
        "no-history runs (`history=none`) first, its upper bounds (`evidence only (upper "
        "bound)`: shown only each question's evidence, a ceiling, not a method) after its "
        "methods, and last the model-free floor "
        "(`personamem/floor`) of the dataset over the most questions (the most accurate "
        "of those). Side by side, not paired: the paired "
        "differences, over the questions both runs scored, are in `gain` and `floor`.",
        ("data", "run", "accuracy", "ci95 low", "ci95 high", "questions scored", "planned"),
        rows,
    )
