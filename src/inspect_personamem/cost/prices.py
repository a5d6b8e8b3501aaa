"""Model prices: the table shipped with the package (dated, with its sources) or a user's.

The table is an Inspect model cost configuration (`model_costs.yaml`: a model name ->
Inspect's `ModelCost`, US dollars per million tokens), so the one file serves
`inspect eval --model-cost-config` (Inspect then logs each call's cost and can enforce
`--cost-limit`), the estimate before a run and the report after it; all of them price
tokens with Inspect's own `compute_model_cost`.

An entry may say more than Inspect reads (Inspect's `ModelCost` ignores other keys):
`as_of` and `page`, when and where its prices were read (else the table's
`SHIPPED_AS_OF` and the provider's `PRICING_PAGES`), and `long_context`, the prices a
provider charges for a whole request whose input is over `above` tokens (its
long-context tier: `LongContext`). Inspect knows no tiers, so the cost it logs for such
a request is the standard one; the estimate and the report price the tier
(`PriceTable.tier`; the report call by call, `calls.py`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib.resources import files as package_files
from pathlib import Path
from typing import Any

import yaml
from inspect_ai.model import ModelCost, ModelUsage, compute_model_cost
from pydantic import ValidationError

from inspect_personamem.errors import PersonaMemArgumentError, PersonaMemDataError

PRICES_FILE = "model_costs.yaml"
"""The shipped table's name in this package (`cost/`)."""
SHIPPED_AS_OF = "2025-06"
"""When the shipped table's prices were read off the providers' pages, where an entry
gives no `as_of` of its own."""
PRICING_PAGES = {
    "openai": "https://platform.openai.com/docs/pricing",
    "anthropic": "https://www.anthropic.com/pricing",
    "google": "https://ai.google.dev/gemini-api/docs/pricing",
}
"""Provider -> the pricing page the shipped table's prices were taken from."""

_DATED = re.compile(r"-(\d|latest$)")
"""What may follow a table entry in a model name: a date or version (`-2025-04-14`,
`-20250219`) or `-latest`, but not another model's name (`openai/o3-pro`)."""


def prices_path() -> Path:
    """Where the shipped table lies (the file to pass to `--model-cost-config`)."""
    return Path(str(package_files("inspect_personamem.cost").joinpath(PRICES_FILE)))


@dataclass(frozen=True)
class LongContext:
    """A provider's long-context tier: a request whose input (cached or not) is over
    `above` tokens is priced, all of it, output too, at `price`."""

    above: int
    price: ModelCost


@dataclass(frozen=True)
class Read:
    """When and where an entry's prices were read (None: the table's own)."""

    as_of: str | None = None
    page: str | None = None


@dataclass(frozen=True)
class PriceTable:
    prices: dict[str, ModelCost]
    source: str
    """The file the prices were read from, as the notes name it."""
    shipped: bool
    """Whether it is the table shipped with the package (dated, its sources known)."""
    tiers: Mapping[str, LongContext] = field(default_factory=dict)
    """Entry -> its long-context tier, where its provider charges one."""
    read: Mapping[str, Read] = field(default_factory=dict)
    """Entry -> when and where its prices were read, where it says."""

    def entry(self, model: str) -> str | None:
        """The entry that prices `model`: its own, else the one it extends with a date or
        `-latest` (so `openai/gpt-4.1-2025-04-14` takes `openai/gpt-4.1`); None without."""
        if model in self.prices:
            return model
        matches = [
            name
            for name in self.prices
            if model.startswith(name) and _DATED.match(model, len(name)) is not None
        ]
        return max(matches, key=len) if matches else None

    def price(self, model: str) -> ModelCost:
        """The price of `model` (`entry`); a one-line error naming the known ones where
        the table has none."""
        name = self.entry(model)
        if name is None:
            known = ", ".join(sorted(self.prices))
            raise PersonaMemArgumentError(
                f"No price for {model!r} in {self.source}; known: {known}. Pass --prices FILE "
                "or --price-input/--price-cached-input/--price-output."
            )
        return self.prices[name]

    def tier(self, model: str) -> LongContext | None:
        """`model`'s long-context tier; None where its entry has none (or it has no entry)."""
        name = self.entry(model)
        return None if name is None else self.tiers.get(name)

    def note(self, model: str) -> str:
        """Where `model`'s price comes from: the file, and for the shipped table its
        date and the page it was read from."""
        if not self.shipped:
            return self.source
        read = self.read.get(self.entry(model) or "", Read())
        page = read.page or PRICING_PAGES.get(model.split("/", 1)[0])
        return f"{self.source}, as of {read.as_of or SHIPPED_AS_OF}" + (f"; {page}" if page else "")


