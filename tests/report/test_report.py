"""The report, end to end: real logs from mockllm runs over a synthetic split.

One module-scoped set of logs covers the cases real users bring: two models, a
full-history and a no-history run of the same model, the same model and setting
run twice (one with sample errors), two epochs, an interrupted run and another
task's log. Every table value is checked against a recomputation made here from
the full samples (`read_eval_log`, not the summaries the report reads).
"""

from __future__ import annotations

import base64
import csv
import hashlib
import html
import json
import math
import re
import shutil
import struct
import subprocess
import sys
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest
from helpers import mock_model
from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai.dataset import Sample
from inspect_ai.log import EvalLog, read_eval_log, write_eval_log
from inspect_ai.model import ChatMessage, Model
from inspect_ai.scorer import match
from released import synthetic_data_stands_for_the_release  # noqa: F401 (autouse)

from inspect_personamem.cli import main
from inspect_personamem.datasets.v1.generator import generate_split, write_questions
from inspect_personamem.datasets.v1.question_types import CATEGORIES, CATEGORY_TITLES
from inspect_personamem.datasets.v1.spec import PERSONAMEM
from inspect_personamem.report import ReportError, build_report
from inspect_personamem.report.accuracy import accuracy_of
from inspect_personamem.report.axes import axes_label
from inspect_personamem.report.build import Report
from inspect_personamem.report.differences import paired_difference, t_quantile
from inspect_personamem.report.glance import CAVEATS
from inspect_personamem.report.labels import run_labels
from inspect_personamem.report.logs import SampleResult, read_runs

pytest.importorskip("matplotlib", reason="needs the report extra: pip install -e '.[report]'")
pytestmark = pytest.mark.report

from inspect_personamem.datasets.v1.figures import SIZE as PUBLISHED_SIZE  # noqa: E402
from inspect_personamem.report.figures import DPI, SIZES  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
TASK = "inspect_personamem/personamem_128k"
T_975 = {
    1: 12.706204736174698,
    2: 4.302652729749464,
    3: 3.182446305284263,
    4: 2.7764451051977987,
}
"""Student's t, 97.5% quantile, by degrees of freedom."""
CONTEXTS = 4
TAB10 = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728"]
"""matplotlib's first four colours, each run's in the order the runs started."""
QUESTIONS = 24


def hashed_answer(tag: str, messages: list[ChatMessage], salt: str = "") -> str:
    """A fixed reply per (model, prompt): a letter, or no letter at all (unparsed)."""
    digest = hashlib.sha256(f"{tag}|{len(messages)}|{messages[-1].text}|{salt}".encode())
    choice = digest.digest()[0] % 5
    return "I cannot tell." if choice == 4 else f"<final_answer>({'abcd'[choice]})"


@dataclass
class Logs:
    folder: Path
    data: Path
    locations: dict[str, str]


def run(model: Model, logs: Path, data: Path, **kwargs: Any) -> str:
    task_args = {"data_dir": str(data), **kwargs.pop("task_args", {})}
    [log] = inspect_eval(
        TASK, task_args=task_args, model=model, log_dir=str(logs), display="none", **kwargs
    )
    return str(log.location)


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> Logs:
    root = tmp_path_factory.mktemp("report")
    data, folder = root / "data", root / "logs"
    generate_split(
        data, "128k", contexts=CONTEXTS, min_messages=12, max_messages=24, questions=QUESTIONS
    )
    locations: dict[str, str] = {}

    def model_a(messages: list[ChatMessage]) -> str:
        return hashed_answer("a", messages)

    locations["a_full"] = run(mock_model(model_a, "mockllm/model-a"), folder, data)
    locations["a_none"] = run(
        mock_model(model_a, "mockllm/model-a"),
        folder,
        data,
        task_args={"history": "none"},
    )

    calls = {"b": 0}

    def model_b(messages: list[ChatMessage]) -> str:
        calls["b"] += 1  # differs between epochs
        return hashed_answer("b", messages, salt=str(calls["b"]))

    locations["b_epochs"] = run(mock_model(model_b, "mockllm/model-b"), folder, data, epochs=2)

    def model_a_failing(messages: list[ChatMessage]) -> str:
        if hashed_answer("fail", messages).endswith("(a)"):
            raise RuntimeError("provider error")
        return model_a(messages)

    locations["a_errors"] = run(
        mock_model(model_a_failing, "mockllm/model-a"),
        folder,
        data,
        fail_on_error=False,
    )

    interrupted = {"calls": 0}

    def model_b_interrupted(messages: list[ChatMessage]) -> str:
        interrupted["calls"] += 1
        if interrupted["calls"] == 9:
            raise RuntimeError("connection lost")
        return model_b(messages)

    locations["b_interrupted"] = run(
        mock_model(model_b_interrupted, "mockllm/model-b"),
        folder,
        data,
        max_samples=1,
        max_connections=1,
    )
    other = Task(dataset=[Sample(input="Say x", target="x")], scorer=match(), name="other_task")
    [other_log] = inspect_eval(
        other,
        model=mock_model(lambda messages: "x", "mockllm/model-a"),
        log_dir=str(folder),
        display="none",
    )
    locations["other"] = str(other_log.location)
    return Logs(folder, data, locations)


