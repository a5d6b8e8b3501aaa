"""What the offline models read of PersonaMem-v3 (`declared.Offline`): the replies the
oracle knows for each query, and the prompt the floor answers from the query alone.

The oracle (`personamem/oracle`) is given a persona's `queries.csv` and reads every
persona's of its folder (a run asks them all). Per query it knows two replies
(`known_replies`, its task type's scorer's): the one that scores top and one that scores
low, right with its chance, else the low one:

- the three ranking tasks: the slate's positives first, its hard negatives (carve-outs)
  last, the rest in slate order between, under the key the task reads (`Slate.key`;
  @AI a whole permutation); the low one the same order reversed;
- `short_vs_long_term_lifecycle`: the on-topic candidates first at the `pre` probe and
  last at the `post` one (the pair's pre minus post is 1); the low one the reverse;
- `local_recommendation_geo_shift`: a reply naming the current city (its `response`);
  the low one names the prior city;
- `active_mistake_prevention`: a warning naming every `must_mention` term on a warn row,
  on a foil row a substantive reply that neither warns nor names a `must_not_mention`
  term; the low one the other side's;
- the judged types: the row's `example_response` (the gold) and its
  `inferior_response` text.

The authors' `example_response` of a ranking row is prose (`Ranked indexes: [...]`),
which their rules do not read as a ranking, so the ranking replies are built from the
labels instead. A query is found by its prompt (the sample's input, the last message,
after the agent settings' framing where they send one: `AGENT_FRAMING`); where several
queries share a prompt's words (a persona's repeated asks, its proactive rows, the same
template across personas) the history before it tells them apart: the one whose history, as either
layout sends it (`histories.LAYOUTS`), is the messages before it; as an agent over the
apps (`offline.agent`), the reads it made (its first ones chosen to tell the queries
sharing the prompt apart): the one whose apps, at its persona and time, give each of
those calls its result; under the Markdown memory the oracle wrote (`offline.writer`),
the one whose last event before it is the one the memory is dated by. Without any
(`history=none`, or retrieved items) the first is answered: no model could tell them
apart either. Queries with no event between them are told apart by none.

Bound as the grader, the oracle judges the judged types' prompts (`judge_reply`): it
finds the reply in the judge prompt by the template's own text (`judges`), and gives
the top judgement, in the keys that prompt's reader reads, where the reply is a query's
top one (its `example_response`, as the prompt shows it), else the lowest: so the
oracle scores top on the judged types and the floor low. It knows the top replies from
its question file, or, given none, from the task's samples (`JudgedGold`, read as the
task is built: the scorer-side fields every sample carries). The offline stand-in's
prompt (`judges.stand_in`, for the types no faithful judge scores) shows the gold
itself, which the reply is or is not.

`trial` is what `inspect-personamem try --dataset v3` writes and runs (`TRIAL_RUNS`).

The floor (`personamem/floor`) answers from the prompt alone (`choice_prompt`): a
prompt showing a slate is a choice among its items, each reply the ranking that puts
the item first (the rest in slate order); any other v3 prompt has one reply, the
prompt's own text, which holds nothing the query does not.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Final

from inspect_ai.dataset import Sample
from inspect_ai.model import ChatMessage, ChatMessageAssistant, ChatMessageTool

from inspect_personamem.arg_types import POSITIVE_COUNT
from inspect_personamem.data.known import Asked, ChoicePrompt, Known, KnownQuestions
from inspect_personamem.datasets.declared import ToolOption, Trial, TrialRun
from inspect_personamem.datasets.v3.agent.catalogue import READ_TOOLS, AppToolError
from inspect_personamem.datasets.v3.agent.session import AppSession
from inspect_personamem.datasets.v3.agent.setting import ACCESS_MCP, OVERPERS_RAIL
from inspect_personamem.datasets.v3.generator import generate
from inspect_personamem.datasets.v3.judges.base import Judge, JudgePrompt
from inspect_personamem.datasets.v3.judges.stand_in import STAND_IN
from inspect_personamem.datasets.v3.memory_writer import event_line, read_event
from inspect_personamem.datasets.v3.offline.writer import activity_time, last_seen
from inspect_personamem.datasets.v3.persona.histories import LAYOUTS, PersonaContexts, asked_at
from inspect_personamem.datasets.v3.persona.streams import PersonaStreams
from inspect_personamem.datasets.v3.prompts.shown import SCORER_KEY
from inspect_personamem.datasets.v3.release.records import V3Query, read_queries
from inspect_personamem.datasets.v3.release.spec import CHECKOUT
from inspect_personamem.datasets.v3.rules.ranking import ranking_reply
from inspect_personamem.datasets.v3.task_types.base import JUDGE_CHOICES, TaskType
from inspect_personamem.datasets.v3.task_types.registry import TASK_TYPES, TaskTypes
from inspect_personamem.datasets.v3.task_types.samples import query_prompt
from inspect_personamem.errors import PersonaMemArgumentError
from inspect_personamem.history.memory.interface import HistoryMessage

QUERIES_FILE: Final = "queries.csv"
"""A persona's query file's name in a checkout (`spec.CHECKOUT`)."""
PROMPT_OPENING: Final = "# Task"
"""How every v3 task prompt begins (`prompts`): what the floor reads as v3's."""
AGENT_FRAMING: Final = ACCESS_MCP + OVERPERS_RAIL
"""What the agent settings send before the task's prompt (`agent._run`): the oracle reads
the prompt after it."""
_SLATE_ITEM: Final = re.compile(r"^(?:\s*\[(\d+)\]|- idx (\d+):)\s")
_RANKING_KEY: Final = re.compile(r'"(ranked_ind(?:ices|exes))"')


