"""What each run cost beside what it scored (`report/costs.py`)."""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from inspect_ai.event import ModelEvent
from inspect_ai.log import read_eval_log, write_eval_log
from inspect_ai.model import (
    ChatMessage,
    GenerateConfig,
    Model,
    ModelOutput,
    ModelUsage,
    get_model,
)
from support.reports import (
    QUESTIONS,
    Logs,
    close,
    counting_model,
    expected_from_log,
    hashed_answer,
    mean,
    png_size,
    read_csv,
    run,
)
from support.servers.openai_chat import oracle_answers, serve_chat

from inspect_personamem.cost.prices import load_prices, prices_path, tokens_cost
from inspect_personamem.report import build_report
from inspect_personamem.report.costs import question_cost, run_cost

pytest.importorskip("matplotlib", reason="needs the report extra: pip install -e '.[report]'")

from inspect_personamem.report.figures import DPI, SIZES  # noqa: E402


def test_cost_beside_accuracy_with_the_stand_ins_tokens_and_a_known_price(
    logs: Logs, tmp_path: Path
) -> None:
    """model-a's full- and no-history runs, recorded as `openai/gpt-4o-mini` (0.15 and
    0.60 dollars per million input and output tokens in the shipped table)."""
    locations: dict[str, str] = {}
    counts: dict[str, list[int]] = {}
    for history in ("full", "none"):
        counts[history] = []
        model = counting_model(counts[history])
        location = run(model, tmp_path / history, logs.data, task_args={"history": history})
        log = read_eval_log(location)
        log.eval.model = "openai/gpt-4o-mini"
        locations[history] = str(tmp_path / f"{history}.json")
        write_eval_log(log, locations[history])
    report = build_report(list(locations.values()), tmp_path / "out")
    rows = {row["method"]: row for row in read_csv(tmp_path / "out", "cost")}
    dollars = {}
    for history in ("full", "none"):
        row = rows[{"full": "full history", "none": "no history"}[history]]
        sent, replied = sum(counts[history]) / QUESTIONS, len(counts[history]) / QUESTIONS
        assert close(row["input tokens"], sent) and close(row["output tokens"], replied)
        assert row["cached input tokens"] == "0.0" and row["memory input tokens"] == ""
        dollars[history] = (sent * 0.15 + replied * 0.60) / 1e6
        assert close(row["USD"], dollars[history]) and row["USD from"] == "computed"
    full, none = (expected_from_log(locations[k]) for k in ("full", "none"))
    gain = mean(list(full.values.values())) - mean(list(none.values.values()))
    assert gain > 0 and close(rows["full history"]["gain"], gain)
    per_point = (dollars["full"] - dollars["none"]) / (100 * gain)
    assert close(rows["full history"]["USD per point"], per_point)
    assert rows["no history"]["gain"] == rows["no history"]["USD per point"] == ""
    [figure] = [f for f in report.figures if f.files[0].name == "cost.png"]
    width, height = SIZES["cost"]
    assert png_size(tmp_path / "out" / figure.files[0]) == (round(width * DPI), round(height * DPI))


