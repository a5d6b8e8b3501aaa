"""The authors' own memory setting (`llm_memory`) as a memory system: a model writes one
Markdown memory of the persona, one calendar day of its events a call, and the answer
reads that memory whole.

Run it with `-T history=memory` and
`-T memory=inspect_personamem.datasets.v3.memory_writer:MarkdownMemory` (`version.MARKDOWN_MEMORY`;
`-T memory_config=FILE` sets `WriterConfig`'s keys). The package's memory table knows
`mem0` and `mcp` by name and every other memory system by its `module:Factory` path, so
this is named by its path, as any plug-in is.

As the authors' newest code runs it (bowen-upenn/PersonaMem-v3: EVAL.md@8e2a111f
"Building the llm_memory ledger", evaluation/run_eval.py@07bce3cd `main`, and
evaluation/memory_builder.py@11d3bf48 for what those leave to it):

- cadence: "one `update_step` per DAY boundary ... prev memory + that day's events ->
  new memory", a persona of N active days taking N calls (EVAL.md@8e2a111f; its cost
  table: "~14 active-day updates"). run_eval.py@07bce3cd passes midnights UTC as the
  ledger's boundaries ("one consolidation per calendar day of the user's activity"), so
  a day is a UTC calendar day, `t // 86400`; a day without events takes no call;
- the memory pool feeds it the persona's timeline before the query's time, in time
  order (`histories.PersonaContexts`: the profile card, then one message per event,
  `[app] {compact event}`): the profile card (a `system` message) is skipped, as the
  authors' builder never reads the profile; each event is rendered as their build
  prompt shows one (`event_line`) and held until its day is written;
- cap: `token_cap` 4,096 tokens (`DEFAULT_MEMORY_TOKEN_CAP`, the one the paper and
  EVAL.md@8e2a111f state; memory_builder.py@11d3bf48's own default was 2,048), given to
  the writer in its prompt ("the build-prompt rail text interpolates it") and enforced
  after each call by dropping the bullet lines of least salience (a trailing `[xN]`
  reinforcement, a `· last MM/DD` date) until it fits (`evict`);
- prompt: `llm_memory_update_prompt`, the newest text any stored copy holds
  (evaluation/prompts.py, the 79,210-character copy, the same as @11d3bf48's) with the cap
  interpolated; the "simple, general prompt" results/RESULTS_SECTION.md@8e2a111f
  paraphrases ("You maintain a running MEMORY of ONE user, updated as you read their
  activity in chronological chunks ...") is in no stored file; a reply with neither
  `<memory>` nor `<summary>` keeps the memory as it was, as theirs does, and is counted
  (`unread_replies`).

Where ours differs, and why:
- the query's time: the authors answer a query at T from the memory of every event
  before midnight UTC of T's day (the ledger's nearest boundary at or before T), so the
  events of T's own day before T are not in it. A memory system here is given the
  events before T but not T (`history.memory.interface`), so it cannot tell whether the
  last day it holds is T's: at a query it writes the day it holds into a provisional
  memory (one call, kept apart from the day-by-day memory and reused when that day is
  written with no event added since), which the query reads. Where T's day has no
  earlier event this is the authors' memory exactly; where it has, ours also holds that
  day's events before T (fresher by under a day), and a query that lands after more
  events of the same day than the last one read costs one more call. Nothing at or
  after T is ever written in;
- tokens are counted at 4 characters a token (`data.requests.text_tokens`), the
  authors with tiktoken where installed: a tokenizer tied to one provider is not the
  writer's, and counting offline must not download one; `usage()` reports the tokens
  the provider counted, theirs their own count of prompt and reply;
- the event line is rendered from our compact event (`longctx.compact_event`, after
  their @00c8a9f0), which has no `event_location`: no `| loc=` part is written; events
  of one second are in the order of `streams` (app, then file), theirs by app then id;
- a memory item may carry at most `interface.MAX_ITEM_CHARACTERS`: a memory past that
  (a cap far above the default) is an error, not cut;
- the answerer is sent the memory as `history=memory` sends any memory's facts (one user
  message under `# User facts:`, before the task prompt); the authors append the folded
  calendar state to it and hoist it before the task prompt, which ours does not;
- the writer's calls are made within the sample whose query needed them, so they count in
  that sample's model usage (a cost of the setting; without a `memory` role, under the
  evaluated model's name); a memory dropped and rebuilt (another order, a retry:
  `version.PersonaMemV3.dataset`) is written again.

The writer is the `memory` model role (`--model-role memory=...`), else the model under
evaluation: the authors build with `--memory_builder_model`, defaulting to the answering
model (`run_eval.py`), at temperature 0. Its calls (`calls`: `day_updates` written day
by day, `provisional_updates` at queries), the tokens the provider reports, the events
written in and the unread replies are its `usage()`.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any, Final

from inspect_ai.model import GenerateConfig, get_model

from inspect_personamem.data.requests import text_tokens
from inspect_personamem.errors import PersonaMemArgumentError
from inspect_personamem.history.memory.interface import (
    HistoryMessage,
    MemoryComponentError,
    MemoryItem,
)

WRITER_ROLE: Final = "memory"
"""The Inspect model role that writes the memory (else the model under evaluation)."""

EMPTY_MEMORY: Final = """# USER MEMORY (last activity seen: none yet)

