"""Reports from Inspect logs: the paper's tables and figures, beside the published numbers.

`build_report(logs, out)` (or `inspect-personamem report LOGS... --out DIR`) reads
PersonaMem logs, recomputes every number from the per-question scores, checks them
against the metrics Inspect stored, and writes tables, figures and an index page.
Figures need matplotlib (the `report` extra); nothing else here does.
"""

from inspect_personamem.report.build import Report, build_report
from inspect_personamem.report.errors import ReportError

__all__ = ["Report", "ReportError", "build_report"]