@pytest.fixture(scope="module")
def report_dir(logs: Logs, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("out") / "report"
    code = main(
        [
            "report",
            str(logs.folder),
            "--out",
            str(out),
            "--published-name",
            "mockllm/model-a=GPT-4o",
            "--title",
            "mockllm test run",
        ]
    )
    assert code == 0
    return out


# --- an independent recomputation from the full samples -----------------------------


@dataclass
class Expected:
    key: str
    label: str
    values: dict[str, float]  # question id -> mean over scored epochs
    unparsed: dict[str, float]
    first_unparsed: dict[str, bool]
    metadata: dict[str, dict[str, Any]]
    stored: dict[str, float] | None
    errors: int


def expected_from_log(location: str) -> Expected:
    log = read_eval_log(location)
    values: dict[str, list[float]] = defaultdict(list)
    statuses: dict[str, list[tuple[int, str]]] = defaultdict(list)
    metadata: dict[str, dict[str, Any]] = {}
    errors = 0
    for sample in log.samples or []:
        if sample.error is not None:
            errors += 1
            continue
        if not sample.scores:
            continue
        score = sample.scores["personamem_scorer"]
        values[str(sample.id)].append(1.0 if score.value == "C" else 0.0)
        statuses[str(sample.id)].append((sample.epoch, (score.metadata or {})["status"]))
        metadata[str(sample.id)] = sample.metadata
    stored = None
    if log.results is not None:
        stored = {k: v.value for k, v in log.results.scores[0].metrics.items()}
    return Expected(
        key="",
        label="",
        values={k: sum(v) / len(v) for k, v in values.items()},
        unparsed={k: sum(s != "single" for _, s in v) / len(v) for k, v in statuses.items()},
        first_unparsed={k: min(v)[1] != "single" for k, v in statuses.items()},
        metadata=metadata,
        stored=stored,
        errors=errors,
    )


def mean(values: list[float]) -> float:
    return sum(values) / len(values)


def clustered_se(values: dict[str, float], clusters: dict[str, str]) -> float:
    """The clustered standard error, written out (Inspect's formula, with C/(C-1))."""
    mu = mean(list(values.values()))
    sums: dict[str, float] = defaultdict(float)
    for key, value in values.items():
        sums[clusters[key]] += value - mu
    c = len(sums)
    return math.sqrt(sum(s * s for s in sums.values()) * c / (c - 1)) / len(values)


def wilson(p: float, n: float, t: float) -> tuple[float, float]:
    """Wilson's score interval for a proportion `p` over `n` questions, critical value `t`."""
    centre = (p + t * t / (2 * n)) / (1 + t * t / n)
    half = t * math.sqrt(p * (1 - p) / n + t * t / (4 * n * n)) / (1 + t * t / n)
    return centre - half, centre + half


def clustered_wilson(values: dict[str, float], clusters: dict[str, str]) -> tuple[float, float]:
    """The cluster-adjusted Wilson interval, written out: over the effective number of
    questions p(1-p) / clustered variance (at most n; n where either is 0), with
    t(contexts - 1)."""
    p, n = mean(list(values.values())), len(values)
    variance = clustered_se(values, clusters) ** 2
    effective = min(p * (1 - p) / variance, n) if p * (1 - p) > 0 and variance > 0 else n
    return wilson(p, effective, T_975[len(set(clusters.values())) - 1])


def grouped(expected: Expected, field: str) -> dict[str, float]:
    groups: dict[str, list[float]] = defaultdict(list)
    for key, value in expected.values.items():
        groups[str(expected.metadata[key][field])].append(value)
    return {group: mean(values) for group, values in groups.items()}


def read_csv(report_dir: Path, name: str) -> list[dict[str, str]]:
    with (report_dir / "tables" / f"{name}.csv").open(encoding="utf-8") as file:
        return list(csv.DictReader(file))


def close(cell: str, value: float) -> bool:
    if math.isnan(value):
        return cell == ""
    return abs(float(cell) - value) < 1e-9


def expected_by_label(logs: Logs, report_dir: Path) -> dict[str, Expected]:
    """Join the report's rows to the logs through the log time shown in each row."""
    rows = read_csv(report_dir, "overall")
    runs = {row["run"]: row for row in read_csv(report_dir, "runs")}
    by_label: dict[str, Expected] = {}
    for key, location in logs.locations.items():
        if key == "other":
            continue
        header = read_eval_log(location, header_only=True)
        no_history = header.eval.task_args["history"] == "none"
        matching = [
            row
            for row in rows
            if runs[row["run"]]["model"] == header.eval.model
            and ("history=none" in runs[row["run"]]["settings"]) == no_history
            and runs[row["run"]]["started (UTC)"] == header.eval.created[:19].replace("T", " ")
            and row["status"] == header.status
        ]
        assert len(matching) == 1, (key, matching)
        expected = expected_from_log(location)
        expected.key, expected.label = key, matching[0]["run"]
        by_label[expected.label] = expected
    return by_label


# --- tests --------------------------------------------------------------------------


def test_reads_every_run_and_skips_other_tasks(logs: Logs) -> None:
    result = read_runs([logs.folder])
    assert len(result.runs) == 5
    assert any("other_task" in note and "not PersonaMem" in note for note in result.notes)
    by_status = sorted(run.status for run in result.runs)
    assert by_status == ["error", "success", "success", "success", "success"]
    interrupted = next(run for run in result.runs if run.status == "error")
    assert 0 < len(interrupted.samples) < interrupted.planned == QUESTIONS
    assert interrupted.stored_metrics is None
    assert {run.settings["history"] for run in result.runs} == {"full", "none"}
    assert {run.settings["answer"] for run in result.runs} == {"choice"}
    assert {run.split for run in result.runs} == {"128k"}
    assert any("2 epochs" in note and "mean over epochs" in note for note in result.notes)
    assert any("ended in an error" in note for note in result.notes)


def test_overall_table_matches_recomputation(logs: Logs, report_dir: Path) -> None:
    expected = expected_by_label(logs, report_dir)
    rows = read_csv(report_dir, "overall")
    assert len(rows) == 5 and len({row["run"] for row in rows}) == 5
    for row in rows:
        e = expected[row["run"]]
        clusters = {k: str(e.metadata[k]["shared_context_id"]) for k in e.values}
        accuracy = mean(list(e.values.values()))
        se = clustered_se(e.values, clusters)
        assert close(row["accuracy"], accuracy)
        assert close(row["stderr (clustered)"], se)
        assert int(row["questions scored"]) == len(e.values)
        assert int(row["errored samples"]) == e.errors
        assert int(row["contexts"]) == len(set(clusters.values()))
        assert close(row["unparsed share"], mean(list(e.unparsed.values())))
        if len(set(clusters.values())) == CONTEXTS:
            low, high = clustered_wilson(e.values, clusters)
            assert close(row["ci95 low"], low) and close(row["ci95 high"], high)
        if e.stored is not None:
            assert abs(e.stored["stderr"] - se) < 1e-12  # Inspect's stored value, same formula
            assert abs(e.stored["accuracy"] - accuracy) < 1e-12
            assert row["check against Inspect"].startswith("matches (")
        else:
            assert row["check against Inspect"] == "not compared (see notes)"
            notes = (report_dir / "index.html").read_text(encoding="utf-8")
            assert f"{row['run']}: no stored metrics (run status: error)" in notes


def test_group_tables_match_recomputation(logs: Logs, report_dir: Path) -> None:
    expected = expected_by_label(logs, report_dir)
    for row in read_csv(report_dir, "categories"):
        e = expected[row["run"]]
        categories = grouped(e, "category")
        for key in CATEGORIES:
            cell = row[CATEGORY_TITLES[key]]
            assert close(cell, categories.get(key, math.nan))
        assert close(row["macro average"], mean(list(categories.values())))
        if e.stored is not None:
            assert abs(e.stored["category_macro"] - mean(list(categories.values()))) < 1e-12
    for name, field in (("topics", "topic"), ("sessions", "distance_to_ref_in_blocks")):
        for row in read_csv(report_dir, name):
            e = expected[row.pop("run")]
            groups = grouped(e, field)
            assert set(groups) <= set(row)
            for group, cell in row.items():
                assert close(cell, groups.get(group, math.nan)), (name, group)


def test_estimates_table_holds_every_group_with_an_interval(logs: Logs, report_dir: Path) -> None:
    expected = expected_by_label(logs, report_dir)
    rows = read_csv(report_dir, "estimates")
    # one row per run and group: overall, each category, topic and sessions value
    assert len(rows) == sum(
        1 + sum(len(set(grouped(e, f))) for f in ("category", "topic", "distance_to_ref_in_blocks"))
        for e in expected.values()
    )
    for row in rows:
        e = expected[row["run"]]
        field = {"category": "category", "topic": "topic", "sessions": "distance_to_ref_in_blocks"}
        if row["family"] == "overall":
            keys = list(e.values)
        else:
            keys = [k for k in e.values if str(e.metadata[k][field[row["family"]]]) == row["group"]]
        assert int(row["questions"]) == len(keys)
        assert close(row["accuracy"], mean([e.values[k] for k in keys]))
        clusters = {k: str(e.metadata[k]["shared_context_id"]) for k in keys}
        if len(set(clusters.values())) >= 2:
            values = {k: e.values[k] for k in keys}
            low, high = clustered_wilson(values, clusters)
            assert close(row["stderr (clustered)"], clustered_se(values, clusters))
            assert close(row["ci95 low"], low) and close(row["ci95 high"], high)
        else:  # one context: no clustered error can be estimated, none is shown
            assert row["stderr (clustered)"] == row["ci95 low"] == row["ci95 high"] == ""


def v1_groups(category: str) -> dict[str, str]:
    """A v1 question's groups: `category`, one topic, one session elapsed (bin `1`)."""
    return {
        "category": category,
        "topic": "t",
        "distance_to_ref_in_blocks": "1",
        "distance_bin": "1",
    }


def results(*contexts: list[float]) -> list[SampleResult]:
    """Questions with these scores, one list per shared context."""
    return [
        SampleResult(f"{c}-{i}", v1_groups("c"), str(c), value, {"single": 1.0}, 1, "single")
        for c, values in enumerate(contexts)
        for i, value in enumerate(values)
    ]


def test_intervals_at_small_n_and_at_0_or_1_are_not_points() -> None:
    """A normal interval would be [1, 1] or [0, 0] here; Wilson's is n / (n + t²) below
    1 and t² / (n + t²) above 0 (p = 1 or 0: no design effect can be estimated)."""
    t2 = T_975[3] ** 2
    right = accuracy_of(results([1.0], [1.0], [1.0], [1.0]))
    assert right.accuracy == 1.0 and right.high == pytest.approx(1.0)
    assert right.low == pytest.approx(4 / (4 + t2))
    wrong = accuracy_of(results([0.0], [0.0], [0.0], [0.0]))
    assert wrong.low == pytest.approx(0.0) and wrong.high == pytest.approx(t2 / (4 + t2))
    one_context = accuracy_of(results([1.0, 1.0, 0.0]))
    assert math.isnan(one_context.low) and math.isnan(one_context.shown_stderr)


def test_intervals_widen_with_the_clustering() -> None:
    """Contexts [1, 1], [0, 0], [1, 0]: p = 1/2, clustered variance (1² + 1² + 0²) x 3/2
    / 6² = 1/12 against the binomial 1/24, a design effect of 2, so Wilson over 3
    effective questions with t(2)."""
    estimate = accuracy_of(results([1.0, 1.0], [0.0, 0.0], [1.0, 0.0]))
    assert abs(estimate.stderr**2 - 1 / 12) < 1e-12
    low, high = wilson(0.5, 3.0, T_975[2])
    assert abs(estimate.low - low) < 1e-9 and abs(estimate.high - high) < 1e-9
    assert 0 < estimate.low < wilson(0.5, 6.0, T_975[2])[0]  # wider than ignoring it


def by_measure(rows: list[dict[str, str]], key: str) -> dict[tuple[str, str], dict[str, str]]:
    """Difference rows by (`key` column, measure)."""
    return {(row[key], row["measure"]): row for row in rows}


def test_history_gain_pairs_the_latest_runs(logs: Logs, report_dir: Path) -> None:
    expected = expected_by_label(logs, report_dir)
    rows = read_csv(report_dir, "gain")
    assert len({row["run"] for row in rows}) == 1  # model-b was only run with history
    [row] = [row for row in rows if row["measure"] == "overall"]
    full, none = expected[row["run"]], expected[row["baseline (no history)"]]
    # of model-a's two full-history runs, the complete one, not the later one whose
    # samples partly errored
    assert (full.key, none.key) == ("a_full", "a_none")
    d = {k: full.values[k] - none.values[k] for k in full.values}
    clusters = {k: str(full.metadata[k]["shared_context_id"]) for k in d}
    se = clustered_se(d, clusters)
    assert close(row["difference"], mean(list(d.values()))) and close(row["stderr (clustered)"], se)
    assert close(row["ci95 low"], mean(list(d.values())) - T_975[CONTEXTS - 1] * se)
    assert row["distinguishable from 0"] == ("yes" if float(row["ci95 low"]) > 0 else "no")
    full_categories, none_categories = grouped(full, "category"), grouped(none, "category")
    measures = {r["measure"]: r for r in rows}
    assert set(measures) == {
        "overall",
        "macro average",
        *(CATEGORY_TITLES[k] for k in full_categories),
    }
    for key in full_categories:
        gain = full_categories[key] - none_categories[key]
        assert close(measures[CATEGORY_TITLES[key]]["difference"], gain)
    macro_gain = mean(list(full_categories.values())) - mean(list(none_categories.values()))
    assert close(measures["macro average"]["difference"], macro_gain)


def test_t_quantile_read_off_inspect() -> None:
    for df, t in T_975.items():
        assert t_quantile(df) == pytest.approx(t, rel=1e-9)


def test_a_paired_difference_is_clustered_by_context() -> None:
    """Contexts A, B, C; d = a - b per question: A [1, 0], B [0, 1], C [-1, 0]. Mean
    1/6; deviations summed per context 2/3, 2/3, -4/3, over n = 6: 1/9, 1/9, -2/9;
    squares 6/81 times G/(G-1) = 3/2: 1/9, so the standard error is 1/3."""
    a = results([1.0, 1.0], [0.0, 1.0], [0.0, 0.0])
    b = results([0.0, 1.0], [0.0, 0.0], [1.0, 0.0])
    d = paired_difference(a, b)
    assert (d.n, d.contexts) == (6, 3)
    assert d.difference == pytest.approx(1 / 6) and d.stderr == pytest.approx(1 / 3)
    # 1/6 ± t(2) x 1/3 = 1/6 ± 1.43, kept inside [-1, 1]
    assert (d.low, d.high) == (-1.0, 1.0)
    assert d.distinguishable == "no"
    # only the questions both scored count
    assert paired_difference(a[:4], b).n == 4


def test_a_clear_paired_difference_is_distinguishable_and_a_constant_one_has_no_interval() -> None:
    """d per context A [1, 1], B [1, 1], C [1, 0], D [1, 1], E [1, 1]: mean 0.9;
    deviations per context 0.2, 0.2, -0.8, 0.2, 0.2 over n = 10; squares 0.008 times 5/4:
    0.01, so the error is 0.1 and the interval 0.9 ± t(4) x 0.1 excludes 0."""
    a = results([1.0, 1.0], [1.0, 1.0], [1.0, 0.0], [1.0, 1.0], [1.0, 1.0])
    d = paired_difference(a, [replace(s, value=0.0) for s in a])
    assert d.stderr == pytest.approx(0.1) and d.low == pytest.approx(0.9 - T_975[4] * 0.1)
    assert d.distinguishable == "yes"
    # every question one point better: no spread to estimate an error from, so no
    # interval rather than a point that claims certainty
    same = paired_difference(a, [replace(s, value=s.value - 1) for s in a])
    assert same.difference == 1.0 and math.isnan(same.low) and same.distinguishable == ""


def test_a_macro_difference_weighs_each_category_the_same() -> None:
    """Categories x (3 questions: d = 1, 1, 0) and y (1 question: d = 0) over contexts
    A, B: macro (2/3 + 0) / 2 = 1/3. Weights 1/(2 x 3) in x, 1/2 in y; deviations from
    the category means: A (x: 1/3, 1/3; y: 0) -> 1/9, B (x: -2/3) -> -1/9; squares 2/81
    times G/(G-1) = 2: 4/81, so the standard error is 2/9."""
    a = [
        SampleResult(i, v1_groups(cat), ctx, value, {"single": 1.0}, 1, "single")
        for i, cat, ctx, value in (
            ("1", "x", "A", 1.0), ("2", "x", "A", 1.0), ("3", "x", "B", 0.0), ("4", "y", "A", 0.0)
        )
    ]  # fmt: skip
    b = [replace(s, value=0.0) for s in a]
    d = paired_difference(a, b, lambda s: s.groups["category"])
    assert d.difference == pytest.approx(1 / 3) and d.stderr == pytest.approx(2 / 9)
    assert paired_difference(a, b).difference == pytest.approx(1 / 2)  # question-weighted


def published_gpt_4o() -> dict[str, float]:
    path = ROOT / "src/inspect_personamem/datasets/v1/paper/published_128k_by_question_type.csv"
    with path.open(encoding="utf-8") as file:
        return {row["Question Type \\ Model"]: float(row["GPT-4o"]) for row in csv.DictReader(file)}


def test_published_comparison_uses_the_named_model(logs: Logs, report_dir: Path) -> None:
    rows = read_csv(report_dir, "published")
    # model-a's two full-history runs: the published numbers are full-history runs, so the
    # no-history one is left out (with a note); model-b has no mapping
    assert len({row["run"] for row in rows}) == 2
    assert all("full history" in row["run"] for row in rows)
    assert {row["published model"] for row in rows} == {"GPT-4o"}
    page = (report_dir / "index.html").read_text(encoding="utf-8")
    assert "history=none, answer=choice; the published numbers are full-history" in page
    gpt_4o = published_gpt_4o()
    expected = expected_by_label(logs, report_dir)
    by_run_measure = by_measure(rows, "run")
    for label in {row["run"] for row in rows}:
        row = by_run_measure[label, "overall"]
        ours = mean(list(expected[label].values.values()))
        assert float(row["published"]) == 0.45 and close(row["this run"], ours)
        assert close(row["difference"], ours - 0.45)
        categories = grouped(expected[label], "category")
        for key, theirs in (
            ("recall_user_shared_facts", "Recall User Shared Facts"),
            ("suggest_new_ideas", "Suggest New Ideas"),
        ):
            row = by_run_measure[label, CATEGORY_TITLES[key]]
            assert float(row["published"]) == gpt_4o[theirs]
            assert close(row["this run"], categories.get(key, math.nan))
            assert close(row["difference"], categories.get(key, math.nan) - gpt_4o[theirs])


def png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", path
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def test_figures_exist_with_their_sizes_and_the_page_embeds_them(report_dir: Path) -> None:
    figures = report_dir / "figures"
    expected = {
        "categories": SIZES["categories"],
        "sessions": SIZES["sessions"],
        **{path.stem: PUBLISHED_SIZE for path in figures.glob("published_*.png")},
    }
    assert len(expected) == 4  # two full-history model-a runs next to GPT-4o
    page = (report_dir / "index.html").read_text(encoding="utf-8")
    for stem, (width, height) in expected.items():
        png, svg = figures / f"{stem}.png", figures / f"{stem}.svg"
        assert png_size(png) == (round(width * DPI), round(height * DPI))
        assert png.stat().st_size > 10_000
        assert svg.read_text(encoding="utf-8").lstrip().startswith("<?xml")
        assert f'href="figures/{stem}.png"' in page and f'href="figures/{stem}.svg"' in page
        assert base64.b64encode(png.read_bytes()).decode("ascii") in page
    for name in (
        "overall", "runs", "categories", "gain", "sessions", "topics", "published",
    ):  # fmt: skip
        assert f'href="tables/{name}.csv"' in page
        assert (report_dir / "tables" / f"{name}.md").read_text(encoding="utf-8").startswith("## ")
    # self-contained: nothing is fetched from elsewhere
    assert not re.search(r'(src|href)="(https?:)?//', page)
    assert "mockllm test run" in page


def test_check_flags_stored_metrics_that_do_not_match(logs: Logs, tmp_path: Path) -> None:
    log = read_eval_log(logs.locations["a_none"])
    assert log.results is not None
    log.results.scores[0].metrics["accuracy"].value += 0.1
    write_eval_log(log, str(tmp_path / "edited.json"))
    report = build_report([tmp_path / "edited.json"], tmp_path / "out")
    assert any("MISMATCH in 1 of" in note and "accuracy stored" in note for note in report.notes)


def test_history_gain_compares_only_the_questions_both_runs_scored(
    logs: Logs, tmp_path: Path
) -> None:
    folder = tmp_path / "logs"
    model = mock_model(lambda messages: hashed_answer("a", messages), "mockllm/model-a")
    limited = read_eval_log(run(model, folder, logs.data, limit=10))
    complete = run(model, folder, logs.data, task_args={"history": "none"})
    report = build_report([folder], tmp_path / "out")
    [row] = [row for row in read_csv(tmp_path / "out", "gain") if row["measure"] == "overall"]
    assert row["questions compared"] == f"10 of 10 and {QUESTIONS}"  # each run's own count
    limited_ids = {str(sample.id) for sample in limited.samples or []}
    none = expected_from_log(complete)
    full = expected_from_log(str(limited.location))
    gain = mean(list(full.values.values())) - mean([none.values[k] for k in limited_ids])
    assert close(row["difference"], gain)
    assert [s.overall.n for s in report.summaries] == [10, QUESTIONS]


def test_a_log_whose_samples_cannot_be_read_is_skipped_with_a_note(
    logs: Logs, tmp_path: Path
) -> None:
    log = read_eval_log(logs.locations["a_full"])
    for sample in log.samples or []:
        sample.metadata.pop("category")
    write_eval_log(log, str(tmp_path / "old.json"))
    result = read_runs([tmp_path / "old.json", logs.locations["a_none"]])
    assert len(result.runs) == 1
    assert any(
        "old.json: its samples cannot be read" in note and "category" in note
        for note in result.notes
    )


def test_how_a_run_answered_is_a_setting_and_version_1_methods_are_read(
    logs: Logs, tmp_path: Path
) -> None:
    """`answer` tells runs apart; a log of task version 1 (`method=...`) is read in
    today's terms (`method=rag` is `history=rag`, `method=logprob` is `answer=logprob`)."""
    log = read_eval_log(logs.locations["a_full"], header_only=True)
    log.eval.task_args["answer"] = "logprob"
    write_eval_log(log, str(tmp_path / "logprob.json"))
    del log.eval.task_args["answer"]
    log.eval.task_args.update(method="rag", retriever="bm25")
    write_eval_log(log, str(tmp_path / "version_1.json"))
    paths: list[str | Path] = [
        logs.locations["a_full"], tmp_path / "logprob.json", tmp_path / "version_1.json",
    ]  # fmt: skip
    runs = read_runs(paths).runs
    assert [(run.settings["history"], run.settings["answer"]) for run in runs] == [
        ("full", "choice"), ("full", "logprob"), ("rag", "choice"),
    ]  # fmt: skip
    assert "method" not in runs[2].settings and len({run.key for run in runs}) == 3
    assert run_labels(runs) == [
        "mockllm/model-a, full history",
        "mockllm/model-a, full history, logprob",
        "mockllm/model-a, rag (bm25, top 5)",
    ]


def test_runs_of_other_splits_are_not_compared_with_128k(tmp_path: Path) -> None:
    data = tmp_path / "data32"
    generate_split(data, "32k", contexts=2, min_messages=8, max_messages=12, questions=6)
    inspect_eval(
        "inspect_personamem/personamem_32k",
        task_args={"data_dir": str(data)},
        model=mock_model(lambda m: "<final_answer>(a)", "mockllm/model-a"),
        log_dir=str(tmp_path / "logs"),
        display="none",
    )
    report = build_report(
        [tmp_path / "logs"], tmp_path / "out", name_overrides={"mockllm/model-a": "GPT-4o"}
    )
    assert any("32k split" in note and "not compared" in note for note in report.notes)
    assert not (tmp_path / "out" / "tables" / "published.csv").exists()


def test_command_rejects_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", str(tmp_path / "missing"), "--out", str(tmp_path / "o")]) == 2
    assert "no such log file or folder" in capsys.readouterr().err
    empty = tmp_path / "empty"
    empty.mkdir()
    code = main(["report", str(empty), "--out", str(tmp_path / "o"), "--published-name", "x=GPT-9"])
    assert code == 2
    assert "'GPT-9' is not a published model" in capsys.readouterr().err
    with pytest.raises(ReportError, match="no Inspect logs"):
        build_report([empty], tmp_path / "o")
    (empty / "broken.eval").write_bytes(b"not a zip file")
    with pytest.raises(ReportError, match="no PersonaMem runs"):
        build_report([empty], tmp_path / "o")
    [note] = read_runs([empty]).notes
    assert "broken.eval" in note and "not a readable Inspect log" in note


def test_package_and_report_import_without_matplotlib() -> None:
    code = (
        "import sys; sys.modules['matplotlib'] = None\n"
        "import inspect_personamem, inspect_personamem.report, inspect_personamem.cli\n"
        "from inspect_personamem.report.build import _figures_module\n"
        "try:\n    _figures_module()\nexcept Exception as e:\n    print(type(e).__name__, e)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert "ReportError" in result.stdout and "inspect-personamem[report]" in result.stdout


def test_every_report_test_module_skips_naming_the_extra_without_matplotlib() -> None:
    """Without the report extra each module of these tests skips, saying which extra to
    install (not only that matplotlib could not be imported)."""
    modules = sorted(str(path) for path in (ROOT / "tests" / "report").glob("test_*.py"))
    code = (
        "import sys; sys.modules['matplotlib'] = None\n"
        "import pytest\n"
        f"sys.exit(pytest.main(['-q', '-rs', '-n', '0', '-p', 'no:cacheprovider', *{modules!r}]))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=ROOT
    )
    skipped = [line for line in result.stdout.splitlines() if line.startswith("SKIPPED")]
    assert len(skipped) == len(modules), result.stdout[-2000:]
    assert all("pip install -e '.[report]'" in line for line in skipped), skipped


@pytest.fixture
def chromium() -> Iterator[str]:
    path = shutil.which("chromium") or "/usr/bin/chromium"
    if not Path(path).is_file():
        pytest.skip("chromium is not installed")
    yield path


def test_page_renders_in_headless_chromium(report_dir: Path, chromium: str, tmp_path: Path) -> None:
    out = tmp_path / "page.png"
    subprocess.run(
        [
            str(ROOT / "scripts/render_report.sh"),
            str(report_dir / "index.html"),
            str(out),
            "1200",
            "2400",
        ],
        check=True,
        timeout=120,
        env={"CHROMIUM": chromium, "PATH": "/usr/bin:/bin"},
    )
    assert png_size(out) == (1200, 2400)
    from PIL import Image

    with Image.open(out) as image:
        colours = image.convert("RGB").resize((60, 120)).getcolors(maxcolors=60 * 120)
    assert colours is not None and len(colours) > 20  # text, tables and figures, not a blank page


MEASURE = r"""<script>
window.addEventListener("load", () => {
  const broken = [];
  for (const cell of document.querySelectorAll("td, th")) {
    const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (const word of node.textContent.matchAll(/\S+/g)) {
        const range = document.createRange();
        range.setStart(node, word.index);
        range.setEnd(node, word.index + word[0].length);
        const lines = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
        if (lines.size > 1) broken.push(word[0]);
      }
    }
  }
  const scrolled = [...document.querySelectorAll("section")]
    .filter((s) => s.querySelector(".scroll").scrollWidth > s.querySelector(".scroll").clientWidth)
    .map((s) => s.id);
  const firstScreen = [...document.querySelectorAll("#summary td")]
    .filter((cell) => cell.getBoundingClientRect().bottom <= 800)
    .map((cell) => cell.textContent);
  const out = document.createElement("pre");
  out.id = "measured";
  out.textContent = JSON.stringify({
    broken, scrolled, firstScreen, page: document.documentElement.scrollWidth,
    viewport: window.innerWidth,
  });
  document.body.appendChild(out);
});
</script>"""
"""Run in the page once it is laid out: every word of a table cell broken across lines,
the tables that scroll in their box, the summary's cells on the first screen (the top
800 px), and the page's width against the window's."""


def measured(page: Path, chromium: str, width: int, folder: Path) -> dict[str, Any]:
    """`MEASURE`'s findings for `page` laid out in a window `width` px wide."""
    copy = folder / f"measure_{width}.html"
    copy.write_text(page.read_text(encoding="utf-8").replace("</body>", MEASURE + "</body>"))
    dom = subprocess.run(
        [
            chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
            f"--user-data-dir={folder / 'profile'}", "--hide-scrollbars",
            f"--window-size={width},2000", "--virtual-time-budget=10000", "--dump-dom",
            copy.as_uri(),
        ],  # fmt: skip
        capture_output=True, text=True, check=True, timeout=120,
    )  # fmt: skip
    found = re.search(r'<pre id="measured">(.*?)</pre>', dom.stdout, re.S)
    assert found, dom.stderr[-2000:]
    result: dict[str, Any] = json.loads(html.unescape(found.group(1)))
    return result


@pytest.mark.parametrize("width", [1280, 1400])
def test_the_page_reads_at_1280_and_1400_px(
    method_logs: MethodLogs, tmp_path: Path, chromium: str, width: int
) -> None:
    """Runs of four methods (long labels, wide tables): the first screen holds the
    summary with every run's accuracy and interval, no word of a table is broken across
    lines, the page itself never scrolls sideways (a wide table, one column per topic,
    scrolls in its own box), and the tables a reader looks at first (summary, results,
    methods, their differences and cost) fit without scrolling."""
    report = methods_report(method_logs, tmp_path / "out")
    found = measured(report.index, chromium, width, tmp_path)
    for s in report.summaries:
        for number in (s.overall.accuracy, s.overall.low, s.overall.high):
            assert f"{number:.3f}" in found["firstScreen"], (s.label, found["firstScreen"])
    assert found["broken"] == []
    assert found["page"] <= found["viewport"]
    first_read = {"summary", "overall", "methods", "method_differences", "gain", "cost"}
    assert not first_read & set(found["scrolled"])


def test_json_logs_in_a_folder_are_read_whatever_their_name(logs: Logs, tmp_path: Path) -> None:
    folder = tmp_path / "logs"
    (folder / "sub").mkdir(parents=True)
    write_eval_log(read_eval_log(logs.locations["a_none"]), str(folder / "sub" / "renamed.json"))
    shutil.copy(logs.locations["a_full"], folder / "a_full.eval")
    (folder / "settings.json").write_text('{"not": "a log"}', encoding="utf-8")
    result = read_runs([folder])
    assert sorted(Path(run.location).name for run in result.runs) == ["a_full.eval", "renamed.json"]
    assert any("settings.json: not a readable Inspect log" in note for note in result.notes)


def markdown_table_cells(line: str) -> list[str]:
    """The cells of a Markdown table line, split at the `|`s that are not escaped."""
    return [cell.strip() for cell in re.split(r"(?<!\\)\|", line.strip())[1:-1]]


def test_markdown_tables_escape_markup_and_pipes(logs: Logs, tmp_path: Path) -> None:
    log = read_eval_log(logs.locations["a_none"])
    topic = "food|drink <script>alert(1)</script> & more"
    for sample in log.samples or []:
        sample.metadata["topic"] = topic
    write_eval_log(log, str(tmp_path / "odd_topic.json"))
    build_report([tmp_path / "odd_topic.json"], tmp_path / "out")
    for path in (tmp_path / "out" / "tables").glob("*.md"):
        text = path.read_text(encoding="utf-8")
        assert "<script>" not in text, path.name
        lines = [line for line in text.splitlines() if line.startswith("|")]
        widths = {len(markdown_table_cells(line)) for line in lines}
        assert len(widths) == 1, (path.name, widths)
    header = (tmp_path / "out" / "tables" / "topics.md").read_text(encoding="utf-8")
    assert r"food\|drink &lt;script&gt;alert(1)&lt;/script&gt; &amp; more" in header


def test_overall_tables_fit_a_1400_px_page(report_dir: Path) -> None:
    """An estimate from the CSS: 13 px text is at most 7.5 px a character; number cells
    keep their text on one line, text cells wrap (here taken to wrap at 16em)."""
    page = (report_dir / "index.html").read_text(encoding="utf-8")
    assert "max-width: 1400px" in page
    assert "td.text { white-space: normal; text-align: left; }" in page
    for name in ("overall", "runs"):
        text = (report_dir / "tables" / f"{name}.md").read_text(encoding="utf-8")
        columns, _, *rows = (
            markdown_table_cells(line) for line in text.splitlines() if line.startswith("|")
        )
        widths = []
        for i, column in enumerate(columns):
            longest_word = max(len(word) for word in column.split())
            cells = max(len(html.unescape(row[i])) for row in rows)
            wraps = any(re.search(r"[^\d.–-]", html.unescape(row[i])) for row in rows)
            widths.append(min(16 * 13, cells * 7.5) if wraps else max(longest_word, cells) * 7.5)
        assert len(columns) <= 14
        assert sum(width + 11 for width in widths) <= 1400 - 2 * 16, (name, widths)


def cancelled_log(logs: Logs, folder: Path) -> EvalLog:
    """model-a's complete log (24 questions scored), as Ctrl-C leaves one when more
    samples reached the log than Inspect's metrics: status `cancelled`, the results and
    reductions Inspect computed over the first 10 questions (a `--limit 10` run)."""
    model = mock_model(lambda messages: hashed_answer("a", messages), "mockllm/model-a")
    limited = read_eval_log(run(model, folder / "limited", logs.data, limit=10))
    log = read_eval_log(logs.locations["a_full"])
    log.status = "cancelled"
    log.results, log.reductions = limited.results, limited.reductions
    return log


def test_a_cancelled_run_is_checked_over_the_questions_its_metrics_cover(
    logs: Logs, tmp_path: Path
) -> None:
    log = cancelled_log(logs, tmp_path)
    write_eval_log(log, str(tmp_path / "cancelled.eval"))
    report = build_report([tmp_path / "cancelled.eval"], tmp_path / "out")
    [summary] = report.summaries
    assert summary.run.status == "cancelled" and summary.overall.n == QUESTIONS
    [note] = [n for n in report.notes if "Inspect" in n and "questions" in n]
    assert "MISMATCH" not in note
    assert "matches Inspect" in note
    assert "over the 10 questions Inspect's stored metrics cover (run cancelled)" in note
    assert f"over all {QUESTIONS} scored questions" in note
    [row] = read_csv(tmp_path / "out", "overall")
    assert (
        row["check against Inspect"].startswith("matches (")
        and "partial" in row["check against Inspect"]
    )
    # the stored metrics are over fewer questions than the report's numbers
    assert log.results is not None
    assert log.results.scores[0].metrics["accuracy"].value != float(row["accuracy"])


def test_a_cancelled_run_without_reductions_is_not_compared(logs: Logs, tmp_path: Path) -> None:
    log = cancelled_log(logs, tmp_path)
    log.reductions = None
    write_eval_log(log, str(tmp_path / "cancelled.eval"))
    report = build_report([tmp_path / "cancelled.eval"], tmp_path / "out")
    assert not any("MISMATCH" in note for note in report.notes)
    assert any(
        "not compared: run cancelled" in note
        and f"recomputed over all {QUESTIONS} scored questions" in note
        for note in report.notes
    )
    [row] = read_csv(tmp_path / "out", "overall")
    assert row["check against Inspect"] == "not compared (see notes)"


CTRL_C = """
import os, signal, sys
sys.path.insert(0, {tests!r})
from helpers import mock_model
from inspect_ai import eval

calls = 0

def reply(messages):
    global calls
    calls += 1
    if calls == 9:
        os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C
    return "<final_answer>(a)"

eval("inspect_personamem/personamem_128k", task_args={{"data_dir": {data!r}}},
     model=mock_model(reply, "mockllm/model-a"), log_dir={logs!r}, display="none",
     max_samples=2, max_connections=2)
"""


def test_a_run_stopped_with_ctrl_c_is_checked_like_with_like(logs: Logs, tmp_path: Path) -> None:
    script = CTRL_C.format(tests=str(ROOT / "tests"), data=str(logs.data), logs=str(tmp_path))
    subprocess.run([sys.executable, "-c", script], check=False, timeout=300)
    report = build_report([tmp_path], tmp_path / "out")
    [summary] = report.summaries
    assert summary.run.status == "cancelled"
    assert 0 < summary.overall.n < QUESTIONS
    assert summary.run.stored_ids is not None
    assert not any("MISMATCH" in note for note in report.notes)
    assert any(note.startswith(f"{summary.label}: matches Inspect") for note in report.notes)
    assert any("status cancelled" in note and "partial" in note for note in report.notes)


def test_a_limited_run_is_marked_a_subset_and_kept_out_of_the_published_comparison(
    logs: Logs, tmp_path: Path
) -> None:
    folder = tmp_path / "logs"
    model = mock_model(lambda messages: hashed_answer("a", messages), "mockllm/model-a")
    run(model, folder, logs.data, limit=10)
    shutil.copy(logs.locations["a_full"], folder / "a_full.eval")
    names = {"mockllm/model-a": "GPT-4o"}
    report = build_report([folder], tmp_path / "out", name_overrides=names)
    subset = [s.label for s in report.summaries if s.overall.n == 10]
    assert len(subset) == 1 and "subset 10/24" in subset[0]
    for name in ("overall", "runs", "categories", "sessions", "topics", "estimates"):
        labels = {row["run"] for row in read_csv(tmp_path / "out", name)}
        assert subset[0] in labels, name
        assert sum("subset" in label for label in labels) == 1, name
    assert report.headline == (
        "All 2 runs complete; not comparable with published numbers: subset (1 of 2)"
    )
    assert report.caveats == [
        f"subset, 1 of 2 runs: {subset[0]} (subset 10/24): {CAVEATS['subset']}"
    ]
    assert "--include-subsets" not in "\n".join(report.notes)  # the summary says it, once
    published = read_csv(tmp_path / "out", "published")
    assert {row["run"] for row in published} == {s.label for s in report.summaries} - set(subset)
    assert not any("subset" in figure.caption for figure in report.figures)

    command = ["report", str(folder), "--out", str(tmp_path / "all"), "--include-subsets"]
    assert main([*command, "--published-name", "mockllm/model-a=GPT-4o"]) == 0
    published = read_csv(tmp_path / "all", "published")
    assert subset[0] in {row["run"] for row in published}
    page = (tmp_path / "all" / "index.html").read_text(encoding="utf-8")
    assert f"{html.escape(subset[0])} next to the published 128k numbers of GPT-4o" in page


@dataclass(frozen=True)
class MethodLogs:
    """Four methods of one model in one folder: full and no history, RAG, memory."""

    folder: Path
    rag: str
    memory: str


@pytest.fixture(scope="module")
def method_logs(logs: Logs, tmp_path_factory: pytest.TempPathFactory) -> MethodLogs:
    folder = tmp_path_factory.mktemp("methods")
    for key in ("a_full", "a_none"):
        shutil.copy(logs.locations[key], folder / f"{key}.eval")
    model = mock_model(lambda messages: hashed_answer("a", messages), "mockllm/model-a")
    rag = run(
        model, folder, logs.data, task_args={"history": "rag", "retriever": "bm25", "top_k": 4}
    )
    memory_args = {"history": "memory", "memory": "memory_fixtures:SpyMemory"}
    memory = run(model, folder, logs.data, task_args=memory_args)
    return MethodLogs(folder, rag, memory)


def methods_report(method_logs: MethodLogs, out: Path) -> Report:
    return build_report([method_logs.folder], out, name_overrides={"mockllm/model-a": "GPT-4o"})


def test_methods_side_by_side_with_their_gain_and_the_published_numbers(
    logs: Logs, method_logs: MethodLogs, tmp_path: Path
) -> None:
    """Full history, no history, RAG (BM25, no model needed) and a memory system of one
    model: the Figure 5 table and figure, every method's gain over no history, and the
    published 128k RAG numbers next to the runs of the model mapped to GPT-4o."""
    rag, memory = method_logs.rag, method_logs.memory
    out = tmp_path / "out"
    report = methods_report(method_logs, out)
    expected = {
        "no history": expected_from_log(logs.locations["a_none"]),
        "full history": expected_from_log(logs.locations["a_full"]),
        "memory (memory_fixtures:SpyMemory)": expected_from_log(memory),
        "rag (bm25, top 4)": expected_from_log(rag),
    }
    rows = read_csv(out, "methods")
    # one row per run, no history and full history first, then by name
    assert [row["method"] for row in rows] == list(expected)
    by_method = {row["method"]: row for row in rows}
    for method, e in expected.items():
        row = by_method[method]
        categories = grouped(e, "category")
        for key in CATEGORIES:
            assert close(row[CATEGORY_TITLES[key]], categories.get(key, math.nan))
        assert close(row["macro average"], mean(list(categories.values())))
        assert close(row["overall"], mean(list(e.values.values())))

    gains = by_measure(read_csv(out, "gain"), "run")
    labels = {axes_label(s.run.settings, s.run.entry): s.label for s in report.summaries}
    assert {run for run, _ in gains} == {labels[m] for m in expected if m != "no history"}
    none = expected["no history"]
    for method in set(expected) - {"no history"}:
        row = gains[labels[method], "overall"]
        assert row["baseline (no history)"] == labels["no history"]
        gain = mean(list(expected[method].values.values())) - mean(list(none.values.values()))
        assert close(row["difference"], gain)
        macro = mean(list(grouped(expected[method], "category").values()))
        macro_gain = macro - mean(list(grouped(none, "category").values()))
        assert close(gains[labels[method], "macro average"]["difference"], macro_gain)
    # every method against each one before it, the later minus the earlier, over all
    pairs = {
        (row["method"], row["against"], row["measure"]): row
        for row in read_csv(out, "method_differences")
    }
    methods = list(expected)
    assert len(pairs) == 2 * len(methods) * (len(methods) - 1) // 2  # overall and macro
    for i, earlier in enumerate(methods):
        for later in methods[i + 1 :]:
            d = {k: v - expected[earlier].values[k] for k, v in expected[later].values.items()}
            clusters = {k: str(none.metadata[k]["shared_context_id"]) for k in d}
            row = pairs[later, earlier, "overall"]
            assert row["questions compared"] == str(QUESTIONS)
            assert close(row["difference"], mean(list(d.values())))
            assert close(row["stderr (clustered)"], clustered_se(d, clusters))

    [figure] = [f for f in report.figures if f.files[0].name.startswith("methods_1_")]
    width, height = SIZES["methods"]
    assert png_size(out / figure.files[0]) == (round(width * DPI), round(height * DPI))
    assert "mockllm/model-a, 128k" in figure.caption

    published = {row["method"]: row for row in read_csv(out, "published_methods")}
    assert set(published) == {"full history", "rag (bm25, top 4)"}  # GPT-4o has no 128k Mem0
    for method, number in (("full history", 0.45), ("rag (bm25, top 4)", 0.60)):
        row = published[method]
        assert (row["published model"], row["split"], row["measure"]) == (
            "GPT-4o",
            "128k",
            "overall",
        )
        assert float(row["published"]) == number
        ours = mean(list(expected[method].values.values()))
        assert close(row["this run"], ours) and close(row["difference"], ours - number)


def test_samples_stopped_by_a_limit_are_counted_not_scored(logs: Logs, tmp_path: Path) -> None:
    """A message limit below some histories' length stops those samples before the
    model is called: the report counts them, skips them as Inspect's metrics do, and
    its recomputation still matches what Inspect stored."""
    model = mock_model(lambda messages: hashed_answer("a", messages), "mockllm/model-a")
    log = read_eval_log(run(model, tmp_path / "logs", logs.data, message_limit=16))
    stopped = [s.limit.type for s in log.samples or [] if s.limit is not None]
    assert 0 < len(stopped) < QUESTIONS and set(stopped) == {"message"}
    assert log.results is not None and log.results.scores[0].unscored_samples == len(stopped)
    answered = [s for s in log.samples or [] if s.limit is None]
    accuracy = mean(
        [1.0 if s.scores and s.scores["personamem_scorer"].value == "C" else 0.0 for s in answered]
    )

    report = build_report([tmp_path / "logs"], tmp_path / "out")
    [summary] = report.summaries
    assert (summary.run.unanswered, summary.run.limits) == (len(stopped), {"message": len(stopped)})
    assert not summary.run.complete
    assert report.headline == (
        f"Incomplete runs: {summary.label} ({len(answered)} of {QUESTIONS} scored, "
        f"{len(stopped)} not answered: stopped by an Inspect limit)"
    )
    assert close(str(summary.overall.accuracy), accuracy)
    [row] = read_csv(tmp_path / "out", "overall")
    assert row["unanswered samples"] == str(len(stopped))
    assert row["questions scored"] == str(len(answered))
    assert row["check against Inspect"].startswith("matches (")
    assert f"{summary.label}: matches Inspect" in "\n".join(report.notes)
    assert any(
        f"{len(stopped)} sample(s) not answered: stopped by an Inspect limit "
        f"(message limit: {len(stopped)})" in note
        for note in report.notes
    )


def test_topics_with_line_breaks_and_long_topics_match_inspect(tmp_path: Path) -> None:
    """Sample summaries collapse a topic's whitespace (CR/LF too) and shorten it past
    1024 characters; the metric names Inspect stored keep it whole. The check compares
    the two as Inspect stores them: a match, not a false MISMATCH."""
    questions, _ = generate_split(
        tmp_path / "data", "128k", contexts=2, min_messages=8, max_messages=12, questions=8
    )
    with questions.open(encoding="utf-8", newline="") as file:
        rows = list(csv.DictReader(file))
    long_topic = " ".join(["preferences"] * 120)
    odd = {rows[0]["topic"]: "travel\r\nPlanning", rows[1]["topic"]: long_topic}
    for row in rows:
        row["topic"] = odd.get(row["topic"], row["topic"])
    write_questions(questions, rows)
    model = mock_model(lambda messages: hashed_answer("a", messages), "mockllm/model-a")
    log = read_eval_log(run(model, tmp_path / "logs", tmp_path / "data"))
    assert log.results is not None
    assert "topic_travel\r\nPlanning" in log.results.scores[0].metrics
    report = build_report([tmp_path / "logs"], tmp_path / "out")
    [summary] = report.summaries
    assert not any("MISMATCH" in note for note in report.notes)
    assert f"{summary.label}: matches Inspect" in "\n".join(report.notes)
    topics = set(read_csv(tmp_path / "out", "topics")[0]) - {"run"}
    # whole words, as many as fit 1024 characters with the "..."
    assert {"travel Planning", " ".join(["preferences"] * 85) + "..."} <= topics


def test_runs_of_one_model_name_with_other_model_arguments_are_other_models(
    logs: Logs, tmp_path: Path
) -> None:
    """Two `personamem/oracle` models (another `-M decay`), each run with and without the
    history: each full-history run is paired with its own model's baseline."""
    questions = str(logs.data / PERSONAMEM.questions_file("128k"))
    locations: dict[tuple[str, str], str] = {}
    for decay in ("0.0", "0.1"):
        for history in ("full", "none"):
            [log] = inspect_eval(
                TASK,
                task_args={"data_dir": str(logs.data), "history": history},
                model="personamem/oracle",
                model_args={"questions": questions, "decay": float(decay)},
                log_dir=str(tmp_path / "logs"),
                display="none",
            )
            locations[decay, history] = str(log.location)
    report = build_report([tmp_path / "logs"], tmp_path / "out")
    labels = {s.run.location: s.label for s in report.summaries}
    assert len(set(labels.values())) == 4
    assert labels[locations["0.1", "none"]] == "personamem/oracle (decay=0.1), no history"
    gains = by_measure(read_csv(tmp_path / "out", "gain"), "run")
    assert len({run for run, _ in gains}) == 2
    for decay in ("0.0", "0.1"):
        full, none = locations[decay, "full"], locations[decay, "none"]
        row = gains[labels[full], "overall"]
        assert row["baseline (no history)"] == labels[none]
        values = [mean(list(expected_from_log(x).values.values())) for x in (full, none)]
        assert close(row["difference"], values[0] - values[1])
    groups = {row["runs of"] for row in read_csv(tmp_path / "out", "methods")}
    assert groups == {f"personamem/oracle (decay={d}), 128k" for d in ("0.0", "0.1")}
    models = {row["model"] for row in read_csv(tmp_path / "out", "runs")}
    assert models == {"personamem/oracle (decay=0.0)", "personamem/oracle (decay=0.1)"}


def bar_colours(svg: Path) -> list[str]:
    """The fill colours of a figure's bars, in the order they are drawn (series by series)."""
    fills = re.findall(r"fill: (#[0-9a-f]{6})", svg.read_text(encoding="utf-8"))
    return [c for c in dict.fromkeys(fills) if c != "#ffffff"]


def test_a_run_has_one_colour_in_every_figure(method_logs: MethodLogs, tmp_path: Path) -> None:
    """The methods figure orders runs by method (no history first), the categories figure
    by start time: a run's bars have the same colour in both, and runs differ in colour."""
    report = methods_report(method_logs, tmp_path)
    colours = {s.label: c for s, c in zip(report.summaries, TAB10, strict=True)}
    by_start = [colours[s.label] for s in report.summaries]
    assert bar_colours(tmp_path / "figures" / "categories.svg") == by_start
    labels = {axes_label(s.run.settings, s.run.entry): s.label for s in report.summaries}
    methods = ["no history", "full history", "memory (memory_fixtures:SpyMemory)"]
    by_method = [colours[labels[m]] for m in [*methods, "rag (bm25, top 4)"]]
    [svg] = (tmp_path / "figures").glob("methods_1_*.svg")
    assert bar_colours(svg) == by_method != by_start


def counting_model(counts: list[int]) -> Model:
    """model-a's answers, each call's messages counted into `counts`: the stand-in's
    usage is one input token a message and one output token a reply."""

    def reply(messages: list[ChatMessage]) -> str:
        counts.append(len(messages))
        return hashed_answer("a", messages)

    return mock_model(reply, "mockllm/model-a")


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
        assert close(row["USD"], dollars[history])
    full, none = (expected_from_log(locations[k]) for k in ("full", "none"))
    gain = mean(list(full.values.values())) - mean(list(none.values.values()))
    assert gain > 0 and close(rows["full history"]["gain"], gain)
    per_point = (dollars["full"] - dollars["none"]) / (100 * gain)
    assert close(rows["full history"]["USD per point"], per_point)
    assert rows["no history"]["gain"] == rows["no history"]["USD per point"] == ""
    [figure] = [f for f in report.figures if f.files[0].name == "cost.png"]
    width, height = SIZES["cost"]
    assert png_size(tmp_path / "out" / figure.files[0]) == (round(width * DPI), round(height * DPI))


def test_a_memory_systems_own_tokens_are_read_from_its_samples(
    method_logs: MethodLogs, tmp_path: Path
) -> None:
    """The memory run with what a memory system reports per question grafted in (LLM
    and embedder tokens, and a count that is not tokens); the mock model has no price."""
    log = read_eval_log(method_logs.memory)
    for sample in log.samples or []:
        sample.metadata["memory"]["memory_usage"] = {
            "llm_input_tokens": 7, "llm_output_tokens": 2, "embedding_input_tokens": 3,
            "llm_calls": 5,
        }  # fmt: skip
    write_eval_log(log, str(tmp_path / "memory.json"))
    build_report([tmp_path / "memory.json"], tmp_path / "out")
    [row] = read_csv(tmp_path / "out", "cost")
    assert (row["memory input tokens"], row["memory output tokens"]) == ("10.0", "2.0")
    assert row["USD"] == row["USD per point"] == ""


def test_a_run_that_scored_nothing_is_left_out_of_every_comparison(
    logs: Logs, tmp_path: Path
) -> None:
    """A RAG run whose every sample errored (its retriever could not load, say) beside
    complete full- and no-history runs of the same model: compared over the questions
    all runs scored, it would empty the methods table and the gain."""
    folder = tmp_path / "logs"
    folder.mkdir()
    for key in ("a_full", "a_none"):
        shutil.copy(logs.locations[key], folder / f"{key}.eval")

    def unreachable(messages: list[ChatMessage]) -> str:
        raise RuntimeError("the retriever could not load")

    rag_args = {"history": "rag", "retriever": "bm25", "top_k": 4}
    model = mock_model(unreachable, "mockllm/model-a")
    run(model, folder, logs.data, task_args=rag_args, fail_on_error=False)
    out = tmp_path / "out"
    report = build_report([folder], out, name_overrides={"mockllm/model-a": "GPT-4o"})
    [empty] = [s for s in report.summaries if s.run.settings["history"] == "rag"]
    assert empty.overall.n == 0 and empty.run.errors == QUESTIONS
    rows = read_csv(out, "methods")
    assert [row["method"] for row in rows] == ["no history", "full history"]
    [compared] = {row["questions compared"] for row in read_csv(out, "method_differences")}
    assert compared == str(QUESTIONS)
    assert all(row["macro average"] for row in rows)
    gain = by_measure(read_csv(out, "gain"), "run")
    [full] = [s.label for s in report.summaries if s.run.settings["history"] == "full"]
    assert {run for run, _ in gain} == {full}
    assert gain[full, "overall"]["questions compared"] == str(QUESTIONS)
    published = read_csv(out, "published_methods")
    assert empty.label not in {row["run"] for row in published}
    assert {row["method"] for row in published} == {"full history"}
    assert f"{empty.label}: no question scored, so it is left out of every comparison" in (
        "\n".join(report.notes)
    )


def test_a_run_on_other_data_is_marked_and_kept_out_of_the_published_comparison(
    logs: Logs, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The task records whether its question file is the released one
    (`data_release`); an older log does not say (unknown)."""
    folder = tmp_path / "logs"
    folder.mkdir()
    reason = "24 rows, the released questions_128k.csv has 2727"
    for key, release in (("a_full", f"not the released file: {reason}"), ("a_none", "released")):
        log = read_eval_log(logs.locations[key])
        log.eval.metadata = {**(log.eval.metadata or {}), "data_release": release}
        write_eval_log(log, str(folder / f"{key}.eval"))
    older = read_eval_log(logs.locations["b_epochs"])  # made before the task said
    older.eval.metadata = {
        k: v for k, v in (older.eval.metadata or {}).items() if k != "data_release"
    }
    write_eval_log(older, str(folder / "b_epochs.eval"))
    out = tmp_path / "out"
    report = build_report([folder], out, name_overrides={"mockllm/model-a": "GPT-4o"})
    labels = {Path(s.run.location).stem: s.label for s in report.summaries}
    other = labels["a_full"]
    assert other == "mockllm/model-a, full history, not released data"
    for name in ("overall", "runs", "categories", "gain", "sessions", "topics", "estimates"):
        assert other in {row["run"] for row in read_csv(out, name)}, name
    data = {row["run"]: row["data"] for row in read_csv(out, "runs")}
    assert data == {
        other: "not released",
        labels["a_none"]: "released",
        labels["b_epochs"]: "unknown",
    }
    assert report.caveats == [
        f"not the released file, 1 of 3 runs: {other} ({reason}): "
        + CAVEATS["not the released file"]
    ]
    assert "--include-unreleased-data" in CAVEATS["not the released file"]
    assert "not the released" not in "\n".join(report.notes)  # the summary says it, once
    assert not (out / "tables" / "published.csv").exists()
    assert report.headline == (
        "All 3 runs complete; not comparable with published numbers: not the released file (1 of 3)"
    )

    command = ["report", str(folder), "--out", str(tmp_path / "all")]
    assert main([*command, "--published-name", "mockllm/model-a=GPT-4o",
                 "--include-unreleased-data"]) == 0  # fmt: skip
    printed = capsys.readouterr().out.splitlines()
    assert printed[:2] == [report.headline, f"not comparable: {report.caveats[0]}"]
    assert {row["run"] for row in read_csv(tmp_path / "all", "published")} == {other}


def test_the_first_line_names_every_incomplete_run_and_a_subset_as_not_comparable(
    logs: Logs, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "logs"
    folder.mkdir()
    for key in ("a_full", "a_errors", "b_interrupted"):
        shutil.copy(logs.locations[key], folder / f"{key}.eval")
    model = mock_model(lambda messages: hashed_answer("a", messages), "mockllm/model-a")
    run(model, folder, logs.data, limit=10, task_args={"history": "none"})
    out = tmp_path / "out"
    assert main(["report", str(folder), "--out", str(out)]) == 0
    line = capsys.readouterr().out.splitlines()[0]
    page = (out / "index.html").read_text(encoding="utf-8")
    body = page.split("<body>", 1)[1].lstrip()
    assert body.startswith(f'<p class="headline">{html.escape(line)}</p>')

    labels = {Path(s.run.location).stem: s.label for s in build_report([folder], out).summaries}
    errors = expected_from_log(logs.locations["a_errors"])
    interrupted = expected_from_log(logs.locations["b_interrupted"])
    [limited] = set(labels) - {"a_full", "a_errors", "b_interrupted"}
    assert errors.errors and interrupted.errors
    assert line == (
        "Incomplete runs: "
        f"{labels['a_errors']} ({len(errors.values)} of {QUESTIONS} scored, "
        f"{errors.errors} errored); "
        f"{labels['b_interrupted']} (status error, {len(interrupted.values)} of {QUESTIONS} "
        f"scored, {interrupted.errors} errored); "
        "not comparable with published numbers: subset (1 of 4)"
    )  # the limited run is complete: every question it asked was scored

    complete = tmp_path / "complete"
    complete.mkdir()
    for key in ("a_full", "a_none"):
        shutil.copy(logs.locations[key], complete / f"{key}.eval")
    assert main(["report", str(complete), "--out", str(tmp_path / "out2")]) == 0
    assert capsys.readouterr().out.splitlines()[0] == "All 2 runs complete."
    page = (tmp_path / "out2" / "index.html").read_text(encoding="utf-8")
    body = page.split("<body>", 1)[1].lstrip()
    assert body.startswith('<p class="headline">All 2 runs complete.</p>')


def test_every_run_is_set_against_the_best_shortcut_floor(logs: Logs, tmp_path: Path) -> None:
    """Floor runs (`personamem/floor`) on the same split: each other run is compared,
    paired, with the most accurate of them, and a run not above it is said to be so."""
    from inspect_ai.model import get_model

    folder = tmp_path / "logs"
    folder.mkdir()
    shutil.copy(logs.locations["a_full"], folder / "a_full.eval")
    locations = {
        rule: run(get_model("personamem/floor", rule=rule), folder, logs.data)
        for rule in ("longest", "random")
    }
    floors = {rule: expected_from_log(location) for rule, location in locations.items()}
    out = tmp_path / "out"
    report = build_report([folder], out)
    labels = {str(Path(s.run.location).resolve()): s.label for s in report.summaries}
    best_rule = max(floors, key=lambda rule: mean(list(floors[rule].values.values())))
    best = floors[best_rule]
    best_label = labels[str(Path(locations[best_rule]).resolve())]
    full_label = labels[str((folder / "a_full.eval").resolve())]
    rows = {row["measure"]: row for row in read_csv(out, "floor")}
    overall = rows["overall"]
    assert (overall["run"], overall["floor"]) == (full_label, best_label)
    full = expected_from_log(logs.locations["a_full"])
    by_hand = mean([full.values[q] - best.values[q] for q in full.values])
    assert close(overall["difference"], by_hand)
    said = [note for note in report.notes if "NOT above the shortcut floor" in note]
    above = overall["distinguishable from 0"] == "yes" and by_hand > 0
    assert bool(said) is not above


def grafted(location: str, path: Path, **metadata: str) -> None:
    """A copy of the log at `location` written to `path`, with `metadata` in its task
    metadata (`data_release`, `data_checked`: what a newer task records)."""
    log = read_eval_log(location)
    log.eval.metadata = {**(log.eval.metadata or {}), **metadata}
    write_eval_log(log, str(path))


def test_a_run_on_synthetic_data_is_labelled_so_and_never_compared(
    logs: Logs, tmp_path: Path
) -> None:
    """Generated data (`data_release: synthetic: ...`) is its own kind: labelled
    `synthetic data`, not `not released data`, and kept out of the published comparison
    even with `--include-unreleased-data` (which is about real but other data)."""
    folder = tmp_path / "logs"
    folder.mkdir()
    checked = "questions_128k.csv: rows, bytes; shared_contexts_128k.jsonl: nothing to check"
    for key in ("a_full", "a_none"):
        synthetic = "synthetic: questions_128k.csv written by inspect-personamem try"
        grafted(
            logs.locations[key], folder / f"{key}.eval", data_release=synthetic, data_checked=""
        )
    b_epochs = folder / "b_epochs.eval"
    grafted(logs.locations["b_epochs"], b_epochs, data_release="released", data_checked=checked)
    out = tmp_path / "out"
    report = build_report(
        [folder], out, name_overrides={"mockllm/model-a": "GPT-4o"}, include_unreleased=True
    )
    runs = {Path(s.run.location).stem: s for s in report.summaries}
    on_synthetic = [runs[key] for key in ("a_full", "a_none")]
    for s in on_synthetic:
        assert (s.run.synthetic, s.run.unreleased) == (
            "questions_128k.csv written by inspect-personamem try",
            "",
        )
        assert s.label.endswith(", synthetic data")
    assert not runs["b_epochs"].label.endswith("data")
    for name in ("summary", "overall", "runs", "categories", "sessions", "estimates"):
        labels = {row["run"] for row in read_csv(out, name)}
        assert {s.label for s in on_synthetic} <= labels, name
    data = {row["run"]: (row["data"], row["data checked"]) for row in read_csv(out, "runs")}
    assert data == {
        on_synthetic[0].label: ("synthetic", ""),
        on_synthetic[1].label: ("synthetic", ""),
        runs["b_epochs"].label: ("released", checked),
    }
    assert not (out / "tables" / "published.csv").exists()
    assert report.headline == (
        "All 3 runs complete; not comparable with published numbers: synthetic data (2 of 3)"
    )
    names = "; ".join(s.label for s in report.summaries if s.run.synthetic)
    assert report.caveats == [
        f"synthetic data, 2 of 3 runs: {names} (questions_128k.csv written by inspect-personamem "
        "try): " + CAVEATS["synthetic data"]
    ]


def test_the_page_opens_with_one_summary_and_says_each_caveat_once(
    logs: Logs, tmp_path: Path
) -> None:
    """Per dataset and model, each run's accuracy beside its model's no-history run and
    the best model-free floor; a caveat shared by four logs is one line, not four."""
    from inspect_ai.model import get_model

    folder = tmp_path / "logs"
    folder.mkdir()
    other = "not the released file: 24 rows, the released questions_128k.csv has 2727"
    for key in ("a_full", "a_none", "b_epochs"):
        grafted(logs.locations[key], folder / f"{key}.eval", data_release=other)
    for rule in ("longest", "random"):
        location = run(get_model("personamem/floor", rule=rule), tmp_path / "floors", logs.data)
        grafted(location, folder / f"{rule}.eval", data_release=other)
    out = tmp_path / "out"
    report = build_report([folder], out)
    by_stem = {Path(s.run.location).stem: s for s in report.summaries}
    floors = [s for s in report.summaries if s.run.model == "personamem/floor"]
    best = max(floors, key=lambda s: s.overall.accuracy)
    order = [by_stem[key] for key in ("a_none", "a_full", "b_epochs")]
    rows = read_csv(out, "summary")
    assert [row["run"] for row in rows] == [s.label for s in [*order, best]]
    for row, s in zip(rows, [*order, best], strict=True):
        assert row["data"] == "PersonaMem 128k"
        assert close(row["accuracy"], s.overall.accuracy)
        assert close(row["ci95 low"], s.overall.low) and close(row["ci95 high"], s.overall.high)
        assert row["questions scored"] == str(s.overall.n)
    assert report.caveats == [
        "not the released file, all 5 runs (24 rows, the released questions_128k.csv has "
        f"2727): {CAVEATS['not the released file']}"
    ]
    page = (out / "index.html").read_text(encoding="utf-8")
    assert page.count("24 rows, the released questions_128k.csv has 2727") == 1
    body = page.split("<body>", 1)[1]
    assert body.index('<section id="summary">') < body.index('id="caveats"')
    assert body.index('id="caveats"') < body.index('id="notes"')


def test_paired_tables_say_how_many_questions_two_runs_share(logs: Logs, tmp_path: Path) -> None:
    """Two runs over other questions (`--limit` takes each run's first N, and orders
    differ between answers) are paired on the questions they share: every paired table
    says how many, and on the overall row, where fewer than either run scored, each
    run's own count."""
    from inspect_ai.model import get_model

    ids = [str(sample.id) for sample in read_eval_log(logs.locations["a_full"]).samples or []]
    folder = tmp_path / "logs"
    model = mock_model(lambda messages: hashed_answer("a", messages), "mockllm/model-a")
    run(model, folder, logs.data, sample_id=ids[:12])
    run(model, folder, logs.data, sample_id=ids[6:18], task_args={"history": "none"})
    run(get_model("personamem/floor", rule="longest"), folder, logs.data)
    out = tmp_path / "out"
    build_report([folder], out)
    for name in ("gain", "method_differences"):
        rows = {row["measure"]: row["questions compared"] for row in read_csv(out, name)}
        assert (rows["overall"], rows["macro average"]) == ("6 of 12 and 12", "6"), name
    floor = [row for row in read_csv(out, "floor") if row["measure"] == "overall"]
    assert [row["questions compared"] for row in floor] == [f"12 of 12 and {QUESTIONS}"] * 2
