"""The offline writer of the Markdown memory (`memory_writer.MarkdownMemory`): how
`personamem/oracle` and `personamem/floor` answer the writer's prompt
(`memory_writer.UPDATE_PROMPT`), so that `-T history=memory -T
memory=inspect_personamem.datasets.v3.memory_writer:MarkdownMemory` runs offline, the
offline model writing (as the model under evaluation, or bound to the `memory` role).

It is no model's memory: it writes the day's activity lines, as the prompt shows them,
under the memory's last section (`## Currently active`, its `(none yet)` dropped) as
bullets, dates the memory's first line by the last of them, and gives a summary counting
them; the writer's own cap (`memory_writer.evict`) then keeps the memory within its
tokens. So the memory holds every event of the days written in, none later, which is what
the plumbing (cadence, the time mask, the cap, the prompt) needs checked.
"""

from __future__ import annotations

import re
from typing import Final

from inspect_personamem.datasets.v3.judges.base import JudgePrompt
from inspect_personamem.datasets.v3.memory_writer import UPDATE_PROMPT

_PROMPT: Final = JudgePrompt(UPDATE_PROMPT, "activity", {}, {})
"""The writer's prompt, read field by field (`JudgePrompt.fields`)."""
_OPENING: Final = UPDATE_PROMPT[: UPDATE_PROMPT.index("{")]
NONE_YET: Final = "(none yet)"


_LAST_SEEN: Final = re.compile(r"^# USER MEMORY \(last activity seen: ([^)\n]*)\)", re.MULTILINE)


def activity_time(line: str) -> str:
    """An activity line's time (`memory_writer.event_line`: what precedes its `[app]`)."""
    return line.split(" [", 1)[0]


def last_seen(text: str) -> str | None:
    """The time the offline writer dated a memory in `text` by (its last activity
    line's); None where `text` holds no memory so dated."""
    found = _LAST_SEEN.search(text)
    return found[1] if found else None


def written_reply(prompt: str) -> str | None:
    """The offline writer's reply to the writer's prompt (module docstring), in the
    tags the writer reads (`<memory>`, `<summary>`); None for any other prompt."""
    if not prompt.startswith(_OPENING):
        return None
    fields = _PROMPT.fields(prompt)
    if fields is None:
        return None
    lines = [line.strip() for line in fields["activity"].splitlines() if line.strip()]
    memory = fields["memory"].rstrip()
    head, _, rest = memory.partition("\n")
    if lines and head.startswith("# USER MEMORY"):
        head = f"# USER MEMORY (last activity seen: {activity_time(lines[-1])})"
    body = rest.rstrip()
    if body.endswith(NONE_YET):
        body = body.removesuffix(NONE_YET).rstrip()
    memory = "\n".join([head, body, *(f"- {line}" for line in lines)])
    summary = f"Offline writer: {len(lines)} activity line(s) written in, the last: " + (
        lines[-1][:120] if lines else "none"
    )
    return f"<memory>\n{memory}\n</memory>\n<summary>\n{summary}\n</summary>"
