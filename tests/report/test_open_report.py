"""The report of open answers (`-T answer=open`), end to end: real logs of the offline
oracle answering openly, graded by the oracle, by stand-in graders (position-biased,
nonsense, mixed) and by itself, beside its run choosing among the options and a
shortcut floor. Every number checked is recomputed here from the full samples
(`read_eval_log`), not from the summaries the report reads."""

from __future__ import annotations

import csv
import hashlib
import math
import struct
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.log import read_eval_log, write_eval_log
from inspect_ai.model import Model
from support.graders import faithful, first, grader, nonsense

from inspect_personamem.datasets.v1.generator import generate_split
from inspect_personamem.datasets.v1.question_types import CATEGORY_TITLES
from inspect_personamem.report import build_report
from inspect_personamem.report.build import Report
from inspect_personamem.report.glance import CAVEATS
from inspect_personamem.report.read.logs import read_runs
from inspect_personamem.scoring.grader.prompt import GraderQuestion

pytest.importorskip("matplotlib", reason="needs the report extra: pip install -e '.[report]'")

from inspect_personamem.report.figures import DPI, SIZES  # noqa: E402

QUESTIONS = 24
CALIBRATED = QUESTIONS
"""`-T grader_calibration` of the open runs: every question, enough trials of each kind
for a faithful grader's intervals to be narrower than `graded.MAX_WIDTH`."""
T_975_3 = 3.182446305284263
"""Student's t, 97.5% quantile, 3 degrees of freedom (4 contexts)."""
BINS = {1: "1", 2: "2-3", 3: "2-3", 4: "4-6", 5: "4-6", 6: "4-6"}
"""Sessions elapsed -> its coarse bin, written out (the synthetic split has 1 to 6)."""
ORACLE = "personamem/oracle"
OPEN = "personamem/oracle, full history, open"


@dataclass
class OpenLogs:
    data: Path
    folder: Path
    locations: dict[str, str]


def oracle_run(
    data: Path, folder: Path, roles: dict[str, str | Model] | None = None, **task_args: Any
) -> str:
    """A 32k run of the oracle (right with probability 0.7) on `data`: `limit` and the
    task's arguments from `task_args`."""
    limit = task_args.pop("limit", None)
    [log] = inspect_eval(
        "inspect_personamem/personamem_32k",
        task_args={"data_dir": str(data), **task_args},
        model=ORACLE,
        model_args={"questions": str(data / "questions_32k.csv"), "accuracy": 0.7},
        model_roles=roles,
        limit=limit,
        log_dir=str(folder),
        display="none",
    )
    assert log.status == "success", log.error
    return str(log.location)


def open_args(**task_args: Any) -> dict[str, Any]:
    return {"answer": "open", "grader_calibration": CALIBRATED, **task_args}


@pytest.fixture(scope="module")
def open_logs(tmp_path_factory: pytest.TempPathFactory) -> OpenLogs:
    """The oracle choosing among the options; answering openly with and without the
    history, graded by the oracle; answering openly graded by a grader that always
    names the first candidate, and by itself (8 questions); and the longest-option
    floor."""
    root = tmp_path_factory.mktemp("open")
    data, folder = root / "data", root / "logs"
    generate_split(data, "32k", contexts=4, min_messages=20, max_messages=30, questions=QUESTIONS)
    oracle_grader: dict[str, str | Model] = {"grader": ORACLE}
    locations = {
        "choice": oracle_run(data, folder),
        "open": oracle_run(data, folder, oracle_grader, **open_args()),
        "open_none": oracle_run(data, folder, oracle_grader, **open_args(history="none")),
        "first": oracle_run(data, folder, {"grader": grader(first)}, **open_args()),
        "self": oracle_run(data, folder, **open_args(grader="self", limit=8)),
    }
    [floor] = inspect_eval(
        "inspect_personamem/personamem_32k",
        task_args={"data_dir": str(data)},
        model="personamem/floor",
        model_args={"rule": "longest"},
        log_dir=str(folder),
        display="none",
    )
    locations["floor"] = str(floor.location)
    return OpenLogs(data, folder, locations)


