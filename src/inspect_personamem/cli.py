"""The `inspect-personamem` command: one subcommand per tool.

Each subcommand has an `add` function that adds its parser and sets `handler`;
`main` dispatches to it. Heavy imports happen inside handlers, so
`inspect-personamem --help` is quick and needs no optional dependency.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from .estimate_cli import add_command as add_estimate


def _report(args: argparse.Namespace) -> int:
    from .report import ReportError, build_report
    from .report.published import parse_name_overrides

    try:
        report = build_report(
            args.logs,
            args.out,
            name_overrides=parse_name_overrides(args.published_name),
            title=args.title,
        )
    except ReportError as error:
        print(f"inspect-personamem report: {error}", file=sys.stderr)
        return 2
    for note in report.notes:
        print(f"note: {note}")
    print(
        f"{len(report.summaries)} run(s), {len(report.tables)} tables, "
        f"{len(report.figures)} figures: {report.index}"
    )
    return 0


def _add_report(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
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
    parser.add_argument("--title", default="", help="added to the page's and every figure's title")
    parser.set_defaults(handler=_report)


def parser() -> argparse.ArgumentParser:
    """The command's parser, with every subcommand."""
    root = argparse.ArgumentParser(
        prog="inspect-personamem", description="Tools for the PersonaMem Inspect tasks."
    )
    commands = root.add_subparsers(dest="command", required=True, metavar="COMMAND")
    add_estimate(commands)
    _add_report(commands)
    return root


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    return int(args.handler(args))


if __name__ == "__main__":
    sys.exit(main())
