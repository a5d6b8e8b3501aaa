"""What a run costs under `--batch`: each provider's batch discount, and what its prompt
cache is worth inside a batch, as its own pages say.

Inspect sends a provider's batch API the same requests (`inspect eval --batch`), and
prices the calls at the rates of the cost configuration it was given, which knows no
batch discount: a batch's own prices are derived here from the standard ones
(`BatchTerms.price`), for the estimate, for `inspect-personamem prices --batch` (a cost
configuration at batch rates, to pass to Inspect for a batched run) and for the report
of a batched run that Inspect did not price.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from inspect_ai.model import GenerateConfig, ModelCost

from inspect_personamem.cost.prices import LongContext

CacheReadInBatch = Literal["discounted", "standard", "uncached"]
"""What a token read from the prompt cache costs in a batch: the cached rate with the
batch discount (`discounted`), the cached rate without it (`standard`), or no cache
discount at all, the batch input rate (`uncached`)."""

_CACHE_READ_WORDS: dict[CacheReadInBatch, str] = {
    "discounted": "cache reads and writes get it too",
    "standard": "cache reads are billed at the standard cached rate",
    "uncached": "cache reads get no cache discount in a batch",
}


@dataclass(frozen=True)
class BatchTerms:
    """A provider's batch prices, relative to its standard ones."""

    share: float
    """The share of the standard price a batch pays (0.5: half price)."""
    cache_read: CacheReadInBatch
    page: str
    """The page that states the discount."""
    cache_page: str
    """The page that states what cache reads cost in a batch (or that says nothing)."""

    def price(self, standard: ModelCost) -> ModelCost:
        """The batch price of a model whose standard price is `standard`."""
        input = standard.input * self.share
        reads = {
            "discounted": standard.input_cache_read * self.share,
            "standard": standard.input_cache_read,
            "uncached": input,
        }
        return ModelCost(
            input=input,
            output=standard.output * self.share,
            input_cache_read=reads[self.cache_read],
            input_cache_write=standard.input_cache_write * self.share,
        )

    def tier(self, standard: LongContext) -> LongContext:
        """The batch price of a long-context tier whose standard price is `standard`."""
        return LongContext(standard.above, self.price(standard.price))

    def pages(self) -> list[str]:
        """The pages that state the terms."""
        return list(dict.fromkeys((self.page, self.cache_page)))

    def words(self) -> str:
        """The terms in a few words."""
        return f"{1 - self.share:.0%} off; {_CACHE_READ_WORDS[self.cache_read]}"


BATCH_TERMS: dict[str, BatchTerms] = {
    "openai": BatchTerms(
        0.5,
        "uncached",
        page="https://platform.openai.com/docs/guides/batch",
        # its FAQ: "Discounting for Prompt Caching is not available on the Batch API"
        # (newer models than the shipped table's list batch cached rates: check yours)
        cache_page="https://platform.openai.com/docs/guides/prompt-caching",
    ),
    "anthropic": BatchTerms(
        0.5,
        "discounted",
        # "All usage is charged at 50% of the standard API prices"; "The pricing
        # discounts from prompt caching and Message Batches can stack" (cache hits in a
        # batch are best-effort: "30% to 98%")
        page="https://docs.anthropic.com/en/docs/build-with-claude/batch-processing",
        cache_page="https://docs.anthropic.com/en/docs/build-with-claude/batch-processing",
    ),
    "google": BatchTerms(
        0.5,
        "standard",
        # "Batch Mode usage is priced at 50% of the standard interactive API cost";
        # "the cached tokens are priced the same as for non-batch mode traffic"
        page="https://ai.google.dev/gemini-api/docs/batch-mode",
        cache_page="https://ai.google.dev/gemini-api/docs/batch-mode",
    ),
    "together": BatchTerms(
        0.5,
        # its pages say nothing of cache reads in a batch: priced as batch input, the
        # most they could cost
        "uncached",
        page="https://docs.together.ai/docs/inference/pricing",
        cache_page="https://docs.together.ai/docs/inference/batch/overview",
    ),
}
"""Provider (the model name's prefix, as Inspect names providers) -> its batch terms;
the providers whose batch APIs Inspect drives and that publish a discount."""


def batch_terms(model: str) -> BatchTerms | None:
    """The batch terms of `model`'s provider; None where none are known."""
    return BATCH_TERMS.get(model.split("/", 1)[0])


def batch_table(prices: Mapping[str, ModelCost]) -> dict[str, ModelCost]:
    """The models of `prices` whose provider has batch terms, at their batch prices."""
    return {
        name: terms.price(cost)
        for name, cost in prices.items()
        if (terms := batch_terms(name)) is not None
    }


def batched(config: GenerateConfig) -> bool:
    """Whether a generation config sends requests through the provider's batch API
    (`batch` true, a batch size, or a `BatchConfig`; Inspect's own reading)."""
    return bool(config.batch)
