"""`inspect-personamem estimate`: questions, tokens, cacheable share and cost of a run."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from ..arg_types import AMOUNT, COUNT, DURATION, POSITIVE_COUNT
from ..data.order import INTERLEAVE_BLOCK, ORDERS
from ..data.spec import PERSONAMEM
from ..data.splits import SPLITS, check_split
from ..errors import PersonaMemArgumentError

if TYPE_CHECKING:
    from .estimate import CostEstimate
    from .prices import Price


def add_command(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register the `estimate` subcommand."""
    parser: argparse.ArgumentParser = commands.add_parser(
        "estimate",
        help="tokens and cost of a run, before running it",
        description=__doc__,
    )
    parser.add_argument("--split", choices=SPLITS, required=True)
    parser.add_argument("--model", required=True, help="e.g. openai/gpt-4.1")
    parser.add_argument("--data-dir", help="folder with the split's files (as -T data_dir)")
    parser.add_argument("--repo-id", default=PERSONAMEM.repo_id)
    parser.add_argument("--revision", default=PERSONAMEM.revision)
    parser.add_argument("--order", choices=ORDERS, default="interleaved")
    parser.add_argument(
        "--interleave-block",
        type=COUNT,
        default=INTERLEAVE_BLOCK,
        help="contexts interleaved at a time (as -T interleave_block)",
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


def run(args: argparse.Namespace) -> int:
    # imported here so that `inspect-personamem --help` needs no Inspect import
    from ..data.spec import DataSource
    from .estimate import estimate_cost
    from .prices import Price, load_prices
    from .prompt_cache import CacheSettings
    from .usage import logged_usage

    for option, path in (("--compare", args.compare), ("--prices", args.prices)):
        if path is not None and not path.is_file():
            raise PersonaMemArgumentError(f"{option} {path}: no such file")
    result = estimate_cost(
        DataSource(
            check_split(args.split),
            args.data_dir,
            args.repo_id,
            args.revision,
            data_dir_option="--data-dir",
        ),
        order=args.order,
        interleave_block=args.interleave_block,
        settings=CacheSettings(args.concurrency, args.latency, args.cache_ttl),
        output_tokens_per_question=args.output_tokens,
        limit=args.limit,
    )
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


def render(result: CostEstimate, args: argparse.Namespace, price: Price, price_note: str) -> str:
    """The estimate as an aligned plain-text table."""
    cache = result.cache
    ideal = result.ideal_cached_tokens / cache.input_tokens if cache.input_tokens else 0.0
    write = f", cache write {price.cache_write:.3f}" if price.cache_write is not None else ""
    rows = [
        ("split", f"{result.split} ({result.source})"),
        ("questions", f"{result.questions:,}"),
        ("input tokens", f"{cache.input_tokens:,} (history {result.prefix_tokens:,})"),
        ("output tokens", f"{result.output_tokens:,} (expected: {args.output_tokens} a question)"),
        (
            "cacheable share",
            f"{cache.share:.1%} of input tokens (ideal {ideal:.1%}; order={args.order}, "
            f"{args.concurrency} concurrent, {args.latency:g} s a request, "
            f"{args.cache_ttl:g} s cache lifetime)",
        ),
        ("by order", ", ".join(f"{o} {share:.1%}" for o, share in result.shares.items())),
        *(
            [("hint", f"-T order={better} would cache more with these settings")]
            if (better := result.better_order())
            else []
        ),
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
