"""The PersonaMem tasks: `personamem` (any split) and one task per split; PersonaMem-v2's:
`personamem_v2` (any length) and one per length.

Every parameter is declared in `settings.py` (the common ones and the two axes,
`history` and `answer`); the signature below lists them for Inspect and for readers,
and a test holds it equal to those tables.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final, TypeVar, cast

from inspect_ai import Task, task
from inspect_ai.scorer import Metric, Scorer
from inspect_ai.util import registry_info

from inspect_personamem import settings
from inspect_personamem.data.contexts import NO_CONTEXTS, open_context_store
from inspect_personamem.data.files import data_checked, data_release, locate_split_files
from inspect_personamem.data.order import INTERLEAVE_BLOCK, order_records
from inspect_personamem.datasets.v1.samples import build_dataset, check_against_contexts
from inspect_personamem.datasets.v1.spec import PERSONAMEM, DataSource
from inspect_personamem.datasets.v1.splits import SPLITS, Split
from inspect_personamem.datasets.v2.files import load_questions
from inspect_personamem.datasets.v2.histories import HistoryStore, PersonaContexts
from inspect_personamem.datasets.v2.judged import preference_judge
from inspect_personamem.datasets.v2.samples import build_v2_dataset, questions_at
from inspect_personamem.datasets.v2.scorer import v2_choice_scorer
from inspect_personamem.datasets.v2.spec import LENGTHS as V2_LENGTHS
from inspect_personamem.datasets.v2.spec import PERSONAMEM_V2, V2Source
from inspect_personamem.datasets.v2.spec import Length as V2Length
from inspect_personamem.datasets.v2.spec import Subset as V2Subset
from inspect_personamem.errors import PersonaMemArgumentError
from inspect_personamem.scoring.metrics import V2Answer, v2_metrics
from inspect_personamem.types import (
    AnswerName,
    GraderSource,
    HistoryName,
    MemoryPrompt,
    NegativeEndIndexPolicy,
    Normalization,
    OptionsRole,
    Retriever,
    SampleOrder,
    SystemMessagePolicy,
    V2Judge,
)

TASK_VERSION = "2.2.0"
"""Version of the tasks (`Task(version=...)`, in every log): bumped when what is scored
or how can change; see the README's changelog."""

PATHS: Final[dict[str, tuple[str, ...]]] = {
    "data_dir": (),
    "memory_config": (),
    "embedding_cache": ("none",),
}
"""Task parameters naming a file or folder -> their values that name none."""
FOLDERS_OR_NAMES: Final = frozenset({"embedder"})
"""Task parameters naming a local folder or a model (a hub id): a path only where it
names an existing folder."""

try:  # inspect-ai 0.3.x: where Inspect looks a task up by name. No public API puts a
    # wrapper there: the `task` decorator registers its own, which records the arguments
    # it is called with, before the task function could change them.
    from inspect_ai._util.registry import registry_add
except ImportError:  # pragma: no cover - a future Inspect without it: paths logged as given
    registry_add = None  # type: ignore[assignment]

TaskFunction = TypeVar("TaskFunction", bound=Callable[..., Task])


