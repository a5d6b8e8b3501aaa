"""The known defects of a run's data that touch it (`Release.errata`: its split, and its
settings where a defect lies in what some runs never read), for a run on the released
files alone: the report notes each once, naming its runs, and a results card lists a
run's."""

from __future__ import annotations

from collections.abc import Sequence

from inspect_personamem.data.release import RELEASED, Erratum
from inspect_personamem.report.accuracy import RunSummary
from inspect_personamem.report.labels import which_runs
from inspect_personamem.report.read.runs import Run


def errata_of(run: Run) -> list[Erratum]:
    """The known defects of `run`'s release that touch its split and settings; none
    unless its log records that it read the released files (`data_release`): the
    defects were found in those, and generated data, another file or a file the log
    does not name need not have them."""
    if run.data_release != RELEASED:
        return []
    return [e for e in run.entry.release.errata if e.applies(run.split, run.settings)]


def errata_notes(summaries: Sequence[RunSummary]) -> list[str]:
    """One note per known defect that touches any of the runs: where it was reported,
    its runs (counted where all, else named), and what it is."""
    touched: dict[Erratum, list[RunSummary]] = {}
    for s in summaries:
        for erratum in errata_of(s.run):
            touched.setdefault(erratum, []).append(s)
    return [
        f"known defect of the data ({erratum.reported}), "
        f"{which_runs(runs, len(summaries))}: {erratum.defect}"
        for erratum, runs in touched.items()
    ]
