"""PersonaMem-v2 runs in the report: read, recomputed and checked against Inspect, shown
apart from v1's, and set beside the published numbers (self-reported ones so labelled)."""

from __future__ import annotations

import csv
import io
from collections import defaultdict
from dataclasses import replace
from pathlib import Path

import pytest
from inspect_ai import score
from inspect_ai.log import EvalLog, read_eval_log, write_eval_log
from support.graders import faithful, first, grader
from support.helpers import DISPLAY, SMALL_V2, Reply, mock_model, run_task
from support.reports import assert_labels_inside

from inspect_personamem.data.provenance import MARK
from inspect_personamem.datasets.v2.generator import generate_v2
from inspect_personamem.datasets.v2.published import paper_range, published_v2
from inspect_personamem.report import build_report
from inspect_personamem.report.build import Report
from inspect_personamem.scoring.grader.scorer import graded_scorer

pytest.importorskip("matplotlib", reason="needs the report extra: pip install -e '.[report]'")
pytestmark = pytest.mark.report

V2_TASK = "inspect_personamem/personamem_v2_32k"
SHAPE = replace(SMALL_V2, personas=8)
"""Enough personas (8, 2-4 questions each) for clustered intervals in every group."""


def choose(letter: str) -> Reply:
    return lambda messages: f"Let me think.\nFinal Answer: {letter}"


def v2_runs(data: Path, logs: Path) -> dict[str, EvalLog]:
    """Four PersonaMem-v2 runs: chosen with and without history, open graded by a
    grader naming the first candidate, open judged by a judge scoring 0.7."""
    folder = {"data_dir": str(data)}
    judge = mock_model(lambda messages: "Fair enough. \\boxed{0.7}", name="mockllm/judge")
    return {
        "full": run_task(V2_TASK, mock_model(choose("A")), logs, folder),
        "none": run_task(V2_TASK, mock_model(choose("B")), logs, {**folder, "history": "none"}),
        "graded": run_task(
            V2_TASK,
            mock_model(lambda messages: "Sure."),
            logs,
            {**folder, "answer": "open", "grader_calibration": 3},
            model_roles={"grader": grader(first)},
        ),
        "judged": run_task(
            V2_TASK,
            mock_model(lambda messages: "Sure."),
            logs,
            {**folder, "answer": "open", "judge": "preference", "grader_calibration": 3},
            model_roles={"grader": judge},
        ),
    }


@pytest.fixture(scope="module")
def v2_report(tmp_path_factory: pytest.TempPathFactory) -> tuple[Report, dict[str, EvalLog], Path]:
    """A report over the four v2 runs and one v1 run."""
    root = tmp_path_factory.mktemp("v2report")
    data = root / "v2"
    generate_v2(data, shape=SHAPE)
    # unmarked as generated, the data stand for other data than the release, not synthetic
    # data (which is never set beside published numbers: tested in tests/report/test_published.py)
    (data / MARK).unlink()
    logs = root / "logs"
    runs = v2_runs(data, logs)
    from inspect_personamem.datasets.v1.generator import generate_split

    v1_data = root / "v1"
    generate_split(v1_data, "32k", contexts=3, min_messages=30, max_messages=60, questions=12)
    (v1_data / MARK).unlink()
    v1 = run_task(
        "inspect_personamem/personamem_32k",
        mock_model(lambda messages: "(a)"),
        logs,
        {"data_dir": str(v1_data)},
    )
    assert all(log.status == "success" for log in [*runs.values(), v1])
    return build_report([logs], root / "report"), runs, root / "report"


def rows(out: Path, name: str) -> list[dict[str, str]]:
    text = (out / "tables" / f"{name}.csv").read_text(encoding="utf-8")
    return list(csv.DictReader(io.StringIO(text)))


def test_v2_runs_are_reported_apart_from_v1(
    v2_report: tuple[Report, dict[str, EvalLog], Path],
) -> None:
    report, runs, out = v2_report
    v1_rows, v2_rows = rows(out, "overall"), rows(out, "v2_overall")
    assert len(v1_rows) == 1 and "personamem" not in v1_rows[0]["run"]
    assert len(v2_rows) == 4
    v2_files = {Path(log.location).name for log in runs.values()}
    assert {row["source"].removeprefix("Inspect log ") for row in rows(out, "v2_published")} >= (
        v2_files
    )
    # v1's tables hold no v2 run and v2's no v1 run
    assert {row["run"] for row in rows(out, "runs")}.isdisjoint(
        {row["run"] for row in rows(out, "v2_runs")}
    )
    assert {row["split"] for row in rows(out, "v2_runs")} == {"benchmark 32k"}
    assert {row["split"] for row in rows(out, "runs")} == {"32k"}
    names = {table.name for table in report.tables}
    assert {"v2_overall", "v2_runs", "v2_published", "v2_groups", "v2_graders", "v2_judges"} <= (
        names
    )
    assert all(t.title.startswith("PersonaMem-v2: ") for t in report.tables if "v2" in t.name)
    assert (out / "figures" / "v2.png").is_file() and (out / "figures" / "v2.svg").is_file()
    # synthetic data: every run is marked as not on the released files, v2's too, once
    assert len(report.summaries) == 5
    assert report.headline == (
        "All 5 runs complete; not comparable with published numbers: not the released file"
    )
    [caveat] = report.caveats
    assert caveat.startswith("not the released file, all 5 runs (")


