"""`inspect-personamem report`: tables, figures and an HTML page from PersonaMem logs;
`inspect-personamem card`: a results card per model and setting (`report/card.py`,
`report/card_writer.py`).

A `ReportError` is one of the package's deliberate errors: `cli.main` prints it.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path


def parse_name_overrides(items: Sequence[str]) -> dict[str, str]:
    """`MODEL=NAME` items (the command's `--published-name`) as a mapping.

    NAME must be a model some dataset version publishes numbers of
    (`Reported.published_names`); an empty NAME means "do not compare MODEL".
    """
    from inspect_personamem.datasets.registry import VERSIONS
    from inspect_personamem.report.errors import ReportError

    known = list(dict.fromkeys(n for v in VERSIONS.values() for n in v.reported.published_names()))
    overrides: dict[str, str] = {}
    for item in items:
        model, sep, name = item.partition("=")
        if not sep or not model:
            raise ReportError(f"--published-name {item!r}: expected MODEL=NAME")
        if name and name not in known:
            raise ReportError(
                f"--published-name {item!r}: {name!r} is not a published model; "
                f"choose one of {', '.join(known)}"
            )
        overrides[model] = name
    return overrides


def run(args: argparse.Namespace) -> int:
    from inspect_personamem.report import build_report

    report = build_report(
        args.logs,
        args.out,
        name_overrides=parse_name_overrides(args.published_name),
        title=args.title,
        include_subsets=args.include_subsets,
        include_unreleased=args.include_unreleased_data,
    )
    print(report.headline)
    for caveat in report.caveats:
        print(f"not comparable: {caveat}")
    for note in report.notes:
        print(f"note: {note}")
    print(
        f"{len(report.summaries)} run(s), {len(report.tables)} tables, "
        f"{len(report.figures)} figures: {report.index}"
    )
    return 0


def add_command(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register the `report` subcommand."""
    parser = commands.add_parser(
        "report",
        help="tables, figures and an HTML page from PersonaMem logs",
        description="Read PersonaMem .eval/.json logs (files or folders), recompute the "
        "numbers from the per-question scores, check them against the metrics Inspect "
        "stored, and write tables (Markdown, CSV), figures (PNG, SVG) and index.html.",
    )
    parser.add_argument("logs", nargs="+", help="log files or folders (searched recursively)")
    parser.add_argument("--out", type=Path, required=True, help="output folder")
    parser.add_argument(
        "--published-name",
        action="append",
        default=[],
        metavar="MODEL=NAME",
        help="compare Inspect model MODEL with published model NAME (repeatable; "
        "an empty NAME turns a default mapping off)",
    )
    parser.add_argument(
        "--include-subsets",
        action="store_true",
        help="compare runs over part of a split (--limit, --sample-id) with the published "
        "numbers too; without it they are left out of that comparison (the summary says "
        "why). Such runs are labelled 'subset N/M' everywhere",
    )
    parser.add_argument(
        "--include-unreleased-data",
        action="store_true",
        help="compare runs on another question file than the released one (as the task "
        "recorded it) with the published numbers too; without it they are left out of that "
        "comparison (the summary says why). Such runs are labelled 'not released data' "
        "everywhere; runs on synthetic data ('synthetic data') are never compared",
    )
    parser.add_argument("--title", default="", help="added to the page's and every figure's title")
    parser.set_defaults(handler=run)


def run_card(args: argparse.Namespace) -> int:
    from inspect_personamem.report.card_writer import write_cards

    cards = write_cards(
        args.logs,
        args.out,
        allow_incomplete=args.allow_incomplete,
        allow_unreleased=args.allow_unreleased,
    )
    for note in cards.notes:
        print(f"note: {note}")
    for path in cards.written:
        print(f"card: {path} and {path.with_suffix('.md').name}")
    return 0


def add_card_command(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register the `card` subcommand."""
    parser = commands.add_parser(
        "card",
        help="a results card (JSON and Markdown) per model and setting from PersonaMem logs",
        description="Read PersonaMem .eval/.json logs (files or folders) and write, per model "
        "and setting, a JSON card and a Markdown table: the data (repository, revision, "
        "release check, what is known of the released files, known defects), the task "
        "version and the sha256 of every prompt text, the model and its arguments, the "
        "grader and its trials, the questions scored, accuracy with its 95% interval "
        "overall and per group, beside the no-history run and the model-free floor, and "
        "the cost. A log that is not complete or not on the released data is refused.",
    )
    parser.add_argument("logs", nargs="+", help="log files or folders (searched recursively)")
    parser.add_argument("--out", type=Path, required=True, help="output folder")
    parser.add_argument(
        "--allow-incomplete",
        action="store_true",
        help="make cards of runs that are not complete too (interrupted; questions "
        "unscored, errored or stopped by a limit; a subset of the split): each such card "
        "says why (exceptions.incomplete)",
    )
    parser.add_argument(
        "--allow-unreleased",
        action="store_true",
        help="make cards of runs not on the released data too (other files, generated "
        "ones, or a log that does not record its data): each such card says why "
        "(exceptions.unreleased)",
    )
    parser.set_defaults(handler=run_card)
