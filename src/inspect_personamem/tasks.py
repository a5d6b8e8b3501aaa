"""The PersonaMem tasks: `personamem` (any split) and one task per split."""

from __future__ import annotations

import difflib
import functools
import inspect
import types
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Final, Literal, TypeVar, Union, cast, get_args, get_origin, get_type_hints

from inspect_ai import Task, task
from inspect_ai.util import registry_info

from . import settings
from .answer.logprob.choice import Normalization
from .data.contexts import open_context_store
from .data.files import data_release, locate_split_files
from .data.order import INTERLEAVE_BLOCK, SampleOrder, order_records
from .data.samples import NegativeEndIndexPolicy, build_dataset, check_against_contexts
from .data.spec import DataSource
from .data.splits import SPLITS, Split
from .errors import PersonaMemArgumentError
from .history.retrieved import MemoryPrompt, Retriever
from .history.system_messages import SystemMessagePolicy
from .methods import build_solver, checked_method
from .scoring.scorer import personamem_scorer
from .settings import HistoryMode

TASK_VERSION = "1.1.0"
"""Version of the tasks (`Task(version=...)`, in every log): bumped when what is scored
or how can change; see the README's changelog."""

PATHS: Final[dict[str, tuple[str, ...]]] = {
    "data_dir": (),
    "memory_config": (),
    "embedding_cache": ("none",),
}
"""Task parameters naming a file or folder -> their values that name none."""

try:  # inspect-ai 0.3.x: where Inspect looks a task up by name. No public API puts a
    # wrapper there: the `task` decorator registers its own, which records the arguments
    # it is called with, before the task function could change them.
    from inspect_ai._util.registry import registry_add
except ImportError:  # pragma: no cover - a future Inspect without it: paths logged as given
    registry_add = None  # type: ignore[assignment]

TaskFunction = TypeVar("TaskFunction", bound=Callable[..., Task])


def _task_with_absolute_paths(function: TaskFunction) -> TaskFunction:
    """`function` registered as an Inspect task whose path arguments (`PATHS`) are made
    absolute before Inspect's task wrapper records them.

    Inspect logs a task's arguments as its wrapper was called with them, and `inspect
    eval-retry` creates the task again from the log, perhaps in another folder, where a
    relative `data_dir` names nothing. So what the registry holds under the task's name
    (what `inspect eval` and `eval-retry` call) is this function, as is what Python
    callers import: both resolve paths against the folder the task is created in.
    """
    registered = task(name=function.__name__)(function)
    if registry_add is None:  # pragma: no cover
        return registered
    signature = inspect.signature(function)

    @functools.wraps(registered)
    def with_absolute_paths(*args: Any, **kwargs: Any) -> Task:
        bound = signature.bind_partial(*args, **kwargs)
        # by keyword: a split task takes no positional argument
        arguments = dict(zip(signature.parameters, bound.args, strict=False)) | bound.kwargs
        for name, not_paths in PATHS.items():
            value = arguments.get(name)
            if isinstance(value, str) and value not in not_paths:
                arguments[name] = str(Path(value).absolute())
        return registered(**arguments)

    registry_add(with_absolute_paths, registry_info(registered))
    return cast(TaskFunction, with_absolute_paths)


