"""What a retrieval run's memory did, in the report (`report/retrieval.py`): found
against used, the run against its upper bound and the full history, the memory's
latency; and the upper bound (`history=evidence`) labelled as such everywhere and never
set beside published numbers. Every expectation is recomputed from the logs' full
samples, not from the summaries the report reads."""

from __future__ import annotations

import math
import shutil
import statistics
from pathlib import Path

import pytest
from inspect_ai.log import EvalSample, read_eval_log, write_eval_log
from support.helpers import mock_model, run_task
from support.memories import SleepingMemory
from support.reports import (
    QUESTIONS,
    EvidenceLogs,
    assert_labels_inside,
    close,
    clustered_se,
    expected_from_log,
    mean,
    png_size,
    read_csv,
)

from inspect_personamem.datasets.registry import VERSIONS
from inspect_personamem.report import build_report
from inspect_personamem.report.accuracy import summarise
from inspect_personamem.report.build import Report
from inspect_personamem.report.labels import run_labels
from inspect_personamem.report.read.logs import read_runs
from inspect_personamem.report.sections import Inclusion, ReportContext
from inspect_personamem.report.tables import Table

pytest.importorskip("matplotlib", reason="needs the report extra: pip install -e '.[report]'")

from inspect_personamem.report import figures  # noqa: E402

UPPER_BOUND = "evidence only (upper bound)"
STATUS_COLUMNS = {
    "found": "found", "missed": "missed", "unpositioned": "unpositioned",
    "not_located": "not located",
}  # fmt: skip


def samples(location: str) -> list[EvalSample]:
    """A log's full samples (metadata whole, never thinned)."""
    return list(read_eval_log(location).samples or [])


def score(sample: EvalSample) -> float:
    assert sample.scores is not None
    return 1.0 if sample.scores["personamem_scorer"].value == "C" else 0.0


def status(sample: EvalSample) -> str:
    return str(sample.metadata["retrieval"]["status"])


def label_of(report: Report, location: str) -> str:
    """The label in `report` of the run logged at `location`."""
    [label] = [s.label for s in report.summaries if Path(s.run.location).samefile(location)]
    return label


@pytest.fixture(scope="module")
def evidence_report(
    evidence_logs: EvidenceLogs, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Report, Path]:
    out = tmp_path_factory.mktemp("evidence_report")
    report = build_report([evidence_logs.folder], out, name_overrides={"mockllm/model-a": "GPT-4o"})
    return report, out


def cases(chosen: list[EvalSample]) -> list[tuple[str, str, list[EvalSample]]]:
    """(questions by, value, its samples): all questions, then each value of each of
    v1's evidence groups, as the found-against-used table names them."""
    version = VERSIONS["v1"]
    groups = {group.key: group for group in version.groups}
    found: list[tuple[str, str, list[EvalSample]]] = [("", "all questions", chosen)]
    for key in version.reported.evidence_groups:
        group = groups[key]
        for value in sorted({str(s.metadata[key]) for s in chosen}):
            mine = [s for s in chosen if str(s.metadata[key]) == value]
            found.append((group.title, group.values.get(value, value), mine))
    return found


def assert_use(row: dict[str, str], chosen: list[EvalSample]) -> None:
    """A found-against-used row against its questions' records, counted here."""
    statuses = [status(s) for s in chosen]
    scores = [score(s) for s in chosen]
    by = {
        key: [v for st, v in zip(statuses, scores, strict=True) if st == key]
        for key in STATUS_COLUMNS
    }
    assert row["questions"] == str(len(chosen))
    for key, column in STATUS_COLUMNS.items():
        assert row[column] == str(len(by[key])), column
    checked = len(by["found"]) + len(by["missed"])
    assert close(row["found share"], len(by["found"]) / checked if checked else math.nan)
    assert close(row["accuracy if found"], mean(by["found"]) if by["found"] else math.nan)
    assert close(row["accuracy if missed"], mean(by["missed"]) if by["missed"] else math.nan)
    errors = sum(1 - v for v in scores)
    assert close(row["errors"], errors)
    for key, column in (("missed", "errors: missed"), ("found", "errors: found")):
        wrong = sum(1 - v for v in by[key])
        assert close(row[column], wrong / errors if errors else math.nan), column


def test_found_against_used_counts_what_each_question_recorded(
    evidence_logs: EvidenceLogs, evidence_report: tuple[Report, Path]
) -> None:
    """Per retrieval run, overall and per question type and bin of sessions elapsed:
    the questions found, missed and not checked, accuracy if found and if missed, and
    the shares of the errors that are misses and misuse, counted from the samples."""
    report, out = evidence_report
    rows = {(r["run"], r["questions by"], r["value"]): r for r in read_csv(out, "evidence_use")}
    seen: set[str] = set()
    for location in (evidence_logs.rag, evidence_logs.memory):
        chosen = samples(location)
        seen.update(status(s) for s in chosen)
        label = label_of(report, location)
        for by, value, mine in cases(chosen):
            assert_use(rows.pop((label, by, value)), mine)
    assert rows == {}  # no other run, and no other value
    assert seen & {"found", "missed"}  # some retrieval was checked