## Who they are
(none yet)

## Interests & preferences
(none yet)

## People & places
(none yet)

## Currently active
(none yet)
"""
"""The memory before any event is written in (theirs verbatim)."""

_SECTIONS_NOTE: Final = (
    "Organize the memory under these four sections, always keeping all four "
    "headers verbatim: 'Who they are' (identity, life context, traits, and how "
    "they communicate); 'Interests & preferences' (what they care about and lean "
    "toward, positively or negatively); 'People & places'; 'Currently active' (a "
    "few time-bounded goals or threads, each with the condition under which it "
    "would end). Use short, atomic bullet lines; tag a line with a bracketed "
    "topic like [travel] or [home improvement] where it helps; mark a signal you "
    "have seen reinforced several times with a trailing '[×N]'. This is a "
    "persona/preference profile, NOT a chronological log of events."
)

UPDATE_PROMPT: Final = (
    "You maintain a compact, human-readable MEMORY of ONE user, built by reading their "
    "activity in chronological chunks. The memory is a plain-text persona/preference "
    "profile a person could read — NOT a log of events, NOT a database, and it uses no "
    "embeddings. The raw activity is a stream of timestamped engagements; distill it into "
    "durable, generalized knowledge about the user rather than retaining the events "
    "themselves.\n"
    "\n"
    "Maintain the profile each chunk with four explicit actions:\n"
    "  - ADD    : record a genuinely new durable fact about the user.\n"
    "  - EDIT   : revise a fact whose details have changed, or supersede one when newer "
    "evidence contradicts it.\n"
    "  - REMOVE : drop stale, one-off, or no-longer-relevant entries.\n"
    "  - MERGE  : fold related or duplicate entries into one coherent note, reinforcing "
    "recurring signals.\n"
    "\n"
    "Capture both what the user signals outright AND the preferences, traits, and patterns "
    "you can reasonably infer from their recurring behavior — their interests and "
    "preferences (what they lean toward, positively or negatively), how they come across, "
    "the people and places that matter to them, and what they are currently working "
    "toward — at an appropriate level of generality. Stay grounded in the observed "
    "activity: infer from patterns, but do not fabricate. Let incidental noise fade. "
    "Always output the full, current profile.\n"
    "\n"
    f"{_SECTIONS_NOTE}\n"
    "\n"
    "Constraints (output/format rules):\n"
    "  - GROUND EVERY LINE in activity you have actually observed. Do not invent "
    "demographics, profile details, or stereotypes, and do not guess beyond what the "
    "behavior supports.\n"
    "  - GENERALIZE AND CONSOLIDATE: distill recurring evidence into durable, generalized "
    "knowledge about the user; merge related or duplicate notes; let one-off incidental "
    "noise fade.\n"
    "  - STAY BOUNDED: keep the whole memory within a hard budget of {cap} tokens. When "
    "over budget, combine same-topic lines and drop the least useful detail.\n"
    "  - Output the FULL memory each call (whole-document rewrite, not a diff).\n"
    "\n"
    "Output EXACTLY this, nothing else:\n"
    "<memory>\n"
    "...the FULL updated memory markdown (all sections)...\n"
    "</memory>\n"
    "<summary>\n"
    "...one short paragraph: who this user is so far + what is currently active...\n"
    "</summary>\n"
    "\n"
    "## Current memory\n"
    "{memory}\n"
    "\n"
    "## Rolling summary so far\n"
    "{summary}\n"
    "\n"
    "## New activity (chronological, time-masked)\n"
    "{activity}\n"
    "\n"
    "Apply the method to the new activity above and emit the full updated <memory> and "
    "<summary>."
)
"""`llm_memory_update_prompt` as a template: at a cap of 2048 it gives the stored copies'
text character for character (evaluation/prompts.py@11d3bf48 and the 79,210-character
copy write 2048 into it); the newest interpolates the cap (EVAL.md@8e2a111f), the one
number that changes."""

PROMPTS: Final = {"datasets/v3/memory_writer.py:UPDATE_PROMPT": UPDATE_PROMPT}
"""The writer's fixed texts by where they are defined, for the run's facts."""


def update_prompt(memory: str, summary: str, activity: str, cap: int) -> str:
    """The writer's prompt for one day's events (`activity`, their rendered lines)."""
    return UPDATE_PROMPT.format(
        cap=cap, memory=memory, summary=summary or "(none yet)", activity=activity
    )


DAY_SECONDS: Final = 86_400
"""A calendar day (UTC), the writer's cadence: run_eval.py@07bce3cd's `_DAY`."""


@dataclass(frozen=True)
class WriterConfig:
    """The writer's settings (`-T memory_config`), each the authors' default
    (EVAL.md@8e2a111f: `--memory_token_cap` 4096, `--memory_builder_temperature` 0)."""

    token_cap: int = 4096
    temperature: float = 0.0

    @classmethod
    def of(cls, config: Mapping[str, Any]) -> WriterConfig:
        """The settings in `config`; a one-line error for an unknown key or a bad value."""
        known = {f.name: f for f in fields(cls)}
        unknown = sorted(set(config) - set(known))
        if unknown:
            raise PersonaMemArgumentError(
                f"memory_config for the Markdown memory: unknown key(s) {', '.join(unknown)}; "
                f"it takes {', '.join(known)}"
            )
        for key, value in config.items():
            number = not isinstance(value, bool) and isinstance(value, int | float)
            if key == "temperature" and not (number and value >= 0):
                raise PersonaMemArgumentError(
                    f"memory_config for the Markdown memory: temperature={value!r} is not a "
                    "number of 0 or more"
                )
            if key != "temperature" and not (number and isinstance(value, int) and value >= 1):
                raise PersonaMemArgumentError(
                    f"memory_config for the Markdown memory: {key}={value!r} is not a "
                    "positive integer"
                )
        return cls(**config)


# --- an event as the build prompt shows it ---------------------------------------

_EVENT_MESSAGE = re.compile(r"\[(?P<app>[a-z_]+)\] (?P<event>\{.*\})", re.DOTALL)


def read_event(message: HistoryMessage) -> dict[str, Any]:
    """A timeline message's compact event, with its `app`."""
    found = _EVENT_MESSAGE.fullmatch(message.content)
    try:
        event = json.loads(found["event"]) if found else None
    except json.JSONDecodeError:
        event = None
    if found is None or not isinstance(event, dict) or not isinstance(event.get("t"), int):
        raise MemoryComponentError(
            f"Markdown memory: history message {message.position} is not a PersonaMem-v3 "
            "event ('[app] {compact event}' with its time): this memory reads v3 alone"
        )
    return {**event, "app": found["app"]}


