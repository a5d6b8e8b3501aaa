"""What the cost estimate reads of PersonaMem-v3 (`declared.Estimate`): a request per
query, counted from the data where a folder is given, else from the figures the
authors publish (PERSONAMEM_V3.md sections 1, 2 and 6), stated as such.

From a folder (`--data-dir`, or PERSONAMEM_V3_DATA_DIR), each query as the task sends
it (the version's own `load` and `task_types.samples.query_to_sample`), at `CHARS_PER_TOKEN`
characters a token (the authors' own fallback count):

- `history=full`, `authors` layout: the long-context text at the query's time and the
  task prompt; a prompt cache shares nothing with the persona's other queries (the text
  opens with the first app's block, which grows in the middle: `histories`);
- `history=full`, `events` layout: the timeline's messages before the query's time;
  shared, the messages its later queries send unchanged (`histories.complete_at`: all
  but the block cut at its time, whose cut part a later query's own block extends, so
  a cache keyed on whole messages does not hold it; for a later query at the same time
  it does, which this leaves out);
- `history=none`: the task prompt alone, nothing shared;
- `history=memory`: `MEMORY_TOKENS` a query, the authors' figure for their memory
  settings (a memory's size is the memory system's, not the data's), nothing shared;
- `history=apps`: the apps agent at the ceiling of its budgets (`agent.setting`: the
  authors' 300,000 tokens and 15 turns a query, 600,000 and 30 for a heavy type): its
  whole token budget as input, nothing cached, and each of its turns the run's expected
  output; a run spends less (the published Opus Claude Code runs, 246.7k tokens a
  query), and most of an agent's re-sent context is read from a prompt cache.

With a folder, the judges' calls too (`GraderCalls`, priced at the grader's price): each
judged query's judge (`-T judge=`, `--judge`: the unified 0-10 judge, one call a query;
the per-dimension judge, one a rubric dimension) run on the query's scorer fields with
its row's gold reply (`example_response`) standing for the model's, the prompts it sends
recorded and counted at `CHARS_PER_TOKEN` (none where the type is rule-scored, where no
readable judge scores it, or where the gate zeroes the reply without a call).

Without a folder, the declared figures: `PERSONAS` personas of `QUERIES` queries each,
`LONG_CONTEXT_TOKENS` a query with the history (all of it shared in the `events` layout,
where most queries come after the last event; none of it in the authors') or
`MEMORY_TOKENS`; `history=none` and a
family need the data (the prompts' sizes and the rows per family are in it), and so do
the judges' calls (their prompts are filled from each query's row): without a folder the
estimate says they are not counted.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

from inspect_ai.dataset import Sample

from inspect_personamem.data.requests import GraderCalls, Request, text_tokens
from inspect_personamem.datasets.base import Loaded, one_of
from inspect_personamem.datasets.declared import QuestionRequests, ToolOption, Where
from inspect_personamem.datasets.v3.agent.setting import AgentSetting
from inspect_personamem.datasets.v3.judges.base import Ask, Judge
from inspect_personamem.datasets.v3.persona.histories import LAYOUTS, PersonaContexts
from inspect_personamem.datasets.v3.prompts.shown import SCORER_KEY, SHOWN_KEY
from inspect_personamem.datasets.v3.release.records import V3Query
from inspect_personamem.datasets.v3.release.spec import DATA_DIR_ENV
from inspect_personamem.datasets.v3.scoring.judged import (
    DEFAULT_JUDGE,
    judge_row,
    no_faithful_judge,
)
from inspect_personamem.datasets.v3.task_types.base import JUDGE_CHOICES, JudgeChoice
from inspect_personamem.datasets.v3.task_types.registry import TASK_TYPES
from inspect_personamem.datasets.v3.task_types.samples import query_to_sample
from inspect_personamem.errors import PersonaMemArgumentError
from inspect_personamem.parameters import Settings

PERSONAS: Final = 100
"""The hub's first cohort (README@13c034b7, the card: "first cohort of 100 personas")."""
QUERIES: Final = 220
"""Queries a persona: "~220" (README@846bb49a; 224 for persona 115, EVAL.md@a631a306)."""
LONG_CONTEXT_TOKENS: Final = 416_000
"""A long-context query's prompt: "≈416-417k tokens" (RESULTS_SECTION.md@32a47dd3)."""
MEMORY_TOKENS: Final = 4_000
"""A memory setting's prompt: "3-5k" a query (the paper's figure 3 notes, section 6)."""
HISTORIES: Final = ("full", "none", "memory", "apps")
DECLARED: Final = (
    f"declared figures, no data read: {PERSONAS} personas x {QUERIES} queries, "
    f"{{tokens:,}} tokens a query (the authors' README and RESULTS_SECTION.md; --data-dir "
    "counts a folder's)"
)
OPTIONS: Final = (
    ToolOption(
        "--history",
        "the history the run sends (as -T history): full (the long-context setting), none, "
        "memory (the authors' 3-5k tokens a query) or apps (the apps agent at its budgets' "
        "ceiling); default full",
        choices=HISTORIES,
    ),
    ToolOption(
        "--history-layout",
        "history=full: authors (one text a query; a cache shares nothing) or events "
        "(the events in time order, in blocks; a persona's queries share their prefix); "
        "default authors",
        choices=LAYOUTS,
    ),
    ToolOption(
        "--judge",
        "the judge of the rubric types (as -T judge): unified (one call a query, the "
        "published rows') or per_dimension (one call a rubric dimension); default unified",
        choices=JUDGE_CHOICES,
    ),
)
"""What v3's estimate takes beside its selectors."""
NOT_COUNTED: Final = (
    "not counted: the judges' prompts are filled from each query's row (--data-dir)"
)
"""What the estimate says of the judges without a folder."""


