"""Where a PersonaMem question's evidence lies: the session `distance_to_ref_in_blocks`
sessions before the question's own.

Every session of a released context opens with a `system` message (`Current user
persona: ...`); the question's own session is the last to open before its end index.
The column counts the sessions between the question and the latest mention of the
preference it asks about, so that mention lies in the session that many before the
question's own. The rule, what supports it and where it is approximate (the mention
may lie in a neighbouring session; chit-chat between sessions counts with the session
before it) are in docs/memory-and-retrieval.md.
"""

from __future__ import annotations

from collections.abc import Sequence

from inspect_ai.model import ChatMessage

from inspect_personamem.data.contexts import session_starts
from inspect_personamem.data.evidence import Evidence


def evidence_session(messages: Sequence[ChatMessage], distance: int) -> Evidence:
    """The session `distance` sessions before the last one `messages` (a question's
    history, `context[:end_index]`) opens; not located where fewer sessions precede it."""
    if not messages:
        return Evidence((), (), "no history before the question")
    starts = session_starts([message.role for message in messages])
    own = len(starts) - 1
    target = own - distance
    if target < 0 or distance < 0:
        return Evidence(
            (),
            (),
            f"{distance} session(s) before the question's own, session {own + 1}, "
            f"which has {own} before it: not located",
        )
    start = starts[target]
    end = starts[target + 1] if target < own else len(messages)
    return Evidence(
        ((start, end),),
        tuple(messages[start:end]),
        f"session {target + 1} of {own + 1} (messages {start}-{end - 1}), {distance} "
        "before the question's own",
    )