def _judges(task: TaskType) -> tuple[Judge, ...]:
    """The built judges of a task type, under every `-T judge=` (none for a rule)."""
    found: list[Judge] = []
    for choice in JUDGE_CHOICES:
        judge = task.scorer_for(choice)
        if isinstance(judge, Judge) and judge.built and all(judge is not j for j in found):
            found.append(judge)
    return tuple(found)


def known_replies(query: V3Query, task_types: TaskTypes = TASK_TYPES) -> tuple[str, str]:
    """The reply that scores top on `query` and one that scores low: its type's scorer's
    (`Rule.replies`, `Judge.replies`; module docstring)."""
    return task_types[query.task_type].scorer.replies(query.instance)


def reads_made(exchange: Sequence[ChatMessage]) -> list[tuple[str, dict[str, Any], str]]:
    """The reads of `exchange` that gave a result (no error), in order: each one's tool,
    arguments and result text."""
    calls = {
        call.id: call
        for message in exchange
        if isinstance(message, ChatMessageAssistant)
        for call in message.tool_calls or ()
    }
    return [
        (call.function, call.arguments, message.text)
        for message in exchange
        if isinstance(message, ChatMessageTool) and message.error is None
        if (call := calls.get(message.tool_call_id or "")) is not None
        and call.function in READ_TOOLS
    ]


def _unframed(text: str) -> str:
    """A prompt's text without the agent settings' framing (`AGENT_FRAMING`)."""
    return text.removeprefix(AGENT_FRAMING)


def _digest(texts: Sequence[str]) -> str:
    return hashlib.sha256("\x00".join(texts).encode()).hexdigest()


def is_queries_file(path: Path) -> str | None:
    """`all` (every family) for a persona's `queries.csv`; None for any other name."""
    return "all" if path.name == QUERIES_FILE else None


def question_file(arguments: Mapping[str, Any], samples: Sequence[Sample]) -> str:
    """The question file `-M questions` names for a task over `samples`: its first
    persona's `queries.csv`, in a checkout's layout (the oracle reads its folder's
    others)."""
    persona = (samples[0].metadata or {}).get("user_id", "{uid}") if samples else "{uid}"
    return CHECKOUT.queries_file(str(persona))


