"""PersonaMem-v3's tests: a package, so that their `conftest.py` (a grader bound for
every test here) has a name of its own (`v3.conftest`) beside the top-level one."""
