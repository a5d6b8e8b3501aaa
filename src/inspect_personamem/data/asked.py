"""What the history and answer axes read of a sample: one typed object a dataset version
fills for each question (`AskedAt`), kept in the sample's metadata under one key.

The axes read a question's history, its point in it, the text the model answers and
the history ends a prompt cache shares through `AskedAt.of` alone, never a version's
own column names; so a new version fills this object and nothing else for them. It is
written to the metadata as plain values, so an Inspect log holds it and `inspect score`
reads it back from the log.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

KEY: Final = "asked_at"
"""The sample metadata key holding a question's `AskedAt`."""

_BEFORE: Final = ("shared_context_id", "end_index_in_shared_context", "user_question_or_message")
"""Where logs written before `KEY` existed kept the history, end index and message
(every version's samples wrote PersonaMem's names, and `cache_prefix_ends`): read only
to score such a log again (`inspect score`)."""


@dataclass(frozen=True)
class AskedAt:
    """A question as the axes see it: asked after the first `end_index` messages of the
    history `history`, the model answering `message`."""

    history: str
    """The history it is asked after (a context id of the version's `Contexts`)."""
    end_index: int
    """Its point in that history: it sees `history[:end_index]`, never beyond."""
    message: str
    """The text the model answers: the user's message (an open answer's whole input,
    a retriever's query, what a grader shows)."""
    cache_prefix_ends: tuple[int, ...] = ()
    """The history ends worth marking as prompt-cache breakpoints (its own, and the
    ones its siblings wrote to the cache before it: `data.order.prefix_ends`)."""

    def metadata(self) -> dict[str, Any]:
        """Itself as a sample's metadata entry: `{KEY: {...}}`."""
        return {
            KEY: {
                "history": self.history,
                "end_index": self.end_index,
                "message": self.message,
                "cache_prefix_ends": list(self.cache_prefix_ends),
            }
        }

    @classmethod
    def of(cls, metadata: Mapping[str, Any]) -> AskedAt:
        """A sample's `AskedAt`, read from its metadata (a running sample's or a log's)."""
        if KEY not in metadata:
            history, end_index, message = (metadata[key] for key in _BEFORE)
            ends = metadata.get("cache_prefix_ends", ())
            return cls(str(history), int(end_index), str(message), _ends(ends))
        value = metadata[KEY]
        return cls(
            str(value["history"]),
            int(value["end_index"]),
            str(value["message"]),
            _ends(value["cache_prefix_ends"]),
        )


def _ends(values: Sequence[Any]) -> tuple[int, ...]:
    return tuple(int(value) for value in values)
