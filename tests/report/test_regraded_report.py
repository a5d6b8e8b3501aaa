"""One open run graded by four stand-in graders, as a user re-grades a run (Inspect's
`score`): a faithful one, then one biased to length, one to position and one that never
says none. Each shows up as such in the trial table; the four gradings of the same
replies stand side by side, their agreement and kappa recomputed here from the full
samples; another run of the same model and setting is not taken for one of them."""

from __future__ import annotations

import csv
import math
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path

import pytest
from inspect_ai import score
from inspect_ai.log import read_eval_log, write_eval_log
from support.graders import faithful, first, grader, length_biased, never_none, open_run
from support.graders import shared_split as with_shared_sentences
from support.helpers import DISPLAY

from inspect_personamem.datasets.v1.generator import generate_split
from inspect_personamem.report import build_report
from inspect_personamem.report.build import Report
from inspect_personamem.scoring.grader.scorer import graded_scorer

QUESTIONS = 24
CONTEXTS = 4
GRADERS = {
    "faithful": faithful,
    "length": length_biased,
    "position": first,
    "never-none": never_none,
}
"""Each stand-in grader (named `mockllm/<key>`) by the bias it has."""
FAILING = {
    "faithful": set(),
    "length": {"generic", "mixed", "length"},
    "position": {"identity_correct", "identity_wrong", "generic", "mixed", "length", "reorder"},
    "never-none": {"generic", "mixed"},
}
"""The kinds of trial each grader fails: a faithful one none; one biased to length
names the longest candidate where it is unsure (a generic or mixed reply, the correct
candidate shown shorter); one biased to position names the first candidate, whatever
the reply and whatever the order; one that never says none fails the trials whose right
verdict is none."""


@dataclass
class Gradings:
    logs: dict[str, str]
    """Each grader's log of the run's replies, and `other`: another run (another eval)
    of the model graded by the length-biased grader."""
    report: Report


@pytest.fixture(scope="module")
def gradings(tmp_path_factory: pytest.TempPathFactory) -> Gradings:
    root = tmp_path_factory.mktemp("regraded")
    data = root / "data"
    generate_split(data, "32k", contexts=CONTEXTS, min_messages=20, max_messages=30, questions=24)
    with_shared_sentences(data)  # so that every kind of trial applies
    folder = root / "logs"
    roles = {"grader": grader(faithful, "mockllm/faithful")}
    run = open_run(data, folder, roles, accuracy=0.6, grader_calibration=QUESTIONS)
    logs = {"faithful": str(run.location)}
    original = read_eval_log(str(run.location))
    for key, rule in GRADERS.items():
        if key != "faithful":
            regraded = score(
                original,
                graded_scorer(),
                model_roles={"grader": grader(rule, f"mockllm/{key}")},
                action="overwrite",
                display=DISPLAY,
            )
            logs[key] = str(folder / f"regraded-{key}.eval")
            write_eval_log(regraded, logs[key])
    roles = {"grader": grader(length_biased, "mockllm/length")}
    logs["other"] = str(open_run(data, folder, roles, accuracy=0.5, grader_calibration=0).location)
    return Gradings(logs, build_report([folder], root / "report"))


def read_csv(report: Report, name: str) -> list[dict[str, str]]:
    with (report.index.parent / "tables" / f"{name}.csv").open(encoding="utf-8") as file:
        return list(csv.DictReader(file))


def labels(gradings: Gradings) -> dict[str, str]:
    """Each log's run label, by the key of its grader."""
    by_file = {Path(s.run.location).name: s.label for s in gradings.report.summaries}
    return {key: by_file[Path(location).name] for key, location in gradings.logs.items()}


def verdicts(location: str) -> dict[str, tuple[str, str, float]]:
    """Each question's (history, the grader's verdict, its value), from the full
    samples."""
    found = {}
    for sample in read_eval_log(location).samples or []:
        assert sample.scores is not None
        [given] = sample.scores.values()
        value = 1.0 if given.value == "C" else 0.0
        found[str(sample.id)] = (
            str(sample.metadata["shared_context_id"]),
            str(given.answer),
            value,
        )
    return found


def kappa(pairs: list[tuple[str, str]]) -> float:
    """Cohen's kappa, written out."""
    n = len(pairs)
    observed = sum(a == b for a, b in pairs) / n
    said = {v for pair in pairs for v in pair}
    chance = sum(
        sum(a == v for a, _ in pairs) / n * sum(b == v for _, b in pairs) / n for v in said
    )
    return (observed - chance) / (1 - chance) if chance < 1 else math.nan


