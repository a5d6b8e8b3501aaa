"""The `inspect-personamem` command: one subcommand per tool.

Each subcommand's module (`cost/cli.py`, `cost/prices_cli.py`, `report/cli.py` for
`report` and `card`, `try_it.py`) owns its parser: its `add_command` adds it and sets
`handler`; `main` dispatches to it and prints the package's deliberate errors as one
line. Heavy imports happen inside handlers, so `inspect-personamem --help` needs no
optional dependency.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
from collections.abc import Sequence

from inspect_personamem.cost.cli import add_command as add_estimate
from inspect_personamem.cost.prices_cli import add_command as add_prices
from inspect_personamem.errors import PersonaMemError
from inspect_personamem.offline.try_it import add_command as add_try
from inspect_personamem.report.cli import add_card_command as add_card
from inspect_personamem.report.cli import add_command as add_report


def parser() -> argparse.ArgumentParser:
    """The command's parser, with every subcommand."""
    root = argparse.ArgumentParser(
        prog="inspect-personamem", description="Tools for the PersonaMem Inspect tasks."
    )
    commands = root.add_subparsers(dest="command", required=True, metavar="COMMAND")
    add_estimate(commands)
    add_prices(commands)
    add_report(commands)
    add_card(commands)
    add_try(commands)
    return root


def main(argv: Sequence[str] | None = None) -> int:
    """Run a subcommand; an error the package raises on purpose (bad data, a bad option,
    a missing file) is printed as one line on stderr, exit status 2, no traceback. A
    reader that closes the output early (`inspect-personamem prices --batch | head`)
    ends the command quietly, with the status of one stopped by SIGPIPE."""
    try:
        status = _run(parser().parse_args(argv))
        sys.stdout.flush()  # a reader gone by now is met here, not in Python's exit
        return status
    except BrokenPipeError:
        # what is still buffered, and Python's own flush at exit, go nowhere
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 128 + signal.SIGPIPE


def _run(args: argparse.Namespace) -> int:
    try:
        return int(args.handler(args))
    except PersonaMemError as error:
        print(f"inspect-personamem {args.command}: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
