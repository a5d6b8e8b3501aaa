"""What each run cost beside what it scored (`report/costs.py`)."""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path

import pytest
from inspect_ai.log import read_eval_log, write_eval_log
from inspect_ai.model import get_model
from support.reports import (
    QUESTIONS,
    Logs,
    close,
    counting_model,
    expected_from_log,
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
