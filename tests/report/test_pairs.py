"""Runs paired with the runs they are measured against (`report/pairs.py`): of several
runs of one kind the latest complete one, each run with its no-history baseline and its
best shortcut floor, the methods of one model grouped, each over the questions both or
all of them scored; by hand on hand-built runs, and through the report's tables."""

from __future__ import annotations

import shutil
from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path

from inspect_ai.log import read_eval_log
from inspect_ai.model import ChatMessage
from support.helpers import mock_model
from support.reports import (
    CONTEXTS,
    QUESTIONS,
    T_975,
    Logs,
    a_summary,
    by_measure,
    close,
    clustered_se,
    expected_by_label,
    expected_from_log,
    grouped,
    hashed_answer,
    mean,
    read_csv,
    results,
    run,
)

from inspect_personamem.datasets.v1.question_types import CATEGORY_TITLES
from inspect_personamem.report import build_report
from inspect_personamem.report.pairs import (
    FLOOR_MODEL,
    by_kind,
    floor_pairs,
    gain_pairs,
    method_groups,
    not_above_floor,
    on_common_questions,
)

LATER = datetime(2025, 1, 2, tzinfo=timezone.utc)


def test_of_runs_of_one_kind_the_latest_complete_one_is_taken() -> None:
    """Three runs of one kind: an older complete one is preferred to a later one that
    errored; of two complete, the later. A run that scored nothing is left out."""
    scored = results([1.0, 0.0], [1.0, 1.0])
    old = a_summary("old", scored)
    failed = a_summary("failed", scored[:3], created=LATER, status="error", planned=4)
    nothing = a_summary("nothing", [], settings={"history": "none"})
    assert by_kind([old, failed, nothing]) == [old]
    newer = a_summary("newer", scored, created=LATER)
    assert by_kind([old, newer, failed]) == [newer]


def test_runs_are_compared_on_the_questions_all_of_them_scored() -> None:
    """A run over questions 0-0, 0-1, 1-0, 1-1 and one over 0-1, 1-0, 1-1, 2-0: each
    recomputed over the three both scored, its `scored` count kept."""
    a = a_summary("a", results([1.0, 0.0], [1.0, 1.0]))
    b = a_summary("b", [*results([0.0, 0.0], [0.0, 1.0])[1:], *results([], [], [1.0])])
    first, second = on_common_questions([a, b])
    assert [s.id for s in first.run.samples] == [s.id for s in second.run.samples]
    assert {s.id for s in first.run.samples} == {"0-1", "1-0", "1-1"}
    assert (first.overall.n, first.overall.accuracy, first.scored) == (3, 2 / 3, 4)
    assert (second.overall.n, second.overall.accuracy, second.scored) == (3, 1 / 3, 4)


def test_a_run_is_paired_with_the_no_history_run_of_its_own_model() -> None:
    """The no-history run of the same model and settings is the baseline; another
    model's is not; a run of no history has none of its own."""
    scored = results([1.0, 0.0], [1.0, 1.0])
    full = a_summary("full", scored)
    none = a_summary("none", results([0.0, 0.0], [1.0, 0.0]), settings={"history": "none"})
    other = a_summary("other", scored, model="mockllm/model-b")
    rag = a_summary("rag", scored, settings={"history": "rag", "retriever": "bm25", "top_k": "4"})
    pairs = gain_pairs([full, none, other, rag])
    assert [(p.run.label, p.baseline.label) for p in pairs] == [("full", "none"), ("rag", "none")]
    assert (pairs[0].run.overall.accuracy, pairs[0].baseline.overall.accuracy) == (0.75, 0.25)


def test_the_floor_is_the_one_sharing_the_most_questions_then_the_most_accurate() -> None:
    """Floor runs of the split beside a run over 10 questions: of those sharing all 10,
    the more accurate (0.1 over 0.0), not one sharing 2 (both right), nor one of another
    split. The run, right on 9 more of the 10 (the difference 0.9 ± t(4) x 0.1, see
    test_differences.py), is above it and gets no note; the floor-level run is not and
    gets one."""
    ten = results([1.0, 1.0], [1.0, 1.0], [1.0, 0.0], [1.0, 1.0], [1.0, 1.0])
    zero = [replace(s, value=0.0) for s in ten]
    one_right = [replace(s, value=1.0 if s.id == "2-1" else 0.0) for s in ten]
    run_ = a_summary("run", [replace(s, value=1.0) for s in ten])
    floors = [
        a_summary("zero", zero, model=FLOOR_MODEL),
        a_summary("two", ten[:2], model=FLOOR_MODEL, settings={"shuffle": "1"}),
        a_summary("one right", one_right, model=FLOOR_MODEL, settings={"shuffle": "2"}),
        a_summary("other split", ten, model=FLOOR_MODEL, split="32k"),
    ]
    level = a_summary("level", zero, model="mockllm/model-b")
    pairs = floor_pairs([run_, *floors, level])
    assert [(p.run.label, p.floor.label) for p in pairs] == [
        ("run", "one right"),
        ("level", "one right"),
    ]
    assert pairs[0].floor.overall.accuracy == 0.1
    [note] = not_above_floor(pairs)
    assert note.startswith(
        "level: NOT above the shortcut floor overall (one right: 0.100; difference -0.100, "
        "95% interval "
    )


def test_a_run_without_an_interval_against_its_floor_is_said_not_shown_above_it() -> None:
    """A run right on every question its floor got wrong differs by +1 on each: every
    difference the same, so no interval. It is not said to be below the floor, nor
    above it: not shown above, with no interval, and why."""
    ten = results([1.0, 1.0], [1.0, 1.0], [1.0, 1.0], [1.0, 1.0], [1.0, 1.0])
    floor = a_summary("floor", [replace(s, value=0.0) for s in ten], model=FLOOR_MODEL)
    level = a_summary("level", [replace(s, value=0.0) for s in ten], model="mockllm/model-b")
    pairs = floor_pairs([a_summary("run", ten), floor, level])
    assert not_above_floor(pairs) == [
        "run: not shown above the shortcut floor overall (floor: 0.000; difference +1.000, "
        "no interval: one shared history, or every question's difference the same)",
        "level: NOT above the shortcut floor overall (floor: 0.000; difference +0.000, "
        "no interval: one shared history, or every question's difference the same)",
    ]


def test_the_methods_of_one_model_and_split_are_grouped_no_history_first() -> None:
    """A model's full, no-history and RAG runs make one group over the questions all of
    them scored, no history and full history first, then by label; another model's
    single run, and a run of other data settings, make none."""
    scored = results([1.0, 0.0], [1.0, 1.0])
    rag_settings = {"history": "rag", "retriever": "bm25", "top_k": "4"}
    runs = [
        a_summary("rag", scored, settings=rag_settings),
        a_summary("full", scored[1:]),
        a_summary("none", scored, settings={"history": "none"}),
        a_summary("b", scored, model="mockllm/model-b"),
        a_summary("other data", scored, settings={"negative_end_index": "1"}),
    ]
    [group] = method_groups(runs)
    assert group.title == "mockllm/model-a, 128k"
    assert [(method, s.label) for method, s in group.runs] == [
        ("no history", "none"),
        ("full history", "full"),
        ("rag (bm25, top 4)", "rag"),
    ]
    assert {s.overall.n for _, s in group.runs} == {3}


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
