"""What a results card holds (`inspect-personamem card LOG... --out DIR`: one per model
and setting), made from the report's reading of the logs and its analyses; its JSON
file and Markdown table are written by `report/card_writer.py`.

A card says what was run, on what, and what it scored: the dataset's repository and
revision, where the files came from, whether they were the released ones and what is
known of each released file (rows, bytes, sha256), the known defects of the data that
touch the run; the task version and the sha256 of every fixed text it sent a model, as
the task wrote them into the log (`run/facts.py`; the installed package's for an older
log, and the card says so: `facts_from`); the model with the arguments and generation
settings that change it; the grader of open answers with its trials; the questions in the split,
planned and scored, and the rows the accuracy is over (fewer where PersonaMem-v3 joins a
lifecycle pair's two probes into one); accuracy with its 95% interval (the log's
`ci_low`, `ci_high`), overall and per value of each of its version's groups, beside
the same model's no-history run and the model-free floor (paired over the questions
both scored; `THIS_RUN` where the run is one of those itself); and the cost.

Every number is the report's (`RunSummary`, `gain_pairs`, `floor_pairs`, `run_costs`).
Only a complete run on the released data gets a card: a log that is not (interrupted,
questions unscored, errored or stopped by a limit, a subset; other or generated data,
or a log that does not record its data) is refused in one line, unless the command is
asked to make its card anyway (`--allow-incomplete`, `--allow-unreleased`), and then
its card says so (`exceptions`). `card.schema.json`, beside this module, holds the
JSON's keys; `SCHEMA` names its version.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from inspect_personamem.cost.prices import PriceTable
from inspect_personamem.data.release import RELEASED
from inspect_personamem.report.accuracy import Accuracy, RunSummary
from inspect_personamem.report.axes import no_history_settings
from inspect_personamem.report.costs import RunCost
from inspect_personamem.report.differences import Difference, differences
from inspect_personamem.report.errata import errata_of
from inspect_personamem.report.errors import ReportError
from inspect_personamem.report.graded import kind_results, trust
from inspect_personamem.report.pairs import FLOOR_MODEL, FloorPair, GainPair
from inspect_personamem.report.read.runs import Run

SCHEMA = "inspect-personamem-card/3"
"""The card's format and its version: bumped with `card.schema.json` when a key changes."""
SCHEMA_FILE = Path(__file__).with_name("card.schema.json")
GRADER_METRICS = ("grader_", "judge_", "accuracy_corrected")
"""The stored metrics that are a grader's or judge's figures (its trials, the accuracy
corrected for its errors), as Inspect computed them."""


def _shortfalls(run: Run) -> list[str]:
    """Why `run` is not complete for a card: the report's reasons (`Run.shortfalls`),
    and a run over part of its split (`Run.subset`)."""
    return [*run.shortfalls, *([run.subset] if run.subset else [])]


def _unreleased(run: Run) -> str:
    """Why `run` is not known to be on the released data (empty where it is)."""
    if run.data_release is None:
        return "the log does not record whether its data were the released files"
    return "" if run.data_release == RELEASED else run.data_release


def check_allowed(runs: Sequence[Run], allow_incomplete: bool, allow_unreleased: bool) -> None:
    """Refuse, in one line, the logs that are not complete or not on the released data,
    unless allowed, naming each log, why, and the option that would allow it."""
    refused, options = [], []
    for run in runs:
        why = []
        if _shortfalls(run) and not allow_incomplete:
            why.append(f"not complete: {', '.join(_shortfalls(run))}")
            options.append("--allow-incomplete")
        if _unreleased(run) and not allow_unreleased:
            why.append(f"not on the released data: {_unreleased(run)}")
            options.append("--allow-unreleased")
        if why:
            refused.append(f"{run.location} ({'; '.join(why)})")
    if refused:
        raise ReportError(
            f"no card for {'; '.join(refused)}. Pass {' and '.join(dict.fromkeys(options))} "
            "to make its card anyway (the card says so)"
        )


FROM_THE_LOG = "the log"
"""A card's `facts_from` where the log holds what the task wrote of how it ran
(`Run.facts`); else the installed package's description, and why (`Run.described_by`)."""
THIS_RUN = "this run"
"""A card's `no_history` or `floor` where the run is that reference itself."""


def _reference_of(
    is_it: bool, pair: tuple[RunSummary, RunSummary] | None
) -> dict[str, Any] | str | None:
    """The reference a card sets a run beside: `THIS_RUN` where the run is it (`is_it`),
    else the other run of its `pair` (`_reference`), else None (the logs hold none)."""
    if is_it:
        return THIS_RUN
    return None if pair is None else _reference(*pair)


def _number(value: float) -> float | None:
    """A number as JSON holds it: NaN (no estimate) as null."""
    return None if math.isnan(value) else value


def _estimate(e: Accuracy) -> dict[str, Any]:
    """An accuracy with its 95% interval and clustered standard error."""
    return {
        "accuracy": _number(e.accuracy),
        "ci95_low": _number(e.low),
        "ci95_high": _number(e.high),
        "stderr": _number(e.shown_stderr),
        "questions": e.n,
        "contexts": e.contexts,
    }


def _difference(d: Difference) -> dict[str, Any]:
    """A paired difference with its 95% interval (`differences.Difference`)."""
    return {
        "difference": _number(d.difference),
        "ci95_low": _number(d.low),
        "ci95_high": _number(d.high),
        "stderr": _number(d.stderr),
        "questions": d.n,
        "contexts": d.contexts,
        "distinguishable": d.distinguishable,
    }


