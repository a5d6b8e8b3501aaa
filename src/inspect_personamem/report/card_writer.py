"""Cards written (`inspect-personamem card LOG... --out DIR`): each card's JSON file
and its Markdown table, rendered from the card's content (`report/card.py`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from inspect_personamem.cost.prices import PriceTable, load_prices
from inspect_personamem.datasets.base import DatasetVersion, Group
from inspect_personamem.datasets.registry import VERSIONS
from inspect_personamem.report.accuracy import summarise, title_of
from inspect_personamem.report.card import FROM_THE_LOG, THIS_RUN, card, check_allowed
from inspect_personamem.report.costs import run_costs
from inspect_personamem.report.errors import ReportError
from inspect_personamem.report.labels import run_labels
from inspect_personamem.report.pairs import by_kind, floor_pairs, gain_pairs
from inspect_personamem.report.read.logs import read_runs
from inspect_personamem.report.tables import Table


@dataclass(frozen=True)
class Cards:
    """The cards written, and what is worth knowing about the logs read."""

    written: list[Path]
    """Each card's JSON file (its Markdown table beside it)."""
    notes: list[str]


def _interval(e: Mapping[str, Any]) -> str:
    """`0.589 [0.541, 0.636], 589 questions`; a dash where there is no estimate."""
    if e["accuracy"] is None:
        return "–"
    low, high = e["ci95_low"], e["ci95_high"]
    interval = f" [{low:.3f}, {high:.3f}]" if low is not None and high is not None else ""
    return f"{e['accuracy']:.3f}{interval}, {e['questions']} questions"


def _beside(ref: Mapping[str, Any] | str | None, itself: str) -> str:
    """A reference run in a few words: its label and accuracy, and the difference; the
    run's own words (`itself`) where it is the reference."""
    if ref == THIS_RUN:
        return f"{THIS_RUN}: {itself}"
    if not isinstance(ref, Mapping):
        return "none among the logs"
    d = ref["difference"]
    if d["difference"] is None:
        said = "no difference (no question both scored)"
    else:
        interval = (
            f" [{d['ci95_low']:+.3f}, {d['ci95_high']:+.3f}]" if d["ci95_low"] is not None else ""
        )
        said = f"difference {d['difference']:+.3f}{interval} over {d['questions']} questions"
    return f"{ref['label']}: {_interval(ref['accuracy'])}; {said}"


def _model(name: str, args: Mapping[str, str], generation: Mapping[str, str]) -> str:
    """`name (arg=value, ...)`, and how it generated where any setting was set."""
    given = ", ".join(f"{k}={v}" for k, v in args.items() if v is not None)
    said = f"{name} ({given})" if given else name
    config = ", ".join(f"{k}={v}" for k, v in generation.items()) or "the provider's defaults"
    return f"{said}; generation: {config}"


def _known(file: Mapping[str, Any]) -> str:
    """What is known of a released file, in words."""
    facts = [f"{file['rows']:,} {file['unit']}"]
    facts += [f"{file['bytes']:,} bytes"] if file["bytes"] is not None else []
    facts += [f"sha256 {file['sha256']}"] if file["sha256"] is not None else []
    pin = "" if file["of_pinned_revision"] else " (at another revision of the release)"
    return ", ".join(facts) + pin


def _grader_words(grader: Mapping[str, Any]) -> str:
    """The grader, how it was bound, and its trials, in words."""
    c = grader["calibration"]
    if grader["judged"]:
        separation = c["separation"]
        trials = f"separation {'–' if separation is None else format(separation, '.3f')}"
    else:
        kinds = [
            f"{kind} {t['share']:.2f} [{t['ci95'][0]:.2f}, {t['ci95'][1]:.2f}]"
            for kind, t in c["trials"].items()
            if t["trials"] and t["share"] is not None
        ]
        trials = f"{', '.join(kinds)}; trustworthy: {c['trustworthy']}"
    bound = "the model under test (self-graded)" if grader["self_graded"] else "its own model"
    tried = f"{trials} over {c['questions']} questions" if c["questions"] else "not tried"
    model = _model(grader["model"], grader["args"], grader["generate_config"])
    return f"{model}; {bound}; {tried}"


def card_groups(version: DatasetVersion[Any]) -> list[Group]:
    """The groups a card shows per value: those its version declares
    (`Reported.card_groups`), else its averaged group, else its first."""
    by_key = {group.key: group for group in version.groups}
    declared = [by_key[key] for key in version.reported.card_groups]
    return declared or [version.mean_group or version.groups[0]]