def test_the_cost_inspect_logged_is_read_and_a_cost_limit_counted_apart(
    logs: Logs, tmp_path: Path
) -> None:
    """Runs priced by Inspect (`--model-cost-config`, the package's table) of a local
    stand-in of OpenAI's API: a run, an open run graded on the same stand-in (its
    grader's cost left out), and a run under a `--cost-limit` (its stopped questions
    counted apart). Each question's dollars are the cost Inspect logged, which its
    tokens at the table's price give too."""
    costs, table = str(prices_path()), load_prices()
    with serve_chat(oracle_answers(logs.data / "questions_128k.csv", 0.8)) as server:
        model = get_model("openai/gpt-4.1", base_url=server.url, api_key="stand-in")
        grader = get_model("openai/gpt-4.1", base_url=server.url, api_key="x", memoize=False)
        priced = run(model, tmp_path / "logs", logs.data, model_cost_config=costs, limit=12)
        graded = run(
            model, tmp_path / "logs", logs.data, model_cost_config=costs, limit=6,
            model_roles={"grader": grader}, task_args={"answer": "open"},
        )  # fmt: skip
        spent = sorted(
            s.model_usage["openai/gpt-4.1"].total_cost or 0.0
            for s in read_eval_log(priced).samples or []
        )
        limit = spent[len(spent) // 2]
        limited = run(
            model, tmp_path / "logs", logs.data, model_cost_config=costs, cost_limit=limit,
            limit=12,
        )  # fmt: skip
    report = build_report([tmp_path / "logs"], tmp_path / "out")
    by_log = {s.run.location: s for s in report.summaries}
    for location in (priced, graded, limited):
        summary = by_log[location]
        cost = run_cost(summary, table)
        assert cost.source == "logged"
        samples = {str(s.id): s for s in read_eval_log(location).samples or []}
        logged = []
        for question in summary.run.samples:
            usage = samples[question.id].model_usage["openai/gpt-4.1"]
            roles = samples[question.id].role_usage
            answering = (usage.total_cost or 0.0) - sum(r.total_cost or 0.0 for r in roles.values())
            assert question.logged_cost == pytest.approx(answering)
            t = question.tokens
            computed = tokens_cost(table.price("openai/gpt-4.1"), t.uncached_input,
                                   t.cache_read, t.cache_write, t.output)  # fmt: skip
            assert computed == pytest.approx(answering)
            logged.append(answering)
        assert cost.dollars == pytest.approx(sum(logged) / len(logged))
    first = by_log[graded].run.samples[0]
    graded_samples = {str(s.id): s for s in read_eval_log(graded).samples or []}
    whole = graded_samples[first.id].model_usage["openai/gpt-4.1"].total_cost
    assert first.logged_cost is not None and whole is not None
    assert first.logged_cost < whole  # the grader's calls are left out
    stopped = sum(cost > limit for cost in spent)
    assert by_log[limited].run.limits == {"cost": stopped} and stopped > 0
    assert len(by_log[limited].run.samples) == len(spent) - stopped
    assert any(f"(cost limit: {stopped})" in note for note in report.notes)
    assert {row["USD from"] for row in read_csv(tmp_path / "out", "cost")} == {"logged"}


def test_a_cost_not_logged_is_computed_and_says_so(logs: Logs, tmp_path: Path) -> None:
    """A run's questions without a logged cost are priced from their tokens (a batched
    run's at its provider's batch prices); with some logged, the rest are; without a
    price, nothing is."""
    report = build_report([logs.locations["a_full"]], tmp_path / "out")
    (summary,) = report.summaries
    table = load_prices()
    run_ = replace(summary.run, model="openai/gpt-4.1")
    unlogged = replace(summary, run=run_)
    computed = run_cost(unlogged, table)
    assert computed.source == "computed" and computed.dollars > 0
    batched = run_cost(replace(summary, run=replace(run_, batched=True)), table)
    assert batched.source == "batch, computed"
    assert batched.dollars == pytest.approx(computed.dollars / 2)  # no cache reads here
    questions = run_.samples
    part = replace(questions[0], logged_cost=1.0)
    partly = run_cost(replace(summary, run=replace(run_, samples=(part, *questions[1:]))), table)
    assert partly.source == "partly computed"
    first = question_cost(questions[0], table.price("openai/gpt-4.1"))
    assert partly.dollars == pytest.approx(computed.dollars + (1.0 - first) / len(questions))
    unpriced = run_cost(summary, table)  # mockllm/model-a: no price
    assert unpriced.source == "none" and math.isnan(unpriced.dollars)


def sized_model(input_tokens: int) -> Model:
    """model-a's answers, each call's usage `input_tokens` of input and one output token."""

    def output(
        messages: list[ChatMessage], tools: Any, tool_choice: Any, config: GenerateConfig
    ) -> ModelOutput:
        result = ModelOutput.from_content("model-a", hashed_answer("a", messages))
        result.usage = ModelUsage(
            input_tokens=input_tokens, output_tokens=1, total_tokens=input_tokens + 1
        )
        return result

    return get_model("mockllm/model-a", custom_outputs=output)


TIERED = "anthropic/claude-sonnet-4"
"""A model with a long-context tier in the shipped table (over 200k input tokens)."""


def tiered_log(
    logs: Logs, folder: Path, input_tokens: int, calls: int = 1, events: bool = True
) -> str:
    """A run of `sized_model(input_tokens)`, recorded as `TIERED`: its samples' one call
    each, or, made `calls` calls of that size (the call's model event repeated, the
    sample's usage and turns to match), their events logged or not."""
    location = run(sized_model(input_tokens), folder, logs.data, limit=4)
    log = read_eval_log(location)
    log.eval.model = TIERED
    for sample in log.samples or []:
        [call] = [e for e in sample.events if isinstance(e, ModelEvent)]
        at = sample.events.index(call)
        sample.events[at:at] = [call.model_copy(deep=True) for _ in range(calls - 1)]
        sample.turn_count = calls
        for usage in sample.model_usage.values():
            usage.input_tokens *= calls
            usage.output_tokens *= calls
        if not events:
            sample.events = []
    path = str(folder / f"{input_tokens}x{calls}{'' if events else '-no-events'}.json")
    write_eval_log(log, path)
    return path


def test_a_call_over_the_long_context_threshold_is_priced_at_the_tier(
    logs: Logs, tmp_path: Path
) -> None:
    """Claude Sonnet 4 prices a request over 200k input tokens whole at $6 / $22.50 a
    million (its standard $3 / $15): a question of one 250k-token call at the tier, of
    one 150k-token call at the standard price, and of two 150k-token calls (300k in all,
    neither call over) at the standard price, each call read from the log's events; a
    batched run's tier at its provider's batch terms."""
    table = load_prices()
    tier = table.tier(TIERED)
    assert tier is not None and tier.above == 200_000
    cases = {
        "over": (250_000, 1, tier.price, "computed; 4 at the long-context tier"),
        "under": (150_000, 1, table.price(TIERED), "computed"),
        "split": (150_000, 2, table.price(TIERED), "computed"),
    }
    for name, (size, calls, price, says) in cases.items():
        location = tiered_log(logs, tmp_path / name, size, calls)
        report = build_report([location], tmp_path / f"out-{name}")
        (summary,) = report.summaries
        cost = run_cost(summary, table)
        expected = tokens_cost(price, size * calls, 0, 0, calls)
        assert cost.dollars == pytest.approx(expected), name
        assert cost.says == says and cost.tier_unknown == 0
        [row] = read_csv(tmp_path / f"out-{name}", "cost")
        assert row["USD from"] == says
        if name == "over":  # batched: the tier at the provider's batch terms (half)
            batched = run_cost(replace(summary, run=replace(summary.run, batched=True)), table)
            assert batched.dollars == pytest.approx(expected / 2) and batched.tiered == 4


def test_calls_that_cannot_be_told_apart_are_priced_standard_and_said_so(
    logs: Logs, tmp_path: Path
) -> None:
    """Two calls a question, 300k input tokens in all, without their events in the log:
    which of them the tier prices is unknown, so the question is priced at the
    standard rate (the least it cost) and the run says so beside the figure (its
    table's `USD from`); a run Inspect priced says its logged figure is the standard
    rate for the questions over the threshold."""
    table = load_prices()
    location = tiered_log(logs, tmp_path / "blind", 150_000, calls=2, events=False)
    report = build_report([location], tmp_path / "out")
    (summary,) = report.summaries
    cost = run_cost(summary, table)
    assert cost.dollars == pytest.approx(tokens_cost(table.price(TIERED), 300_000, 0, 0, 2))
    assert (cost.tier_unknown, cost.tiered) == (4, 0)
    assert cost.says == "computed; tier unknown for 4 (standard rate)"
    [row] = read_csv(tmp_path / "out", "cost")
    assert row["USD from"] == cost.says
    over = read_eval_log(tiered_log(logs, tmp_path / "logged", 250_000))
    for sample in over.samples or []:
        for usage in sample.model_usage.values():
            usage.total_cost = 0.75  # as Inspect logs it: the standard rate
    write_eval_log(over, str(tmp_path / "logged.json"))
    (logged,) = build_report([tmp_path / "logged.json"], tmp_path / "out-logged").summaries
    priced = run_cost(logged, table)
    assert priced.dollars == pytest.approx(0.75)
    assert priced.says == "logged; Inspect's standard rate for 4 with input over the tier"
