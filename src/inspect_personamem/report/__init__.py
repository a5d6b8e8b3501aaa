"""Reports from Inspect logs: the paper's tables and figures, beside the published numbers.

`build_report(logs, out)` (or `inspect-personamem report LOGS... --out DIR`) reads
PersonaMem logs, recomputes every number from the per-question scores, checks them
against the metrics Inspect stored, and writes tables, figures and an index page.
Figures need matplotlib (the `report` extra); nothing else here does.

Three layers, imports running one way, render -> analyse -> read:

- read (`read/`): logs into plain run records (`Run`, `SampleResult`), with what each
  log says of how its run ran (`run/facts.py`);
- analyse: pure results over those records (`accuracy.py`, `differences.py`,
  `pairs.py`, `check.py`, `graded.py`, `agreement.py`, `retrieval.py`, `costs.py`,
  `errata.py`, `labels.py`, `card.py`'s content);
- render: tables (`tables.py` and each analysis's `*_tables.py`), figures
  (`figures.py`), the page (`glance.py`, `html_page.py`, `sections.py`, `build.py`)
  and the card's files (`card_writer.py`).
"""

from inspect_personamem.report.build import Report, build_report
from inspect_personamem.report.errors import ReportError

__all__ = ["Report", "ReportError", "build_report"]