class JudgedGold(KnownQuestions):
    """The judged queries' top replies, as their judge prompts show them, read from a
    task's samples (their type and scorer-side fields): what the oracle bound as the
    grader needs of the task to judge its judge prompts (`judge_reply`) where it is
    given no question file. It answers no query."""

    def __init__(self, samples: Sequence[Sample], task_types: TaskTypes = TASK_TYPES) -> None:
        super().__init__(Path("."))
        self.top_shown: set[str] = set()
        for sample in samples:
            metadata = sample.metadata or {}
            task = task_types.get(str(metadata.get("task_type")))
            fields = metadata.get(SCORER_KEY)
            if task is None or not isinstance(fields, Mapping):
                continue
            for judge in _judges(task):
                self.top_shown.add(judge.shown(judge.replies(fields)[0]))

    def find(self, input: Sequence[ChatMessage]) -> Asked:
        raise PersonaMemArgumentError(
            "personamem/oracle: given no -M questions, it knows the gold of the task's "
            "judged replies as its grader, and answers no query"
        )


class V3Questions(KnownQuestions):
    """The queries of every persona of the checkout `source` (a persona's `queries.csv`)
    belongs to, each with its known replies, by prompt."""

    def __init__(self, source: Path, task_types: TaskTypes = TASK_TYPES) -> None:
        super().__init__(source)
        backend = source.parent.parent.parent / "backend"
        # one persona as read at a time, while its queries are read (both layouts'
        # histories share its timeline); an agent's reads get their own, kept whole
        self.streams = PersonaStreams(backend, keep=1)
        timelines = PersonaContexts(self.streams, LAYOUTS[0])
        self.contexts = {layout: timelines.with_layout(layout) for layout in LAYOUTS}
        self.app_streams = PersonaStreams(backend)
        """The personas an agent's reads are answered from (`answer`), read as asked."""
        self.by_prompt: dict[str, list[tuple[V3Query, Known]]] = {}
        self.top_shown: set[str] = set()
        """The judged queries' top replies, as their judge prompts show them."""
        for path in sorted(source.parent.parent.glob(f"*/{QUERIES_FILE}")):
            for query in read_queries(path):
                task = task_types[query.task_type]
                text = query_prompt(query, self.streams, path, task.prompt)[1].text
                replies = known_replies(query, task_types)
                known = Known(replies, 0, 0, asked_at(query, self.contexts[LAYOUTS[0]]).end_index)
                self.by_prompt.setdefault(text, []).append((query, known))
                for judge in _judges(task):
                    self.top_shown.add(judge.shown(replies[0]))
        self._histories: dict[str, dict[str, tuple[V3Query, Known]]] = {}
        self._last_seen: dict[str, dict[str, tuple[V3Query, Known]]] = {}
        self._answers: dict[tuple[str, str, str], str | None] = {}

    def find(self, input: Sequence[ChatMessage]) -> Asked:
        return self.find_after(input, ())

    def find_after(self, prompt: Sequence[ChatMessage], exchange: Sequence[ChatMessage]) -> Asked:
        known = self.query_of(prompt, exchange)[1]
        return Asked(known, 1, known.options, _unframed(prompt[-1].text))

    def query_of(
        self, prompt: Sequence[ChatMessage], exchange: Sequence[ChatMessage] = ()
    ) -> tuple[V3Query, Known]:
        """The query `prompt` asks, with what the oracle knows of it: of those sharing
        its words, the first whose apps give every read of `exchange` its result, else
        the one whose history is the messages before it, else the one whose last event
        dates the memory before it (`writer.last_seen`), else the first."""
        last = _unframed(prompt[-1].text)
        found = self.by_prompt.get(last)
        if not found:
            raise PersonaMemArgumentError(
                f"personamem/oracle: the prompt asks no query of {self.source.parent.parent}: "
                f"its last message begins {last[:80]!r}; point -M questions at a queries.csv "
                "of the folder the task reads"
            )
        if len(found) == 1:
            return found[0]
        reads = reads_made(exchange)
        if reads:
            matching = (pair for pair in found if all(self._reads(pair[0], *r) for r in reads))
            return next(matching, found[0])
        if len(prompt) > 1:
            digest = _digest([m.text for m in prompt[:-1]])
            by_history = self._by_history(last, found)
            seen = last_seen(prompt[-2].text)
            if digest in by_history or seen is None:
                return by_history.get(digest, found[0])
            return self._by_last_seen(last, found).get(seen, found[0])
        return found[0]

    def sharing(self, prompt: Sequence[ChatMessage]) -> list[tuple[V3Query, Known]]:
        """The queries whose prompt is `prompt`'s last message (none for another)."""
        return self.by_prompt.get(_unframed(prompt[-1].text), [])

    def answer(self, query: V3Query, tool: str, arguments: Mapping[str, Any]) -> str | None:
        """What the apps at `query`'s persona and time answer the call with; None for an
        error (computed once a call)."""
        key = (query.query_id, tool, json.dumps(arguments, sort_keys=True))
        if key not in self._answers:
            self._answers[key] = self._answer(query, tool, arguments)
        return self._answers[key]

    def _answer(self, query: V3Query, tool: str, arguments: Mapping[str, Any]) -> str | None:
        session = AppSession(
            self.app_streams.visible(query.user_id, query.ts),
            mcp_tools_allowed=query.mcp_tools_allowed,
            state_write_policy=query.state_write_policy,
            query_id=query.query_id,
        )
        try:
            return session.call(tool, arguments)
        except AppToolError:
            return None

    def _reads(self, query: V3Query, tool: str, arguments: Mapping[str, Any], text: str) -> bool:
        """Whether the apps at `query`'s persona and time answer the call with `text`."""
        return self.answer(query, tool, arguments) == text

    def _by_last_seen(
        self, prompt: str, found: list[tuple[V3Query, Known]]
    ) -> dict[str, tuple[V3Query, Known]]:
        """The queries sharing `prompt`, by the time of the last event before each (the
        last of the timeline's messages before its end, which a memory is fed), as the
        offline writer dates the memory it writes of it (`writer.last_seen`; computed
        once per prompt)."""
        table = self._last_seen.get(prompt)
        if table is None:
            table = {}
            timeline = self.contexts[LAYOUTS[0]]
            for query, known in found:
                end = known.end_index or 0
                if end < 2:  # the profile card alone: no event
                    continue
                last = timeline.messages(query.user_id)[end - 1]
                event = read_event(HistoryMessage(end - 1, last.role, last.text))
                table.setdefault(activity_time(event_line(event)), (query, known))
            self._last_seen[prompt] = table
        return table

    def _by_history(
        self, prompt: str, found: list[tuple[V3Query, Known]]
    ) -> dict[str, tuple[V3Query, Known]]:
        """The queries sharing `prompt`, by the digest of the history each is sent after,
        in either layout (computed once per prompt)."""
        table = self._histories.get(prompt)
        if table is None:
            table = {}
            for query, known in found:
                end = known.end_index or 0
                for contexts in self.contexts.values():
                    history = contexts.history(query.user_id, end)
                    table.setdefault(_digest([m.text for m in history]), (query, known))
            self._histories[prompt] = table
        return table


