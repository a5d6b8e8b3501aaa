"""The report's tests: a package, so that their `conftest.py` and `support.py` have
names of their own (`report.conftest`, `report.support`) beside the top-level ones."""
