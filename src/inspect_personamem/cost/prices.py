"""Model prices: the table shipped with the package (dated, with its sources) or a user's.

The table is an Inspect model cost configuration (`model_costs.yaml`: a model name ->
Inspect's `ModelCost`, US dollars per million tokens), so the one file serves
`inspect eval --model-cost-config` (Inspect then logs each call's cost and can enforce
`--cost-limit`), the estimate before a run and the report after it; all of them price
tokens with Inspect's own `compute_model_cost`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
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
"""When the shipped table's prices were read off the providers' pages."""
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
class PriceTable:
    prices: dict[str, ModelCost]
    source: str
    """The file the prices were read from, as the notes name it."""
    shipped: bool
    """Whether it is the table shipped with the package (dated, its sources known)."""

    def price(self, model: str) -> ModelCost:
        """The price of `model`: an exact entry, else the entry it extends with a date
        or `-latest` (so `openai/gpt-4.1-2025-04-14` takes `openai/gpt-4.1`)."""
        if model in self.prices:
            return self.prices[model]
        matches = [
            name
            for name in self.prices
            if model.startswith(name) and _DATED.match(model, len(name)) is not None
        ]
        if not matches:
            known = ", ".join(sorted(self.prices))
            raise PersonaMemArgumentError(
                f"No price for {model!r} in {self.source}; known: {known}. Pass --prices FILE "
                "or --price-input/--price-cached-input/--price-output."
            )
        return self.prices[max(matches, key=len)]

    def note(self, model: str) -> str:
        """Where `model`'s price comes from: the file, and for the shipped table its
        date and the provider's pricing page."""
        if not self.shipped:
            return self.source
        page = PRICING_PAGES.get(model.split("/", 1)[0])
        return f"{self.source}, as of {SHIPPED_AS_OF}" + (f"; {page}" if page else "")


def load_prices(path: Path | None = None) -> PriceTable:
    """The shipped table, or a file in the same format (Inspect's model cost
    configuration, YAML or JSON)."""
    source = str(path) if path else f"inspect_personamem/cost/{PRICES_FILE}"
    text = (path or prices_path()).read_text(encoding="utf-8")
    data: Any = yaml.safe_load(text)  # JSON is YAML too
    expected = "{model: {input, output, input_cache_read, input_cache_write}}"
    if not isinstance(data, dict):
        raise PersonaMemDataError(f"{source}: expected an Inspect model cost config, {expected}")
    prices = {}
    for name, cost in data.items():
        try:
            prices[str(name)] = ModelCost.model_validate(cost)
        except ValidationError as ex:
            problem = ex.errors()[0]
            field = ".".join(map(str, problem["loc"])) or "its value"
            raise PersonaMemDataError(
                f"{source}: {name}: {field}: {problem['msg']} (expected an Inspect model "
                f"cost config, {expected})"
            ) from None
    return PriceTable(prices=prices, source=source, shipped=path is None)


def config_text(prices: Mapping[str, ModelCost], comment: str) -> str:
    """`prices` as an Inspect model cost config (YAML, one model a line, the shipped
    table's form), with `comment` above."""
    lines = [f"# {line}" for line in comment.splitlines()]
    for name, cost in prices.items():
        values = ", ".join(f"{key}: {value:g}" for key, value in cost.model_dump().items())
        lines.append(f"{name}: {{{values}}}")
    return "\n".join(lines)


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
