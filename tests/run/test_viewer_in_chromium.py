"""Runs' logs as `inspect view` shows them, and the package's reports, read in headless
Chromium at 1280 px with real waits (the viewer decodes a log in a worker, which
Chromium's virtual time does not wait for): the header card holds the result alone
(`run/viewer.py`: accuracy, its interval, its standard error, one figure of the
version's) with the log's values, beside the title, the model and the tags and over none
of them, for a v1 log, a v3 long-context log and a v3 agent log; a v1 sample list has
the declared columns and a sample's score panel the answer read and the correct
option's text; each report's first screen has no box drawn over another. Every
screenshot is kept in the test's folder (`tmp_path/screens`, printed) for a reader to
look at."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog
from inspect_ai.model import get_model
from support.browser import Page, chromium_page, inspect_view
from support.helpers import offline_env

from inspect_personamem.datasets.registry import VERSIONS
from inspect_personamem.datasets.v1.generator import generate_split
from inspect_personamem.report import build_report
from inspect_personamem.run.viewer import HEADER

pytestmark = pytest.mark.slow  # runs, a server and a browser

WIDTH = 1280
COLUMN_HEADERS = {
    "sampleId": "id",
    "input": "input",
    "target": "target",
    "answer": "answer",
    "tokens": "tokens",
    "duration": "duration",
    "limit": "limit",
}
"""The viewer's header of each built-in column; a score column's header is `score`."""
GLYPH_SLACK = 3.0
"""How far (px) a label's text may run past its cell's edge and still read whole: the
side bearing of its last glyph, drawn in the cell's padding."""


def oracle_run(tmp_path: Path) -> EvalLog:
    """A synthetic 32k split answered by the offline `personamem/oracle`: some right,
    some wrong, none needing the network."""
    data = tmp_path / "data"
    generate_split(data, "32k", contexts=2, min_messages=30, max_messages=40, questions=8)
    [log] = inspect_eval(
        "inspect_personamem/personamem_32k",
        task_args={"data_dir": str(data)},
        model="personamem/oracle",
        model_args={"questions": str(data / "questions_32k.csv")},
        log_dir=str(tmp_path / "logs"),
        display="none",
    )
    assert log.status == "success", log.error
    return log


def v3_runs(tmp_path: Path) -> list[EvalLog]:
    """What `inspect-personamem try --dataset v3` writes, answered by the oracle (which
    grades its own replies) with the long-context history and as an agent over the
    apps: 60 queries of each, drawn across the personas."""
    trying = VERSIONS["v3"].trying
    assert trying is not None
    trial = trying.trial({option.dest: None for option in trying.options}, 60, 0)
    data = tmp_path / "v3data"
    questions = trial.write(data)
    oracle = get_model("personamem/oracle", questions=str(questions))
    logs = []
    for history in ("full", "apps"):
        [log] = inspect_eval(
            trial.task,
            task_args={"data_dir": str(data), "history": history},
            model="personamem/oracle",
            model_args={"questions": str(questions)},
            model_roles={"grader": oracle},
            log_dir=str(tmp_path / "v3logs"),
            limit=60,
            sample_shuffle=0,
            display="none",
        )
        assert log.status == "success", log.error
        logs.append(log)
    return logs


HEADER_BOXES = """(() => {
  const box = (e) => { const r = e.getBoundingClientRect();
    return {left: r.left, top: r.top, right: r.right, bottom: r.bottom}; };
  const text = (e) => { const range = document.createRange(); range.selectNodeContents(e);
    return box(range); };
  const named = ["task-title", "task-model"].map((id) => document.getElementById(id))
    .filter((e) => e).map((e) => ({name: e.id, box: box(e)}));
  document.querySelectorAll("[class*=_tagRowHeader_]")
    .forEach((e) => named.push({name: "tags", box: box(e)}));
  const card = document.querySelector("[data-testid=score-grid]");
  const rows = [...card.querySelectorAll("tr")].map((tr) => [...tr.children].map((c) => (
    {text: c.innerText.trim(), box: box(c), textBox: text(c)})));
  return {named, rows};
})()"""
"""The header's title, model and tags boxes, and each cell of its score card (the first
`score-grid`: the "All scoring" dialog's is drawn only once opened), with the box of its
text."""


def overlaps(a: dict[str, float], b: dict[str, float]) -> bool:
    """Whether two boxes share any area."""
    return not (
        a["right"] <= b["left"]
        or b["right"] <= a["left"]
        or a["bottom"] <= b["top"]
        or b["bottom"] <= a["top"]
    )


