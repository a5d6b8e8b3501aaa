"""The report's tests: a package, so that their `conftest.py` has a name of its own
(`report.conftest`) beside the top-level one."""