@_task_with_absolute_paths
def personamem(
    split: Split = "32k",
    data_dir: str | None = None,
    repo_id: str = settings.REPO_ID,
    revision: str = settings.REVISION,
    history: HistoryMode = settings.HISTORY,
    system_messages: SystemMessagePolicy = settings.SYSTEM_MESSAGES,
    shuffle: int | None = settings.SHUFFLE,
    negative_end_index: NegativeEndIndexPolicy = settings.NEGATIVE_END_INDEX,
    keep_history_in_log: bool = False,
    order: SampleOrder | None = None,
    interleave_block: int = INTERLEAVE_BLOCK,
    method: str = settings.METHOD,
    cache_breakpoints: bool = True,
    normalization: Normalization = settings.NORMALIZATION,
    context_window: int | None = settings.CONTEXT_WINDOW,
    option_batch_size: int = 4,
    prefill_chunk: int | None = None,
    retriever: Retriever = settings.RETRIEVER,
    embedder: str = settings.EMBEDDER,
    top_k: int = settings.TOP_K,
    memory: str | None = settings.MEMORY,
    memory_config: str | None = settings.MEMORY_CONFIG,
    memory_prompt: MemoryPrompt = settings.MEMORY_PROMPT,
    embedding_cache: str | None = None,
    **unknown: Any,
) -> Task:
    """PersonaMem: pick the reply that fits the user's current profile after a long history.

    Args:
        split: "32k", "128k" or "1M" (tokens of history).
        data_dir: Local folder with questions_{split}.csv and shared_contexts_{split}.jsonl;
            default: the PERSONAMEM_DATA_DIR variable, else the Hugging Face hub.
        repo_id: Hugging Face dataset repository of the files.
        revision: Revision of repo_id (pinned by default).
        history: "full" sends the history; "none" sends the question alone (baseline).
        system_messages: "keep", "merge" (official conversion for o-series models) or "drop".
        shuffle: Seed for a per-question reordering of the options; None keeps the official order.
        negative_end_index: Rows with a negative end index: "official" (slice as Python
            does), "skip" or "error".
        keep_history_in_log: Keep the history in the logged messages after generation.
        order: Order of the questions: "interleaved" (round-robin across blocks of contexts,
            the most prompt-cache hits under concurrency), "grouped", "file" or "random";
            default: the method's ("interleaved" for generate; "grouped" for logprob, where
            a local model reuses the previous question's attention cache).
        interleave_block: order="interleaved": contexts round-robined at a time, at
            least (about the requests in flight); 0 interleaves all contexts.
        method: How the model answers (see `methods.METHODS`): "generate" (the official
            prompt, the model answers), "logprob" (the paper's log-likelihood setting
            for local models: hf/ or vllm/ providers), "rag" (retrieved history
            messages) or "memory" (a memory system).
        cache_breakpoints: method="generate", Anthropic models: mark history ends as
            prompt-cache breakpoints.
        normalization: method="logprob": "tokens" (mean per token), "chars" or "sum".
        context_window: method="logprob": prompt tokens allowed; default: the model's.
        option_batch_size: method="logprob", hf/ models: options scored per batch.
        prefill_chunk: method="logprob", hf/ models: the most prefix tokens run in one
            pass (bounds activation memory on long histories); None: all at once.
        retriever: method="rag": "dense" (embeddings, the paper's) or "bm25".
        embedder: method="rag", retriever="dense": a sentence-transformers hub id or
            folder (default BAAI/bge-m3), `openai/<model>` or `openai-api/<service>/<model>`.
        top_k: method="rag" or "memory": items retrieved per question.
        memory: method="memory": "mem0" or "package.module:Factory".
        memory_config: method="memory": a YAML/JSON file passed to the memory system.
        memory_prompt: method="rag" or "memory": "official" (retrieved messages as the
            history, then the official question) or "paper" (the authors' RAG prompt).
        embedding_cache: method="rag": folder of the embedding cache ("none": no cache).
        **unknown: No other argument is taken: any other name (a misspelt `-T histroy=none`)
            is an error. (Inspect drops an argument the signature lacks with only a
            warning; this catch-all lets the task see it and stop.)
    """
    arguments = dict(locals())  # first, while the locals are the arguments
    check_unknown(arguments.pop("unknown"))
    check_arguments(arguments)
    answering = checked_method(method, arguments, task_defaults())
    source = DataSource(split, data_dir, repo_id, revision)
    files = locate_split_files(source)
    solver = build_solver(  # first: it checks the method's own arguments
        answering,
        arguments,
        contexts_file=str(files.contexts) if history == "full" else None,
        system_messages=system_messages,
        keep_history_in_log=keep_history_in_log,
    )
    rows = source.spec.read_questions(files.questions, split)
    release = data_release(source, files, len(rows))
    store = open_context_store(files.contexts)
    records = check_against_contexts(rows, store, files.questions, negative_end_index)
    ordered = order_records(records, order or answering.default_order, interleave_block)
    return Task(
        dataset=build_dataset(ordered, f"personamem_{split}", shuffle),
        solver=solver,
        scorer=personamem_scorer(),
        version=TASK_VERSION,
        metadata={
            "split": split,
            "data_source": files.source,
            "data_release": release,
            "method": method,
            "dataset": source.spec.name,
            "revision": source.pinned,
        },
    )


