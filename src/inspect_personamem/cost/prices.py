"""Model prices: the table shipped with the package (dated, with its sources) or a user's."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from importlib.resources import files as package_files
from pathlib import Path
from typing import Any

import yaml

from inspect_personamem.errors import PersonaMemArgumentError, PersonaMemDataError

PER_MILLION = 1_000_000


@dataclass(frozen=True)
class Price:
    """US dollars per million tokens."""

    input: float
    cached_input: float
    output: float
    cache_write: float | None = None
    """Anthropic-style surcharge on tokens written to the cache; None if free."""


_DATED = re.compile(r"-(\d|latest$)")
"""What may follow a table entry in a model name: a date or version (`-2025-04-14`,
`-20250219`) or `-latest`, but not another model's name (`openai/o3-pro`)."""


@dataclass(frozen=True)
class PriceTable:
    prices: dict[str, Price]
    as_of: str
    source: str
    sources: dict[str, str] = field(default_factory=dict)
    """Provider -> the pricing page the table's prices were taken from."""

    def price(self, model: str) -> Price:
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


def load_prices(path: Path | None = None) -> PriceTable:
    """The shipped price table, or a file in the same format."""
    source = str(path) if path else "inspect_personamem/cost/prices.yaml"
    text = (
        path.read_text(encoding="utf-8")
        if path
        else package_files("inspect_personamem.cost").joinpath("prices.yaml").read_text("utf-8")
    )
    data: dict[str, Any] = yaml.safe_load(text)
    try:
        prices = {name: Price(**values) for name, values in data["models"].items()}
    except (KeyError, TypeError) as ex:
        raise PersonaMemDataError(
            f"{source}: expected 'models: {{name: {{input, cached_input, output}}}}' ({ex})"
        ) from None
    return PriceTable(
        prices=prices,
        as_of=str(data.get("as_of", "unknown")),
        source=source,
        sources={str(k): str(v) for k, v in (data.get("sources") or {}).items()},
    )
