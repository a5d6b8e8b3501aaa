"""Runs paired with the runs they are measured against, and grouped for side by side
comparison: of several runs of one kind the one taken (`by_kind`), each run with its
no-history baseline (`gain_pairs`) and its model-free floor (`floor_pairs`), the
methods of one model and setting (`method_groups`), each over the questions both or
all of them scored. The analyses the tables and figures render.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from inspect_personamem.parameters import Settings
from inspect_personamem.report.accuracy import RunSummary, on_questions
from inspect_personamem.report.axes import axis_settings, no_history_settings
from inspect_personamem.report.differences import differences
from inspect_personamem.report.labels import method_labels, model_labels
from inspect_personamem.report.read.identity import ModelId


def _preferred(runs: Sequence[RunSummary]) -> RunSummary:
    """Of several runs of one kind, the latest complete one (else the latest)."""
    return max(runs, key=lambda s: (s.run.complete, s.run.created))


def by_kind(summaries: Sequence[RunSummary]) -> list[RunSummary]:
    """One run per model, split, setting and grader (`_preferred`), in the order first met.

    A run that scored no question (every sample errored, say) is left out: compared
    over the questions all runs scored, it would leave no question to compare.
    """
    kinds: dict[object, list[RunSummary]] = defaultdict(list)
    for s in summaries:
        if s.overall.n:
            kinds[s.run.key].append(s)
    return [_preferred(runs) for runs in kinds.values()]


def on_common_questions(summaries: Sequence[RunSummary]) -> list[RunSummary]:
    """Each run recomputed over the questions all of them scored (a `--limit`ed or
    interrupted run must not be compared on other questions)."""
    common = set.intersection(*({s.id for s in summary.run.samples} for summary in summaries))
    return [on_questions(summary, common) for summary in summaries]


def reference_pairs(
    summaries: Sequence[RunSummary], settings: Callable[[Settings], Mapping[str, Any]]
) -> list[tuple[RunSummary, RunSummary]]:
    """Every run paired with the run it is measured against: the one of the same model
    (name and arguments), split and grader with `settings` of its settings, each over
    the questions both scored; of several runs of one kind the latest complete one is
    taken (`by_kind`)."""
    kinds = by_kind(summaries)
    by_key = {s.run.key: s for s in kinds}
    pairs = []
    for s in kinds:
        other = by_key.get(s.run.key_with(settings(s.run.settings)))
        if other is not None and other is not s:
            run, reference = on_common_questions([s, other])
            pairs.append((run, reference))
    return pairs


@dataclass(frozen=True)
class GainPair:
    """A run and its no-history baseline (`axes.no_history_settings`), over the
    questions both scored."""

    run: RunSummary
    baseline: RunSummary


def gain_pairs(summaries: Sequence[RunSummary]) -> list[GainPair]:
    """Every run with a history, paired with the no-history run of the same model,
    split, other settings and grader (`reference_pairs`)."""
    return [GainPair(*pair) for pair in reference_pairs(summaries, no_history_settings)]


FLOOR_MODEL = "personamem/floor"
"""The model-free baselines (`offline/floor.py`): the floor under every score."""


@dataclass(frozen=True)
class FloorPair:
    """A run and the best model-free baseline of its split, over the questions both
    scored."""

    run: RunSummary
    floor: RunSummary


def floor_pairs(summaries: Sequence[RunSummary]) -> list[FloorPair]:
    """Every run that is not a floor, with the floor run (`personamem/floor`, any rule) of
    its split that shares the most scored questions with it, the most accurate over them
    of those (a floor over a few questions is no floor)."""
    kinds = by_kind(summaries)
    floors = [s for s in kinds if s.run.model == FLOOR_MODEL]
    pairs = []
    for s in kinds:
        if s.run.model == FLOOR_MODEL:
            continue
        candidates = [
            on_common_questions([s, floor]) for floor in floors if floor.run.split == s.run.split
        ]
        candidates = [c for c in candidates if c[0].overall.n]
        if candidates:
            run, floor = max(candidates, key=lambda c: (c[1].overall.n, c[1].overall.accuracy))
            pairs.append(FloorPair(run, floor))
    return pairs


def not_above_floor(pairs: Sequence[FloorPair]) -> list[str]:
    """A note for each run whose overall accuracy is not shown above its floor's: the
    difference's interval holds 0 or lies below it, or there is no interval (one shared
    history, or every question's difference the same), which shows nothing either way."""
    notes = []
    for p in pairs:
        measures = dict(differences(p.run, p.floor, {}))
        d = measures.get("overall")
        if d is None or d.low > 0:
            continue
        unknown = math.isnan(d.low)
        verdict = "not shown above" if unknown and d.difference > 0 else "NOT above"
        interval = (
            "no interval: one shared history, or every question's difference the same"
            if unknown
            else f"95% interval {d.low:+.3f} to {d.high:+.3f}"
        )
        notes.append(
            f"{p.run.label}: {verdict} the shortcut floor overall ({p.floor.label}: "
            f"{p.floor.overall.accuracy:.3f}; difference {d.difference:+.3f}, {interval})"
        )
    return notes


@dataclass(frozen=True)
class MethodGroup:
    """Runs of one model (name and arguments), split and setting that differ only in
    how they answered (`settings.axis_settings`), each over the questions all of them scored."""

    title: str
    runs: tuple[tuple[str, RunSummary], ...]
    """Method label -> run, no history and full history first."""


FIRST_METHODS = {"no history": 0, "full history": 1}
"""Methods shown first, in this order; the others follow by label."""


def method_groups(summaries: Sequence[RunSummary]) -> list[MethodGroup]:
    """The groups of two or more methods (the paper's Figure 5, per model)."""
    labels = model_labels([s.run for s in summaries])
    models = {s.run.model_id: label for s, label in zip(summaries, labels, strict=True)}
    groups: dict[tuple[ModelId, str, tuple[tuple[str, str], ...]], list[RunSummary]]
    groups = defaultdict(list)
    axes = frozenset[str]().union(*(axis_settings(s.run.entry) for s in summaries))
    for s in by_kind(summaries):
        rest = tuple((k, v) for k, v in s.run.settings.items() if k not in axes)
        groups[(s.run.model_id, s.run.split, rest)].append(s)
    result = []
    for (model, split, rest), members in groups.items():
        if len(members) < 2:
            continue
        methods = method_labels([s.run for s in members])
        labelled = sorted(
            zip(methods, members, strict=True),
            key=lambda item: (FIRST_METHODS.get(item[0], len(FIRST_METHODS)), item[0]),
        )
        runs = on_common_questions([s for _, s in labelled])
        defaults = members[0].run.defaults
        other = [f"{k}={v}" for k, v in rest if v != defaults[k]]
        result.append(
            MethodGroup(
                ", ".join([models[model], split, *other]),
                tuple(zip((label for label, _ in labelled), runs, strict=True)),
            )
        )
    return result
