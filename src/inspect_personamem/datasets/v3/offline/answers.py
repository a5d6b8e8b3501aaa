"""What the offline models read of PersonaMem-v3 (`declared.Offline`): the replies the
oracle knows for each query, and the prompt the floor answers from the query alone.

The oracle (`personamem/oracle`) is given a persona's `queries.csv` and reads every
persona's of its folder (a run asks them all). Per query it knows two replies
(`known_replies`): the one that scores top and one that scores low, right with its
chance, else the low one:

- the three ranking tasks: the slate's positives first, its hard negatives (carve-outs)
  last, the rest in slate order between, under the key the task reads (`ranking_key`;
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
queries share a prompt's words (a persona's repeated asks, the same template across
personas) the history before it tells them apart: the one whose history, as either
layout sends it (`histories.LAYOUTS`), is the messages before it; as an agent over the
apps (`oracle_agent`), the first read it made: the one whose apps, at its persona and
time, give that call that result. Without either (`history=none`, or retrieved items)
the first is answered: no model could tell them apart either.

Bound as the grader with a v3 question file, the oracle judges the judged types'
prompts (`judge_reply`): it finds the reply in the judge prompt by the template's own
text (`judge.py`), and gives the top judgement, in the keys that prompt's reader reads,
where the reply is a query's top one (its `example_response`, as the prompt shows it),
else the lowest: so the oracle scores top on the judged types and the floor low.

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
import string
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from inspect_ai.model import ChatMessage, ChatMessageAssistant, ChatMessageTool

from inspect_personamem.data.known import Asked, ChoicePrompt, Known, KnownQuestions
from inspect_personamem.datasets.declared import Trial, TrialRun
from inspect_personamem.datasets.v3.agent.catalogue import AppToolError
from inspect_personamem.datasets.v3.agent.session import AppSession
from inspect_personamem.datasets.v3.agent.setting import ACCESS_MCP, OVERPERS_RAIL
from inspect_personamem.datasets.v3.judges import judge
from inspect_personamem.datasets.v3.persona.histories import LAYOUTS, PersonaContexts, asked_at
from inspect_personamem.datasets.v3.persona.streams import PersonaStreams
from inspect_personamem.datasets.v3.prompts.samples import PROMPTS, Shown
from inspect_personamem.datasets.v3.release.records import V3Query, read_queries
from inspect_personamem.datasets.v3.rules.ranking import (
    LIFECYCLE_KEY,
    ranking_key,
    slate_labels,
)
from inspect_personamem.datasets.v3.scoring.judged import NO_FAITHFUL_JUDGE, shown_reply
from inspect_personamem.datasets.v3.scoring.scorers import GEO_TASK, LIFECYCLE_TASK, MISTAKE_TASK
from inspect_personamem.datasets.v3.synthetic.generator import generate
from inspect_personamem.datasets.v3.tasks import RANKING_TASKS, TASK_TYPES
from inspect_personamem.errors import PersonaMemArgumentError

QUERIES_FILE: Final = "queries.csv"
"""A persona's query file's name in a checkout (`spec.CHECKOUT`)."""
PROMPT_OPENING: Final = "# Task"
"""How every v3 task prompt begins (`samples.PROMPTS`): what the floor reads as v3's."""
PLAIN_REPLY: Final = (
    "Sounds good, here is a plain recap of your plans with the times, places and people "
    "you gave me earlier."
)
"""Sixteen distinct words that neither warn (`rules.WARN_PHRASE`) nor name anything: a
foil reply's body, substantive (`rules.is_substantive`) whatever the gold's length."""
AGENT_FRAMING: Final = ACCESS_MCP + OVERPERS_RAIL
"""What the agent settings send before the task's prompt (`agent._run`): the oracle reads
the prompt after it."""
_SLATE_ITEM: Final = re.compile(r"^(?:\s*\[(\d+)\]|- idx (\d+):)\s")
_RANKING_KEY: Final = re.compile(r'"(ranked_ind(?:ices|exes))"')


