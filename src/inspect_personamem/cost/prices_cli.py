"""`inspect-personamem prices`: the price table as Inspect takes it.

`--path` prints where the shipped table lies, to pass to `inspect eval
--model-cost-config`; without it, the table itself is printed (YAML, an Inspect model
cost configuration), and with `--batch` the table at each provider's batch prices
(`cost/batch.py`), to pass to Inspect for a `--batch` run so that the cost it logs,
and `--cost-limit`, count batch prices.
"""

from __future__ import annotations

import argparse
from pathlib import Path


def add_command(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register the `prices` subcommand."""
    parser: argparse.ArgumentParser = commands.add_parser(
        "prices",
        help="the price table as an Inspect model cost config (--model-cost-config)",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    shown = parser.add_mutually_exclusive_group()
    shown.add_argument("--path", action="store_true", help="print the shipped table's path")
    shown.add_argument(
        "--batch", action="store_true", help="print the table at batch prices (for --batch runs)"
    )
    parser.add_argument(
        "--prices", type=Path, help="print this table, not the shipped one (or its batch prices)"
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from inspect_personamem.cost.batch import BATCH_TERMS, batch_table, batch_terms
    from inspect_personamem.cost.prices import config_text, load_prices, prices_path

    if args.path:
        print(prices_path())
        return 0
    table = load_prices(args.prices)
    if not args.batch:
        print(config_text(table.prices, f"The prices of {table.source}.", table.tiers))
        return 0
    terms = "\n".join(
        f"  {provider}: {t.words()} ({', '.join(t.pages())})" for provider, t in BATCH_TERMS.items()
    )
    batch = batch_table(table.prices)
    tiers = {
        name: found.tier(tier)
        for name, tier in table.tiers.items()
        if (found := batch_terms(name)) is not None
    }
    print(
        config_text(
            batch,
            f"The prices of {table.source} under each provider's batch terms (models of "
            f"other providers left out):\n{terms}\nFor `inspect eval --batch ... "
            "--model-cost-config FILE`.",
            tiers,
        )
    )
    return 0
