"""The tiny random model and its synthetic split, built once for the log-likelihood
tests that use them (read only: a test that changes the tokenizer loads its own)."""

from __future__ import annotations

from typing import Any

import pytest


@pytest.fixture(scope="session")
def setup(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """Eight questions over two contexts, and a model trained on them (`LocalSetup`)."""
    pytest.importorskip("transformers", reason="needs the local extra: pip install -e '.[local]'")
    from support.logprob import make_setup

    return make_setup(tmp_path_factory.mktemp("logprob"), questions=8)


@pytest.fixture(scope="session")
def model(setup: Any) -> Any:
    from transformers import AutoModelForCausalLM

    return AutoModelForCausalLM.from_pretrained(setup.model)


@pytest.fixture(scope="session")
def tokenizer(setup: Any) -> Any:
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(setup.model)
