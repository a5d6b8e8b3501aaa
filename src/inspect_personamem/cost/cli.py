"""`inspect-personamem estimate`: questions, tokens, cacheable share and cost of a run.

PersonaMem (`--dataset v1`, the default) by `--split`; PersonaMem-v2 (`--dataset v2`)
by `--subset` and `--length`.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Final

from inspect_personamem.arg_types import AMOUNT, COUNT, DURATION, POSITIVE_COUNT
from inspect_personamem.data.order import INTERLEAVE_BLOCK, ORDERS
from inspect_personamem.datasets.v1.splits import SPLITS, check_split
from inspect_personamem.datasets.v2.spec import LENGTHS as V2_LENGTHS
from inspect_personamem.datasets.v2.spec import SUBSETS as V2_SUBSETS
from inspect_personamem.errors import PersonaMemArgumentError
from inspect_personamem.types import BENCHMARKS

if TYPE_CHECKING:
    from inspect_personamem.cost.estimate import CostEstimate
    from inspect_personamem.cost.prices import Price

OWN_OPTIONS: Final = {
    "--split": ("v1", "PersonaMem-v2 takes --subset and --length"),
    "--subset": ("v2", "PersonaMem (v1) is chosen by --split"),
    "--length": ("v2", "PersonaMem (v1) has its length in --split"),
}
"""Options of one dataset only -> (that dataset, why the other takes none)."""
NEEDED: Final = {"v1": ("--split", SPLITS), "v2": ("--length", V2_LENGTHS)}
"""The option each dataset cannot do without, and its choices."""


def add_command(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register the `estimate` subcommand."""
    parser: argparse.ArgumentParser = commands.add_parser(
        "estimate",
        help="tokens and cost of a run, before running it",
        description=__doc__,
    )
    parser.add_argument(
        "--dataset", choices=BENCHMARKS, default="v1", help="PersonaMem (v1) or PersonaMem-v2"
    )
    parser.add_argument("--split", choices=SPLITS, help="v1: the split (required)")
    parser.add_argument("--subset", choices=V2_SUBSETS, help="v2: the subset (default benchmark)")
    parser.add_argument("--length", choices=V2_LENGTHS, help="v2: the history length (required)")
    parser.add_argument("--model", required=True, help="e.g. openai/gpt-4.1")
    parser.add_argument("--data-dir", help="folder with the dataset's files (as -T data_dir)")
    parser.add_argument("--repo-id", help="default: the dataset's")
    parser.add_argument("--revision", help="default: the dataset's pinned one")
    parser.add_argument(
        "--order", choices=ORDERS, default="interleaved", help="as -T order (interleaved)"
    )
    parser.add_argument(
        "--interleave-block",
        type=COUNT,
        default=INTERLEAVE_BLOCK,
        help=f"contexts interleaved at a time (as -T interleave_block; {INTERLEAVE_BLOCK})",
    )
    parser.add_argument("--output-tokens", type=COUNT, default=300, help="expected per question")
    parser.add_argument(
        "--limit", type=POSITIVE_COUNT, help="only the first N questions (as inspect eval --limit)"
    )
    parser.add_argument(
        "--concurrency",
        type=POSITIVE_COUNT,
        default=10,
        help="requests in flight (inspect eval --max-connections; Inspect's default is 10)",
    )
    parser.add_argument(
        "--latency", type=DURATION, default=20.0, help="seconds per request (more than 0)"
    )
    parser.add_argument(
        "--cache-ttl", type=AMOUNT, default=300.0, help="seconds an unused cache entry lives"
    )
    parser.add_argument("--prices", type=Path, help="price table (format of prices.yaml)")
    parser.add_argument("--price-input", type=AMOUNT, help="USD per 1M input tokens")
    parser.add_argument("--price-cached-input", type=AMOUNT, help="USD per 1M cached tokens")
    parser.add_argument("--price-output", type=AMOUNT, help="USD per 1M output tokens")
    parser.add_argument(
        "--compare", type=Path, help="an .eval log of this run: print its reported usage beside"
    )
    parser.set_defaults(handler=run)


def check_dataset_options(args: argparse.Namespace) -> None:
    """Raise where an option of the other dataset is given, or the one this dataset
    needs is not."""
    for option, (dataset, why) in OWN_OPTIONS.items():
        if dataset != args.dataset and getattr(args, _dest(option)) is not None:
            raise PersonaMemArgumentError(
                f"{option} is an option of --dataset {dataset}, not {args.dataset}: {why}"
            )
    needed, choices = NEEDED[args.dataset]
    if getattr(args, _dest(needed)) is None:
        raise PersonaMemArgumentError(
            f"--dataset {args.dataset} needs {needed} ({', '.join(choices)})"
        )