@pytest.fixture(scope="module")
def report(open_logs: OpenLogs, tmp_path_factory: pytest.TempPathFactory) -> Report:
    return build_report([open_logs.folder], tmp_path_factory.mktemp("out") / "report")


def out(report: Report) -> Path:
    return report.index.parent


def read_csv(folder: Path, name: str) -> list[dict[str, str]]:
    with (folder / "tables" / f"{name}.csv").open(encoding="utf-8") as file:
        return list(csv.DictReader(file))


def labels(report: Report) -> dict[str, str]:
    """Each run's label by the name of its log file."""
    return {Path(s.run.location).name: s.label for s in report.summaries}


def label(report: Report, location: str) -> str:
    return labels(report)[Path(location).name]


@dataclass(frozen=True)
class Question:
    value: float
    context: str
    category: str
    sessions: int
    metadata: dict[str, Any]
    """The score's."""


def questions(location: str) -> dict[str, Question]:
    """Each question of a one-epoch log, from its full samples."""
    log = read_eval_log(location)
    found = {}
    for sample in log.samples or []:
        assert sample.scores is not None
        [score] = sample.scores.values()
        found[str(sample.id)] = Question(
            1.0 if score.value == "C" else 0.0,
            str(sample.metadata["shared_context_id"]),
            str(sample.metadata["category"]),
            int(sample.metadata["distance_to_ref_in_blocks"]),
            dict(score.metadata or {}),
        )
    return found


def mean(values: Sequence[float]) -> float:
    return sum(values) / len(values)


def clustered_se(values: dict[str, float], clusters: dict[str, str]) -> float:
    """The clustered standard error of a mean, written out (with C/(C-1))."""
    mu = mean(list(values.values()))
    sums: dict[str, float] = {}
    for key, value in values.items():
        sums[clusters[key]] = sums.get(clusters[key], 0.0) + value - mu
    c = len(sums)
    return math.sqrt(sum(s * s for s in sums.values()) * c / (c - 1)) / len(values)


def close(cell: str, value: float) -> bool:
    return cell == "" if math.isnan(value) else abs(float(cell) - value) < 1e-9


def by_run(report: Report, name: str) -> dict[str, dict[str, str]]:
    return {row["run"]: row for row in read_csv(out(report), name)}


# --- reading open runs ---------------------------------------------------------------


def test_named_verdicts_are_read_answers_not_unparsed(open_logs: OpenLogs, report: Report) -> None:
    """Every verdict of the oracle grading the oracle names a candidate (`named`): no
    answer is unparsed, where reading the status as a chosen answer's (`single`) would
    make every one of them unparsed."""
    for key in ("open", "open_none", "first"):
        logged = questions(open_logs.locations[key])
        assert {q.metadata["status"] for q in logged.values()} == {"named"}
        run = label(report, open_logs.locations[key])
        assert by_run(report, "overall")[run]["unparsed share"] == "0.0"
        graders = by_run(report, "graders")[run]
        assert (graders["none share"], graders["unreadable share"]) == ("0.0", "0.0")
    assert all(s.run.grader is None or s.unparsed == 0.0 for s in report.summaries if s.overall.n)
    checks = {row["run"]: row["check against Inspect"] for row in read_csv(out(report), "overall")}
    assert all(check.startswith("matches (") for check in checks.values()), checks


def mixed(question: GraderQuestion) -> str:
    """Names no candidate, gives no readable verdict, or names the reply's candidate,
    by a hash of the reply."""
    pick = hashlib.sha256(question.reply.encode()).digest()[0] % 3
    return ("<candidate>none</candidate>", "I would rather not say.", faithful(question))[pick]