def test_retrieval_is_set_against_its_upper_bound_and_the_full_history(
    evidence_logs: EvidenceLogs, evidence_report: tuple[Report, Path]
) -> None:
    """Paired over the questions both scored: overall, on the questions whose evidence
    the run found and missed, and per question type; the upper bound is the run of the
    same model with the other settings alike (`top_k=4` is a retriever's, not its)."""
    report, out = evidence_report
    rows = {(r["run"], r["against"], r["measure"]): r for r in read_csv(out, "evidence_bounds")}
    titles = VERSIONS["v1"].groups[0].values
    for location in (evidence_logs.rag, evidence_logs.memory):
        run = expected_from_log(location)
        label = label_of(report, location)
        for kind, reference_location in (
            (UPPER_BOUND, evidence_logs.evidence), ("full history", evidence_logs.full),
        ):  # fmt: skip
            reference = expected_from_log(reference_location)
            d = {q: v - reference.values[q] for q, v in run.values.items()}
            overall = rows[label, kind, "overall"]
            assert overall["reference run"] == label_of(report, reference_location)
            assert overall["questions compared"] == str(QUESTIONS)
            assert close(overall["difference"], mean(list(d.values())))
            clusters = {q: str(run.metadata[q]["shared_context_id"]) for q in d}
            assert close(overall["stderr (clustered)"], clustered_se(d, clusters))
            measures = {
                f"evidence {key}": [q for q in d if run.metadata[q]["retrieval"]["status"] == key]
                for key in ("found", "missed")
            }
            for key, title in titles.items():
                measures[f"question type: {title}"] = [
                    q for q in d if run.metadata[q]["category"] == key
                ]
            for measure, questions in measures.items():
                if all(d[q] == 0 for q in questions):  # none, or each scored alike
                    assert (label, kind, measure) not in rows
                    continue
                row = rows[label, kind, measure]
                assert row["questions compared"] == str(len(questions)), measure
                assert close(row["difference"], mean([d[q] for q in questions])), measure


def test_a_tools_run_is_a_retrieval_run_labelled_as_such(
    evidence_logs: EvidenceLogs, tmp_path: Path
) -> None:
    """`history=tools`: its label says so; found against used counts what its model
    read; it is set against its upper bound, the full history and the rag run handed as
    many items by the same retriever; its searches' times are the memory's."""
    folder = tmp_path / "logs"
    folder.mkdir()
    logs = evidence_logs
    for location in (logs.full, logs.evidence, logs.rag, logs.tools):
        shutil.copy(location, folder)
    tools = str(folder / Path(evidence_logs.tools).name)
    report = build_report([folder], tmp_path / "out")
    label = label_of(report, tools)
    assert label.endswith("tools (bm25, top 4, budget 6)")
    rows = {
        (r["run"], r["questions by"], r["value"]): r
        for r in read_csv(tmp_path / "out", "evidence_use")
        if r["run"] == label
    }
    for by, value, mine in cases(samples(tools)):
        assert_use(rows.pop((label, by, value)), mine)
    assert rows == {}
    bounds = read_csv(tmp_path / "out", "evidence_bounds")
    against = {r["against"]: r["reference run"] for r in bounds if r["run"] == label}
    rag = label_of(report, str(folder / Path(logs.rag).name))
    assert against == {
        UPPER_BOUND: label_of(report, str(folder / Path(logs.evidence).name)),
        "full history": label_of(report, str(folder / Path(logs.full).name)),
        "rag, the same retriever and top_k": rag,
    }
    cost = {row["run"]: row for row in read_csv(tmp_path / "out", "memory_cost")}[label]
    assert float(cost["search p50 ms"]) > 0


