"""The tasks Inspect registers: each dataset version's task, taking its selectors
(`split`; `subset`, `length`), and one per value of the selector it fixes
(`personamem_32k`), each a few lines over `run.build`.

Each signature lists the parameters the tables declare (`run.arguments.parameters`:
the version's task's, then those of the axis values), typed, with their defaults
(tests/datasets/test_registry.py holds them equal); each is described in the README's
table and in tasks.yaml. The parameters that one axis value reads (or a few share) come
last, under a comment naming the values that read them. Any other name is an error
(`**unknown`, `run.build.UNKNOWN`), not Inspect's warning.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from inspect_ai import Task, task

from inspect_personamem.datasets.registry import VERSIONS
from inspect_personamem.run.build import build_task, task_arguments

V1: Final = VERSIONS["v1"]
V2: Final = VERSIONS["v2"]
V3: Final = VERSIONS["v3"]


@task
def personamem(
    split: str = "32k",
    data_dir: str | None = None,
    repo_id: str = "bowen-upenn/PersonaMem-v1",
    revision: str = "73dfd752d477d0c466cd441f1669397f5726d7ab",
    history: str = "full",
    answer: str = "choice",
    system_messages: str = "keep",
    shuffle: int | None = None,
    negative_end_index: str = "official",
    keep_history_in_log: bool = False,
    order: str | None = None,
    interleave_block: int = 10,
    # history=rag
    retriever: str = "dense",
    # history=rag, history=tools
    embedder: str = "BAAI/bge-m3",
    embedding_cache: str | None = None,
    # history=rag, history=memory, history=tools
    top_k: int = 5,
    # history=rag, history=memory
    memory_prompt: str = "official",
    # history=memory, history=tools
    memory: str | None = None,
    memory_config: str | None = None,
    # history=tools
    search: str = "bm25",
    tool_budget: int = 6,
    tool_result_chars: int = 6000,
    # answer=choice, answer=open
    cache_breakpoints: bool = True,
    # answer=logprob
    normalization: str = "tokens",
    context_window: int | None = None,
    option_batch_size: int = 4,
    prefill_chunk: int | None = None,
    # answer=open
    grader: str = "role",
    grader_calibration: int = 50,
    grader_seed: int = 0,
    **unknown: Any,
) -> Task:
    """PersonaMem: pick the reply that fits the user's current profile after a long history."""
    return build_task(V1, task_arguments(V1, locals()))


@task
def personamem_32k(
    data_dir: str | None = None,
    repo_id: str = "bowen-upenn/PersonaMem-v1",
    revision: str = "73dfd752d477d0c466cd441f1669397f5726d7ab",
    history: str = "full",
    answer: str = "choice",
    system_messages: str = "keep",
    shuffle: int | None = None,
    negative_end_index: str = "official",
    keep_history_in_log: bool = False,
    order: str | None = None,
    interleave_block: int = 10,
    # history=rag
    retriever: str = "dense",
    # history=rag, history=tools
    embedder: str = "BAAI/bge-m3",
    embedding_cache: str | None = None,
    # history=rag, history=memory, history=tools
    top_k: int = 5,
    # history=rag, history=memory
    memory_prompt: str = "official",
    # history=memory, history=tools
    memory: str | None = None,
    memory_config: str | None = None,
    # history=tools
    search: str = "bm25",
    tool_budget: int = 6,
    tool_result_chars: int = 6000,
    # answer=choice, answer=open
    cache_breakpoints: bool = True,
    # answer=logprob
    normalization: str = "tokens",
    context_window: int | None = None,
    option_batch_size: int = 4,
    prefill_chunk: int | None = None,
    # answer=open
    grader: str = "role",
    grader_calibration: int = 50,
    grader_seed: int = 0,
    **unknown: Any,
) -> Task:
    """PersonaMem: pick the reply that fits the user's current profile after a long history.

    Runs split=32k (`split` given is an error).
    """
    return build_task(V1, task_arguments(V1, locals(), "32k"))


@task
def personamem_128k(
    data_dir: str | None = None,
    repo_id: str = "bowen-upenn/PersonaMem-v1",
    revision: str = "73dfd752d477d0c466cd441f1669397f5726d7ab",
    history: str = "full",
    answer: str = "choice",
    system_messages: str = "keep",
    shuffle: int | None = None,
    negative_end_index: str = "official",
    keep_history_in_log: bool = False,
    order: str | None = None,
    interleave_block: int = 10,
    # history=rag
    retriever: str = "dense",
    # history=rag, history=tools
    embedder: str = "BAAI/bge-m3",
    embedding_cache: str | None = None,
    # history=rag, history=memory, history=tools
    top_k: int = 5,
    # history=rag, history=memory
    memory_prompt: str = "official",
    # history=memory, history=tools
    memory: str | None = None,
    memory_config: str | None = None,
    # history=tools
    search: str = "bm25",
    tool_budget: int = 6,
    tool_result_chars: int = 6000,
    # answer=choice, answer=open
    cache_breakpoints: bool = True,
    # answer=logprob
    normalization: str = "tokens",
    context_window: int | None = None,
    option_batch_size: int = 4,
    prefill_chunk: int | None = None,
    # answer=open
    grader: str = "role",
    grader_calibration: int = 50,
    grader_seed: int = 0,
    **unknown: Any,
) -> Task:
    """PersonaMem: pick the reply that fits the user's current profile after a long history.

    Runs split=128k (`split` given is an error).
    """
    return build_task(V1, task_arguments(V1, locals(), "128k"))