def _cut(value: Any, limit: int) -> str:
    """`value` on one line, cut to `limit` characters with an ellipsis."""
    text = "" if value is None else str(value).replace("\n", " ").strip()
    return text if len(text) <= limit else text[: limit - 1] + "…"


def event_line(event: Mapping[str, Any]) -> str:
    """An event's line in the build prompt (their `_render_event_line`)."""
    parts = [
        str(event.get("when") or event.get("t")),
        f"[{event.get('app', '?')}]",
        str(event.get("type", "")),
        f"| {event.get('action', '')}",
    ]
    if event.get("hashtags"):
        parts.append(f"| tags=[{','.join(event['hashtags'])}]")
    if event.get("title"):
        parts.append(f"| title={_cut(event['title'], 120)}")
    if event.get("caption"):
        parts.append(f"| {_cut(event['caption'], 160)}")
    if event.get("user_message"):
        parts.append(f"| msg={_cut(event['user_message'], 200)}")
    if event.get("conversation"):
        turns = " ".join(
            f"{turn.get('role', '?')}:{_cut(turn.get('content', ''), 120)}"
            for turn in event["conversation"][:6]
        )
        parts.append(f"| convo={_cut(turns, 360)}")
    if event.get("inferred_prefs"):
        items = "; ".join(_cut(p.get("persona_item", ""), 80) for p in event["inferred_prefs"][:4])
        parts.append(f"| inferred=[{items}]")
    return " ".join(part for part in parts if part)


def day_text(events: Sequence[Mapping[str, Any]]) -> str:
    """A day's events as the build prompt shows them, one line each."""
    return "\n".join(event_line(event) for event in events)


def day_of(event: Mapping[str, Any]) -> int:
    """The UTC calendar day of an event (days since 1970-01-01)."""
    return int(event["t"]) // DAY_SECONDS


# --- the cap ---------------------------------------------------------------------

_LAST_SEEN = re.compile(r"·\s*last\s*(\d{1,2})/(\d{1,2})", re.IGNORECASE)
_REINFORCED = re.compile(r"[×x]\s*(\d+)")