def test_none_and_unreadable_verdicts_are_counted_apart(
    open_logs: OpenLogs, tmp_path: Path
) -> None:
    location = oracle_run(
        open_logs.data, tmp_path / "logs", {"grader": grader(mixed)}, **open_args()
    )
    logged = questions(location)
    counts = {
        status: sum(q.metadata["status"] == status for q in logged.values()) / QUESTIONS
        for status in ("named", "none", "unreadable")
    }
    assert all(counts.values()), counts  # each kind of verdict occurs
    report = build_report([tmp_path / "logs"], tmp_path / "out")
    [summary] = report.summaries
    [row] = read_csv(tmp_path / "out", "graders")
    assert close(row["none share"], counts["none"])
    assert close(row["unreadable share"], counts["unreadable"])
    [overall] = read_csv(tmp_path / "out", "overall")
    assert close(overall["unparsed share"], counts["none"] + counts["unreadable"])
    assert close(overall["accuracy"], mean([q.value for q in logged.values()]))
    # Inspect's stored grader_none and grader_unreadable agree with the recomputation
    assert overall["check against Inspect"].startswith("matches (")
    assert f"{summary.label}: matches Inspect" in "\n".join(report.notes)


def test_a_nonsense_grader_is_unreadable_and_an_uncalibrated_one_unknown(
    open_logs: OpenLogs, tmp_path: Path
) -> None:
    """A grader that never gives a readable verdict, and the oracle grading without
    calibration, each over 8 questions."""
    folder = tmp_path / "logs"
    senseless = oracle_run(
        open_logs.data, folder, {"grader": grader(nonsense)}, **open_args(limit=8)
    )
    uncalibrated = oracle_run(
        open_logs.data, folder, {"grader": ORACLE}, **open_args(limit=8, grader_calibration=0)
    )
    report = build_report([folder], tmp_path / "out")
    rows = by_run(report, "graders")
    row = rows[label(report, senseless)]
    assert (row["accuracy"], row["none share"], row["unreadable share"]) == ("0.0", "0.0", "1.0")
    assert by_run(report, "overall")[label(report, senseless)]["unparsed share"] == "1.0"
    calibrated = sum("calibration_trials" in q.metadata for q in questions(senseless).values())
    assert calibrated > 0 and row["calibrated questions"] == str(calibrated)
    # shown any reply, it names nothing: every kind of trial that applied fails
    trials = read_csv(tmp_path / "out", "grader_trials")
    findings = {r["kind"]: (r["right"], r["finding"]) for r in trials if r["run"] == row["run"]}
    assert {kind: said for kind, said in findings.items() if said[1] != "no trials"} == {
        kind: ("0", "fails") for kind in ("identity_correct", "identity_wrong", "mixed", "reorder")
    }
    assert row["trustworthy"].startswith("NO: identity_correct 0.00 [0.00, ")
    assert "; unreadable verdicts 1.00 [" in row["trustworthy"]
    assert row["trustworthy"].endswith("] above 0.05")
    notes = "\n".join(report.notes)
    assert f"{label(report, senseless)}: its grader mockllm/grader is NOT to be trusted" in notes

    row = rows[label(report, uncalibrated)]
    assert (row["calibrated questions"], row["corrected"], row["sensitivity"]) == ("0", "", "")
    assert row["trustworthy"] == "unknown: not calibrated"
    assert row["run"] not in {r["run"] for r in trials}
    assert f"{label(report, uncalibrated)}: its grader {ORACLE} was not calibrated" in notes
    assert not any("MISMATCH" in note for note in report.notes)


def test_an_open_log_that_names_no_grader_is_skipped_with_a_note(
    open_logs: OpenLogs, tmp_path: Path
) -> None:
    """The grader is read from the scores (`grader_model`), else from the header's roles
    (a log made before the scores named it); a log naming it nowhere is skipped."""
    log = read_eval_log(open_logs.locations["first"])
    log.eval.model_roles = None
    write_eval_log(log, str(tmp_path / "scores_only.json"))
    [run] = read_runs([tmp_path / "scores_only.json"]).runs
    assert run.grader is not None and run.grader.model[0] == "mockllm/grader"
    for sample in log.samples or []:
        for score in (sample.scores or {}).values():
            (score.metadata or {}).pop("grader_model")
    write_eval_log(log, str(tmp_path / "no_grader.json"))
    result = read_runs([tmp_path / "no_grader.json"])
    assert result.runs == []
    [note] = result.notes
    assert "no_grader.json: its samples cannot be read" in note
    assert "records no model bound to it" in note