def test_the_memorys_latency_and_its_time_apart_from_the_model(
    evidence_logs: EvidenceLogs, evidence_report: tuple[Report, Path]
) -> None:
    """A memory that sleeps 0.05 s per call: the median search and add are at least
    that; every number is the samples' (percentiles as `statistics` computes them), the
    longest loop block too."""
    report, out = evidence_report
    rows = {row["run"]: row for row in read_csv(out, "memory_cost")}
    rag, memory = label_of(report, evidence_logs.rag), label_of(report, evidence_logs.memory)
    assert set(rows) == {rag, memory}
    row = rows[memory]
    sleep = SleepingMemory.SLEEP * 1000  # ms
    assert float(row["search p50 ms"]) >= sleep and float(row["add p50 ms"]) >= sleep
    chosen = samples(evidence_logs.memory)
    records = [s.metadata["memory"] for s in chosen]
    # the samples' own figure: that a sleep is not a block is the pool's test (a fake clock)
    blocked = max(float(m["loop_blocked_seconds"]) for m in records)
    assert math.isclose(float(row["longest loop block ms"]), blocked * 1000)
    for name, values in (
        ("search", [float(m["search_seconds"]) for m in records]),
        ("add", [float(t) for m in records for t in m["ingest_calls"]]),
    ):
        p95 = statistics.quantiles(values, n=20, method="inclusive")[18]
        assert math.isclose(float(row[f"{name} p50 ms"]), statistics.median(values) * 1000)
        assert math.isclose(float(row[f"{name} p95 ms"]), p95 * 1000)
        assert math.isclose(float(row[f"{name} total s"]), math.fsum(values), rel_tol=1e-12)
    assert row["add calls"] == str(sum(len(m["ingest_calls"]) for m in records))
    spent = [float(m["ingest_seconds"]) + float(m["search_seconds"]) for m in records]
    other = [float(s.working_time or math.nan) - t for s, t in zip(chosen, spent, strict=True)]
    assert math.isclose(float(row["memory s per question"]), mean(spent), rel_tol=1e-12)
    assert math.isclose(float(row["other working s per question"]), mean(other), rel_tol=1e-9)
    assert row["questions"] == str(QUESTIONS)
    assert row["texts embedded"] == row["memory input tokens"] == ""  # none recorded


def test_the_upper_bound_is_labelled_so_and_never_beside_published_numbers(
    evidence_logs: EvidenceLogs, evidence_report: tuple[Report, Path]
) -> None:
    """Mapped to GPT-4o, the full-history run is compared with the published numbers and
    the upper bound is not; the summary lists it after its model's methods, the first
    line counts it as not comparable, the overall table says what it is, and the
    recomputed numbers of every run match what Inspect stored."""
    report, out = evidence_report
    bound = label_of(report, evidence_logs.evidence)
    full = label_of(report, evidence_logs.full)
    assert UPPER_BOUND in bound
    assert {row["run"] for row in read_csv(out, "published")} == {full}
    assert bound not in {row["run"] for row in read_csv(out, "published_methods")}
    summary = [row["run"] for row in read_csv(out, "summary")]
    assert summary[-1] == bound and len(summary) == 4
    assert report.headline.endswith("not comparable with published numbers: upper bound (1 of 4)")
    assert any(
        caveat.startswith(f"upper bound, 1 of 4 runs: {bound}: ") for caveat in report.caveats
    )
    overall = next(t for t in report.tables if t.name == "overall")
    assert "`(upper bound)`" in overall.note and bound in {row[0] for row in overall.rows}
    assert all(
        row["check against Inspect"].startswith("matches (") for row in read_csv(out, "overall")
    )


def test_an_upper_bound_alone_is_labelled_so_with_its_located_evidence(
    evidence_logs: EvidenceLogs, tmp_path: Path
) -> None:
    """Alone, a run's label names no method; an upper bound's always does. A note says
    for how many questions its evidence was located."""
    report = build_report([evidence_logs.evidence], tmp_path / "out")
    [summary] = report.summaries
    assert summary.label == f"mockllm/model-a, {UPPER_BOUND}"
    located = sum(bool(s.metadata["evidence"]["located"]) for s in samples(evidence_logs.evidence))
    metadata = read_eval_log(evidence_logs.evidence, header_only=True).eval.metadata or {}
    rule = metadata["facts"]["evidence_rule"]
    assert any(
        f"{summary.label}: an upper bound" in note
        and f"located in the history for {located} of {QUESTIONS} questions" in note
        and note.endswith(f"The rule, as its log records it: {rule}")
        for note in report.notes
    )
    assert not any(t.name in {"evidence_use", "memory_cost"} for t in report.tables)