def salience(line: str) -> float:
    """How much a bullet line is worth keeping: its reinforcement (`[xN]`) and, where it
    has one, its `· last MM/DD` date; nothing of its topic."""
    last = _LAST_SEEN.search(line)
    recency = (int(last[1]) * 31 + int(last[2])) / 400 if last else 0.0
    reinforced = _REINFORCED.search(line)
    times = max(1, int(reinforced[1])) if reinforced else 1
    return (1 + recency) * (1 + math.log(times))


def evict(memory: str, cap: int) -> str:
    """The memory within `cap` tokens: bullet lines (`- `) dropped, least salient first
    (ties in line order), until it fits or none is left."""
    if text_tokens(memory) <= cap:
        return memory
    lines = memory.split("\n")
    bullets = sorted(
        (i for i, line in enumerate(lines) if line.strip().startswith("- ")),
        key=lambda i: salience(lines[i]),
    )
    kept = dict(enumerate(lines))
    for index in bullets:
        if text_tokens("\n".join(kept.values())) <= cap:
            break
        del kept[index]
    return "\n".join(kept.values())


def read_reply(reply: str) -> tuple[str | None, str | None]:
    """The memory and summary a reply gives (`<memory>`, `<summary>`; an untagged reply
    holding `# USER MEMORY` is the memory), None for each it lacks."""
    memory = re.search(r"<memory>(.*?)</memory>", reply, re.DOTALL)
    summary = re.search(r"<summary>(.*?)</summary>", reply, re.DOTALL)
    written = memory[1].strip() if memory else reply.strip() if "# USER MEMORY" in reply else ""
    return written or None, summary[1].strip() if summary else None


class MarkdownMemory:
    """One persona's Markdown memory, written a calendar day at a time as its events
    arrive (module docstring)."""

    def __init__(self, context_id: str, config: Mapping[str, Any]) -> None:
        self.context_id = context_id
        self.config = WriterConfig.of(config)
        self.memory = EMPTY_MEMORY
        """The memory of every day written so far (the authors' ledger at the last
        midnight passed)."""
        self.summary = ""
        self.day: int | None = None
        """The day of the events held, not yet written."""
        self.held: list[dict[str, Any]] = []
        self.provisional: tuple[int, str, str] | None = None
        """The held events written at a query: how many, the memory and the summary."""
        self.counts: Counter[str] = Counter()

    async def add(self, messages: Sequence[HistoryMessage]) -> None:
        for message in messages:
            if message.role == "system":  # the profile card: the authors' builder reads none
                continue
            event = read_event(message)
            day = day_of(event)
            if self.day is not None and day < self.day:
                raise MemoryComponentError(
                    f"Markdown memory of persona {self.context_id}: history message "
                    f"{message.position} (t={event['t']}) comes before the day already held"
                )
            if self.held and day != self.day:
                await self._write_day()
            self.day = day
            self.held.append(event)
            self.counts["events"] += 1

    async def search(self, query: str, top_k: int) -> list[MemoryItem]:
        """The whole memory, the day held written in provisionally (module docstring);
        the query does not select."""
        if not self.held:
            return [MemoryItem(text=self.memory)]
        if self.provisional is None or self.provisional[0] != len(self.held):
            memory, summary = await self._written(self.held)
            self.counts["provisional_updates"] += 1
            self.provisional = (len(self.held), memory, summary)
        return [MemoryItem(text=self.provisional[1])]

    def usage(self) -> dict[str, int]:
        return dict(self.counts)

    async def _write_day(self) -> None:
        """Write the day held into the memory: one call, or none where a query already
        wrote exactly these events provisionally."""
        if self.provisional is not None and self.provisional[0] == len(self.held):
            _, self.memory, self.summary = self.provisional
        else:
            self.memory, self.summary = await self._written(self.held)
            self.counts["day_updates"] += 1
        self.held, self.provisional = [], None

    async def _written(self, events: Sequence[Mapping[str, Any]]) -> tuple[str, str]:
        """The memory and summary after one call of the writer on `events`."""
        cap = self.config.token_cap
        prompt = update_prompt(self.memory, self.summary, day_text(events), cap)
        writer = get_model(role=WRITER_ROLE)
        output = await writer.generate(
            prompt, config=GenerateConfig(temperature=self.config.temperature)
        )
        self.counts["calls"] += 1
        if output.usage is not None:
            self.counts["input_tokens"] += output.usage.input_tokens
            self.counts["output_tokens"] += output.usage.output_tokens
        memory, summary = read_reply(output.completion)
        if memory is None:
            self.counts["unread_replies"] += 1
        return evict(memory or self.memory, cap), summary if summary is not None else self.summary