def card_table(c: Mapping[str, Any], version: DatasetVersion[Any]) -> Table:
    """A card of a run of `version` as one Markdown table: what was run, on what, what
    it scored (per value of each of `card_groups`) and cost."""
    data, questions, cost = c["dataset"], c["questions"], c["cost"]
    model = c["model"]
    rows: list[tuple[str, str]] = [
        ("task", f"{c['task']['name']}, version {c['task']['version']}"),
        ("dataset", f"{data['name']} {data['selection']} ({data['license']})"),
        ("data license", data["license_terms"]),
        ("repository", f"{data['repository']} at revision {data['revision']}"),
        ("files from", data["source"] or "not recorded"),
        ("data", data["release"] or "not recorded"),
        ("checked against the release", data["checked"] or "not recorded"),
        *((f"released {name}", _known(file)) for name, file in data["released_files"].items()),
        ("model", _model(model["name"], model["args"], model["generate_config"])),
        ("settings", ", ".join(c["changed_settings"]) or "all defaults"),
        ("questions", ", ".join(f"{k} {v}" for k, v in questions.items())),
        ("accuracy", _interval(c["overall"])),
    ]
    if c["macro"] is not None:
        rows.append(("macro average", f"{c['macro']:.3f}"))
    for shown in card_groups(version):
        for value, e in c["groups"][shown.key]["values"].items():
            rows.append((f"{shown.title}: {title_of(shown, value)}", _interval(e)))
    rows += [
        ("beside no history", _beside(c["no_history"], "it has no history")),
        ("beside the model-free floor", _beside(c["floor"], "it is the floor")),
    ]
    if c["grader"] is not None:
        rows.append(("grader", _grader_words(c["grader"])))
    usd = cost["usd"]
    rows.append(
        (
            "cost",
            "no price for the model"
            if usd is None
            else f"${usd:.2f} (${cost['usd_per_question']:.4f} a question; {cost['prices']})",
        )
    )
    if cost["tokens_per_question"] is not None:
        tokens = ", ".join(f"{k} {v:,.0f}" for k, v in cost["tokens_per_question"].items() if v)
        rows.append(("tokens a question (the log's)", tokens))
    rows += [(f"prompt {name}", f"sha256 {digest}") for name, digest in c["prompts"].items()]
    if c["facts_from"] != FROM_THE_LOG:
        rows.append(("prompts and scoring", c["facts_from"]))
    rows += [(f"known defect ({e['reported']})", e["defect"]) for e in data["errata"]]
    exceptions = c["exceptions"]
    if exceptions["incomplete"]:
        rows.append(("made although incomplete", ", ".join(exceptions["incomplete"])))
    if exceptions["unreleased"]:
        rows.append(("made although not on the released data", exceptions["unreleased"]))
    return Table(
        "card",
        f"Results card: {c['label']}",
        f"From `{c['log']}` ({c['status']}, started {c['started']}); {c['schema']}.",
        ("field", "value"),
        tuple(rows),
    )


def file_stem(key: str, label: str) -> str:
    """A card's file name: its version's key and its run's label (unique among the
    version's runs), lower case, a dash for each run of other characters."""
    return re.sub(r"[^a-z0-9.]+", "-", f"{key} {label}".lower()).strip("-")


def write_cards(
    paths: Sequence[str | Path],
    out: Path,
    *,
    allow_incomplete: bool = False,
    allow_unreleased: bool = False,
    prices: PriceTable | None = None,
) -> Cards:
    """Read the logs in `paths`, refuse those not allowed (`_check_allowed`), and write a
    card (`<stem>.json`, `<stem>.md`) into `out` for each model and setting (of several
    logs of one, the latest complete: `pairs.by_kind`)."""
    read = read_runs(paths)
    if not read.runs:
        raise ReportError(f"no PersonaMem runs in {', '.join(map(str, paths))}")
    check_allowed(read.runs, allow_incomplete, allow_unreleased)
    prices = prices or load_prices()
    notes = list(read.notes)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for key in VERSIONS:
        runs = [run for run in read.runs if run.benchmark == key]
        summaries = [summarise(r, label) for r, label in zip(runs, run_labels(runs), strict=True)]
        carded = by_kind(summaries)
        notes += [
            f"{s.run.location}: no card (no question scored, or a later complete log of "
            "the same model and setting has one)"
            for s in summaries
            if s not in carded
        ]
        gains = {p.run.label: p for p in gain_pairs(summaries)}
        floors = {p.run.label: p for p in floor_pairs(summaries)}
        costs = {c.summary.label: c for c in run_costs(carded, prices)}
        for s in carded:
            made = card(s, gains.get(s.label), floors.get(s.label), costs.get(s.label), prices)
            stem = file_stem(key, s.label)
            while out / f"{stem}.json" in written:  # labels that differ in punctuation only
                stem += "-"
            path = out / f"{stem}.json"
            path.write_text(json.dumps(made, indent=2) + "\n", encoding="utf-8")
            table = card_table(made, s.run.entry).markdown()
            path.with_suffix(".md").write_text(table, encoding="utf-8")
            written.append(path)
    return Cards(written, notes)