# --- the grader is part of a run -----------------------------------------------------


def test_the_grader_is_part_of_what_a_run_is(open_logs: OpenLogs, report: Report) -> None:
    """Two open runs of one model and setting graded by two graders are two runs, each
    label naming its grader; a self-graded run says so in its label, the graders table
    and the summary (once)."""
    locations = open_logs.locations
    assert labels(report) == {
        Path(locations["choice"]).name: f"{ORACLE}, full history",
        Path(locations["open"]).name: f"{OPEN}, graded by {ORACLE}",
        Path(locations["open_none"]).name: f"{ORACLE}, no history, open, graded by {ORACLE}",
        Path(locations["first"]).name: f"{OPEN}, graded by mockllm/grader",
        Path(locations["self"]).name: f"{OPEN}, self-graded, subset 8/24",
        Path(locations["floor"]).name: "personamem/floor, full history",
    }
    graders = by_run(report, "graders")
    assert {run: row["self-graded"] for run, row in graders.items()} == {
        f"{OPEN}, graded by {ORACLE}": "no",
        f"{ORACLE}, no history, open, graded by {ORACLE}": "no",
        f"{OPEN}, graded by mockllm/grader": "no",
        f"{OPEN}, self-graded, subset 8/24": "yes",
    }
    assert graders[f"{OPEN}, self-graded, subset 8/24"]["grader"] == f"{ORACLE} itself"
    assert graders[f"{OPEN}, graded by mockllm/grader"]["grader"] == "mockllm/grader"
    said = (
        f"self-graded, 1 of 6 runs: {OPEN}, self-graded, subset 8/24 (`-T grader=self`): "
        f"{CAVEATS['self-graded']}"
    )
    assert said in report.caveats
    methods = [row["method"] for row in read_csv(out(report), "methods")]
    assert methods == [
        "full history",
        "full history, open, graded by mockllm/grader",
        f"full history, open, graded by {ORACLE}",
        "full history, open, self-graded",
        f"no history, open, graded by {ORACLE}",
    ]


def test_an_open_runs_gain_is_over_the_open_run_without_history_of_its_grader(
    open_logs: OpenLogs, report: Report
) -> None:
    """Of the two full-history open runs, only the oracle-graded one has a no-history
    run of its grader; the run graded by another grader is not set against it."""
    rows = read_csv(out(report), "gain")
    assert {(row["run"], row["baseline (no history)"]) for row in rows} == {
        (f"{OPEN}, graded by {ORACLE}", f"{ORACLE}, no history, open, graded by {ORACLE}")
    }
    full, none = (questions(open_logs.locations[key]) for key in ("open", "open_none"))
    [overall] = [row for row in rows if row["measure"] == "overall"]
    assert close(overall["difference"], mean([full[q].value - none[q].value for q in full]))


def test_open_runs_stand_against_the_shortcut_floor(open_logs: OpenLogs, report: Report) -> None:
    floor = questions(open_logs.locations["floor"])
    rows = {(row["run"], row["measure"]): row for row in read_csv(out(report), "floor")}
    for key in ("open", "first"):
        run = label(report, open_logs.locations[key])
        row = rows[run, "overall"]
        assert row["floor"] == "personamem/floor, full history"
        mine = questions(open_logs.locations[key])
        assert close(row["difference"], mean([mine[q].value - floor[q].value for q in mine]))


# --- the grader's calibration ----------------------------------------------------------


