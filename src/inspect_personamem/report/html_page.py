"""The report's index page: one self-contained HTML file, readable offline.

Figures are embedded as base64 PNG (the page needs no other file) and each links
to its PNG and SVG file beside the page; tables are the same `Table` objects that
are written as Markdown and CSV. The page is at most 1400 px wide: table cells keep
their numbers on one line, text cells (labels, notes) wrap between words only (a
squeezed column must not break `personamem/oracle` into fragments) and the first
column keeps a readable width; a table wider than the page scrolls in its own box.
So that the page is read in a few screens, a table of more than `FOLDED_ROWS` rows is
folded (opened by a click), as are a table's note past its first sentence and the
figures after the first of a row of them (one per run); a figure is shown at most
480 px tall (it links to its full-size PNG). No scripts, fonts or styles from the
network.
"""

from __future__ import annotations

import base64
import html
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from inspect_personamem.report.tables import Cell, Table, format_cell

STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em; max-width: 1400px; color: #222; }
table { border-collapse: collapse; font-size: 13px; margin: 0.5em 0 1.5em; }
th, td { border: 1px solid #ccc; padding: 3px 5px; text-align: right; white-space: nowrap; }
th { white-space: normal; background: #f2f2f2; position: sticky; top: 0; }
td.text { white-space: normal; text-align: left; }
td:first-child { min-width: 9em; }
th:first-child, th.text { text-align: left; }
.word { white-space: nowrap; }
.scroll { overflow-x: auto; }
figure { margin: 1em 0 2em; }
figure img { max-width: 100%; max-height: 480px; border: 1px solid #ddd; }
.note { color: #555; font-size: 14px; max-width: 1000px; }
ul.notes li { font-size: 14px; }
.headline { font-weight: bold; margin-top: 0; }
summary { cursor: pointer; font-size: 14px; color: #225; margin: 0.3em 0 1em; }
details.note summary { color: #555; margin: 0.5em 0; }
"""


FOLDED_ROWS = 12
"""A table of more rows is folded on the page (`<details>`: its title, note and files
shown, its rows one click away), so that the page is read in a few screens."""


@dataclass(frozen=True)
class FigureFile:
    """A figure's files, relative to the page's folder: the PNG first."""

    caption: str
    files: tuple[Path, ...]


def _inline(text: str) -> str:
    """Escaped text with the notes' Markdown `code` spans as <code>."""
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", html.escape(text))


def _words(text: str) -> str:
    """Escaped cell text whose words with a hyphen or slash (`preference-aligned`,
    `mockllm/model-a`) are kept whole: lines break between words only."""
    return re.sub(
        r"\S*[-/]\S*",
        lambda word: f'<span class="word">{word.group()}</span>',
        html.escape(text),
    )


def _cell(cell: Cell) -> str:
    """A body cell; text (labels, notes) left-aligned and wrapping, numbers on one line."""
    text = _words(format_cell(cell))
    return f'<td class="text">{text}</td>' if isinstance(cell, str) else f"<td>{text}</td>"


def _note(note: str) -> str:
    """A table's note: its first sentence shown, the rest folded (`<details>`)."""
    if not note:
        return ""
    first, *rest = re.split(r"(?<=\.) +(?=[A-Z`(])", note, maxsplit=1)
    if not rest:
        return f'<p class="note">{_inline(first)}</p>'
    return (
        f'<details class="note"><summary>{_inline(first)} <i>(more)</i></summary>'
        f"<p>{_inline(rest[0])}</p></details>"
    )


def _table(table: Table) -> str:
    text = [
        all(isinstance(row[i], str | None) for row in table.rows) for i in range(len(table.columns))
    ]
    head = "".join(
        f'<th class="text">{_words(c)}</th>' if is_text else f"<th>{_words(c)}</th>"
        for c, is_text in zip(table.columns, text, strict=True)
    )
    body = "".join("<tr>" + "".join(map(_cell, row)) + "</tr>" for row in table.rows)
    note = _note(table.note)
    shown = (
        f'<div class="scroll"><table><thead><tr>{head}</tr></thead>'
        f"<tbody>{body}</tbody></table></div>"
    )
    if len(table.rows) > FOLDED_ROWS:
        shown = (
            f"<details><summary>{len(table.rows)} rows (open to show)</summary>{shown}</details>"
        )
    return (
        f'<section id="{table.name}"><h2>{html.escape(table.title)}</h2>{note}{shown}'
        f'<p class="note">Files: <a href="tables/{table.name}.csv">CSV</a>, '
        f'<a href="tables/{table.name}.md">Markdown</a></p></section>'
    )


def _figure(figure: FigureFile, folder: Path) -> str:
    png = figure.files[0]
    data = base64.b64encode((folder / png).read_bytes()).decode("ascii")
    links = ", ".join(f'<a href="{f.as_posix()}">{f.suffix[1:].upper()}</a>' for f in figure.files)
    caption = html.escape(figure.caption)
    return (
        f'<figure><a href="{png.as_posix()}"><img src="data:image/png;base64,{data}" '
        f'alt="{caption}"></a><figcaption class="note">{caption} ({links})</figcaption></figure>'
    )


def _runs_of_a_kind(sections: Sequence[Table | FigureFile]) -> list[list[Table | FigureFile]]:
    """The sections in order, a table alone, figures that follow each other together
    (one per run, say)."""
    runs: list[list[Table | FigureFile]] = []
    for section in sections:
        if isinstance(section, FigureFile) and runs and isinstance(runs[-1][-1], FigureFile):
            runs[-1].append(section)
        else:
            runs.append([section])
    return runs


def _sections(run: Sequence[Table | FigureFile], folder: Path) -> str:
    """A table, or figures that follow each other: the first shown, the others folded
    (`<details>`), so that a figure per run does not fill the page."""
    first, *more = run
    if isinstance(first, Table):
        return _table(first)
    shown = _figure(first, folder)
    if not more:
        return shown
    folded = "".join(_figure(f, folder) for f in more if isinstance(f, FigureFile))
    return (
        f"{shown}<details><summary>{len(more)} more figure{'s' if len(more) > 1 else ''} "
        f"of the same kind (open to show)</summary>{folded}</details>"
    )


def _list(id_: str, title: str, items: Sequence[str]) -> str:
    """A titled list of notes (`code` spans kept), or nothing without items."""
    if not items:
        return ""
    lines = "".join(f"<li>{_inline(item)}</li>" for item in items)
    return f'<h2 id="{id_}">{html.escape(title)}</h2><ul class="notes">{lines}</ul>'


def write_page(
    path: Path,
    title: str,
    headline: str,
    glance: Sequence[Table],
    caveats: Sequence[str],
    notes: Sequence[str],
    sections: Sequence[Table | FigureFile],
) -> Path:
    """Write the index page at `path`: `headline` its first visible line, then the
    `glance` tables (the summary first) and the `caveats` (why runs are not comparable
    with published numbers), the notes, and the sections; figure files are relative to
    its folder."""
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{html.escape(title)}</title><style>{STYLE}</style></head><body>",
        f'<p class="headline">{html.escape(headline)}</p>',
        f"<h1>{html.escape(title)}</h1>",
        *(_table(table) for table in glance),
        _list("caveats", "Not comparable with published numbers", caveats),
        _list("notes", "Notes", notes),
    ]
    parts += [_sections(run, path.parent) for run in _runs_of_a_kind(sections)]
    parts.append("</body></html>")
    path.write_text("\n".join(parts), encoding="utf-8")
    return path