def _task_with_absolute_paths(function: TaskFunction) -> TaskFunction:
    """`function` registered as an Inspect task whose path arguments (`PATHS`, and
    `FOLDERS_OR_NAMES` where they name a folder) are made absolute before Inspect's
    task wrapper records them.

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
        for name, value in arguments.items():
            if _names_a_path(name, value):
                arguments[name] = str(Path(value).absolute())
        return registered(**arguments)

    registry_add(with_absolute_paths, registry_info(registered))
    return cast(TaskFunction, with_absolute_paths)


def _names_a_path(name: str, value: object) -> bool:
    """Whether a task argument names a file or folder (`PATHS`, `FOLDERS_OR_NAMES`)."""
    if not isinstance(value, str):
        return False
    if name in PATHS:
        return value not in PATHS[name]
    return name in FOLDERS_OR_NAMES and Path(value).is_dir()


@_task_with_absolute_paths
def personamem(
    split: Split = "32k",
    data_dir: str | None = None,
    repo_id: str = PERSONAMEM.repo_id,
    revision: str = PERSONAMEM.revision,
    history: HistoryName = "full",
    answer: AnswerName = "choice",
    system_messages: SystemMessagePolicy = "keep",
    shuffle: int | None = None,
    negative_end_index: NegativeEndIndexPolicy = "official",
    keep_history_in_log: bool = False,
    order: SampleOrder | None = None,
    interleave_block: int = INTERLEAVE_BLOCK,
    retriever: Retriever = "dense",
    embedder: str = settings.DEFAULT_EMBEDDER,
    top_k: int = 5,
    memory_prompt: MemoryPrompt = "official",
    embedding_cache: str | None = None,
    memory: str | None = None,
    memory_config: str | None = None,
    cache_breakpoints: bool = True,
    normalization: Normalization = "tokens",
    context_window: int | None = None,
    option_batch_size: int = 4,
    prefill_chunk: int | None = None,
    grader: GraderSource = "role",
    grader_calibration: int = 50,
    grader_seed: int = 0,
    **unknown: Any,
) -> Task:
    """PersonaMem: pick the reply that fits the user's current profile after a long history.

    Args:
        split: "32k", "128k" or "1M" (tokens of history).
        data_dir: Local folder with questions_{split}.csv and shared_contexts_{split}.jsonl;
            default: the PERSONAMEM_DATA_DIR variable, else the Hugging Face hub.
        repo_id: Hugging Face dataset repository of the files.
        revision: Revision of repo_id (pinned by default).
        history: What the model sees of the past: "full", "none", "rag" or "memory".
        answer: How it answers: "choice" (the official prompt), "logprob" (the
            log-likelihood setting, local models) or "open" (the user's message alone,
            the reply judged by a grader).
        system_messages: "keep", "merge" (official conversion for o-series models) or "drop".
        shuffle: Seed for a per-question reordering of the options; None keeps the official order.
        negative_end_index: Rows with a negative end index: "official", "skip" or "error".
        keep_history_in_log: Keep the history in the logged messages after generation.
        order: Order of the questions ("interleaved", "grouped", "file", "random");
            default: the answer's.
        interleave_block: order="interleaved": contexts round-robined at a time.
        retriever: history="rag": "dense" or "bm25".
        embedder: history="rag", retriever="dense": the embedding model.
        top_k: history="rag" or "memory": items retrieved per question.
        memory_prompt: history="rag" or "memory": "official" or "paper".
        embedding_cache: history="rag": folder of the embedding cache ("none": none).
        memory: history="memory": "mem0" or "package.module:Factory".
        memory_config: history="memory": a YAML/JSON file given to the memory system.
        cache_breakpoints: answer="choice" or "open", Anthropic models: mark history ends as
            prompt-cache breakpoints.
        normalization: answer="logprob": "tokens", "chars" or "sum".
        context_window: answer="logprob": prompt tokens allowed; default: the model's.
        option_batch_size: answer="logprob", hf/ models: options scored per pass.
        prefill_chunk: answer="logprob", hf/ models: the most prefix tokens in one pass.
        grader: answer="open": "role" (the model bound with --model-role grader=...) or
            "self" (the model under test).
        grader_calibration: answer="open": questions the grader is measured on (0: none).
        grader_seed: answer="open": seed of the candidates' order and the calibration set.
        **unknown: No other argument is taken: any other name (a misspelt `-T histroy=none`)
            is an error. (Inspect drops an argument the signature lacks with only a
            warning; this catch-all lets the task see it and stop.)
    """
    named = dict(locals())  # first, while the locals are the arguments
    arguments = settings.all_arguments(named, named.pop("unknown"))
    point = settings.checked_point(arguments)
    source = DataSource(
        split, data_dir, repo_id, revision, with_contexts=point.history.reads_history
    )
    files = locate_split_files(source)
    store = open_context_store(files.contexts) if files.contexts is not None else None
    see = point.history.build(
        NO_CONTEXTS if store is None else store, **point.own(point.history, arguments)
    )
    solver = point.answer.build(
        see,
        system_messages=system_messages,
        keep_history_in_log=keep_history_in_log,
        **point.own(point.answer, arguments),
    )
    rows = source.spec.read_questions(files.questions, split)
    release = data_release(source, files, rows, 0 if store is None else len(store))
    records = check_against_contexts(rows, store, files.questions, negative_end_index)
    ordered = order_records(records, order or point.order, interleave_block)
    return Task(
        dataset=build_dataset(ordered, f"personamem_{split}", shuffle),
        solver=solver,
        scorer=point.scorer([record.question_id for record in records], arguments),
        version=TASK_VERSION,
        metadata={
            "split": split,
            "data_source": files.source,
            "data_release": release,
            "data_checked": data_checked(source, files),
            "history": point.history.name,
            "answer": point.answer.name,
            "dataset": source.spec.name,
            "revision": source.pinned,
        },
    )


@_task_with_absolute_paths
def personamem_v2(
    subset: V2Subset = "benchmark",
    length: V2Length = "32k",
    data_dir: str | None = None,
    repo_id: str = PERSONAMEM_V2.repo_id,
    revision: str = PERSONAMEM_V2.revision,
    history: HistoryName = "full",
    answer: AnswerName = "choice",
    system_messages: SystemMessagePolicy = "keep",
    options_role: OptionsRole = "system",
    shuffle: int = 0,
    judge: V2Judge = "options",
    keep_history_in_log: bool = False,
    order: SampleOrder | None = None,
    interleave_block: int = INTERLEAVE_BLOCK,
    retriever: Retriever = "dense",
    embedder: str = settings.DEFAULT_EMBEDDER,
    top_k: int = 5,
    memory_prompt: MemoryPrompt = "official",
    embedding_cache: str | None = None,
    memory: str | None = None,
    memory_config: str | None = None,
    cache_breakpoints: bool = True,
    normalization: Normalization = "tokens",
    context_window: int | None = None,
    option_batch_size: int = 4,
    prefill_chunk: int | None = None,
    grader: GraderSource = "role",
    grader_calibration: int = 50,
    grader_seed: int = 0,
    **unknown: Any,
) -> Task:
    """PersonaMem-v2: answer a user whose preferences the history revealed implicitly.

    The persona's whole history (its system persona card first), then the query with
    the authors' appended sentence; with `answer="choice"` the options in the authors'
    final message, read by their answer rule. Parameters as for `personamem`, except:

    Args:
        subset: "benchmark" (5,000 questions), "train" or "val".
        length: "32k" or "128k" (tokens of history).
        data_dir: Local folder in the released layout; default: the
            PERSONAMEM_V2_DATA_DIR variable, else the Hugging Face hub.
        options_role: answer="choice": "system" (the authors') or "user".
        shuffle: Seed of the options' order.
        judge: answer="open": "options" (the grader) or "preference" (the authors'
            judge prompts, a 0-1 score).
        **unknown: Any other name is an error.
    """
    named = dict(locals())
    arguments = settings.all_arguments(named, named.pop("unknown"), settings.V2_COMMON)
    point = settings.checked_point(arguments, settings.V2_COMMON)
    settings.check_v2(arguments)
    source = V2Source(subset, data_dir, repo_id, revision)
    questions = load_questions(source)
    contexts = PersonaContexts(HistoryStore(source, length), questions.records)
    see = point.history.build(contexts, **point.own(point.history, arguments))
    solver = point.answer.build(
        see,
        system_messages=system_messages,
        keep_history_in_log=keep_history_in_log,
        **point.own(point.answer, arguments),
    )
    with_options = options_role if point.answer.name == "choice" else None
    asked = order_records(
        questions_at(questions.records, length), order or point.order, interleave_block
    )
    dataset = build_v2_dataset(
        asked, contexts, f"personamem_v2_{subset}_{length}", shuffle, with_options
    )
    scorer, scored = _v2_scoring(point, arguments, [str(sample.id) for sample in dataset])
    metrics: list[Metric | dict[str, list[Metric]]] = [*v2_metrics(scored)]
    return Task(
        dataset=dataset,
        solver=solver,
        scorer=scorer,
        metrics=metrics,
        version=TASK_VERSION,
        metadata={
            "subset": subset,
            "length": length,
            "data_source": questions.file.source,
            "data_release": questions.data_release,
            "history": point.history.name,
            "answer": point.answer.name,
            "dataset": source.spec.name,
            "revision": source.pinned,
        },
    )


def _v2_scoring(
    point: settings.Point, arguments: dict[str, Any], ids: list[str]
) -> tuple[Scorer, V2Answer]:
    """PersonaMem-v2's scorer and how its answers are scored: the authors' answer rule
    for chosen answers, the authors' judge (`judge=preference`) or the grader for open
    ones, the answer's own scorer otherwise (`logprob`'s letter)."""
    if point.answer.name == "choice":
        return v2_choice_scorer(), "chosen"
    if arguments["judge"] == "preference":
        return preference_judge(ids, **point.scorer_arguments(arguments)), "judged"
    return point.scorer(ids, arguments), "graded" if point.answer.name == "open" else "chosen"


def _fixed(base: Callable[..., Task], name: str, value: str, task_name: str) -> Callable[..., Task]:
    """`base` with its parameter `name` fixed to `value`, registered as `task_name`:
    same parameters, same defaults, one definition."""

    def fixed(**kwargs: object) -> Task:
        if name in kwargs:
            raise PersonaMemArgumentError(
                f"{task_name} runs {name}={value}: leave out {name}={kwargs[name]!r}, or "
                f"run inspect_personamem/{base.__name__} -T {name}=..."
            )
        return base(**{name: value}, **kwargs)

    signature = inspect.signature(base)
    fixed.__signature__ = signature.replace(  # type: ignore[attr-defined]
        parameters=[p for key, p in signature.parameters.items() if key != name]
    )
    fixed.__doc__ = f"{base.__name__} with {name}={value}. Parameters as for `{base.__name__}`."
    fixed.__name__ = fixed.__qualname__ = task_name
    return _task_with_absolute_paths(fixed)


personamem_32k, personamem_128k, personamem_1M = (
    _fixed(personamem, "split", split, f"personamem_{split}") for split in SPLITS
)
personamem_v2_32k, personamem_v2_128k = (
    _fixed(personamem_v2, "length", length, f"personamem_v2_{length}") for length in V2_LENGTHS
)
