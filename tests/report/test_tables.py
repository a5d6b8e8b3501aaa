"""The report's tables (`report/tables.py`): every value against a recomputation from the
full samples, the paired comparisons (gain, floor, methods) and their question counts."""

from __future__ import annotations

import math
import shutil
from pathlib import Path

import pytest
from inspect_ai.log import read_eval_log, write_eval_log
from inspect_ai.model import ChatMessage
from support.helpers import mock_model
from support.reports import (
    CONTEXTS,
    QUESTIONS,
    T_975,
    Logs,
    MethodLogs,
    by_measure,
    close,
    clustered_se,
    clustered_wilson,
    expected_by_label,
    expected_from_log,
    grouped,
    hashed_answer,
    markdown_table_cells,
    mean,
    methods_report,
    png_size,
    read_csv,
    run,
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
    # a question type whose questions the two runs scored alike has no row
    alike = {
        key
        for key in full_categories
        if all(d[k] == 0 for k in d if str(full.metadata[k]["category"]) == key)
    }
    assert set(measures) == {
        "overall",
        "macro average",
        *(CATEGORY_TITLES[k] for k in set(full_categories) - alike),
    }
    for key in set(full_categories) - alike:
        gain = full_categories[key] - none_categories[key]
        assert close(measures[CATEGORY_TITLES[key]]["difference"], gain)
    macro_gain = mean(list(full_categories.values())) - mean(list(none_categories.values()))
    assert close(measures["macro average"]["difference"], macro_gain)


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
        assert rows["overall"] == "6 of 12 and 12", name
        # the macro average over the 6, unless the runs scored each of them alike
        note = (out / "tables" / f"{name}.md").read_text(encoding="utf-8").splitlines()[2]
        assert rows.get("macro average") == "6" or note.startswith("Left out: "), name
    floor = [row for row in read_csv(out, "floor") if row["measure"] == "overall"]
    assert [row["questions compared"] for row in floor] == [f"12 of 12 and {QUESTIONS}"] * 2