def _reference(run: RunSummary, other: RunSummary) -> dict[str, Any]:
    """`other` beside `run` (each recomputed over the questions both scored): its label,
    log and accuracy, and `run`'s overall difference from it."""
    none = Difference(0, 0, math.nan, math.nan, math.nan, math.nan)  # no question in common
    overall = dict(differences(run, other, {})).get("overall", none)
    return {
        "label": other.label,
        "log": other.run.location,
        "accuracy": _estimate(other.overall),
        "difference": _difference(overall),
    }


def _grader(summary: RunSummary) -> dict[str, Any] | None:
    """The model that graded the run's open answers, how it generated, and its trials:
    each kind's share of right verdicts with its interval and finding, and whether it
    can be trusted (`report/graded.py`), recomputed; its figures as Inspect stored them."""
    run = summary.run
    if run.grader is None:
        return None
    name, args = run.grader.model
    c = summary.calibration
    return {
        "model": name,
        "args": dict(args),
        "generate_config": dict(run.grader.settings),
        "self_graded": run.self_graded,
        "judged": run.judged,
        "calibration": {
            "questions": c.questions,
            "position_bias": _number(c.position_bias),
            "separation": _number(c.separation),
            "trials": {
                k.kind: {
                    "trials": k.trials,
                    "right": k.right,
                    "share": _number(k.share.value),
                    "ci95": [_number(k.share.low), _number(k.share.high)],
                    "finding": k.finding,
                }
                for k in kind_results(summary)
            },
            "trustworthy": trust(summary),
        },
        "stored_metrics": {
            k: _number(v)
            for k, v in sorted((run.stored_metrics or {}).items())
            if k.startswith(GRADER_METRICS)
        },
    }


def _cost(cost: RunCost | None, prices: PriceTable) -> dict[str, Any]:
    """Tokens a question as the log counted them, and dollars as Inspect logged them or
    at the price table's prices (`report/costs.py`), with where they come from (null
    where neither)."""
    if cost is None:  # no question scored
        return {"tokens_per_question": None, "usd_per_question": None, "usd": None, "prices": None}
    per_question = _number(cost.dollars)
    n = cost.summary.overall.n
    return {
        "tokens_per_question": asdict(cost.tokens),
        "usd_per_question": per_question,
        "usd": None if per_question is None else per_question * n,
        "prices": None
        if cost.source == "none"
        else f"{cost.says} ({prices.note(cost.summary.run.model)})",
    }


def _released_files(run: Run) -> dict[str, dict[str, Any]]:
    """What is known of each released file the run's selection names; none where the
    log does not record every selector."""
    if any(p.name not in run.selected for p in run.entry.selectors):
        return {}
    return {
        name: {
            "rows": known.rows,
            "unit": known.unit,
            "bytes": known.size,
            "sha256": known.sha256,
            "of_pinned_revision": known.of_pinned_revision,
        }
        for name, known in run.entry.released_files(run.selected).items()
    }


def card(
    summary: RunSummary,
    gain: GainPair | None,
    floor: FloorPair | None,
    cost: RunCost | None,
    prices: PriceTable,
) -> dict[str, Any]:
    """One run's card (`SCHEMA`): `gain` and `floor` are the pairs the report makes of
    it with its no-history run and the model-free floor (`gain_pairs`, `floor_pairs`),
    where it has them."""
    run = summary.run
    entry = run.entry
    return {
        "schema": SCHEMA,
        "label": summary.label,
        "log": run.location,
        "started": run.created.isoformat(),
        "status": run.status,
        "task": {"name": run.task, "version": run.version},
        "dataset": {
            "name": entry.name,
            "selection": run.split,
            "selected": run.selected,
            "license": entry.release.license,
            "license_terms": run.license_terms,
            "repository": run.settings.get("repo_id"),
            "revision": run.settings.get("revision"),
            "source": run.data_source,
            "release": run.data_release,
            "checked": run.data_checked,
            "released_files": _released_files(run),
            "errata": [{"reported": e.reported, "defect": e.defect} for e in errata_of(run)],
        },
        "prompts": run.prompts,
        "facts_from": run.described_by or FROM_THE_LOG,
        "model": {
            "name": run.model,
            "args": run.model_args,
            "base_url": run.base_url,
            "generate_config": run.generate_config,
        },
        "settings": run.settings,
        "changed_settings": run.changed_settings,
        "grader": _grader(summary),
        "questions": {
            "in_split": run.dataset_size,
            "planned": run.planned,
            "scored": run.scored_questions,
            "rows": summary.overall.n,
            "errored": run.errors,
            "unanswered": run.unanswered,
            "epochs": run.epochs,
        },
        "unparsed": _number(summary.unparsed),
        "overall": _estimate(summary.overall),
        "macro": _number(summary.macro),
        "groups": {
            group.key: {
                "title": group.title,
                "values": {v: _estimate(e) for v, e in summary.groups.get(group.key, {}).items()},
            }
            for group in entry.groups
        },
        "no_history": _reference_of(
            run.key == run.key_with(no_history_settings(run.settings)),
            None if gain is None else (gain.run, gain.baseline),
        ),
        "floor": _reference_of(
            run.model == FLOOR_MODEL, None if floor is None else (floor.run, floor.floor)
        ),
        "cost": _cost(cost, prices),
        "exceptions": {"incomplete": _shortfalls(run), "unreleased": _unreleased(run)},
    }
