"""`inspect-personamem estimate`: questions, tokens, cacheable share and cost of a run.

A dataset version (`--dataset`, the registry's first the default) by its selectors
(`datasets.base.DatasetVersion.selectors`), each an option; the one a task per value
fixes is required, the others take their default. Where the run calls a grader
(PersonaMem-v3's judges), the grader's calls are priced too, at `--grader`'s price, and
the total is the model's and the grader's. A model the price table does not know is
said to have no price (never $0).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from inspect_personamem.arg_types import (
    AMOUNT,
    COUNT,
    DURATION,
    POSITIVE_COUNT,
    add_version_options,
)
from inspect_personamem.data.order import INTERLEAVE_BLOCK, ORDERS
from inspect_personamem.datasets.base import DatasetVersion, option_flag
from inspect_personamem.datasets.declared import ToolOption, options_by_flag
from inspect_personamem.datasets.registry import VERSIONS
from inspect_personamem.errors import PersonaMemArgumentError
from inspect_personamem.parameters import Parameter

if TYPE_CHECKING:
    from inspect_ai.model import ModelCost

    from inspect_personamem.cost.estimate import CostEstimate
    from inspect_personamem.cost.prices import LongContext, PriceTable

DEFAULT_GRADER = "openai/gpt-5.5"
"""The grader priced unless `--grader` names another: the v3 authors' judge
(`run_eval.py`@07bce3cd's default `--judge_model`)."""


def offered() -> dict[str, DatasetVersion[Any]]:
    """The versions `estimate` offers: those that declare its requests (`estimate`), in
    the registry's order."""
    return {key: version for key, version in VERSIONS.items() if version.estimate is not None}


def selector_options() -> dict[str, list[DatasetVersion[Any]]]:
    """Every offered version's selectors as options (`--split`, ...) -> the versions
    taking each, in the registry's order."""
    options: dict[str, list[DatasetVersion[Any]]] = {}
    for version in offered().values():
        for selector in version.selectors:
            options.setdefault(option_flag(selector.name), []).append(version)
    return options


def version_options() -> dict[str, tuple[ToolOption, list[DatasetVersion[Any]]]]:
    """Every offered version's own `estimate` options (`Estimate.options`) by flag, with
    the versions taking each."""
    return options_by_flag(
        (version, version.estimate.options)
        for version in offered().values()
        if version.estimate is not None
    )


def _selector(version: DatasetVersion[Any], flag: str) -> Parameter:
    return next(p for p in version.selectors if option_flag(p.name) == flag)


def add_command(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register the `estimate` subcommand."""
    parser: argparse.ArgumentParser = commands.add_parser(
        "estimate",
        help="tokens and cost of a run, before running it",
        description=__doc__,
    )
    parser.add_argument(
        "--dataset",
        choices=tuple(offered()),
        default=next(iter(offered())),
        help=", ".join(f"{key}: {version.name}" for key, version in offered().items()),
    )
    for flag, versions in selector_options().items():
        choices = {c: None for v in versions for c in _selector(v, flag).choices}
        parser.add_argument(
            flag,
            choices=tuple(choices),
            help="; ".join(_selector_help(v, _selector(v, flag)) for v in versions),
        )
    add_version_options(parser, version_options())
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
        "--grader",
        help=f"the model bound to the grader role, where the run calls one (v3's judges; "
        f"default {DEFAULT_GRADER}, the authors' judge)",
    )
    parser.add_argument(
        "--grader-output-tokens",
        type=COUNT,
        default=None,
        help="expected output tokens a grader call (default 600: a verdict with its reasoning)",
    )
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
    parser.add_argument(
        "--prices", type=Path, help="price table (an Inspect model cost config, as the shipped one)"
    )
    parser.add_argument("--price-input", type=AMOUNT, help="USD per 1M input tokens")
    parser.add_argument("--price-cached-input", type=AMOUNT, help="USD per 1M cached tokens")
    parser.add_argument("--price-output", type=AMOUNT, help="USD per 1M output tokens")
    parser.add_argument(
        "--compare", type=Path, help="an .eval log of this run: print its reported usage beside"
    )
    parser.set_defaults(handler=run)


def _required(version: DatasetVersion[Any], selector: Parameter) -> bool:
    """Whether the estimate needs `selector` given: the one a task per value fixes."""
    return selector.name == version.fixed and bool(version.fixed_values)


def _selector_help(version: DatasetVersion[Any], selector: Parameter) -> str:
    needed = "required" if _required(version, selector) else f"default {selector.default}"
    return f"{version.key}: the {selector.name} ({needed})"


def check_dataset_options(args: argparse.Namespace) -> dict[str, Any]:
    """The chosen version's selectors' values (the default where not given) and its own
    options' (None where not given); raise where an option of another version is given,
    or the one this version needs is not."""
    chosen = VERSIONS[args.dataset]
    for flag, versions in selector_options().items():
        if chosen not in versions and getattr(args, _dest(flag)) is not None:
            owners = " or ".join(v.key for v in versions)
            raise PersonaMemArgumentError(
                f"{flag} is an option of --dataset {owners}, not {chosen.key}: "
                f"{chosen.refuses_selector(flag)}"
            )
    for flag, (option, versions) in version_options().items():
        if chosen not in versions and getattr(args, option.dest) is not None:
            owners = " or ".join(v.key for v in versions)
            raise PersonaMemArgumentError(
                f"{flag} is an option of --dataset {owners}, not {chosen.key}"
            )
    selected: dict[str, Any] = {}
    for selector in chosen.selectors:
        flag = option_flag(selector.name)
        value = getattr(args, _dest(flag))
        if value is None and _required(chosen, selector):
            raise PersonaMemArgumentError(
                f"--dataset {chosen.key} needs {flag} ({', '.join(selector.choices)})"
            )
        if value is not None and value not in selector.choices:
            raise PersonaMemArgumentError(
                f"{flag} {value}: --dataset {chosen.key} takes {', '.join(selector.choices)}"
            )
        selected[selector.name] = selector.default if value is None else value
    assert chosen.estimate is not None
    for option in chosen.estimate.options:
        selected[option.dest] = getattr(args, option.dest)
    return selected


def _dest(option: str) -> str:
    return option.removeprefix("--").replace("-", "_")


def run(args: argparse.Namespace) -> int:
    # imported here: the price table and the log reader only when the command runs
    from inspect_ai.model import ModelCost

    from inspect_personamem.cost.prices import load_prices
    from inspect_personamem.cost.usage import logged_usage

    selected = check_dataset_options(args)
    for option, path in (("--compare", args.compare), ("--prices", args.prices)):
        if path is not None and not path.is_file():
            raise PersonaMemArgumentError(f"{option} {path}: no such file")
    result = estimate(args, selected)
    for option, value in (
        ("--grader", args.grader),
        ("--grader-output-tokens", args.grader_output_tokens),
    ):
        if value is not None and result.grader is None:
            raise PersonaMemArgumentError(
                f"{option}: a {VERSIONS[args.dataset].key} run answering by choice calls no "
                "grader; leave it out"
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
    table = load_prices(args.prices)
    if given:
        price: Priced = (
            ModelCost(
                input=args.price_input,
                input_cache_read=args.price_cached_input,
                input_cache_write=args.price_input,
                output=args.price_output,
            ),
            None,
            "given on the command line",
        )
    else:
        price = priced(table, args.model)
    print(render(result, args, price, priced(table, args.grader or DEFAULT_GRADER)))
    if args.compare:
        print(logged_usage(args.compare).render(result))
    return 0


Priced = tuple["ModelCost | None", "LongContext | None", str]
"""A model's price (None: the table has none), its long-context tier, and where the price
comes from (or, without one, why)."""


def priced(table: PriceTable, model: str) -> Priced:
    """`model`'s price in `table`, its tier and note; no price where it has none."""
    if table.entry(model) is None:
        return None, None, f"no price for {model} in {table.source} (--prices FILE)"
    return table.price(model), table.tier(model), table.note(model)


def estimate(args: argparse.Namespace, selected: dict[str, Any]) -> CostEstimate:
    """The estimate of the questions the (checked) options select."""
    from inspect_personamem.cost.estimate import Plan, estimate
    from inspect_personamem.cost.prompt_cache import CacheSettings
    from inspect_personamem.datasets.declared import Where

    plan = Plan(
        args.order,
        args.interleave_block,
        CacheSettings(args.concurrency, args.latency, args.cache_ttl),
        args.output_tokens,
        args.limit,
        *([] if args.grader_output_tokens is None else [args.grader_output_tokens]),
    )
    where = Where(args.data_dir, args.repo_id, args.revision, data_dir_option="--data-dir")
    return estimate(VERSIONS[args.dataset], selected, where, plan)


def render(result: CostEstimate, args: argparse.Namespace, model: Priced, grader: Priced) -> str:
    """The estimate as an aligned plain-text table: the model's requests, their price and
    cost, the grader's calls where the run makes any, and the total."""
    cache = result.cache
    ideal = result.ideal_cached_tokens / cache.input_tokens if cache.input_tokens else 0.0
    price, tier, note = model
    rows = [
        ("split", f"{result.label} ({result.source})"),
        ("data", result.data_release),
        ("questions", f"{result.questions:,}"),
        (
            "input tokens",
            f"{cache.input_tokens:,} ({_input_words(result)}; of it {result.prefix_tokens:,} a "
            "prefix a context's other questions resend, the most a prompt cache can serve)",
        ),
        ("output tokens", _output_words(result, args.output_tokens)),
        (
            "cacheable share",
            f"{cache.share:.1%} of input tokens (ideal {ideal:.1%}; order={result.order}, "
            f"{args.concurrency} concurrent, {args.latency:g} s a request, "
            f"{args.cache_ttl:g} s cache lifetime)",
        ),
        *_order_rows(result),
        ("price", _price_words(args.model, model)),
    ]
    if price is None:
        rows += [("cost", "no price")]
        without = with_caching = None
    else:
        without = result.cost(price, caching=False, tier=tier)
        with_caching = result.cost(price, caching=True, tier=tier)
        if tier is not None:
            rows.append(("long context", _tier_words(tier, result.long_context_requests(tier))))
        rows += [
            ("cost without caching", f"${without:,.2f}"),
            ("cost with caching", f"${with_caching:,.2f}"),
            *_batch_rows(result, args.model, price, tier),
        ]
    judges = _grader_rows(result, args, grader)
    rows += judges
    if judges and result.grader is not None and result.grader.counted:
        rows.append(("total", _total(without, with_caching, result, grader)))
    width = max(len(name) for name, _ in rows)
    return "\n".join(f"{name:<{width}}  {value}" for name, value in rows)


def _input_words(result: CostEstimate) -> str:
    """What the input tokens count: each question's prompt, or an agent's whole budget."""
    if any(request.calls > 1 for request in result.sent):
        return "each question's whole token budget, as input: an agent's ceiling"
    return "every question's whole prompt"


def _output_words(result: CostEstimate, each: int) -> str:
    """The output tokens, and what they assume: a question's, or each model call's where
    a question makes several (an agent's turns)."""
    calls = sum(request.calls for request in result.sent)
    if calls == result.questions:
        return f"{result.output_tokens:,} (expected: {each} a question)"
    return (
        f"{result.output_tokens:,} (expected: {each} a model call, {calls:,} calls: every "
        "turn of an agent's budget used)"
    )


def _price_words(model: str, priced: Priced) -> str:
    price, _, note = priced
    if price is None:
        return note
    write = price.input_cache_write
    writes = f", cache write {write:.3f}" if write != price.input else ""
    return (
        f"{model}: input {price.input:.3f}, cached input {price.input_cache_read:.3f}"
        f"{writes}, output {price.output:.3f} USD per 1M tokens ({note})"
    )


def _tier_words(tier: LongContext, requests: int) -> str:
    p = tier.price
    return (
        f"a request over {tier.above:,} input tokens is priced whole at input {p.input:.3f}, "
        f"cached input {p.input_cache_read:.3f}, output {p.output:.3f}: {requests:,} of them"
    )


def _grader_rows(
    result: CostEstimate, args: argparse.Namespace, grader: Priced
) -> list[tuple[str, str]]:
    """The grader's calls, tokens, price and cost; none where the run calls no grader."""
    calls = result.grader
    if calls is None:
        return []
    if not calls.counted:
        return [("grader calls", calls.words)]
    name = args.grader or DEFAULT_GRADER
    price, tier, _ = grader
    output = result.grader_output_tokens * calls.calls
    rows = [
        (
            "grader calls",
            f"{calls.calls:,} for {calls.judged:,} of the {result.questions:,} questions "
            f"({calls.words})",
        ),
        (
            "grader tokens",
            f"input {calls.input_tokens:,} (the judges' prompts), output {output:,} "
            f"(expected: {result.grader_output_tokens} a call)",
        ),
        ("grader price", _price_words(name, grader)),
    ]
    cost = "no price" if price is None else f"${result.grader_cost(price, tier):,.2f}"
    return [*rows, ("grader cost", f"{cost} (no caching)")]


def _total(
    without: float | None, cached: float | None, result: CostEstimate, grader: Priced
) -> str:
    """The model's and the grader's cost together; no price where either has none."""
    price, tier, _ = grader
    if without is None or cached is None or price is None:
        return "no price (a model without one)"
    judged = result.grader_cost(price, tier)
    return (
        f"${without + judged:,.2f} without caching, ${cached + judged:,.2f} with it (the "
        "model's and the grader's)"
    )


def _batch_rows(
    result: CostEstimate, model: str, price: ModelCost, tier: LongContext | None
) -> list[tuple[str, str]]:
    """The run's cost under `--batch`, without caching and with the share simulated
    above (cache hits in a batch are best-effort), by the provider's batch terms."""
    from inspect_personamem.cost.batch import batch_terms

    provider = model.split("/", 1)[0]
    terms = batch_terms(model)
    if terms is None:
        return [("batch cost", f"no batch terms known for {provider}")]
    batch = terms.price(price)
    batch_tier = None if tier is None else terms.tier(tier)
    without = result.cost(batch, caching=False, tier=batch_tier)
    cached = result.cost(batch, caching=True, tier=batch_tier)
    return [
        (
            "batch cost",
            f"${without:,.2f} without caching, ${cached:,.2f} with the share above "
            "(--batch; cache hits in a batch are best-effort)",
        ),
        ("batch terms", f"{provider}: {terms.words()} ({', '.join(terms.pages())})"),
    ]


def _order_rows(result: CostEstimate) -> list[tuple[str, str]]:
    """The share under every order the task can be asked for, and a hint where one
    caches clearly more."""
    rows = [("by order", ", ".join(f"{o} {share:.1%}" for o, share in result.shares.items()))]
    if better := result.better_order():
        rows.append(("hint", f"-T order={better} would cache more with these settings"))
    return rows
