"""The log-likelihood tests: a package, so that their `conftest.py` has a name of its own
(`logprob.conftest`) beside the top-level one."""