def _dest(option: str) -> str:
    return option.removeprefix("--").replace("-", "_")


def run(args: argparse.Namespace) -> int:
    # imported here so that `inspect-personamem --help` needs no Inspect import
    from inspect_personamem.cost.prices import Price, load_prices
    from inspect_personamem.cost.usage import logged_usage

    check_dataset_options(args)
    for option, path in (("--compare", args.compare), ("--prices", args.prices)):
        if path is not None and not path.is_file():
            raise PersonaMemArgumentError(f"{option} {path}: no such file")
    result = estimate(args)
    overrides = {
        "--price-input": args.price_input,
        "--price-cached-input": args.price_cached_input,
        "--price-output": args.price_output,
    }
    given = [name for name, value in overrides.items() if value is not None]
    if given and len(given) < len(overrides):
        missing = ", ".join(name for name in overrides if name not in given)
        raise SystemExit(f"estimate: {', '.join(given)} given without {missing}: give all three")
    if given:
        price, price_note = Price(*overrides.values()), "given on the command line"
    else:
        table = load_prices(args.prices)
        price = table.price(args.model)
        page = table.sources.get(args.model.split("/", 1)[0])
        price_note = f"{table.source}, as of {table.as_of}" + (f"; {page}" if page else "")
    print(render(result, args, price, price_note))
    if args.compare:
        print(logged_usage(args.compare).render(result))
    return 0


def estimate(args: argparse.Namespace) -> CostEstimate:
    """The estimate of the dataset the (checked) options name."""
    from inspect_personamem.cost.estimate import Plan, estimate_cost, estimate_v2_cost
    from inspect_personamem.cost.prompt_cache import CacheSettings
    from inspect_personamem.datasets.v1.spec import DataSource
    from inspect_personamem.datasets.v2.spec import V2Source

    plan = Plan(
        args.order,
        args.interleave_block,
        CacheSettings(args.concurrency, args.latency, args.cache_ttl),
        args.output_tokens,
        args.limit,
    )
    where = (args.data_dir, args.repo_id, args.revision)
    if args.dataset == "v2":
        source = V2Source(args.subset or "benchmark", *where, data_dir_option="--data-dir")
        return estimate_v2_cost(source, args.length, plan)
    return estimate_cost(
        DataSource(check_split(args.split), *where, data_dir_option="--data-dir"), plan
    )


def render(result: CostEstimate, args: argparse.Namespace, price: Price, price_note: str) -> str:
    """The estimate as an aligned plain-text table."""
    cache = result.cache
    ideal = result.ideal_cached_tokens / cache.input_tokens if cache.input_tokens else 0.0
    write = f", cache write {price.cache_write:.3f}" if price.cache_write is not None else ""
    rows = [
        ("split", f"{result.label} ({result.source})"),
        ("data", result.data_release),
        ("questions", f"{result.questions:,}"),
        ("input tokens", f"{cache.input_tokens:,} (history {result.prefix_tokens:,})"),
        ("output tokens", f"{result.output_tokens:,} (expected: {args.output_tokens} a question)"),
        (
            "cacheable share",
            f"{cache.share:.1%} of input tokens (ideal {ideal:.1%}; order={result.order}, "
            f"{args.concurrency} concurrent, {args.latency:g} s a request, "
            f"{args.cache_ttl:g} s cache lifetime)",
        ),
        *_order_rows(result),
        (
            "price",
            f"{args.model}: input {price.input:.3f}, cached input {price.cached_input:.3f}"
            f"{write}, output {price.output:.3f} USD per 1M tokens ({price_note})",
        ),
        ("cost without caching", f"${result.cost(price, caching=False):,.2f}"),
        ("cost with caching", f"${result.cost(price, caching=True):,.2f}"),
    ]
    width = max(len(name) for name, _ in rows)
    return "\n".join(f"{name:<{width}}  {value}" for name, value in rows)


def _order_rows(result: CostEstimate) -> list[tuple[str, str]]:
    """The share under every order the task can be asked for, and a hint where one
    caches clearly more."""
    rows = [("by order", ", ".join(f"{o} {share:.1%}" for o, share in result.shares.items()))]
    if better := result.better_order():
        rows.append(("hint", f"-T order={better} would cache more with these settings"))
    return rows
