"""The cost estimate, its batch prices, and the reported-usage comparison."""

from __future__ import annotations

from pathlib import Path

import pytest
from inspect_ai.model import ModelCost
from support.helpers import mock_model, run_task

from inspect_personamem.cli import main
from inspect_personamem.cost.estimate import CostEstimate, Plan, _estimate, estimate
from inspect_personamem.cost.prices import LongContext, load_prices
from inspect_personamem.cost.prompt_cache import CacheSettings, ideal_cached_tokens
from inspect_personamem.cost.usage import logged_usage
from inspect_personamem.data.requests import GraderCalls, Request
from inspect_personamem.datasets.declared import Where
from inspect_personamem.datasets.registry import version
from inspect_personamem.datasets.v1.cost import requests_for
from inspect_personamem.datasets.v1.records import read_questions


def estimate_cost(folder: Path, plan: Plan) -> CostEstimate:
    """The estimate of the 32k split in `folder`."""
    return estimate(version("v1"), {"split": "32k"}, Where(folder), plan)


def test_token_counts_come_from_the_question_file(small_split: Path) -> None:
    result = estimate_cost(small_split, Plan(output_tokens_per_question=100))
    records = read_questions(small_split / "questions_32k.csv", "32k")
    history = sum(int(r.columns["context_length_in_tokens"]) for r in records)
    assert result.questions == 24 and result.prefix_tokens == history
    assert result.cache.input_tokens > history  # plus the final user messages
    assert result.output_tokens == 2400
    assert result.ideal_cached_tokens == ideal_cached_tokens(requests_for(records))


@pytest.mark.slow  # an end-to-end run
def test_a_limit_counts_the_questions_inspect_eval_limit_asks(
    small_split: Path, tmp_path: Path
) -> None:
    """`--limit N` prices the first N questions in the task's order: the ones a run with
    `inspect eval --limit N` asks."""
    result = estimate_cost(small_split, Plan(limit=5, output_tokens_per_question=10))
    log = run_task(
        "inspect_personamem/personamem_32k", mock_model(lambda m: "(a)"), tmp_path,
        {"data_dir": str(small_split)}, limit=5,
    )  # fmt: skip
    asked = {str(sample.id) for sample in log.samples or []}
    records = {r.question_id: r for r in read_questions(small_split / "questions_32k.csv", "32k")}
    history = sum(int(records[q].columns["context_length_in_tokens"]) for q in asked)
    assert (result.questions, result.output_tokens, result.prefix_tokens) == (5, 50, history)


def test_cost_with_and_without_caching(small_split: Path) -> None:
    result = estimate_cost(small_split, Plan(settings=CacheSettings(1, 1.0, None)))
    assert result.cache.cached_tokens == result.ideal_cached_tokens > 0
    price = ModelCost(input=2.0, input_cache_read=0.5, input_cache_write=2.0, output=8.0)
    inputs, cached = result.cache.input_tokens, result.cache.cached_tokens
    assert result.cost(price, caching=False) == pytest.approx(
        (inputs * 2.0 + result.output_tokens * 8.0) / 1e6
    )
    assert result.cost(price, caching=True) == pytest.approx(
        ((inputs - cached) * 2.0 + cached * 0.5 + result.output_tokens * 8.0) / 1e6
    )
    # Anthropic-style: tokens written to the cache cost a surcharge
    written = result.prefix_tokens - cached
    anthropic = ModelCost(input=3.0, input_cache_read=0.3, input_cache_write=3.75, output=15.0)
    assert result.cost(anthropic, caching=True) == pytest.approx(
        (
            (inputs - cached - written) * 3.0
            + cached * 0.3
            + written * 3.75
            + result.output_tokens * 15.0
        )
        / 1e6
    )


def test_the_estimate_prices_a_batch_by_the_providers_terms(
    small_split: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Half price; OpenAI's cache reads get no discount in a batch (so caching changes
    nothing), Anthropic's keep theirs, halved too."""
    result = estimate_cost(small_split, Plan(settings=CacheSettings(10)))  # the command's
    table = load_prices()
    for model, cache_counts in (("openai/gpt-4.1", False), ("anthropic/claude-3-7-sonnet", True)):
        main(["estimate", "--split", "32k", "--model", model, "--data-dir", str(small_split)])
        rows = {line[:21].strip(): line[22:] for line in capsys.readouterr().out.splitlines()}
        standard = table.price(model)
        without = result.cost(standard, caching=False) / 2
        cached = result.cost(standard, caching=True) / 2 if cache_counts else without
        assert rows["batch cost"].startswith(
            f"${without:,.2f} without caching, ${cached:,.2f} with the share above"
        )
        assert rows["batch terms"].startswith(model.split("/")[0] + ": 50% off; ")
    main(["estimate", "--split", "32k", "--model", "x/y", "--data-dir", str(small_split),
          "--price-input", "1", "--price-cached-input", "0.1", "--price-output", "2"])  # fmt: skip
    assert "batch cost            no batch terms known for x" in capsys.readouterr().out