@task
def personamem_1M(
    data_dir: str | None = None,
    repo_id: str = "bowen-upenn/PersonaMem-v1",
    revision: str = "73dfd752d477d0c466cd441f1669397f5726d7ab",
    history: str = "full",
    answer: str = "choice",
    system_messages: str = "keep",
    shuffle: int | None = None,
    negative_end_index: str = "official",
    keep_history_in_log: bool = False,
    order: str | None = None,
    interleave_block: int = 10,
    # history=rag
    retriever: str = "dense",
    # history=rag, history=tools
    embedder: str = "BAAI/bge-m3",
    embedding_cache: str | None = None,
    # history=rag, history=memory, history=tools
    top_k: int = 5,
    # history=rag, history=memory
    memory_prompt: str = "official",
    # history=memory, history=tools
    memory: str | None = None,
    memory_config: str | None = None,
    # history=tools
    search: str = "bm25",
    tool_budget: int = 6,
    tool_result_chars: int = 6000,
    # answer=choice, answer=open
    cache_breakpoints: bool = True,
    # answer=logprob
    normalization: str = "tokens",
    context_window: int | None = None,
    option_batch_size: int = 4,
    prefill_chunk: int | None = None,
    # answer=open
    grader: str = "role",
    grader_calibration: int = 50,
    grader_seed: int = 0,
    **unknown: Any,
) -> Task:
    """PersonaMem: pick the reply that fits the user's current profile after a long history.

    Runs split=1M (`split` given is an error).
    """
    return build_task(V1, task_arguments(V1, locals(), "1M"))


@task
def personamem_v2(
    subset: str = "benchmark",
    length: str = "32k",
    data_dir: str | None = None,
    repo_id: str = "bowen-upenn/PersonaMem-v2",
    revision: str = "87abb2e774588a8bc97d939640ac2843c84aa1f1",
    history: str = "full",
    answer: str = "choice",
    system_messages: str = "keep",
    options_role: str = "system",
    shuffle: int = 0,
    judge: str = "options",
    keep_history_in_log: bool = False,
    order: str | None = None,
    interleave_block: int = 10,
    # history=rag
    retriever: str = "dense",
    # history=rag, history=tools
    embedder: str = "BAAI/bge-m3",
    embedding_cache: str | None = None,
    # history=rag, history=memory, history=tools
    top_k: int = 5,
    # history=rag, history=memory
    memory_prompt: str = "official",
    # history=memory, history=tools
    memory: str | None = None,
    memory_config: str | None = None,
    # history=tools
    search: str = "bm25",
    tool_budget: int = 6,
    tool_result_chars: int = 6000,
    # answer=choice, answer=open
    cache_breakpoints: bool = True,
    # answer=logprob
    normalization: str = "tokens",
    context_window: int | None = None,
    option_batch_size: int = 4,
    prefill_chunk: int | None = None,
    # answer=open
    grader: str = "role",
    grader_calibration: int = 50,
    grader_seed: int = 0,
    **unknown: Any,
) -> Task:
    """PersonaMem-v2: answer a user whose preferences the history revealed implicitly (the
    persona's whole history, then the query with the authors' appended sentence)."""
    return build_task(V2, task_arguments(V2, locals()))