def test_a_figure_of_found_against_used_per_retrieval_run(
    evidence_logs: EvidenceLogs, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One per retrieval run, at its size, its labels inside it; its bars are the run's
    shares of right, misuse, missed and not checked, one above the other to 1."""
    from matplotlib.figure import Figure
    from matplotlib.patches import Rectangle

    drawn: list[Figure] = []
    save = figures.save

    def keep(figure: Figure, folder: Path, stem: str) -> list[Path]:
        drawn.append(figure)
        return save(figure, folder, stem)

    monkeypatch.setattr(figures, "save", keep)
    report = build_report([evidence_logs.folder], tmp_path)
    files = [f for f in report.figures if f.files[0].name.startswith("evidence_")]
    found = [f for f in drawn if f.get_suptitle().startswith("Found against used")]
    assert len(files) == len(found) == 2
    for file, figure, location in zip(
        files, found, (evidence_logs.rag, evidence_logs.memory), strict=True
    ):
        assert label_of(report, location) in file.caption
        width, height = figures.SIZES["evidence"]
        size = (round(width * figures.DPI), round(height * figures.DPI))
        assert png_size(tmp_path / file.files[0]) == size
        assert_labels_inside(figure)
        [all_questions, *_] = figure.axes
        bars = [bar for bar in all_questions.patches if isinstance(bar, Rectangle)]
        assert math.isclose(max(bar.get_y() + bar.get_height() for bar in bars), 1.0)
        right = bars[0].get_height()
        assert math.isclose(right, mean(list(expected_from_log(location).values.values())))


def test_every_version_gets_the_retrieval_sections(
    evidence_logs: EvidenceLogs, tmp_path: Path
) -> None:
    """The common sections (`ReportContext.common`) hold
    them, named after the version's key, titled after its name."""
    version = VERSIONS["v1"]
    runs = read_runs([evidence_logs.folder]).runs
    summaries = [summarise(run, label) for run, label in zip(runs, run_labels(runs), strict=True)]
    context = ReportContext(figures, tmp_path, tmp_path / "figures", "", {}, Inclusion(), [])
    sections = context.common(version, summaries)
    tables = [s.name for s in sections if isinstance(s, Table)]
    assert tables[-4:] == [
        "v1_evidence_use",
        "v1_evidence_bounds",
        "v1_memory_cost",
        "v1_estimates",
    ]
    captions = [s.caption for s in sections if not isinstance(s, Table)]
    found = [c for c in captions if c.startswith("PersonaMem: Found against used: ")]
    assert len(found) == 2 and captions[-2:] == found  # after the per-group figures


def test_a_log_made_under_the_earlier_evidence_rule_is_noted_so(
    evidence_logs: EvidenceLogs, tmp_path: Path
) -> None:
    """A v1 log whose samples record their evidence without the rule that located it
    (task versions before 2.3.0) is noted as made under the earlier rule, from what the
    log holds; the same runs as made now are not."""
    runs = {"evidence": evidence_logs.evidence, "rag": evidence_logs.rag}
    now = build_report(list(runs.values()), tmp_path / "now")
    assert not any("whose evidence was" in note for note in now.notes)
    for name, path in runs.items():
        log = read_eval_log(path)
        log.eval.task_version = "2.2.0"
        for sample in log.samples or []:
            assert sample.metadata["evidence"].pop("rule") in {"tokens", "sessions"}
        write_eval_log(log, str(tmp_path / f"{name}.eval"))
    report = build_report([tmp_path / f"{name}.eval" for name in runs], tmp_path / "old")
    earlier = [note for note in report.notes if "whose evidence was" in note]
    assert len(earlier) == 2
    for summary in report.summaries:
        [note] = [note for note in earlier if note.startswith(f"{summary.label}: ")]
        assert "made with task version 2.2.0" in note
        assert "the session `distance_to_ref_in_blocks` before the question's own" in note


def test_personamem_v2_keeps_its_upper_bound_from_the_published_numbers(
    small_v2: Path, tmp_path: Path
) -> None:
    """PersonaMem-v2's part has the retrieval tables too (titled after it, split by its
    evidence groups), and its published table lists every run but the upper bound."""
    version = VERSIONS["v2"]
    model = mock_model(lambda messages: "Let me think.\nFinal Answer: A")
    folder = {"data_dir": str(small_v2)}
    task = "inspect_personamem/personamem_v2_32k"
    made = {
        history: run_task(task, model, tmp_path / "logs", {**folder, "history": history})
        for history in ("full", "evidence")
    }
    rag = run_task(
        task, model, tmp_path / "logs", {**folder, "history": "rag", "retriever": "bm25"}
    )
    out = tmp_path / "out"
    report = build_report([tmp_path / "logs"], out)
    bound = label_of(report, made["evidence"].location)
    assert UPPER_BOUND in bound
    listed = {row["system or run"] for row in read_csv(out, "v2_published")}
    assert bound not in listed and label_of(report, rag.location) in listed
    assert label_of(report, made["full"].location) in listed
    tables = {t.name: t for t in report.tables}
    assert tables["v2_evidence_use"].title.startswith("PersonaMem-v2: Found against used")
    titles = {g.key: g.title for g in version.groups}
    by = {row["questions by"] for row in read_csv(out, "v2_evidence_use")}
    assert by == {"", *(titles[key] for key in version.reported.evidence_groups)}
    against = {row["against"] for row in read_csv(out, "v2_evidence_bounds")}
    assert against == {UPPER_BOUND, "full history"}