def questions(path: Path, selected: Mapping[str, Any]) -> V3Questions:
    """The oracle's reader of a v3 checkout (whatever `family` selects: it knows all)."""
    return V3Questions(path)


def choice_prompt(input: Sequence[ChatMessage]) -> ChoicePrompt | None:
    """A v3 prompt as the floor reads it (module docstring); None where the last
    message is no v3 task prompt."""
    if not input or not input[-1].text.startswith(PROMPT_OPENING):
        return None
    text = input[-1].text
    items = [(m, line) for line in text.splitlines() if (m := _SLATE_ITEM.match(line))]
    key = _RANKING_KEY.search(text)
    if not items or key is None:
        return ChoicePrompt(text, (text,), 1, (text,))
    indices = [int(m.group(1) or m.group(2)) for m, _ in items]
    replies = tuple(
        ranking_reply(key.group(1), [i, *(j for j in indices if j != i)]) for i in indices
    )
    options = tuple(line[m.end() :] for m, line in items)
    return ChoicePrompt(text, options, 1, replies)


JUDGE_PROMPTS: Final[tuple[JudgePrompt, ...]] = (
    *{
        judgement.template: judgement
        for task in TASK_TYPES.values()
        for judge in _judges(task)
        if (judgement := judge.judgement) is not None
    }.values(),
    STAND_IN,
)
"""Every judge prompt `judged.py` sends, under either `-T judge=`, with the judgements
the oracle answers it: the unified rubric's, a per-dim rubric dim's, sycophancy's,
preference shift's, the proactive action's, new suggestions', personal-QA
hallucination's and hidden-persona QA's (each judge's `judgement`), and the offline
stand-in's (`judges.stand_in`)."""