def test_every_v2_metric_recomputed_matches_what_inspect_stored(
    v2_report: tuple[Report, dict[str, EvalLog], Path],
) -> None:
    """The check compares accuracy, stderr (clustered by persona), the answer's own
    figures and every `<group>_<value>` metric: all must match, none be missing."""
    report, runs, _ = v2_report
    for s in report.summaries:
        if s.run.benchmark != "v2":
            continue
        (note,) = [n for n in report.notes if n.startswith(f"{s.label}: ") and "Inspect" in n]
        assert "matches Inspect" in note, note
        log = read_eval_log(s.run.location, header_only=True)
        assert log.results is not None
        stored = set(log.results.scores[0].metrics)
        assert f"matches Inspect ({len(stored)} metrics)" in note, (note, sorted(stored))


def test_group_accuracies_are_those_of_the_samples(
    v2_report: tuple[Report, dict[str, EvalLog], Path],
) -> None:
    _, runs, out = v2_report
    log = read_eval_log(runs["full"].location)
    by_type: dict[str, list[float]] = defaultdict(list)
    for sample in log.samples or []:
        assert sample.scores is not None
        value = sample.scores["v2_choice_scorer"].value
        by_type[str(sample.metadata["pref_type"])].append(1.0 if value == "C" else 0.0)
    full_label = next(
        row["run"] for row in rows(out, "v2_runs") if row["settings"] == "all defaults"
    )
    shown = {
        row["value"]: float(row["accuracy"])
        for row in rows(out, "v2_groups")
        if row["run"] == full_label and row["group"] == "pref_type"
    }
    assert shown == pytest.approx({k: sum(v) / len(v) for k, v in by_type.items()})
    groups = {row["group"] for row in rows(out, "v2_groups") if row["run"] == full_label}
    assert groups == {
        "pref_type", "conversation_scenario", "topic_query", "who", "updated",
        "sensitive_info", "distance_bin",
    }  # fmt: skip


def test_runs_stand_beside_every_published_number_self_reported_ones_so_labelled(
    v2_report: tuple[Report, dict[str, EvalLog], Path],
) -> None:
    _, _, out = v2_report
    table = rows(out, "v2_published")
    published = [row for row in table if not row["kind"].startswith("this report")]
    assert len(published) == len(published_v2()) == 16
    vendors = {row["system or run"]: row for row in published if row["kind"] == "self-reported"}
    assert float(vendors["MemOS"]["accuracy"]) == 0.4058
    assert vendors["MemOS"]["model"] == "gpt-4.1-mini"
    assert float(vendors["EverMemOS"]["accuracy"]) == 0.5325
    assert "persona card" in vendors["Mem0"]["deviations from the authors' protocol"]
    paper = next(r for r in published if r["system or run"] == "frontier LLMs (a range)")
    assert (paper["kind"], paper["low"], paper["high"]) == ("paper", "0.37", "0.48")
    ours = {row["system or run"]: row for row in table if row["kind"].startswith("this report")}
    assert len(ours) == 4
    for row in ours.values():
        value = float(row["accuracy"])
        against = row["against the paper's range"]
        if row["kind"] == "this report, mean judge score":
            assert against == "not comparable: a mean judge score"
        else:
            side = "below" if value < 0.37 else "above" if value > 0.48 else "inside"
            assert against == f"{side} 0.37-0.48", row
    judged = next(r for r in ours.values() if r["kind"] == "this report, mean judge score")
    assert "judge=preference" in judged["deviations from the authors' protocol"]
    assert "grader role" in judged["deviations from the authors' protocol"]


