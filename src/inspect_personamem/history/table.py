"""`-T history=...`: what the model sees of the past, one `AxisValue` per source.

Adding a source of history is one module (its builder) and one entry here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from inspect_ai.model import get_model

from inspect_personamem.errors import PersonaMemArgumentError
from inspect_personamem.history.context import evidence_history, full_history, no_history
from inspect_personamem.history.memory.embeddings import embedder_for
from inspect_personamem.history.memory.prompts import FACTS_HEADER, OFFICIAL
from inspect_personamem.history.retrieved import (
    DEFAULT_EMBEDDER,
    memory_factory,
    memory_history,
    rag_history,
)
from inspect_personamem.history.tools import tools_history
from inspect_personamem.parameters import AxisValue, NoSettings, Parameter, changed
from inspect_personamem.scoring.metrics import evidence_located, retrieval_metrics, tool_metrics

# Parameters that two values share are one object each.
TOP_K = Parameter(
    "top_k",
    5,
    int,
    "Items retrieved per search (rag and memory search once per question; tools at each "
    "search_history call).",
    minimum=1,
)
MEMORY_PROMPT = Parameter(
    "memory_prompt",
    OFFICIAL,
    str,
    "official (the retrieved items as the history, then the official question, scored as "
    "every other run) or a whole prompt the dataset version offers (PersonaMem: paper, "
    "the authors' RAG prompt, one letter answered; with answer=choice only).",
)


EMBEDDER = Parameter(
    "embedder",
    DEFAULT_EMBEDDER,
    str,
    "retriever=dense (or search=dense): a sentence-transformers hub id or local folder, "
    "openai/<model>, or openai-api/<service>/<model> (any OpenAI-compatible "
    "/v1/embeddings at <SERVICE>_BASE_URL).",
)
EMBEDDING_CACHE = Parameter(
    "embedding_cache",
    None,
    str,
    "Folder of the on-disk embedding cache (default PERSONAMEM_EMBEDDING_CACHE, "
    "else the user cache folder); none turns it off.",
    scoring=False,
)
MEMORY = Parameter(
    "memory",
    None,
    str,
    "mem0 (the memory extra), mcp (an MCP server named in memory_config; the memory "
    "extra) or package.module:Factory (a memory system implementing "
    "inspect_personamem.history.memory.interface).",
)
MEMORY_CONFIG = Parameter(
    "memory_config",
    None,
    str,
    "A YAML or JSON file whose mapping is given to the memory system (for mem0, its "
    "Memory.from_config settings; for mcp, the server and its tools).",
)

WITHOUT_TOOL_CALLING: Final = ("transformer_lens/", "nnterp/", "personamem/floor")
"""Models (by the start of their name) whose provider drops the tools it is offered:
Inspect's interpretability providers, and the offline floor, which picks an option by
rule. `history=tools` refuses them before any sample."""


@dataclass(frozen=True)
class Prompted:
    """The settings of a history source whose retrieved items a prompt frames
    (`memory_prompt`: the official one, or one its version offers)."""

    memory_prompt: str


@dataclass(frozen=True)
class RagSettings(Prompted):
    """`history=rag`'s own parameters."""

    retriever: str
    embedder: str
    embedding_cache: str | None
    top_k: int


@dataclass(frozen=True)
class MemorySettings(Prompted):
    """`history=memory`'s own parameters."""

    memory: str | None
    memory_config: str | None
    top_k: int


@dataclass(frozen=True)
class ToolsSettings:
    """`history=tools`'s own parameters."""

    search: str
    embedder: str
    embedding_cache: str | None
    memory: str | None
    memory_config: str | None
    top_k: int
    tool_budget: int
    tool_result_chars: int


def _retrieval_words(settings: Prompted, words: list[str]) -> str:
    if settings.memory_prompt != MEMORY_PROMPT.default:
        words.append(f"{settings.memory_prompt} prompt")
    return ", ".join(words)


def _memory_prompts(settings: MemorySettings) -> dict[str, str]:
    """A memory's facts go under their header, in any prompt (a version's own prompt's
    texts are the version's: `DatasetVersion.prompts`)."""
    return {"history/memory/prompts.py:FACTS_HEADER": FACTS_HEADER}


def _rag_label(settings: RagSettings) -> str:
    dense = settings.retriever == "dense"
    own = HISTORIES["rag"].parameters
    words = [settings.retriever, *(changed(own, embedder=settings.embedder) if dense else [])]
    words.append(f"top {settings.top_k}")
    return f"rag ({_retrieval_words(settings, words)})"


def _embedder_refuses(embedder: str) -> str | None:
    """An embedder that cannot be had (a model neither in a folder, nor in the hub's
    cache, with the hub out of reach; a service without its URL), said before any data
    are read, as every other bad argument is: one line and nothing before it."""
    try:
        embedder_for(embedder)
    except PersonaMemArgumentError as error:
        return str(error).removeprefix("PersonaMem task parameter ")
    return None


def _rag_refuses(settings: RagSettings) -> str | None:
    """A dense retriever whose embedder cannot be had, said before any data are read."""
    return _embedder_refuses(settings.embedder) if settings.retriever == "dense" else None


