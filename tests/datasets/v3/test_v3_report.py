"""A PersonaMem-v3 run in the report and on a card, as a reader sees them: the accuracy
headline (the log's micro mean, 0-1, recomputed and checked against Inspect), a row per
family, the judged queries counted as unscored (never 0), the runs beside the published
numbers and the data's non-commercial licence."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from inspect_ai.log import EvalLog
from support.helpers import mock_model, run_task
from support.reports import read_csv

from inspect_personamem.datasets.v3.generator import generate
from inspect_personamem.datasets.v3.release.families import FAMILIES
from inspect_personamem.datasets.v3.task_types.registry import TASK_TYPES
from inspect_personamem.report import build_report
from inspect_personamem.report.build import Report
from inspect_personamem.report.card_writer import write_cards

pytest.importorskip("matplotlib", reason="needs the report extra: pip install -e '.[report]'")
pytestmark = pytest.mark.report

REPLY = json.dumps(
    {
        "ranked_indices": list(range(16)),
        "response": "Here is a careful answer that names several distinct concrete things "
        "about your week, your plans and what you said you wanted to try next.",
    }
)
"""Names no city: each geo-shift row is 0.5 (neither the current nor the prior city)."""
PERSONAS = 3


@pytest.fixture(scope="module")
def v3_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[EvalLog, Report, Path]:
    root = tmp_path_factory.mktemp("v3report")
    folder = generate(root / "data", personas=PERSONAS, queries_per_type=2, seed=5)
    log = run_task(
        "inspect_personamem/personamem_v3",
        mock_model(lambda messages: REPLY),
        root / "logs",
        {"data_dir": str(folder.root)},
        model_roles={"grader": mock_model(lambda messages: "{}", "mockllm/grader")},
    )
    report = build_report([root / "logs"], root / "report")
    return log, report, root


def _stored(log: EvalLog) -> dict[str, float]:
    assert log.results is not None
    return {name: m.value for name, m in log.results.scores[0].metrics.items()}


def test_the_headline_is_the_log_s_accuracy_and_checks_against_inspect(
    v3_run: tuple[EvalLog, Report, Path],
) -> None:
    log, report, root = v3_run
    stored = _stored(log)
    (row,) = read_csv(root / "report", "v3_overall")
    assert 0 <= stored["accuracy"] <= 1
    assert float(row["accuracy"]) == pytest.approx(stored["accuracy"], abs=5e-4)
    assert row["check against Inspect"].startswith("matches")
    assert row["contexts"] == str(PERSONAS)
    # the judged queries (two a type and persona; the grader unread) are unscored, counted, never 0
    judged = PERSONAS * 2 * sum(task.judged for task in TASK_TYPES.values())
    assert row["unscored samples"] == str(judged)
    assert row["unparsed share"] == ""  # v3's own scoring reads no option letter
    # each geo-shift row: the reply names neither city, 0.5
    (types,) = read_csv(root / "report", "v3_type")
    assert float(types["local_recommendation_geo_shift"]) == 0.5
    assert stored["type_local_recommendation_geo_shift"] == 0.5


def test_a_row_per_family_as_the_log_s_metrics(v3_run: tuple[EvalLog, Report, Path]) -> None:
    log, _, root = v3_run
    stored = _stored(log)
    (row,) = read_csv(root / "report", "v3_family")
    # a column per family some run has (none empty for every run: issue 50)
    shown = {family: float(value) for family, value in row.items() if family != "run"}
    assert set(shown) <= set(FAMILIES)
    logged = {
        name.removeprefix("family_")
        for name in stored
        if name.startswith("family_") and not name.endswith(("_low", "_high"))
    }
    # the rule-scored types' families: personalization, recommendation, proactiveness
    assert set(shown) == logged == {"personalization", "recommendation", "agentic_proactiveness"}
    for family, value in shown.items():
        assert value == pytest.approx(stored[f"family_{family}"], abs=5e-4)


def test_judged_queries_are_counted_unscored_and_the_licence_stated(
    v3_run: tuple[EvalLog, Report, Path],
) -> None:
    _, report, _ = v3_run
    judged = PERSONAS * 2 * sum(task.judged for task in TASK_TYPES.values())
    assert any(f"{judged} sample(s) left unscored by the scorer" in n for n in report.notes)
    assert any(
        n.startswith("PersonaMem-v3 data: ") and "CC-BY-NC-4.0: non-commercial" in n
        for n in report.notes
    )


def test_the_run_is_beside_the_published_numbers(v3_run: tuple[EvalLog, Report, Path]) -> None:
    _, _, root = v3_run
    rows = read_csv(root / "report", "v3_published")
    assert rows[0]["kind"] == "this report"
    assert rows[0]["against the paper's range"] == "not comparable: synthetic data"
    opus = next(r for r in rows if r["model"] == "Opus-4.8" and "Overall" in r["system or run"])
    assert float(opus["accuracy"]) == pytest.approx(0.537)
    assert "10 matched personas" in opus["deviations from the authors' protocol"]


def test_a_card_shows_the_headline_families_and_licence(
    v3_run: tuple[EvalLog, Report, Path],
) -> None:
    log, _, root = v3_run
    cards = write_cards(
        [root / "logs"], root / "cards", allow_incomplete=True, allow_unreleased=True
    )
    (path,) = cards.written
    made: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    assert made["overall"]["accuracy"] == pytest.approx(_stored(log)["accuracy"])
    assert "non-commercial" in made["dataset"]["license_terms"]
    lines = path.with_suffix(".md").read_text(encoding="utf-8").splitlines()
    assert any(line.startswith("| data license | ") and "CC-BY-NC-4.0" in line for line in lines)
    assert any(line.startswith("| task family (the paper's): personalization | ") for line in lines)
    incomplete = next(line for line in lines if line.startswith("| made although incomplete"))
    assert "150 unscored (judge_not_built, judge_unreadable)" in incomplete


def test_the_page_shows_no_table_twice_and_draws_the_families_and_types(
    v3_run: tuple[EvalLog, Report, Path],
) -> None:
    """The first screen's family table is not repeated below (issue 50); the families
    and the task types (per family) are drawn, the cost against score too."""
    _, report, root = v3_run
    page = (root / "report" / "index.html").read_text(encoding="utf-8")
    headings = re.findall(r"<h2[^>]*>([^<]*)</h2>", page)
    assert len(headings) == len(set(headings)), headings
    assert sum("accuracy per task family (the paper" in h.lower() for h in headings) == 1
    drawn = sorted(f.files[0].name for f in report.figures)
    assert "v3_family.png" in drawn and "v3_cost.png" in drawn
    assert any(name.startswith("v3_type") for name in drawn)
    assert all((root / "report" / f.files[0]).is_file() for f in report.figures)