def load_prices(path: Path | None = None) -> PriceTable:
    """The shipped table, or a file in the same format (Inspect's model cost
    configuration, YAML or JSON)."""
    source = str(path) if path else f"inspect_personamem/cost/{PRICES_FILE}"
    text = (path or prices_path()).read_text(encoding="utf-8")
    data: Any = yaml.safe_load(text)  # JSON is YAML too
    expected = "{model: {input, output, input_cache_read, input_cache_write}}"
    if not isinstance(data, dict):
        raise PersonaMemDataError(f"{source}: expected an Inspect model cost config, {expected}")
    prices: dict[str, ModelCost] = {}
    tiers: dict[str, LongContext] = {}
    read: dict[str, Read] = {}
    for key, cost in data.items():
        name = str(key)
        prices[name] = _cost(cost, f"{source}: {name}", expected)
        if not isinstance(cost, dict):
            continue
        if (tier := cost.get("long_context")) is not None:
            above = tier.get("above") if isinstance(tier, dict) else None
            if not isinstance(above, int) or above <= 0:
                raise PersonaMemDataError(
                    f"{source}: {name}: long_context.above: a positive token count needed "
                    f"(expected {{above, input, output, input_cache_read, input_cache_write}})"
                )
            tiers[name] = LongContext(
                above, _cost(tier, f"{source}: {name}: long_context", expected)
            )
        if "as_of" in cost or "page" in cost:
            read[name] = Read(_text(cost.get("as_of")), _text(cost.get("page")))
    return PriceTable(prices, source, path is None, tiers, read)


def _cost(value: Any, where: str, expected: str) -> ModelCost:
    """`value` as a `ModelCost`, or a one-line error naming `where` and the field."""
    try:
        return ModelCost.model_validate(value)
    except ValidationError as ex:
        problem = ex.errors()[0]
        named = ".".join(map(str, problem["loc"])) or "its value"
        raise PersonaMemDataError(
            f"{where}: {named}: {problem['msg']} (expected an Inspect model cost config, "
            f"{expected})"
        ) from None


def _text(value: Any) -> str | None:
    return None if value is None else str(value)


def config_text(
    prices: Mapping[str, ModelCost], comment: str, tiers: Mapping[str, LongContext] | None = None
) -> str:
    """`prices` as an Inspect model cost config (YAML, one model a line, the shipped
    table's form), with `comment` above, and each entry's long-context tier of `tiers`
    (which Inspect ignores)."""
    lines = [f"# {line}" for line in comment.splitlines()]
    for name, cost in prices.items():
        values = _values(cost)
        if tiers and (tier := tiers.get(name)) is not None:
            values += f", long_context: {{above: {tier.above}, {_values(tier.price)}}}"
        lines.append(f"{name}: {{{values}}}")
    return "\n".join(lines)


def _values(cost: ModelCost) -> str:
    return ", ".join(f"{key}: {value:g}" for key, value in cost.model_dump().items())


def tokens_cost(
    price: ModelCost, uncached: float, cache_read: float, cache_write: float, output: float
) -> float:
    """US dollars for these tokens at `price`, by Inspect's own formula
    (`compute_model_cost`). Counts may be means (fractions): the formula is linear, so
    they are passed to it unvalidated."""
    usage = ModelUsage.model_construct(
        input_tokens=uncached,
        output_tokens=output,
        input_tokens_cache_read=cache_read,
        input_tokens_cache_write=cache_write,
    )
    return compute_model_cost(price, usage)