@pytest.mark.slow  # an end-to-end run
def test_compare_reads_the_usage_the_provider_reported(
    small_split: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = run_task(
        "inspect_personamem/personamem_32k",
        mock_model(lambda messages: "<final_answer>(a)"),
        tmp_path / "logs",
        {"data_dir": str(small_split)},
    )
    assert log.location
    usage = logged_usage(Path(log.location))
    # the mock reports one input token per message sent: the history and the question
    records = read_questions(small_split / "questions_32k.csv", "32k")
    assert usage.uncached_input == sum(r.end_index + 1 for r in records)
    assert usage.samples == 24 and usage.output == 24 and usage.cache_read == 0
    main(
        [
            "estimate", "--split", "32k", "--model", "x/y", "--data-dir", str(small_split),
            "--price-input", "1", "--price-cached-input", "0.1", "--price-output", "2",
            "--compare", log.location,
        ]
    )  # fmt: skip
    out = capsys.readouterr().out
    assert "reported by the provider (24 samples in the log)" in out
    assert f"input tokens   {usage.input:,} (cached 0 = 0.0%" in out
    assert "cost           not logged (Inspect logs it where it has the price" in out
    assert "given on the command line" in out


def test_a_request_over_a_long_context_threshold_is_priced_whole_at_the_tier() -> None:
    """Two contexts' requests, one over 200k input tokens: it alone, input and output, at
    the tier's prices; caching splits each request's prefix into reads and writes."""
    requests = [Request("a", 100_000, 150_000), Request("b", 250_000, 300_000)]
    result = _estimate("t", "s", "d", requests, Plan("file", settings=CacheSettings(1, 1, None)))
    price = ModelCost(input=3.0, input_cache_read=0.3, input_cache_write=3.75, output=15.0)
    tier = LongContext(200_000, ModelCost(input=6, input_cache_read=0.6, input_cache_write=7.5,
                                          output=22.5))  # fmt: skip
    out = result.output_tokens_per_question
    assert result.long_context_requests(tier) == 1
    assert result.cost(price, caching=False, tier=tier) == pytest.approx(
        (150_000 * 3 + out * 15 + 300_000 * 6 + out * 22.5) / 1e6
    )
    assert result.cost(price, caching=False) == pytest.approx((450_000 * 3 + 2 * out * 15) / 1e6)
    # nothing shared across contexts: each prefix written, the rest input
    assert result.cost(price, caching=True, tier=tier) == pytest.approx(
        (50_000 * 3 + 100_000 * 3.75 + out * 15 + 50_000 * 6 + 250_000 * 7.5 + out * 22.5) / 1e6
    )


def test_the_graders_calls_follow_the_questions_sent_and_are_priced_each() -> None:
    """`--limit` keeps the calls of the questions it sends; a call over the tier's
    threshold is priced at the tier."""
    requests = [Request("a", 0, 10, 1), Request("a", 0, 10, 0), Request("b", 0, 10, 0)]
    calls = GraderCalls([(100,), (), (300_000, 50)], "judges")
    plan = Plan("grouped", limit=2, grader_output_tokens=10)
    result = _estimate("t", "s", "d", requests, plan, calls)
    assert result.grader is not None  # grouped: a's end 0, a's end 1
    assert list(result.grader.prompts) == [(), (100,)]
    price = ModelCost(input=1.0, input_cache_read=0.1, input_cache_write=1.0, output=2.0)
    assert result.grader_cost(price) == pytest.approx((100 + 10 * 2) / 1e6)
    whole = _estimate("t", "s", "d", requests, Plan(grader_output_tokens=10), calls)
    tier = LongContext(200_000, ModelCost(input=5, input_cache_read=1, input_cache_write=5,
                                          output=7))  # fmt: skip
    assert whole.grader_cost(price, tier) == pytest.approx(
        (150 * 1 + 2 * 10 * 2 + 300_000 * 5 + 10 * 7) / 1e6
    )


def test_a_model_without_a_price_is_said_to_have_none(
    small_split: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    main(["estimate", "--split", "32k", "--model", "openai/o1", "--data-dir", str(small_split)])
    rows = dict(line.split("  ", 1) for line in capsys.readouterr().out.splitlines())
    rows = {name: value.strip() for name, value in rows.items()}
    assert rows["price"].startswith("no price for openai/o1 in inspect_personamem/cost/")
    assert rows["cost"] == "no price" and "$" not in "".join(rows.values())
