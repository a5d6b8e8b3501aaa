"""Each provider's batch terms, and what a batched run is."""

from __future__ import annotations

import pytest
from inspect_ai.model import BatchConfig, GenerateConfig, ModelCost

from inspect_personamem.cost.batch import BatchTerms, batch_terms, batched

STANDARD = ModelCost(input=2.0, output=8.0, input_cache_read=0.2, input_cache_write=2.5)


@pytest.mark.parametrize(
    ("rule", "read"),
    [("discounted", 0.1), ("standard", 0.2), ("uncached", 1.0)],
)
def test_a_batch_halves_input_output_and_writes_and_its_rule_prices_cache_reads(
    rule: str, read: float
) -> None:
    terms = BatchTerms(0.5, rule, page="p", cache_page="p")  # type: ignore[arg-type]
    assert terms.price(STANDARD) == ModelCost(
        input=1.0, output=4.0, input_cache_read=read, input_cache_write=1.25
    )
    assert terms.pages() == ["p"]


def test_each_provider_has_its_documented_terms() -> None:
    """OpenAI: no cache discount in a batch; Anthropic: both discounts stack; Google:
    cached tokens at the standard cached rate."""
    rules = {p: batch_terms(f"{p}/m") for p in ("openai", "anthropic", "google", "together")}
    assert {p: (t.share, t.cache_read) for p, t in rules.items() if t} == {
        "openai": (0.5, "uncached"),
        "anthropic": (0.5, "discounted"),
        "google": (0.5, "standard"),
        "together": (0.5, "uncached"),
    }
    assert batch_terms("mockllm/model") is None


@pytest.mark.parametrize(
    ("batch", "expected"),
    [(None, False), (False, False), (0, False), (True, True), (50, True),
     (BatchConfig(tick=1), True)],
)  # fmt: skip
def test_a_run_is_batched_as_inspect_reads_its_config(batch: object, expected: bool) -> None:
    assert batched(GenerateConfig(batch=batch)) is expected  # type: ignore[arg-type]
