"""The log-probability back end an Inspect model gets, and the models that cannot have
one (`answer/logprob/backend.py`; the hf/ and vllm/ back ends run in
test_solver.py)."""

from __future__ import annotations

import anyio
import pytest
from inspect_ai.model import get_model

from inspect_personamem.answer.logprob.backend import backend_for

# backend_for tells providers apart by Inspect's hf/ provider class, whose module
# imports torch
pytest.importorskip("torch", reason="needs the local extra: pip install -e '.[local]'")
pytestmark = pytest.mark.local_model


def test_a_provider_without_prompt_logprobs_is_refused_naming_what_works() -> None:
    model = get_model("mockllm/model")
    with pytest.raises(ValueError) as error:
        anyio.run(backend_for, model, None, 4)
    assert str(error.value) == (
        "method='logprob' needs prompt log-probabilities, which the MockLLM provider of 'model' "
        "cannot give: use hf/<model> (local transformers) or vllm/<model> "
        "(a vLLM server)"
    )