def known_replies(query: V3Query) -> tuple[str, str]:
    """The reply that scores top on `query` and one that scores low (module docstring)."""
    instance = query.instance
    task = query.task_type
    if task in RANKING_TASKS:
        labels = slate_labels(task, instance)
        middle = [
            i
            for i in range(labels.n_candidates)
            if i not in labels.positives and i not in labels.hard_negatives
        ]
        best = [*sorted(labels.positives), *middle, *sorted(labels.hard_negatives)]
        return _ranking(ranking_key(task), best), _ranking(ranking_key(task), best[::-1])
    if task == LIFECYCLE_TASK:
        candidates = instance.get("candidates")
        n = len(candidates) if isinstance(candidates, list) else 0
        matching = {i for i in instance.get("matching_indices") or [] if isinstance(i, int)}
        on = [i for i in range(n) if i in matching]
        off = [i for i in range(n) if i not in matching]
        first, last = _ranking(LIFECYCLE_KEY, on + off), _ranking(LIFECYCLE_KEY, off + on)
        return (first, last) if instance.get("phase") != "post" else (last, first)
    if task == GEO_TASK:
        here, before = instance.get("current_city") or "", instance.get("prior_city") or ""
        return _response(f"Here in {here}: {PLAIN_REPLY}"), _response(
            f"Back in {before}: {PLAIN_REPLY}"
        )
    if task == MISTAKE_TASK:
        frame = instance.get("expected_warning_frame") or {}
        terms = ", ".join(str(t) for t in frame.get("must_mention") or [])
        warning = json.dumps({"warned": True, "response": f"Heads up about {terms}."})
        quiet = json.dumps({"warned": False, "response": PLAIN_REPLY})
        return (warning, quiet) if instance.get("polarity") == "warn" else (quiet, warning)
    inferior = instance.get("inferior_response") or {}
    return str(instance.get("example_response") or ""), str(inferior.get("text") or "")


def _ranking(key: str, order: Sequence[int]) -> str:
    return json.dumps({key: list(order)})


def _response(text: str) -> str:
    return json.dumps({"response": text})


def first_read(exchange: Sequence[ChatMessage]) -> tuple[str, dict[str, Any], str] | None:
    """The first call of `exchange` that gave a result (no error): its tool, arguments
    and result text; None where none did."""
    calls = {
        call.id: call
        for message in exchange
        if isinstance(message, ChatMessageAssistant)
        for call in message.tool_calls or ()
    }
    for message in exchange:
        if isinstance(message, ChatMessageTool) and message.error is None:
            call = calls.get(message.tool_call_id or "")
            if call is not None:
                return call.function, call.arguments, message.text
    return None


def _unframed(text: str) -> str:
    """A prompt's text without the agent settings' framing (`AGENT_FRAMING`)."""
    return text.removeprefix(AGENT_FRAMING)


def _digest(texts: Sequence[str]) -> str:
    return hashlib.sha256("\x00".join(texts).encode()).hexdigest()


def is_queries_file(path: Path) -> str | None:
    """`all` (every family) for a persona's `queries.csv`; None for any other name."""
    return "all" if path.name == QUERIES_FILE else None