def test_stand_in_graders_show_up_as_such_in_the_trial_table(gradings: Gradings) -> None:
    named = labels(gradings)
    trials = read_csv(gradings.report, "grader_trials")
    graders = {row["run"]: row for row in read_csv(gradings.report, "graders")}
    for key, failing in FAILING.items():
        rows = [row for row in trials if row["run"] == named[key]]
        assert [row["kind"] for row in rows] == [
            "identity_correct", "identity_wrong", "generic", "mixed", "length", "reorder",
        ]  # fmt: skip
        assert all(int(row["trials"]) >= QUESTIONS for row in rows), rows  # every kind applied
        assert {row["kind"] for row in rows if row["finding"] == "fails"} == failing
        assert {row["finding"] for row in rows if row["kind"] not in failing} <= {"holds"}
        trust = graders[named[key]]["trustworthy"]
        assert trust == "yes" if not failing else trust.startswith("NO: ")
    faithful_row = graders[named["faithful"]]
    assert faithful_row["corrected"] == faithful_row["accuracy"]
    # the length-biased grader misses the right replies shown shorter: its sensitivity
    # is the mean of 1.0 (a candidate itself) and 0.0 (the length trials)
    assert float(graders[named["length"]]["sensitivity"]) == 0.5


def test_gradings_of_the_same_replies_are_set_side_by_side(gradings: Gradings) -> None:
    """Every two of the four gradings of the run's replies, never the other run's;
    agreement and kappa as written out from the samples, within their intervals."""
    named = labels(gradings)
    rows = read_csv(gradings.report, "grader_agreement")
    assert [(row["grading"], row["other grading"]) for row in rows] == [
        (named[a], named[b]) for a, b in combinations(GRADERS, 2)
    ]
    for row, (a, b) in zip(rows, combinations(GRADERS, 2), strict=True):
        mine, theirs = verdicts(gradings.logs[a]), verdicts(gradings.logs[b])
        pairs = [(mine[q][1], theirs[q][1]) for q in mine]
        agreement = sum(x == y for x, y in pairs) / len(pairs)
        assert (row["questions"], row["contexts"]) == (str(QUESTIONS), str(CONTEXTS))
        assert float(row["agreement"]) == pytest.approx(agreement)
        assert float(row["kappa"]) == pytest.approx(kappa(pairs))
        assert float(row["accuracy"]) == pytest.approx(sum(v for *_, v in mine.values()) / 24)
        assert float(row["other accuracy"]) == pytest.approx(
            sum(v for *_, v in theirs.values()) / QUESTIONS
        )
        assert float(row["ci95 low"]) <= agreement <= float(row["ci95 high"])
        assert float(row["kappa ci95 low"]) <= kappa(pairs) <= float(row["kappa ci95 high"])
    # the faithful and the never-none graders differ only where the right verdict is
    # none: on the oracle's replies (a candidate's text) they agree throughout
    assert (rows[2]["agreement"], rows[2]["kappa"]) == ("1.0", "1.0")
    assert float(rows[1]["agreement"]) < 0.5  # faithful against position
    [note] = [n for n in gradings.report.notes if "gradings of the same replies" in n]
    assert note.startswith("; ".join(named[key] for key in GRADERS) + ": 4 gradings")


def test_each_grading_is_a_run_of_its_own_labelled_by_its_grader(gradings: Gradings) -> None:
    """In the summary too: nothing pooled, each label naming its grader, and every
    grading's stored metrics (computed by `score`) matching the report's."""
    named = labels(gradings)
    summary = [row["run"] for row in read_csv(gradings.report, "summary")]
    assert sorted(summary) == sorted(named.values())
    for key in GRADERS:
        assert f"graded by mockllm/{key}" in named[key]
    checks = {
        row["run"]: row["check against Inspect"] for row in read_csv(gradings.report, "overall")
    }
    assert all(check.startswith("matches (") for check in checks.values()), checks


def test_a_grading_appended_to_the_log_is_read_as_one_written_to_its_own(
    gradings: Gradings, tmp_path: Path
) -> None:
    """`inspect score --action append` keeps the run's scores and adds the new grader's
    beside them in the same log (`graded_scorer1`): the report reads it as a second
    grading of the same replies, as it reads the position-biased grader's own log."""
    appended = score(
        read_eval_log(gradings.logs["faithful"]),
        graded_scorer(),
        model_roles={"grader": grader(first, "mockllm/position")},
        action="append",
        display=DISPLAY,
    )
    write_eval_log(appended, tmp_path / "logs" / "appended.eval")
    report = build_report([tmp_path / "logs"], tmp_path / "report")
    shown = sorted(s.label for s in report.summaries)
    assert len(shown) == 2 and any("graded by mockllm/position" in label for label in shown)
    named = labels(gradings)
    [separate] = [
        row
        for row in read_csv(gradings.report, "grader_agreement")
        if (row["grading"], row["other grading"]) == (named["faithful"], named["position"])
    ]
    [row] = read_csv(report, "grader_agreement")
    measures = ("questions", "contexts", "accuracy", "other accuracy", "agreement", "kappa")
    assert {m: row[m] for m in measures} == {m: separate[m] for m in measures}