def task_parameters() -> dict[str, inspect.Parameter]:
    """The named parameters of `personamem` (not its catch-all for unknown names)."""
    return {
        name: parameter
        for name, parameter in inspect.signature(personamem).parameters.items()
        if parameter.kind is not inspect.Parameter.VAR_KEYWORD
    }


def task_defaults() -> dict[str, Any]:
    """Parameter name -> default of `personamem`."""
    return {name: parameter.default for name, parameter in task_parameters().items()}


def check_unknown(unknown: Mapping[str, Any]) -> None:
    """Raise on arguments `personamem` does not take, suggesting the name meant."""
    if not unknown:
        return
    known = list(task_parameters())
    problems = []
    for name, value in unknown.items():
        close = difflib.get_close_matches(name, known, n=1)
        hint = f" (did you mean {close[0]}?)" if close else ""
        problems.append(f"{name}={value!r}{hint}")
    raise PersonaMemArgumentError(
        f"PersonaMem task has no parameter {'; '.join(problems)}. "
        f"Its parameters: {', '.join(known)}"
    )


MINIMUM: dict[str, int] = {
    "option_batch_size": 1,
    "prefill_chunk": 1,
    "context_window": 1,
    "interleave_block": 0,
}
"""Integer parameters with a lower bound (None, where allowed, means the default)."""


def check_arguments(arguments: Mapping[str, Any]) -> None:
    """Raise on an argument of `personamem` outside its type's values, naming them.

    Task arguments arrive from the command line unchecked: a misspelt
    `-T history=Full` must fail rather than silently run another setting.
    """
    hints = get_type_hints(personamem)
    for name, value in arguments.items():
        members = get_args(hints[name]) if _is_union(hints[name]) else (hints[name],)
        if value is None and type(None) in members:
            continue
        allowed = [
            v for member in members if get_origin(member) is Literal for v in get_args(member)
        ]
        if allowed and value not in allowed:
            raise PersonaMemArgumentError(
                f"PersonaMem task parameter {name}={value!r}: choose one of "
                f"{', '.join(map(str, allowed))}"
            )
        plain = [member for member in members if member in (bool, int, str)]
        if plain and type(value) not in plain:
            needed = " or ".join(_TYPE_NAMES[member] for member in plain)
            raise PersonaMemArgumentError(
                f"PersonaMem task parameter {name}={value!r}: {needed} needed"
            )
        if name in MINIMUM and value < MINIMUM[name]:
            raise PersonaMemArgumentError(
                f"PersonaMem task parameter {name}={value!r}: must be at least {MINIMUM[name]}"
                + (" (leave it out for the model's own window)" if name == "context_window" else "")
            )


_TYPE_NAMES = {bool: "true or false", int: "an integer", str: "a string"}


def _is_union(hint: Any) -> bool:
    return get_origin(hint) in (Union, types.UnionType)


def _split_task(split: Split) -> Callable[..., Task]:
    """`personamem` with `split` fixed: same parameters, same defaults, one definition."""

    def split_task(**kwargs: object) -> Task:
        if "split" in kwargs:
            raise PersonaMemArgumentError(
                f"personamem_{split} runs the {split} split: leave out split="
                f"{kwargs['split']!r}, or run inspect_personamem/personamem -T split=..."
            )
        return personamem(split=split, **kwargs)  # type: ignore[arg-type]

    signature = inspect.signature(personamem)
    split_task.__signature__ = signature.replace(  # type: ignore[attr-defined]
        parameters=[p for name, p in signature.parameters.items() if name != "split"]
    )
    split_task.__doc__ = f"PersonaMem, {split} split. Parameters as for `personamem`."
    split_task.__name__ = split_task.__qualname__ = f"personamem_{split}"
    return _task_with_absolute_paths(split_task)


personamem_32k, personamem_128k, personamem_1M = (_split_task(split) for split in SPLITS)