def question_requests(
    selected: Mapping[str, Any], where: Where, load: Callable[[Settings], Loaded[Any]]
) -> QuestionRequests:
    """The requests of the queries `selected` names (its `family`, `history` and
    `history_layout`), from the folder `where` names (read by `load`, the version's),
    else from the declared figures."""
    history = selected.get("history") or "full"
    layout = selected.get("history_layout") or "authors"
    family = selected.get("family") or "all"
    choice = one_of("judge", selected.get("judge") or DEFAULT_JUDGE, JUDGE_CHOICES)
    if layout != "authors" and history != "full":
        raise PersonaMemArgumentError(
            f"--history-layout {layout} lays out history=full; leave it out with "
            f"--history {history}"
        )
    label = f"v3 {family}, history={history}" + (f" ({layout})" if history == "full" else "")
    arguments = {
        "data_dir": where.data_dir,
        "repo_id": where.repo_id,
        "revision": where.revision,
        "family": family,
        "history_layout": layout,
    }
    if where.data_dir is None and not os.environ.get(DATA_DIR_ENV):
        return _declared(label, history, layout, family)
    loaded = load(arguments)
    contexts = loaded.contexts
    assert isinstance(contexts, PersonaContexts)
    requests = []
    samples = []
    for question in loaded.questions:
        query = question.query
        sample = query_to_sample(query, contexts, question.path)
        samples.append((query, sample))
        prompt = text_tokens(str(sample.input))
        end = question.end_index
        if history == "memory":
            requests.append(Request(query.user_id, 0, MEMORY_TOKENS, end))
        elif history == "apps":
            budget = AgentSetting().budget(query.task_type)
            requests.append(Request(query.user_id, 0, budget.tokens or 0, end, budget.turns))
        elif history == "none":
            requests.append(Request(query.user_id, 0, prompt, end))
        else:
            tokens = [text_tokens(m.text) for m in contexts.history(query.user_id, end)]
            shown = sum(tokens)
            # the authors' text: no shared prefix; the timeline: up to its cut block
            shared = (
                sum(tokens[: contexts.complete_at(query.user_id, end)]) if layout == "events" else 0
            )
            requests.append(Request(query.user_id, shared, shown + prompt, end))
    metadata = loaded.metadata
    return QuestionRequests(
        label,
        str(metadata["data_source"]),
        str(metadata["data_release"]),
        requests,
        judge_calls(samples, choice),
    )


def judge_calls(queries: Sequence[tuple[V3Query, Sample]], choice: JudgeChoice) -> GraderCalls:
    """The judge calls the run makes of each query under `-T judge=choice` (module
    docstring), in the order of `queries`."""
    prompts = asyncio.run(_prompts(queries, choice))
    judged = {q.task_type for (q, _), calls in zip(queries, prompts, strict=True) if calls}
    unbuilt = sorted(no_faithful_judge(choice))
    words = (
        f"{len(judged)} judged types' queries, judge={choice} ("
        + ("one call a query" if choice == "unified" else "one call a rubric dimension")
        + "), each with its row's gold reply for the model's; no call for a rule-scored "
        "type, a reply the gate zeroes"
        + (f", nor the types no readable judge scores ({', '.join(unbuilt)})" if unbuilt else "")
    )
    return GraderCalls(prompts, words)


def _recorder(asked: list[int]) -> Ask:
    """A grader that records each prompt's tokens in `asked` and answers nothing."""

    async def ask(prompt: str) -> str:
        asked.append(text_tokens(prompt))
        return ""

    return ask


async def _prompts(
    queries: Sequence[tuple[V3Query, Sample]], choice: JudgeChoice
) -> list[tuple[int, ...]]:
    """Each query's judge prompts' tokens: its judge run through a grader that records
    the prompts (and answers nothing, which no judge reads before it has asked)."""
    found: list[tuple[int, ...]] = []
    for query, sample in queries:
        task = TASK_TYPES[query.task_type]
        judge = task.scorer_for(choice)
        if not isinstance(judge, Judge) or not judge.built:
            found.append(())
            continue
        asked: list[int] = []
        metadata = sample.metadata or {}
        reply = judge.replies(query.instance)[0]
        fields, shown = metadata.get(SCORER_KEY) or {}, metadata.get(SHOWN_KEY) or {}
        await judge_row(query.task_type, reply, fields, shown, _recorder(asked), choice=choice)
        found.append(tuple(asked))
    return found


def _declared(label: str, history: str, layout: str, family: str) -> QuestionRequests:
    """`PERSONAS` x `QUERIES` requests of the declared size (module docstring)."""
    if history in ("none", "apps") or family != "all":
        given = f"--history {history}" if history in ("none", "apps") else f"--family {family}"
        raise PersonaMemArgumentError(
            f"{given} needs --data-dir: the authors publish no prompt size without the "
            "history nor rows per family or task type (an agent's budget is its type's), so "
            "the estimate counts them in the data"
        )
    tokens = LONG_CONTEXT_TOKENS if history == "full" else MEMORY_TOKENS
    shared = tokens if history == "full" and layout == "events" else 0
    requests = [
        Request(f"persona {p}", shared, tokens, q) for p in range(PERSONAS) for q in range(QUERIES)
    ]
    words = DECLARED.format(tokens=tokens)
    return QuestionRequests(
        label,
        words,
        "nothing read: the declared figures",
        requests,
        GraderCalls((), NOT_COUNTED, counted=False),
    )