def _memory_refuses(
    settings: MemorySettings | ToolsSettings, needed_by: str = "history='memory'"
) -> str | None:
    """A memory system that cannot be had, or a config it cannot take (`memory=mcp`
    checks its own, and reaches its server once), said before any data are read."""
    try:
        memory_factory(settings.memory, settings.memory_config, needed_by, connect=True)
    except PersonaMemArgumentError as error:
        return str(error).removeprefix("PersonaMem task parameter ")
    return None


def _memory_label(settings: MemorySettings) -> str:
    own = HISTORIES["memory"].parameters
    words = [str(settings.memory), *changed(own, memory_config=settings.memory_config)]
    words += [f"top {k}" for k in changed(own, top_k=settings.top_k)]
    return f"memory ({_retrieval_words(settings, words)})"


def _tools_label(settings: ToolsSettings) -> str:
    own = HISTORIES["tools"].parameters
    search = settings.search
    if search == "dense":
        words = [search, *changed(own, embedder=settings.embedder)]
    elif search == "memory":
        words = [f"memory {settings.memory}", *changed(own, memory_config=settings.memory_config)]
    else:
        words = [search]
    words += [f"top {k}" for k in changed(own, top_k=settings.top_k)]
    words.append(f"budget {settings.tool_budget}")
    words += [
        f"{chars} characters a result"
        for chars in changed(own, tool_result_chars=settings.tool_result_chars)
    ]
    return f"tools ({', '.join(words)})"


def _tools_refuses(settings: ToolsSettings) -> str | None:
    """A model that cannot call tools, or a search that cannot be had (a memory for
    `search=memory`, an embedder for `search=dense`), said before any data are read."""
    model = _active_model()
    if model is not None and model.startswith(WITHOUT_TOOL_CALLING):
        return (
            f"the model {model} cannot call tools (its provider drops them), and "
            "history='tools' offers the history only through tools: choose another "
            "model or history"
        )
    if settings.search == "memory":
        return _memory_refuses(settings, "search='memory'")
    return _embedder_refuses(settings.embedder) if settings.search == "dense" else None


def _active_model() -> str | None:
    """The model of the eval creating the task (`provider/name`); None for a task built
    outside an eval."""
    try:
        return str(get_model())
    except ValueError:  # no model in this context, and none named by INSPECT_EVAL_MODEL
        return None


HISTORIES: Final[dict[str, AxisValue[Any]]] = {
    "full": AxisValue(
        "full",
        "the whole history before the question, `context[:end_index]`, as in the paper",
        full_history,
        NoSettings,
        label=lambda settings: "full history",
    ),
    "none": AxisValue(
        "none",
        "nothing, the question alone: the no-history baseline",
        no_history,
        NoSettings,
        label=lambda settings: "no history",
        reads_history=False,
    ),
    "evidence": AxisValue(
        "evidence",
        "only the question's evidence (v1: the session it lies in; v2: the persona card "
        "and the related snippet): the upper bound of retrieval, not a published setting",
        evidence_history,
        NoSettings,
        label=lambda settings: "evidence only (upper bound)",
        reads_evidence=True,
        metrics=lambda: [evidence_located()],
        upper_bound=True,
    ),
    "rag": AxisValue(
        "rag",
        "the top_k history messages most similar to the question, as in the paper's §4.4",
        rag_history,
        RagSettings,
        parameters=(
            Parameter(
                "retriever",
                "dense",
                str,
                "dense (embeddings of each message's role and content, the paper's) or "
                "bm25 (no model).",
                choices=("dense", "bm25"),
            ),
            EMBEDDER,
            EMBEDDING_CACHE,
            TOP_K,
            MEMORY_PROMPT,
        ),
        label=_rag_label,
        refuses=_rag_refuses,
        reads_evidence=True,
        metrics=retrieval_metrics,
    ),
    "memory": AxisValue(
        "memory",
        "the items a memory system, Mem0 or any plug-in, fed the history as it grows, "
        "returns for the question",
        memory_history,
        MemorySettings,
        parameters=(
            MEMORY,
            MEMORY_CONFIG,
            TOP_K,
            MEMORY_PROMPT,
        ),
        label=_memory_label,
        refuses=_memory_refuses,
        reads_evidence=True,
        metrics=retrieval_metrics,
        prompts=_memory_prompts,
    ),
    "tools": AxisValue(
        "tools",
        "no history sent: the model searches and reads the history before the question "
        "itself, through tools (search_history, read_history, read_session), within a "
        "budget of calls",
        tools_history,
        ToolsSettings,
        parameters=(
            Parameter(
                "search",
                "bm25",
                str,
                "What search_history searches with: bm25 (no model), dense (embedder, "
                "as rag's) or memory (the memory system memory names, as history=memory's).",
                choices=("bm25", "dense", "memory"),
            ),
            EMBEDDER,
            EMBEDDING_CACHE,
            MEMORY,
            MEMORY_CONFIG,
            TOP_K,
            Parameter(
                "tool_budget",
                6,
                int,
                "Tool calls the model may make per question; then it must answer.",
                minimum=1,
            ),
            Parameter(
                "tool_result_chars",
                6000,
                int,
                "The most characters one tool result holds (a longer one is cut, saying where).",
                minimum=500,
            ),
        ),
        label=_tools_label,
        refuses=_tools_refuses,
        calls_tools=True,
        reads_evidence=True,
        metrics=tool_metrics,
    ),
}
"""`-T history=...`: what the model sees of the past."""
