"""The log-probability back end an Inspect model gets, and the models that cannot have
one (`answer/logprob/backend.py`; the hf/ and vllm/ back ends run in
test_solver.py). Telling the providers apart imports neither torch nor Inspect's hf/
provider, so these run without the local extra."""

from __future__ import annotations

import sys

import anyio
import pytest
from inspect_ai.model import get_model

from inspect_personamem.answer.logprob.backend import backend_for

HF_PROVIDER = "inspect_ai.model._providers.hf"
REFUSAL = (
    "method='logprob' needs prompt log-probabilities, which the MockLLM provider of 'model' "
    "cannot give: use hf/<model> (local transformers) or vllm/<model> "
    "(a vLLM server)"
)


def test_a_provider_without_prompt_logprobs_is_refused_naming_what_works() -> None:
    model = get_model("mockllm/model")
    with pytest.raises(ValueError) as error:
        anyio.run(backend_for, model, None, 4)
    assert str(error.value) == REFUSAL


def test_another_provider_is_refused_without_importing_torch(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """With neither the hf/ provider nor torch loaded (and torch made unimportable, as
    where the local extra is not installed), a mockllm model is refused as above, and
    neither is imported to tell."""
    monkeypatch.delitem(sys.modules, HF_PROVIDER, raising=False)
    monkeypatch.setitem(sys.modules, "torch", None)  # `import torch` raises ImportError
    model = get_model("mockllm/model")
    with pytest.raises(ValueError) as error:
        anyio.run(backend_for, model, None, 4)
    assert str(error.value) == REFUSAL
    assert HF_PROVIDER not in sys.modules
    assert sys.modules["torch"] is None
