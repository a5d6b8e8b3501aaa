"""The report's tables (`report/tables.py`): every value against a recomputation from the
full samples, the methods side by side, Markdown escaped (the pairing itself:
test_pairs.py)."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from inspect_ai.log import read_eval_log, write_eval_log
from support.reports import (
    CONTEXTS,
    QUESTIONS,
    Logs,
    MethodLogs,
    by_measure,
    close,
    clustered_se,
    clustered_wilson,
    expected_by_label,
    expected_from_log,
    grouped,
    markdown_table_cells,
    mean,
    methods_report,
    png_size,
    read_csv,
)

from inspect_personamem.datasets.v1.question_types import CATEGORIES, CATEGORY_TITLES
from inspect_personamem.report import build_report
from inspect_personamem.report.axes import axes_label

pytest.importorskip("matplotlib", reason="needs the report extra: pip install -e '.[report]'")

from inspect_personamem.report.figures import DPI, SIZES  # noqa: E402


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
        rows = read_csv(report_dir, name)
        if "run" in rows[0]:  # a column per value
            by_run = {row.pop("run"): row for row in rows}
        else:  # more than `TRANSPOSE_AT` values: a row per value, a column per run
            value = next(iter(rows[0]))
            by_run = {label: {row[value]: row[label] for row in rows} for label in expected}
        for label, row in by_run.items():
            groups = grouped(expected[label], field)
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
        "memory (support.memories:SpyMemory)": expected_from_log(memory),
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
