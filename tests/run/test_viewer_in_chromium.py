"""A run's log as `inspect view` shows it, read in headless Chromium: the headline
leads the header, the sample list has the declared columns, and a sample's score panel
shows the answer read and the correct option's text. A screenshot at 1280 px is kept
beside the test's files (its path printed)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog
from support.browser import chromium_page, inspect_view
from support.helpers import offline_env

from inspect_personamem.datasets.v1.generator import generate_split

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


OVER_THE_TITLE = """(() => {
  const boxes = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const text = walker.currentNode.textContent.trim().toLowerCase();
    const range = document.createRange();
    range.selectNodeContents(walker.currentNode);
    if (text) boxes.push([text, range.getBoundingClientRect()]);
  }
  const title = boxes.find(([text]) => text === %s)[1];
  return ["accuracy", "stderr"].filter((label) => {
    const box = boxes.find(([text]) => text.startsWith(label))[1];
    return !(box.right <= title.left || title.right <= box.left
      || box.bottom <= title.top || title.bottom <= box.top);
  });
})()"""
"""The header's metric labels whose text is drawn over the task's title (`%s`: its
name, as JSON)."""


@pytest.mark.slow
def test_the_viewer_shows_the_headline_the_columns_and_the_score_panel(
    chromium: str, tmp_path: Path
) -> None:
    log = oracle_run(tmp_path)
    assert log.results is not None and log.samples and log.eval.viewer is not None
    accuracy = log.results.scores[0].metrics["accuracy"].value
    view = log.eval.viewer.task_samples_view
    assert view is not None and not isinstance(view, list) and view.columns is not None
    headers = [COLUMN_HEADERS.get(str(c.id), "score") for c in view.columns]
    name = Path(log.location).name
    with (
        inspect_view(tmp_path / "logs", offline_env(tmp_path)) as address,
        chromium_page(chromium, tmp_path / "profile") as page,
    ):
        page.open(f"{address}/#/logs/{name}/samples", WIDTH, 900)
        page.wait_for_text("accuracy", *headers)
        shot = page.screenshot(tmp_path / f"viewer_{WIDTH}.png")  # kept where a check fails
        print(f"screenshot: {shot}")
        lines = page.text().lower().splitlines()
        # the header: the result alone (the headline first, with the log's value), the
        # breakdown behind "all scoring", and no label drawn over the task's title
        [header] = [i for i, line in enumerate(lines) if line.startswith("scorer\t")]
        labels, values = lines[header].split("\t")[1:], lines[header + 1].split("\t")[1:]
        assert labels == ["accuracy", "stderr", "inspect_personamem/unparsed"]
        assert float(values[0]) == pytest.approx(accuracy, abs=5e-4)
        assert lines[header + 2] == "all scoring..."
        assert page.evaluate(OVER_THE_TITLE % json.dumps(log.eval.task)) == []
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
        panel = page.screenshot(tmp_path / f"viewer_score_panel_{WIDTH}.png")
        print(f"score panel: {panel}")