def judge_reply(prompt: str, questions: KnownQuestions) -> str | None:
    """The oracle's judgement of a v3 judge prompt (`Offline.judge`): the top one where
    the reply it shows is one of `questions`' top replies, else the lowest, as a fenced
    JSON object; None where `prompt` is no v3 judge's."""
    top = questions.top_shown if isinstance(questions, V3Questions | JudgedGold) else set()
    for kind in JUDGE_PROMPTS:
        fields = kind.fields(prompt)
        if fields is not None:
            reply = fields[kind.reply_field]
            best = reply in top if kind.gold_field is None else reply == fields[kind.gold_field]
            verdict = {
                **(kind.top if best else kind.low),
                "reasoning": "the oracle's top reply" if best else "not the oracle's top reply",
            }
            return f"```json\n{json.dumps(verdict)}\n```"
    return None


QUERIES_PER_TYPE: Final = 2
"""Of each task type per persona, in the data `try` writes: a lifecycle pair's two
probes and a warn/foil pair each."""
MCP_FAMILY: Final = "agentic_tasks"
"""The family `try`'s MCP run asks (the types that write on the user's behalf among
them): each query starts the apps' server, and all of them would take minutes."""
TRIAL_RUNS: Final = (
    TrialRun({"history": "full"}, graded=True),
    TrialRun({"history": "none"}, graded=True),
    TrialRun({"history": "full"}, model_args={"accuracy": 1.0}, graded=True),
    TrialRun(
        {"history": "none"}, model="personamem/floor", model_args={"rule": "question"}, graded=True
    ),
    TrialRun({"history": "apps"}, graded=True),
    TrialRun(
        {"history": "apps", "apps_transport": "mcp", "family": MCP_FAMILY},
        graded=True,
        needs=("mcp", "memory"),
    ),
)
"""What `try` runs on v3: the oracle right with `try`'s chance, with the history before
each query and without it; the oracle always right (the ceiling: every rule-scored
type's top, every judge's top judgement); and the floor, from the query alone (a
slate's item most like the prompt, by BM25, first; any other prompt echoed); then the
oracle as an agent over the persona's apps (`offline.agent`: it reads the apps of the
query's evidence and its row's, writes what its reply implies, then replies), the apps
in process (`history=apps`), and served by the package's MCP server (`apps_transport=mcp`) over the
agentic tasks alone (`MCP_FAMILY`: each query starts a server process, about 3 s of
CPU; skipped where the `mcp` package is not installed). Each is graded by the oracle,
bound to the grader role, as v3 needs (`version.check`)."""


MIN_PERSONAS: Final = 3
"""Personas `try` writes at least: an interval clustered by persona takes Student's t
with personas - 1 degrees of freedom (12.7 with two, 4.3 with three)."""


TRY_OPTIONS: Final = (
    ToolOption(
        "--queries-per-type",
        f"queries of each of the {len(TASK_TYPES)} task types a persona "
        f"(default {QUERIES_PER_TYPE}; the release has ~220 a persona: 7)",
        POSITIVE_COUNT,
    ),
    ToolOption(
        "--history-tokens",
        "grow each persona's background until its queries' long-context history averages "
        "this many tokens at their times (the release's: ~416000); default: a few events a day",
        POSITIVE_COUNT,
    ),
)
"""`try`'s own options on v3: the personas' size (`generate`'s `queries_per_type` and
`history_tokens`)."""


def trial(
    *,
    count: int,
    seed: int,
    task: str,
    queries_per_type: int | None = None,
    history_tokens: int | None = None,
) -> Trial:
    """Generated personas of `queries_per_type` (default `QUERIES_PER_TYPE`) queries of
    each type, at least `MIN_PERSONAS` and enough for `count` queries, their history
    `history_tokens` long at their queries' times where given."""
    k = queries_per_type or QUERIES_PER_TYPE
    personas = max(MIN_PERSONAS, math.ceil(count / (k * len(TASK_TYPES))))

    def write(folder: Path) -> Path:
        written = generate(
            folder, personas=personas, queries_per_type=k, seed=seed, history_tokens=history_tokens
        )
        return written.queries_file(written.personas[0])

    return Trial(f"inspect_personamem/{task}", write, "generated", TRIAL_RUNS)