@task
def personamem_v2_32k(
    subset: str = "benchmark",
    data_dir: str | None = None,
    repo_id: str = "bowen-upenn/PersonaMem-v2",
    revision: str = "87abb2e774588a8bc97d939640ac2843c84aa1f1",
    history: str = "full",
    answer: str = "choice",
    system_messages: str = "keep",
    options_role: str = "system",
    shuffle: int = 0,
    judge: str = "options",
    keep_history_in_log: bool = False,
    order: str | None = None,
    interleave_block: int = 10,
    # history=rag
    retriever: str = "dense",
    # history=rag, history=tools
    embedder: str = "BAAI/bge-m3",
    embedding_cache: str | None = None,
    # history=rag, history=memory, history=tools
    top_k: int = 5,
    # history=rag, history=memory
    memory_prompt: str = "official",
    # history=memory, history=tools
    memory: str | None = None,
    memory_config: str | None = None,
    # history=tools
    search: str = "bm25",
    tool_budget: int = 6,
    tool_result_chars: int = 6000,
    # answer=choice, answer=open
    cache_breakpoints: bool = True,
    # answer=logprob
    normalization: str = "tokens",
    context_window: int | None = None,
    option_batch_size: int = 4,
    prefill_chunk: int | None = None,
    # answer=open
    grader: str = "role",
    grader_calibration: int = 50,
    grader_seed: int = 0,
    **unknown: Any,
) -> Task:
    """PersonaMem-v2: answer a user whose preferences the history revealed implicitly (the
    persona's whole history, then the query with the authors' appended sentence).

    Runs length=32k (`length` given is an error).
    """
    return build_task(V2, task_arguments(V2, locals(), "32k"))


@task
def personamem_v2_128k(
    subset: str = "benchmark",
    data_dir: str | None = None,
    repo_id: str = "bowen-upenn/PersonaMem-v2",
    revision: str = "87abb2e774588a8bc97d939640ac2843c84aa1f1",
    history: str = "full",
    answer: str = "choice",
    system_messages: str = "keep",
    options_role: str = "system",
    shuffle: int = 0,
    judge: str = "options",
    keep_history_in_log: bool = False,
    order: str | None = None,
    interleave_block: int = 10,
    # history=rag
    retriever: str = "dense",
    # history=rag, history=tools
    embedder: str = "BAAI/bge-m3",
    embedding_cache: str | None = None,
    # history=rag, history=memory, history=tools
    top_k: int = 5,
    # history=rag, history=memory
    memory_prompt: str = "official",
    # history=memory, history=tools
    memory: str | None = None,
    memory_config: str | None = None,
    # history=tools
    search: str = "bm25",
    tool_budget: int = 6,
    tool_result_chars: int = 6000,
    # answer=choice, answer=open
    cache_breakpoints: bool = True,
    # answer=logprob
    normalization: str = "tokens",
    context_window: int | None = None,
    option_batch_size: int = 4,
    prefill_chunk: int | None = None,
    # answer=open
    grader: str = "role",
    grader_calibration: int = 50,
    grader_seed: int = 0,
    **unknown: Any,
) -> Task:
    """PersonaMem-v2: answer a user whose preferences the history revealed implicitly (the
    persona's whole history, then the query with the authors' appended sentence).

    Runs length=128k (`length` given is an error).
    """
    return build_task(V2, task_arguments(V2, locals(), "128k"))


@task
def personamem_v3(
    family: str = "all",
    data_dir: str | None = None,
    repo_id: str = "bowen-upenn/PersonaMem-v3",
    revision: str = "7b00a090b35b7293e6efeeb19494207f32b5a9ee",
    history: str = "full",
    answer: str = "choice",
    system_messages: str = "keep",
    history_layout: str = "authors",
    tools: str = "apps",
    turn_budget: int | None = None,
    token_budget: int | None = None,
    tool_timeout: int = 30,
    keep_history_in_log: bool = False,
    order: str | None = None,
    interleave_block: int = 10,
    # history=rag
    retriever: str = "dense",
    # history=rag, history=tools
    embedder: str = "BAAI/bge-m3",
    embedding_cache: str | None = None,
    # history=rag, history=memory, history=tools
    top_k: int = 5,
    # history=rag, history=memory
    memory_prompt: str = "official",
    # history=memory, history=tools
    memory: str | None = None,
    memory_config: str | None = None,
    # history=tools
    search: str = "bm25",
    tool_budget: int = 6,
    tool_result_chars: int = 6000,
    # answer=choice, answer=open
    cache_breakpoints: bool = True,
    # answer=logprob
    normalization: str = "tokens",
    context_window: int | None = None,
    option_batch_size: int = 4,
    prefill_chunk: int | None = None,
    # answer=open
    grader: str = "role",
    grader_calibration: int = 50,
    grader_seed: int = 0,
    **unknown: Any,
) -> Task:
    """PersonaMem-v3: act for a user across five apps' event streams, each query asked
    after the events before its time (the authors' task prompt; CC-BY-NC-4.0 data)."""
    return build_task(V3, task_arguments(V3, locals()))


TASKS: Final[dict[str, Callable[..., Task]]] = {
    "personamem": personamem,
    "personamem_32k": personamem_32k,
    "personamem_128k": personamem_128k,
    "personamem_1M": personamem_1M,
    "personamem_v2": personamem_v2,
    "personamem_v2_32k": personamem_v2_32k,
    "personamem_v2_128k": personamem_v2_128k,
    "personamem_v3": personamem_v3,
}
"""Every task by name, as Inspect registers it."""
