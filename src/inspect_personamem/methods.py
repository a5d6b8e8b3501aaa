"""Answering methods: how a model answers a question, one table entry each.

A method is a solver builder plus the task parameters that only it reads and the
question order that suits it. Every builder takes the common arguments
(`contexts_file`: the context JSONL, None for the no-history baseline;
`system_messages`; `keep_history_in_log`) and then its own parameters by name.
Adding a method: write its solver module, add an entry here, add its parameters
to the task's signature (and `settings.py`, `tasks.yaml`, the README).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from inspect_ai.solver import Solver

from .answer.choice import personamem_solver
from .answer.logprob.solver import logprob_solver
from .data.order import SampleOrder
from .errors import PersonaMemArgumentError
from .history.retrieved import memory_solver, rag_solver


@dataclass(frozen=True)
class AnsweringMethod:
    """A solver builder, the task parameters only it reads, and its default order."""

    build: Callable[..., Solver]
    parameters: tuple[str, ...]
    default_order: SampleOrder
    summary: str


METHODS: dict[str, AnsweringMethod] = {
    "generate": AnsweringMethod(
        build=personamem_solver,
        parameters=("cache_breakpoints",),
        default_order="interleaved",
        summary="the official prompt; the model writes its answer",
    ),
    "logprob": AnsweringMethod(
        build=logprob_solver,
        parameters=("normalization", "context_window", "option_batch_size", "prefill_chunk"),
        default_order="grouped",
        summary="the paper's log-likelihood setting for local models (hf/, vllm/)",
    ),
    "rag": AnsweringMethod(
        build=rag_solver,
        parameters=(
            "retriever",
            "embedder",
            "top_k",
            "memory_prompt",
            "embedding_cache",
        ),  # fmt: skip
        default_order="interleaved",
        summary="the paper's RAG: the top_k history messages most similar to the question",
    ),
    "memory": AnsweringMethod(
        build=memory_solver,
        parameters=("memory", "memory_config", "top_k", "memory_prompt"),
        default_order="interleaved",
        summary="a memory system (Mem0 or any plug-in) fed the history incrementally",
    ),
}
"""Method name (`-T method=...`) -> the method."""


def method_parameters() -> frozenset[str]:
    """Every task parameter that belongs to one method or another."""
    return frozenset(name for method in METHODS.values() for name in method.parameters)


def checked_method(
    name: str, arguments: Mapping[str, Any], defaults: Mapping[str, Any]
) -> AnsweringMethod:
    """The method called `name`, after checking the task's arguments against it.

    An argument of another method set away from its default is an error naming it:
    it would silently change nothing.
    """
    if name not in METHODS:
        raise PersonaMemArgumentError(
            f"PersonaMem task parameter method={name!r}: choose one of {', '.join(METHODS)}"
        )
    method = METHODS[name]
    ignored = sorted(
        parameter
        for parameter in method_parameters() - set(method.parameters)
        if arguments[parameter] != defaults[parameter]
    )
    if ignored:
        raise PersonaMemArgumentError(
            f"PersonaMem task parameter(s) {', '.join(ignored)} have no effect with "
            f"method={name!r} (they belong to another method): leave them out"
        )
    return method


def build_solver(
    method: AnsweringMethod,
    arguments: Mapping[str, Any],
    *,
    contexts_file: str | None,
    system_messages: str,
    keep_history_in_log: bool,
) -> Solver:
    """The method's solver, with the common arguments and its own from `arguments`."""
    return method.build(
        contexts_file,
        system_messages=system_messages,
        keep_history_in_log=keep_history_in_log,
        **{parameter: arguments[parameter] for parameter in method.parameters},
    )