def test_each_graders_trials_are_recomputed_from_its_counts(
    open_logs: OpenLogs, report: Report, tmp_path: Path
) -> None:
    """Each kind of trial's counts summed from the questions' `grader_trials`: the
    oracle as grader is right on every one (its accuracy stands corrected as it is); the
    first-candidate grader is right on a wrong reply only where it is shown first (at
    most a third of those trials) and changes every reply's verdict when the order is
    reversed."""
    rows = by_run(report, "graders")
    trials = read_csv(out(report), "grader_trials")
    for key in ("open", "first"):
        run = label(report, open_logs.locations[key])
        logged = [q.metadata["grader_trials"] for q in questions(open_logs.locations[key]).values()]
        shown = {r["kind"]: r for r in trials if r["run"] == run}
        for kind, row in shown.items():
            total, right = (sum(q[kind][count] for q in logged) for count in ("trials", "right"))
            assert (row["trials"], row["right"]) == (str(total), str(right))
            assert close(row["accuracy"], right / total if total else math.nan)
    oracle = rows[f"{OPEN}, graded by {ORACLE}"]
    assert (oracle["calibrated questions"], oracle["trustworthy"]) == (str(CALIBRATED), "yes")
    assert (oracle["sensitivity"], oracle["false positives"]) == ("1.0", "0.0")
    assert oracle["corrected"] == oracle["accuracy"]
    assert float(oracle["corrected ci95 low"]) < float(oracle["accuracy"])
    biased = rows[f"{OPEN}, graded by mockllm/grader"]
    found = {r["kind"]: r for r in trials if r["run"] == biased["run"]}
    # right on a wrong reply only where it is the candidate shown first: in each order
    # one of a question's three wrong replies at most (how often depends on the orders)
    assert 0 < float(found["identity_wrong"]["accuracy"]) <= 1 / 3
    assert (found["reorder"]["right"], found["reorder"]["finding"]) == ("0", "fails")
    assert biased["calibrated questions"] == str(CALIBRATED)
    assert biased["trustworthy"].startswith("NO: identity_correct ")
    assert biased["accuracy"] == by_run(report, "overall")[biased["run"]]["accuracy"]
    notes = "\n".join(report.notes)
    assert f"{biased['run']}: its grader mockllm/grader is NOT to be trusted" in notes
    assert f"{oracle['run']}: its grader" not in notes

    # computed from the counts, not copied from the stored metric: a stored value
    # edited by hand is a mismatch, and the table keeps the recomputed one
    log = read_eval_log(open_logs.locations["first"])
    assert log.results is not None
    log.results.scores[0].metrics["grader_identity"].value = 0.99
    log.results.scores[0].metrics["accuracy_corrected_high"].value = 0.5
    write_eval_log(log, str(tmp_path / "edited.json"))
    edited = build_report([tmp_path / "edited.json"], tmp_path / "out")
    [row] = read_csv(tmp_path / "out", "graders")
    assert row["corrected ci95 high"] == "1.0"
    assert any(
        "MISMATCH in 2 of" in note
        and "grader_identity stored 0.9900, recomputed 0.2500" in note
        and "accuracy_corrected_high stored 0.5000, recomputed 1.0000" in note
        for note in edited.notes
    )


def test_a_graders_tokens_are_not_the_models(open_logs: OpenLogs, report: Report) -> None:
    """The cost table's tokens are the answering model's: Inspect's `model_usage` holds
    the grader's too (under its own name, or merged under the model's where the grader
    is the same model), and its `role_usage` the grader's alone."""
    costs = by_run(report, "cost")
    for key in ("open", "first"):
        log = read_eval_log(open_logs.locations[key])
        samples = log.samples or []
        assert all(s.role_usage["grader"].input_tokens for s in samples)
        own = [
            s.model_usage[ORACLE].input_tokens
            - (s.role_usage["grader"].input_tokens if key == "open" else 0)
            for s in samples
        ]
        assert close(costs[label(report, log.location)]["input tokens"], mean(own))


# --- chosen against open ---------------------------------------------------------------


