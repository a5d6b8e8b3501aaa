"""The price table: an Inspect model cost configuration, shipped, dated, and printed
by `inspect-personamem prices` as is or at batch prices."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from inspect_ai.model import ModelCost, ModelUsage, compute_model_cost, get_model_info

from inspect_personamem.cli import main
from inspect_personamem.cost.batch import BATCH_TERMS
from inspect_personamem.cost.prices import load_prices, prices_path, tokens_cost


def test_price_table_is_dated_and_matches_dated_model_names(tmp_path: Path) -> None:
    table = load_prices()
    assert table.note("openai/gpt-4.1") == (
        "inspect_personamem/cost/model_costs.yaml, as of 2025-06; "
        "https://platform.openai.com/docs/pricing"
    )
    assert table.price("openai/gpt-4.1-2025-04-14") == table.price("openai/gpt-4.1")
    assert table.price("openai/gpt-4.1-mini").input < table.price("openai/gpt-4.1").input
    assert table.price("anthropic/claude-3-7-sonnet-latest") == table.price(
        "anthropic/claude-3-7-sonnet"
    )
    with pytest.raises(ValueError, match="No price for 'openai/o3-pro'"):
        table.price("openai/o3-pro")  # not o3 with a date: another model
    with pytest.raises(ValueError, match="No price for 'openai/unknown'.*--prices FILE"):
        table.price("openai/unknown")
    own = tmp_path / "prices.json"  # JSON too, as Inspect reads it
    own.write_text('{"x/y": {"input": 1, "output": 2, "input_cache_read": 0.1, '
                   '"input_cache_write": 1}}')  # fmt: skip
    assert load_prices(own).price("x/y") == ModelCost(
        input=1, output=2, input_cache_read=0.1, input_cache_write=1
    )
    assert load_prices(own).note("x/y") == str(own)
    own.write_text("x/y: {input: 1}\n")
    with pytest.raises(ValueError, match="x/y: output: Field required .expected an Inspect"):
        load_prices(own)


def test_every_model_in_the_table_is_one_inspect_can_price() -> None:
    """Inspect's `--model-cost-config` accepts only models its database knows (it fails
    the whole run otherwise): every entry is one of them."""
    for model in load_prices().prices:
        assert get_model_info(model) is not None, model


def test_tokens_are_priced_by_inspects_own_formula() -> None:
    price = load_prices().price("anthropic/claude-3-7-sonnet")
    usage = ModelUsage(
        input_tokens=1000, output_tokens=30, input_tokens_cache_read=5000,
        input_tokens_cache_write=700,
    )  # fmt: skip
    assert tokens_cost(price, 1000, 5000, 700, 30) == compute_model_cost(price, usage)
    assert tokens_cost(price, 0.5, 0, 0, 0) == pytest.approx(1.5e-6)  # a mean: a fraction


def test_prices_command_prints_the_path_and_the_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["prices", "--path"]) == 0
    path = Path(capsys.readouterr().out.strip())
    assert path == prices_path() and path.is_file()
    main(["prices"])
    printed = tmp_path / "standard.yaml"
    printed.write_text(capsys.readouterr().out)
    assert load_prices(printed).prices == load_prices().prices
    assert load_prices(printed).tiers == load_prices().tiers  # printed with their tiers
    main(["prices", "--batch"])
    out = capsys.readouterr().out
    batch = tmp_path / "batch.yaml"
    batch.write_text(out)
    prices = load_prices(batch).prices
    standard = load_prices().prices
    assert prices.keys() == {m for m in standard if m.split("/")[0] in BATCH_TERMS}
    gpt, claude = prices["openai/gpt-4.1"], prices["anthropic/claude-3-7-sonnet"]
    assert (gpt.input, gpt.output, gpt.input_cache_read) == (1.0, 4.0, 1.0)
    assert (claude.input, claude.input_cache_read, claude.input_cache_write) == (1.5, 0.15, 1.875)
    assert all(line.startswith("# ") for line in out.splitlines()[:6])
    assert "https://docs.anthropic.com/en/docs/build-with-claude/batch-processing" in out
    assert yaml.safe_load(out).keys() == prices.keys()  # nothing else for Inspect to read
    assert load_prices(batch).tiers["openai/gpt-5.5"].price.input == 5.0  # the tier halved


def test_the_table_prices_the_models_the_docs_name_with_their_tiers_and_pages() -> None:
    table = load_prices()
    gpt, sonnet = table.price("openai/gpt-5.5"), table.price("anthropic/claude-sonnet-4-6")
    assert (gpt.input, gpt.input_cache_read, gpt.output) == (5.0, 0.5, 30.0)
    assert (sonnet.input, sonnet.input_cache_read, sonnet.input_cache_write) == (3.0, 0.3, 3.75)
    assert table.tier("anthropic/claude-sonnet-4-6") is None  # its 1M window at one price
    tier = table.tier("openai/gpt-5.5-2026-04-23")  # a dated version takes its model's tier
    assert tier is not None and tier.above == 272_000 and tier.price.input == 10.0
    sonnet_4 = table.tier("anthropic/claude-sonnet-4")
    assert sonnet_4 is not None and (sonnet_4.above, sonnet_4.price.output) == (200_000, 22.5)
    assert table.note("openai/gpt-5.5").startswith(
        "inspect_personamem/cost/model_costs.yaml, as of 2026-11-29; https://"
    )
    assert table.entry("openai/o1") is None  # named by the docs, no price found


def test_inspect_reads_the_entries_as_it_reads_any_cost_config() -> None:
    """Inspect makes `ModelCost(**entry)` of each entry: the keys it does not know (the
    tier, the date, the page) are left out, the standard prices kept."""
    for name, entry in yaml.safe_load(prices_path().read_text()).items():
        assert ModelCost(**entry) == load_prices().prices[name]


def test_a_tier_without_its_threshold_is_refused_in_one_line(tmp_path: Path) -> None:
    own = tmp_path / "prices.yaml"
    own.write_text("x/y: {input: 1, output: 2, input_cache_read: 0.1, input_cache_write: 1, "
                   "long_context: {input: 2, output: 3, input_cache_read: 0.2, "
                   "input_cache_write: 2}}\n")  # fmt: skip
    with pytest.raises(ValueError, match="x/y: long_context.above: a positive token count"):
        load_prices(own)
    own.write_text("x/y: {input: 1, output: 2, input_cache_read: 0.1, input_cache_write: 1, "
                   "long_context: {above: 5, input: 2}}\n")  # fmt: skip
    with pytest.raises(ValueError, match="x/y: long_context: output: Field required"):
        load_prices(own)