def test_judged_and_graded_runs_report_their_judge_and_grader(
    v2_report: tuple[Report, dict[str, EvalLog], Path],
) -> None:
    _, runs, out = v2_report
    (judged,) = rows(out, "v2_judges")
    assert float(judged["mean score"]) == pytest.approx(0.7)
    assert judged["self-judged"] == "no" and judged["calibrated questions"] == "3"
    # the judge scores every candidate 0.7: it never puts the correct one above the rest
    assert float(judged["separates"]) == 0.0
    assert "judged by mockllm/judge" in judged["run"]
    (graded,) = rows(out, "v2_graders")
    assert "graded by mockllm/grader" in graded["run"]
    # the grader names the first candidate, always: the order decides its verdicts
    findings = {row["kind"]: row["finding"] for row in rows(out, "v2_grader_trials")}
    assert findings["identity_wrong"] == findings["reorder"] == "fails"
    assert graded["trustworthy"].startswith("NO: ")


def test_a_regraded_v2_run_is_set_beside_its_first_grading_by_persona(
    v2_report: tuple[Report, dict[str, EvalLog], Path], tmp_path: Path
) -> None:
    """The open run graded again by a faithful grader (Inspect's `score`): the two
    gradings side by side, their intervals clustered by persona, and the re-grade's
    stored metrics matching the report's."""
    _, runs, _ = v2_report
    original = read_eval_log(runs["graded"].location)
    regraded = score(
        original,
        graded_scorer(),
        model_roles={"grader": grader(faithful, "mockllm/faithful")},
        action="overwrite",
        display=DISPLAY,
    )
    write_eval_log(regraded, str(tmp_path / "regraded.eval"))
    report = build_report([runs["graded"].location, tmp_path / "regraded.eval"], tmp_path / "out")
    [row] = rows(tmp_path / "out", "v2_grader_agreement")
    personas = {str(sample.metadata["persona_id"]) for sample in original.samples or []}
    assert (row["questions"], row["contexts"]) == (
        str(len(original.samples or [])),
        str(len(personas)),
    )
    assert "graded by mockllm/grader" in row["grading"]
    assert "graded by mockllm/faithful" in row["other grading"]
    assert not any("MISMATCH" in note for note in report.notes), report.notes


def test_a_report_of_v2_runs_alone_writes_no_v1_tables(tmp_path: Path) -> None:
    data = tmp_path / "v2"
    generate_v2(data, shape=SMALL_V2)
    run_task(V2_TASK, mock_model(choose("C")), tmp_path / "logs", {"data_dir": str(data)})
    report = build_report([tmp_path / "logs"], tmp_path / "report")
    assert [t.name for t in report.tables][:2] == ["summary", "v2_overall"]  # both benchmarks
    assert not (tmp_path / "report" / "tables" / "overall.csv").exists()
    assert [f.files[0].name for f in report.figures] == ["v2.png"]


def test_the_paper_range_is_the_abstracts() -> None:
    paper = paper_range()
    assert (paper.kind, paper.low, paper.high, paper.shown) == ("paper", 0.37, 0.48, "0.37-0.48")
    assert [p.kind for p in published_v2()].count("self-reported") == 13


def test_figure_labels_are_whole_inside_the_figure_and_1_leaves_headroom(
    v2_report: tuple[Report, dict[str, EvalLog], Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Every figure drawn (v1's and v2's): each tick label and legend entry lies inside
    the figure, a run's label beside the published v2 numbers is whole (wrapped onto
    lines, never cut), and an accuracy of 1.0 stays below the frame."""
    from matplotlib.figure import Figure

    from inspect_personamem.report import beside_figure as v2_figure
    from inspect_personamem.report import figures
    from inspect_personamem.report import paper_figures as v1_figures

    drawn: list[Figure] = []
    save = figures.save

    def keep(figure: Figure, folder: Path, stem: str) -> list[Path]:
        drawn.append(figure)
        return save(figure, folder, stem)

    for module in (figures, v1_figures, v2_figure):  # each draws with `save`
        monkeypatch.setattr(module, "save", keep)
    _, _, out = v2_report
    report = build_report([out.parent / "logs"], tmp_path / "report")
    assert len(drawn) == len(report.figures)
    for figure in drawn:
        assert_labels_inside(figure)
        for axes in figure.axes:
            if axes.get_ylabel() == "accuracy":
                assert axes.get_ylim()[1] > 1, figure.get_suptitle()
            if axes.get_xlabel().startswith("accuracy"):
                assert axes.get_xlim()[1] > 1, figure.get_suptitle()
    [v2] = [figure for figure in drawn if "PersonaMem-v2" in figure.get_suptitle()]
    shown = {text.get_text().replace("\n", " ") for text in v2.axes[0].get_yticklabels()}
    runs = {s.label for s in report.summaries if s.run.benchmark == "v2"}
    assert any(len(label) > 60 for label in runs)
    assert runs <= shown
