"""The tests of the report's reading layer (`report/read/`): a package, so that their
module names (`report.read.test_logs`) are their own."""