def test_chosen_against_open_answers_by_hand(open_logs: OpenLogs, report: Report) -> None:
    """Every open run beside the chosen run of its model, split, history and settings
    (the no-history open run has none). The numbers of the pairs over all questions
    written out from the logs: overall, each question type and every bin of sessions
    elapsed. (The oracle draws the same answers either way, so its open answers graded
    by the oracle differ from its chosen ones only where a reply names another
    candidate's text; graded by the first-candidate grader, they differ more.)"""
    rows = read_csv(out(report), "choice_open")
    chosen_label = f"{ORACLE}, full history"
    assert {(row["open run"], row["chosen run"]) for row in rows} == {
        (f"{OPEN}, graded by {ORACLE}", chosen_label),
        (f"{OPEN}, graded by mockllm/grader", chosen_label),
        (f"{OPEN}, self-graded, subset 8/24", chosen_label),
    }
    compared = {r["open run"]: r["questions compared"] for r in rows if r["measure"] == "overall"}
    assert compared[f"{OPEN}, self-graded, subset 8/24"] == "8 of 8 and 24"
    chosen = questions(open_logs.locations["choice"])
    clusters = {q: chosen[q].context for q in chosen}
    groups: dict[str, list[str]] = {"overall": list(chosen)}
    for q, question in chosen.items():
        groups.setdefault(CATEGORY_TITLES[question.category], []).append(q)
        groups.setdefault(f"sessions {BINS[question.sessions]}", []).append(q)
    assert {"sessions 1", "sessions 2-3", "sessions 4-6"} <= set(groups)
    differences = []
    for key in ("open", "first"):
        answered = questions(open_logs.locations[key])
        run = label(report, open_logs.locations[key])
        measures = {row["measure"]: row for row in rows if row["open run"] == run}
        # a measure whose questions both runs scored alike has no row (overall keeps one)
        alike = {
            measure
            for measure, ids in {"macro average": list(chosen), **groups}.items()
            if measure != "overall" and all(answered[q].value == chosen[q].value for q in ids)
        }
        assert set(measures) == {"macro average", *groups} - alike
        for measure, ids in groups.items():
            if measure in alike:
                continue
            row = measures[measure]
            d = {q: answered[q].value - chosen[q].value for q in ids}
            assert row["questions compared"] == str(len(ids))
            assert close(row["chosen"], mean([chosen[q].value for q in ids]))
            assert close(row["open"], mean([answered[q].value for q in ids]))
            assert close(row["difference"], mean(list(d.values())))
            if len({clusters[q] for q in ids}) == 4 and len(set(d.values())) > 1:
                se = clustered_se(d, clusters)
                assert close(row["stderr (clustered)"], se)
                assert close(row["ci95 low"], max(-1.0, mean(list(d.values())) - T_975_3 * se))
        values = {q: answered[q].value for q in answered}
        assert close(measures["overall"]["open stderr"], clustered_se(values, clusters))
        differences.append(float(measures["overall"]["difference"]))
    assert any(differences)  # not every pair is equal question by question

    figures = [f for f in report.figures if f.files[0].name.startswith("choice_open_")]
    assert len(figures) == 3
    width, height = SIZES["choice_open"]
    png = (out(report) / figures[0].files[0]).read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    assert struct.unpack(">II", png[16:24]) == (round(width * DPI), round(height * DPI))


def test_without_a_chosen_and_open_pair_there_is_no_such_table(
    open_logs: OpenLogs, tmp_path: Path
) -> None:
    """Open runs alone: their grader table, no chosen-against-open table or figure;
    a chosen run alone: neither."""
    opened = build_report(
        [open_logs.locations["open"], open_logs.locations["open_none"]], tmp_path / "open"
    )
    assert {t.name for t in opened.tables} >= {"graders", "gain"}
    assert "choice_open" not in {t.name for t in opened.tables}
    assert not any(f.files[0].name.startswith("choice_open") for f in opened.figures)
    assert not list((tmp_path / "open" / "figures").glob("choice_open_*"))
    chosen = build_report([open_logs.locations["choice"]], tmp_path / "choice")
    assert not {"graders", "choice_open"} & {t.name for t in chosen.tables}
