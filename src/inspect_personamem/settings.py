"""The task settings that change what is scored, with their defaults, in one place.

The task takes its parameter defaults from here, and the report reads here what a
log that lacks an argument ran with (it never imports the task module). Every task
parameter is either a scoring setting (`SCORING_DEFAULTS`) or listed in
`NOT_SCORING`; a test holds the task's signature to that.
"""

from __future__ import annotations

from typing import Final, Literal

from .answer.logprob.choice import Normalization
from .data.samples import NegativeEndIndexPolicy
from .data.spec import PERSONAMEM
from .history.memory.embeddings import DEFAULT_EMBEDDER
from .history.retrieved import MemoryPrompt, Retriever
from .history.system_messages import SystemMessagePolicy

HistoryMode = Literal["full", "none"]

HISTORY: Final[HistoryMode] = "full"
SYSTEM_MESSAGES: Final[SystemMessagePolicy] = "keep"
SHUFFLE: Final[int | None] = None
NEGATIVE_END_INDEX: Final[NegativeEndIndexPolicy] = "official"
METHOD: Final = "generate"
NORMALIZATION: Final[Normalization] = "tokens"
CONTEXT_WINDOW: Final[int | None] = None
RETRIEVER: Final[Retriever] = "dense"
EMBEDDER: Final = DEFAULT_EMBEDDER
TOP_K: Final = 5
MEMORY: Final[str | None] = None
MEMORY_CONFIG: Final[str | None] = None
MEMORY_PROMPT: Final[MemoryPrompt] = "official"
REPO_ID: Final = PERSONAMEM.repo_id
REVISION: Final = PERSONAMEM.revision

SCORING_DEFAULTS: Final[dict[str, object]] = {
    "history": HISTORY,
    "system_messages": SYSTEM_MESSAGES,
    "shuffle": SHUFFLE,
    "method": METHOD,
    "normalization": NORMALIZATION,
    "context_window": CONTEXT_WINDOW,
    "retriever": RETRIEVER,
    "embedder": EMBEDDER,
    "top_k": TOP_K,
    "memory": MEMORY,
    "memory_config": MEMORY_CONFIG,  # the memory system's own models and settings
    "memory_prompt": MEMORY_PROMPT,
    "negative_end_index": NEGATIVE_END_INDEX,
    "repo_id": REPO_ID,  # which files: another revision is other data
    "revision": REVISION,
}
"""Task arguments that change what is scored -> the task's default."""

NOT_SCORING: Final = frozenset(
    {
        "split",  # the data, recorded apart (a report keys runs by it)
        "data_dir",  # where the files are read from, not which files
        "keep_history_in_log",  # what the log keeps
        "order",  # when questions are sent (prompt caching), not what they are
        "interleave_block",
        "cache_breakpoints",  # cache markers: the same prompt, priced differently
        "option_batch_size",  # memory use of method=logprob, same numbers
        "prefill_chunk",
        "embedding_cache",  # where embeddings are kept, not what they are
    }
)
"""Task arguments that do not change what is scored."""
