"""A question as the cost estimate sees it (`Request`), and the token count of a text
no file counts: each dataset version reads its question file into these (its entry's
`requests`); the estimate and the prompt-cache simulator (`cost/`) read them. They sit in
this shared layer, below both, so that a version's readers need not import the tools."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

CHARS_PER_TOKEN = 4.0
"""Characters a token where the file gives no ratio of its own (about English text's
with OpenAI's tokenizers)."""


@dataclass(frozen=True)
class Request:
    """One question as the cache sees it, and as the question order sees it
    (`data.order.Queued`: the history it is asked after, and where that ends)."""

    context_id: str
    """The history it is asked after: questions of one share its prefix."""
    prefix_tokens: int
    """Tokens of the shareable prefix (the history)."""
    input_tokens: int
    """All input tokens of the request (history and final user message)."""
    end_index: int = 0
    """Where its history ends in its context, in its version's own unit (messages,
    tokens): the question order sends a context's questions by it, ascending, as the
    task does (`data.order.order_records`); equal ends keep their order."""
    calls: int = 1
    """Model calls the question makes, each with the run's expected output (an agent's
    turns; one for a single generation)."""


@dataclass(frozen=True)
class GraderCalls:
    """The calls a run makes to the model bound to the grader role (PersonaMem-v3's
    judges), as the cost estimate sees them: each call's input tokens, and what is not
    judged, in words."""

    prompts: Sequence[tuple[int, ...]]
    """Each question's calls' prompts, in tokens, in the order of the requests (none for
    a question not judged; a query's judge may make several)."""
    words: str
    """Which judges, and what makes no call (a rule-scored type, a gated reply, a type no
    readable judge scores); where they are not counted, why."""
    counted: bool = True
    """False where the calls could not be counted (`prompts` is then empty)."""

    @property
    def calls(self) -> int:
        return sum(len(calls) for calls in self.prompts)

    @property
    def judged(self) -> int:
        """The questions judged (those with a call)."""
        return sum(bool(calls) for calls in self.prompts)

    @property
    def input_tokens(self) -> int:
        return sum(sum(calls) for calls in self.prompts)


def text_tokens(text: str, chars_per_token: float = CHARS_PER_TOKEN) -> int:
    """Tokens of `text` at `chars_per_token` characters a token (for what a question
    file gives no token count of: the request's own part)."""
    return round(len(text) / chars_per_token)