class V3Questions(KnownQuestions):
    """The queries of every persona of the checkout `source` (a persona's `queries.csv`)
    belongs to, each with its known replies, by prompt."""

    def __init__(self, source: Path) -> None:
        super().__init__(source)
        self.streams = PersonaStreams(source.parent.parent.parent / "backend")
        self.contexts = {layout: PersonaContexts(self.streams, layout) for layout in LAYOUTS}
        self.by_prompt: dict[str, list[tuple[V3Query, Known]]] = {}
        self.top_shown: set[str] = set()
        """The judged queries' top replies, as their judge prompts show them."""
        for path in sorted(source.parent.parent.glob(f"*/{QUERIES_FILE}")):
            for query in read_queries(path):
                text = PROMPTS[query.task_type].build(Shown(query, path)).text
                replies = known_replies(query)
                known = Known(replies, 0, 0, asked_at(query, self.contexts[LAYOUTS[0]]).end_index)
                self.by_prompt.setdefault(text, []).append((query, known))
                if query.task_type in judge.JUDGE_OF.keys() - NO_FAITHFUL_JUDGE:
                    self.top_shown.add(shown_reply(query.task_type, replies[0]))
        self._histories: dict[str, dict[str, tuple[V3Query, Known]]] = {}

    def find(self, input: Sequence[ChatMessage]) -> Asked:
        return self.find_after(input, ())

    def find_after(self, prompt: Sequence[ChatMessage], exchange: Sequence[ChatMessage]) -> Asked:
        known = self.query_of(prompt, exchange)[1]
        return Asked(known, 1, known.options, _unframed(prompt[-1].text))

    def query_of(
        self, prompt: Sequence[ChatMessage], exchange: Sequence[ChatMessage] = ()
    ) -> tuple[V3Query, Known]:
        """The query `prompt` asks, with what the oracle knows of it: of those sharing
        its words, the one whose apps give the first read of `exchange` its result, else
        the one whose history is the messages before it, else the first."""
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
        read = first_read(exchange)
        if read is not None:
            matching = (pair for pair in found if self._reads(pair[0], *read))
            return next(matching, found[0])
        if len(prompt) > 1:
            digest = _digest([m.text for m in prompt[:-1]])
            return self._by_history(last, found).get(digest, found[0])
        return found[0]

    def _reads(self, query: V3Query, tool: str, arguments: Mapping[str, Any], text: str) -> bool:
        """Whether the apps at `query`'s persona and time answer the call with `text`."""
        session = AppSession(
            self.streams.visible(query.user_id, query.ts),
            mcp_tools_allowed=query.mcp_tools_allowed,
            state_write_policy=query.state_write_policy,
            query_id=query.query_id,
        )
        try:
            return session.call(tool, arguments) == text
        except AppToolError:
            return False

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
    replies = tuple(_ranking(key.group(1), [i, *(j for j in indices if j != i)]) for i in indices)
    options = tuple(line[m.end() :] for m, line in items)
    return ChoicePrompt(text, options, 1, replies)


Judgement = Mapping[str, object]


@dataclass(frozen=True)
class JudgePrompt:
    """A judge prompt's template (`judge.py`), the field it fills with the reply, and
    the top and lowest judgements its reader reads (`judge.read_*`)."""

    template: str
    reply_field: str
    top: Judgement
    low: Judgement

    def fields(self, prompt: str) -> dict[str, str] | None:
        """The text each of the template's fields holds in `prompt` (the first where a
        field recurs), read between the template's own texts; None where `prompt` is
        not this template's."""
        pattern, names = "", []
        for literal, name, _, _ in string.Formatter().parse(self.template):
            pattern += re.escape(literal)
            if name is not None:
                pattern += "(.*?)"
                names.append(name)
        found = re.fullmatch(pattern, prompt, re.DOTALL)
        if found is None:
            return None
        read: dict[str, str] = {}
        for name, value in zip(names, found.groups(), strict=True):
            read.setdefault(name, value)
        return read


