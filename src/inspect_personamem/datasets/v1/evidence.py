"""Where a PersonaMem question's evidence lies: the session holding the message
`distance_to_ref_in_tokens` tokens before the question, else the session
`distance_to_ref_in_blocks - 1` before the question's own.

Every session of a released context opens with a `system` message (`Current user
persona: ...`); the question's own session is the last to open before its end index.
The authors' generator counted with the GPT-4o tokenizer, over the history's contents
joined by spaces: the tokens from the start of the evidence message to the end index
(`distance_to_ref_in_tokens`) and of the whole history (`context_length_in_tokens`),
the question's own tokens added to both; `context_length_in_letters` is the length of
that joined history. Their difference is the tokens before the evidence message. That
tokenizer cannot be fetched offline, so the tokens are turned into letters at the row's
own ratio (the history's and the question's letters over `context_length_in_tokens`):
walking back from the end index, the message that starts nearest that point is the
evidence message, and its session the evidence (`tokens`), so that `history=evidence`
shows a session and recall counts against it; `where` names the message. Where a row's
token fields are missing, do not fit the history, or its letters are not the
history's, the rule falls back to sessions (`sessions`): `distance_to_ref_in_blocks`
counts the question's own session as the first, so the evidence lies `d - 1` sessions
back. What supports both and where they are approximate is in
docs/memory-and-retrieval.md.
"""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from inspect_ai.model import ChatMessage

from inspect_personamem.data.contexts import session_starts
from inspect_personamem.data.evidence import Evidence
from inspect_personamem.datasets.v1.records import COUNT_COLUMNS, QuestionRecord

LETTERS_TOLERANCE: Final = 0.01
"""How far (a share of `context_length_in_letters`) the history's joined characters may
differ from the row's count for its token distance to be read in them: further, the row
was counted over another history, and the session rule locates the evidence."""


@dataclass(frozen=True)
class TokenDistance:
    """A row's token fields, as the release counted them (GPT-4o tokenizer)."""

    tokens: int
    """`context_length_in_tokens`: the history and the question."""
    letters: int
    """`context_length_in_letters`: the history's contents joined by spaces."""
    distance: int
    """`distance_to_ref_in_tokens`: from the evidence message to the question."""
    question: int = 0
    """The letters of the question (`user_question_or_message`), whose tokens both
    token counts hold."""


def token_distance(columns: Mapping[str, Any]) -> TokenDistance | None:
    """A row's token fields; None where one holds no integer (an empty cell: a bad one
    stops a run that reads evidence before any sample, `check_token_fields`)."""
    tokens, letters, distance = (columns.get(field) for field in COUNT_COLUMNS)
    if not (isinstance(tokens, int) and isinstance(letters, int) and isinstance(distance, int)):
        return None
    question = len(str(columns.get("user_question_or_message", "")))
    return TokenDistance(tokens, letters, distance, question)


def check_token_fields(records: Iterable[QuestionRecord]) -> None:
    """Stop with one line (file, line, question id, field) at the first token field
    that holds neither an integer nor nothing: read only by runs that locate evidence."""
    for record in records:
        for field in COUNT_COLUMNS:
            if record.columns[field] != "":
                record.count(field)


def locate_evidence(
    messages: Sequence[ChatMessage], blocks: int, tokens: TokenDistance | None
) -> Evidence:
    """The evidence of a question whose history is `messages` (`context[:end_index]`):
    the session of the message at its token distance (`tokens`), else, where the token
    fields cannot be read in this history, the session `blocks - 1` before its own."""
    if not messages:
        return Evidence((), (), "no history before the question", rule="sessions")
    starts = session_starts([message.role for message in messages])
    # where each message starts in the history's contents joined by spaces, as counted
    lengths = [len(message.text) for message in messages]
    offsets = [0, *itertools.accumulate(length + 1 for length in lengths[:-1])]
    joined = offsets[-1] + lengths[-1]
    unusable = _unusable(tokens, joined)
    if tokens is None or unusable:
        return _by_sessions(messages, starts, blocks, unusable or "token fields missing")
    # the tokens before the evidence message, in letters at the row's own ratio
    per_token = (tokens.letters + tokens.question) / tokens.tokens
    before = (tokens.tokens - tokens.distance) * per_token
    at = bisect.bisect_left(offsets, before)
    if at == len(offsets) or (at > 0 and before - offsets[at - 1] < offsets[at] - before):
        at -= 1
    session = bisect.bisect_right(starts, at) - 1
    back = len(starts) - 1 - session
    return _session(
        messages,
        starts,
        session,
        "tokens",
        f"{back} before the question's own; it holds message {at}, "
        f"{tokens.distance} tokens before the question",
    )


def _unusable(tokens: TokenDistance | None, joined: int) -> str:
    """Why a row's token fields cannot be read in a history of `joined` characters;
    empty where they can."""
    if tokens is None:
        return ""
    if not 0 < tokens.distance <= tokens.tokens:
        return (
            f"distance_to_ref_in_tokens {tokens.distance} is not within the "
            f"context_length_in_tokens {tokens.tokens}"
        )
    if abs(joined - tokens.letters) > LETTERS_TOLERANCE * tokens.letters:
        return (
            f"context_length_in_letters {tokens.letters} is not the history's {joined} characters"
        )
    return ""


def _by_sessions(
    messages: Sequence[ChatMessage], starts: Sequence[int], blocks: int, why: str
) -> Evidence:
    """The session `blocks - 1` before the question's own (the column counts the
    question's own session as the first); not located where fewer sessions precede it."""
    own = len(starts) - 1
    back = blocks - 1
    if not 0 <= back <= own:
        return Evidence(
            (),
            (),
            f"{blocks} session(s) counting the question's own, session {own + 1}, "
            f"which has {own} before it: not located ({why})",
            rule="sessions",
        )
    return _session(
        messages, starts, own - back, "sessions", f"{back} before the question's own ({why})"
    )


def _session(
    messages: Sequence[ChatMessage], starts: Sequence[int], session: int, rule: str, how: str
) -> Evidence:
    """The whole session `session` as the evidence, located by `rule`."""
    own = len(starts) - 1
    start = starts[session]
    end = starts[session + 1] if session < own else len(messages)
    return Evidence(
        ((start, end),),
        tuple(messages[start:end]),
        f"session {session + 1} of {own + 1} (messages {start}-{end - 1}), {how}",
        rule=rule,
    )
