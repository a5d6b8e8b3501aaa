"""The `inspect-personamem` command: tools around the tasks (cost estimate, reports)."""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from . import estimate_cli


def main(argv: Sequence[str] | None = None) -> int:
    """Parse the command line and run the chosen subcommand."""
    parser = argparse.ArgumentParser(prog="inspect-personamem", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    estimate_cli.add_command(commands)
    args = parser.parse_args(argv)
    result: int = args.run(args)
    return result


if __name__ == "__main__":
    raise SystemExit(main())