_SCALE_TOP, _SCALE_LOW = judge.DIM_SCALE_MAX, 0.0
JUDGE_PROMPTS: Final = (
    JudgePrompt(
        judge.DIM_PROMPT_TEMPLATE,
        "agent_output",
        {"score": _SCALE_TOP, **dict.fromkeys(judge.VOICE_SUB_SCORES, _SCALE_TOP)},
        {"score": _SCALE_LOW, **dict.fromkeys(judge.VOICE_SUB_SCORES, _SCALE_LOW)},
    ),
    JudgePrompt(
        judge.SYCOPHANCY_JUDGE_PROMPT,
        "response",
        {"resistance_0_10": 10, "caved": False},
        {"resistance_0_10": 0, "caved": True},
    ),
    JudgePrompt(
        judge.PROACTIVE_PROMPT_TEMPLATE,
        "resp_str",
        {
            **dict.fromkeys(judge.PROACTIVE_DIMS, 10),
            **dict.fromkeys(judge.PROACTIVE_FLAGS, False),
        },
        {**dict.fromkeys(judge.PROACTIVE_DIMS, 0), **dict.fromkeys(judge.PROACTIVE_FLAGS, False)},
    ),
    JudgePrompt(
        judge.NEW_SUGGESTIONS_PROMPT_TEMPLATE,
        "agent_response",
        {"alignment_score": 3, "hard_fail": False},
        {"alignment_score": 0, "hard_fail": False},
    ),
    JudgePrompt(
        judge.HALLUCINATION_JUDGE_PROMPT,
        "agent_response",
        {
            "abstention_quality": 10,
            "fabricated_specific_claim": 0,
            "offered_next_step": 1,
            "false_memory_claim": 0,
        },
        {
            "abstention_quality": 0,
            "fabricated_specific_claim": 1,
            "offered_next_step": 0,
            "false_memory_claim": 1,
        },
    ),
    JudgePrompt(
        judge.HIDDEN_PERSONA_JUDGE_PROMPT,
        "agent_response",
        {
            "deep_motivation_alignment": 3,
            "surface_query_satisfaction": 3,
            "preference_alignment": 3,
            "telegraph_avoidance": 0,
            "privacy_leak": 0,
        },
        {
            "deep_motivation_alignment": 0,
            "surface_query_satisfaction": 0,
            "preference_alignment": 0,
            "telegraph_avoidance": 1,
            "privacy_leak": 1,
        },
    ),
)
"""Every judge prompt `judged.py` sends: a rubric dim's (the voice sub-scores are read
for `voice_match` alone; every judged dim's 3 is its best, a `-` dim's included:
`rules.combine_dim_scores_with_polarity`), sycophancy's, the proactive action's, new
suggestions', personal-QA hallucination's and hidden-persona QA's."""


def judge_reply(prompt: str, questions: KnownQuestions) -> str | None:
    """The oracle's judgement of a v3 judge prompt (`Offline.judge`): the top one where
    the reply it shows is one of `questions`' top replies, else the lowest, as a fenced
    JSON object; None where `prompt` is no v3 judge's."""
    top = questions.top_shown if isinstance(questions, V3Questions) else set()
    for kind in JUDGE_PROMPTS:
        fields = kind.fields(prompt)
        if fields is not None:
            best = fields[kind.reply_field] in top
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
    TrialRun({"history": "tools", "tools": "apps"}, graded=True),
    TrialRun(
        {"history": "tools", "tools": "mcp", "family": MCP_FAMILY},
        graded=True,
        needs=("mcp", "memory"),
    ),
)
"""What `try` runs on v3: the oracle right with `try`'s chance, with the history before
each query and without it; the oracle always right (the ceiling: every rule-scored
type's top, every judge's top judgement); and the floor, from the query alone (a
slate's item most like the prompt, by BM25, first; any other prompt echoed); then the
oracle as an agent over the persona's apps (`oracle_agent`: it reads the apps of the
query's evidence and its row's, writes what its reply implies, then replies), the apps
in process (`tools=apps`), and served by the package's MCP server (`tools=mcp`) over the
agentic tasks alone (`MCP_FAMILY`: each query starts a server process, about 3 s of
CPU; skipped where the `mcp` package is not installed). Each is graded by the oracle,
bound to the grader role, as v3 needs (`version.check`)."""


MIN_PERSONAS: Final = 3
"""Personas `try` writes at least: an interval clustered by persona takes Student's t
with personas - 1 degrees of freedom (12.7 with two, 4.3 with three)."""


def trial(*, count: int, seed: int, task: str) -> Trial:
    """Generated personas of `QUERIES_PER_TYPE` queries of each type, at least
    `MIN_PERSONAS` and enough for `count` queries."""
    per_persona = QUERIES_PER_TYPE * len(TASK_TYPES)
    personas = max(MIN_PERSONAS, math.ceil(count / per_persona))

    def write(folder: Path) -> Path:
        written = generate(folder, personas=personas, queries_per_type=QUERIES_PER_TYPE, seed=seed)
        return written.queries_file(written.personas[0])

    return Trial(f"inspect_personamem/{task}", write, "generated", TRIAL_RUNS)
