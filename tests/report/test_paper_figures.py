"""The paper layout's own figure (`report/paper_figures.py`): a run next to the published
numbers of the model it maps to, per question type and by sessions elapsed; drawn from
a hand-built run."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.reports import a_summary, bar_colours, png_size, results

from inspect_personamem.datasets.declared import PaperLayout
from inspect_personamem.datasets.registry import VERSIONS

pytest.importorskip("matplotlib", reason="needs the report extra: pip install -e '.[report]'")

from inspect_personamem.report.figures import DPI  # noqa: E402
from inspect_personamem.report.paper_figures import SIZE, published_figure  # noqa: E402


def test_a_run_beside_its_published_model_in_the_runs_colour_and_the_published_grey(
    tmp_path: Path,
) -> None:
    layout = VERSIONS["v1"].reported.layout
    assert isinstance(layout, PaperLayout)
    groups = {group.key: group for group in VERSIONS["v1"].groups}
    run = a_summary("full", results([1.0, 0.0], [1.0, 1.0]))
    files = published_figure(
        run,
        layout.models()["GPT-4o"],
        layout,
        (groups["category"], groups["distance_to_ref_in_blocks"]),
        {"full": (1.0, 0.0, 0.0, 1.0)},
        tmp_path,
        "published_1_full",
        "a test",
    )
    assert [path.name for path in files] == ["published_1_full.png", "published_1_full.svg"]
    assert png_size(files[0]) == (round(SIZE[0] * DPI), round(SIZE[1] * DPI))
    svg = files[1].read_text(encoding="utf-8")
    for text in ("full (this run)", "GPT-4o (published, 128k)", "next to published GPT-4o"):
        assert text in svg, text
    assert bar_colours(files[1])[:2] == ["#ff0000", "#595959"]
