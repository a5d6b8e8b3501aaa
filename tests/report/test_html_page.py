"""The index page (`report/html_page.py`): rendered by headless Chromium, read at 1280
and 1400 px, its tables within the page."""

from __future__ import annotations

import html
import re
import subprocess
from pathlib import Path

import pytest
from support.reports import (
    ROOT,
    MethodLogs,
    markdown_table_cells,
    measured,
    methods_report,
    png_size,
)


def test_page_renders_in_headless_chromium(report_dir: Path, chromium: str, tmp_path: Path) -> None:
    out = tmp_path / "page.png"
    subprocess.run(
        [
            str(ROOT / "scripts/render_report.sh"),
            str(report_dir / "index.html"),
            str(out),
            "1200",
            "2400",
        ],
        check=True,
        timeout=120,
        env={"CHROMIUM": chromium, "PATH": "/usr/bin:/bin"},
    )
    assert png_size(out) == (1200, 2400)
    from PIL import Image

    with Image.open(out) as image:
        colours = image.convert("RGB").resize((60, 120)).getcolors(maxcolors=60 * 120)
    assert colours is not None and len(colours) > 20  # text, tables and figures, not a blank page


@pytest.mark.parametrize("width", [1280, 1400])
def test_the_page_reads_at_1280_and_1400_px(
    method_logs: MethodLogs, tmp_path: Path, chromium: str, width: int
) -> None:
    """Runs of four methods (long labels, wide tables): the first screen holds the
    summary with every run's accuracy and interval, no word of a table is broken across
    lines, the page itself never scrolls sideways (a wide table, one column per topic,
    scrolls in its own box), and the tables a reader looks at first (summary, results,
    methods, their differences and cost) fit without scrolling."""
    report = methods_report(method_logs, tmp_path / "out")
    found = measured(report.index, chromium, width, tmp_path)
    for s in report.summaries:
        for number in (s.overall.accuracy, s.overall.low, s.overall.high):
            assert f"{number:.3f}" in found["firstScreen"], (s.label, found["firstScreen"])
    assert found["broken"] == []
    assert found["page"] <= found["viewport"]
    first_read = {"summary", "overall", "methods", "method_differences", "gain", "cost"}
    assert not first_read & set(found["scrolled"])


def test_overall_tables_fit_a_1400_px_page(report_dir: Path) -> None:
    """An estimate from the CSS: 13 px text is at most 7.5 px a character; number cells
    keep their text on one line, text cells wrap (here taken to wrap at 16em)."""
    page = (report_dir / "index.html").read_text(encoding="utf-8")
    assert "max-width: 1400px" in page
    assert "td.text { white-space: normal; text-align: left; }" in page
    for name in ("overall", "runs"):
        text = (report_dir / "tables" / f"{name}.md").read_text(encoding="utf-8")
        columns, _, *rows = (
            markdown_table_cells(line) for line in text.splitlines() if line.startswith("|")
        )
        widths = []
        for i, column in enumerate(columns):
            longest_word = max(len(word) for word in column.split())
            cells = max(len(html.unescape(row[i])) for row in rows)
            wraps = any(re.search(r"[^\d.–-]", html.unescape(row[i])) for row in rows)
            widths.append(min(16 * 13, cells * 7.5) if wraps else max(longest_word, cells) * 7.5)
        assert len(columns) <= 14
        assert sum(width + 11 for width in widths) <= 1400 - 2 * 16, (name, widths)


def test_long_tables_long_notes_and_figures_after_the_first_are_folded(tmp_path: Path) -> None:
    """A table of more than `FOLDED_ROWS` rows shows its title, its note's first sentence
    and its files, its rows and the rest of its note one click away; a shorter one is open;
    of figures that follow each other the first is shown, the others folded."""
    from inspect_personamem.report.html_page import FOLDED_ROWS, FigureFile, write_page
    from inspect_personamem.report.tables import Table

    def table(name: str, rows: int) -> Table:
        note = f"Left out: 2 rows of {name}. What it shows, at length."
        return Table(name, name, note, ("a",), tuple((i,) for i in range(rows)))

    (tmp_path / "figures").mkdir()
    figures = [FigureFile(f"figure {i}", (Path(f"figures/f{i}.png"),)) for i in range(3)]
    for f in figures:
        (tmp_path / f.files[0]).write_bytes(b"png")
    summary = table("summary", 2)
    sections: list[Table | FigureFile] = [
        table("short", FOLDED_ROWS), *figures, table("long", FOLDED_ROWS + 1),
    ]  # fmt: skip
    page = write_page(tmp_path / "index.html", "t", "h", [summary], [], [], sections)
    text = page.read_text(encoding="utf-8")
    start = text.index('<section id="short">')
    short = text[start : text.index("</section>", start)]
    assert "<table>" in short and "rows (open to show)" not in short
    long = text[text.index('<section id="long">') :]
    assert f"<details><summary>{FOLDED_ROWS + 1} rows (open to show)</summary>" in long
    assert long.index("<details><summary>") < long.index("<table>")
    assert "<summary>Left out: 2 rows of long. <i>(more)</i></summary><p>What it shows" in long
    assert 'tables/long.csv">CSV</a>' in long
    first, folded = text.index("figure 0"), text.index("2 more figures of the same kind")
    assert first < folded < text.index("figure 1") < text.index("figure 2")