def check_header(page: Page, log: EvalLog, shot: Path) -> list[str]:
    """The header of `log` as the page shows it, checked: the card's labels lead with
    `HEADER`, each read whole, its values the log's, and no cell over the title, the
    model or the tags. Returns the card's labels."""
    page.wait_for_text("all scoring", *HEADER)
    page.screenshot(shot)
    print(f"header: {shot}")
    shown: dict[str, Any] = page.evaluate(HEADER_BOXES)
    *_, labels, values = shown["rows"]
    names = [cell["text"] for cell in labels[1:]]
    assert names[: len(HEADER)] == list(HEADER), names
    assert log.results is not None
    metrics = log.results.scores[0].metrics
    for label, value in zip(labels[1 : len(HEADER) + 1], values[1:], strict=False):
        assert label["textBox"]["right"] <= label["box"]["right"] + GLYPH_SLACK, label
        assert float(value["text"]) == pytest.approx(metrics[label["text"]].value, abs=5e-4)
    cells = [cell for row in shown["rows"] for cell in row]
    for item in shown["named"]:
        drawn_over = [c["text"] for c in cells if overlaps(c["box"], item["box"])]
        assert drawn_over == [], f"{item['name']} under {drawn_over} ({shot})"
    return names


def test_the_viewer_header_fits_and_the_v1_sample_list_and_score_panel(
    chromium: str, tmp_path: Path
) -> None:
    screens = tmp_path / "screens"
    screens.mkdir()
    print(f"screenshots: {screens}")
    log = oracle_run(tmp_path)
    assert log.samples and log.eval.viewer is not None
    view = log.eval.viewer.task_samples_view
    assert view is not None and not isinstance(view, list) and view.columns is not None
    headers = [COLUMN_HEADERS.get(str(c.id), "score") for c in view.columns]
    name = Path(log.location).name
    env = offline_env(tmp_path)
    with (
        inspect_view(tmp_path / "logs", env) as address,
        chromium_page(chromium, tmp_path / "profile") as page,
    ):
        page.open(f"{address}/#/logs/{name}/samples", WIDTH, 900)
        page.wait_for_text(*headers)
        labels = check_header(page, log, screens / "viewer_v1.png")
        assert labels == [*HEADER, "unparsed"]  # the breakdowns are under "all scoring"
        lines = page.text().lower().splitlines()
        # the declared columns, in their order (Inspect's default puts the score last)
        start = lines.index(headers[0])
        assert lines[start : start + len(headers)] == headers
        assert page.evaluate("document.documentElement.scrollWidth") <= WIDTH

        sample = next(s for s in log.samples if s.scores and "Incorrect" in str(s.scores))
        assert sample.scores is not None
        [score] = sample.scores.values()
        assert score.explanation is not None and score.answer is not None
        page.send(
            "Page.navigate", url=f"{address}/#/logs/{name}/samples/sample/{sample.id}/1/scoring"
        )
        shown = page.wait_for_text(score.explanation, score.answer)
        assert "the correct option" in shown
        panel = page.screenshot(screens / "viewer_v1_score_panel.png")
        print(f"score panel: {panel}")

    long_context, agent = v3_runs(tmp_path)
    with (
        inspect_view(tmp_path / "v3logs", env) as address,
        chromium_page(chromium, tmp_path / "profile-v3") as page,
    ):
        for log, shot in ((long_context, "viewer_v3_full.png"), (agent, "viewer_v3_apps.png")):
            url = f"{address}/#/logs/{Path(log.location).name}/samples"
            if page.session is None:
                page.open(url, WIDTH, 900)
            else:
                page.send("Page.navigate", url=url)
            assert check_header(page, log, screens / shot) == [*HEADER, "macro"]

    # the reports' first screens: no box drawn over another
    for logs, out in ((tmp_path / "logs", "report_v1"), (tmp_path / "v3logs", "report_v3")):
        report = build_report([logs], tmp_path / out)
        with chromium_page(chromium, tmp_path / f"profile-{out}") as page:
            page.open(report.index.absolute().as_uri(), WIDTH, 900)
            page.wait_for_text("accuracy")
            first = page.screenshot(screens / f"{out}_first_screen.png")
            print(f"report: {first}")
            drawn_over = page.evaluate(FIRST_SCREEN_OVERLAPS)
            assert drawn_over == [], f"{out}: {drawn_over} ({first})"


FIRST_SCREEN_OVERLAPS = """(() => {
  const blocks = [...document.querySelectorAll(
      "h1, h2, h3, p, li, img, svg, figure, table, pre, nav")]
    .filter((e) => e.checkVisibility()
      && !e.parentElement.closest("p, li, figure, table, pre, nav, svg"))
    .map((e) => [e, e.getBoundingClientRect()])
    .filter(([, r]) => r.width > 0 && r.height > 0 && r.top < window.innerHeight);
  const hits = [];
  blocks.forEach(([a, r], i) => blocks.slice(i + 1).forEach(([b, s]) => {
    const apart = r.right <= s.left || s.right <= r.left || r.bottom <= s.top
      || s.bottom <= r.top;
    if (!apart && !a.contains(b) && !b.contains(a))
      hits.push([a.tagName + ": " + a.innerText.slice(0, 40),
                 b.tagName + ": " + b.innerText.slice(0, 40)]);
  }));
  return hits;
})()"""
"""The pairs of a report's first-screen blocks (headings, paragraphs, list items,
figures, tables; those drawn: a folded note's are not), neither inside the other, whose
boxes share area."""
