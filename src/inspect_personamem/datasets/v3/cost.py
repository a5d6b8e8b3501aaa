"""What the cost estimate reads of PersonaMem-v3 (`declared.Estimate`): a request per
query, counted from the data where a folder is given, else from the figures the
authors publish (PERSONAMEM_V3.md sections 1, 2 and 6), stated as such.

From a folder (`--data-dir`, or PERSONAMEM_V3_DATA_DIR), each query as the task sends
it (the version's own `load` and `task_types.samples.query_to_sample`), at `CHARS_PER_TOKEN`
characters a token (the authors' own fallback count):

- `history=full`, `authors` layout: the long-context text at the query's time and the
  task prompt; a prompt cache shares nothing with the persona's other queries (the text
  opens with the first app's block, which grows in the middle: `histories`);
- `history=full`, `events` layout: the timeline's messages before the query's time,
  all of them a prefix its later queries extend;
- `history=none`: the task prompt alone, nothing shared;
- `history=memory`: `MEMORY_TOKENS` a query, the authors' figure for their memory
  settings (a memory's size is the memory system's, not the data's), nothing shared.

Without a folder, the declared figures: `PERSONAS` personas of `QUERIES` queries each,
`LONG_CONTEXT_TOKENS` a query with the history (all of it shared in the `events` layout,
where most queries come after the last event; none of it in the authors') or
`MEMORY_TOKENS`; `history=none` and a
family need the data (the prompts' sizes and the rows per family are in it).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from typing import Any, Final

from inspect_personamem.data.requests import Request, text_tokens
from inspect_personamem.datasets.base import Loaded
from inspect_personamem.datasets.declared import QuestionRequests, ToolOption, Where
from inspect_personamem.datasets.v3.persona.histories import LAYOUTS, PersonaContexts
from inspect_personamem.datasets.v3.release.spec import DATA_DIR_ENV
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
HISTORIES: Final = ("full", "none", "memory")
DECLARED: Final = (
    f"declared figures, no data read: {PERSONAS} personas x {QUERIES} queries, "
    f"{{tokens:,}} tokens a query (the authors' README and RESULTS_SECTION.md; --data-dir "
    "counts a folder's)"
)
OPTIONS: Final = (
    ToolOption(
        "--history",
        "the history the run sends (as -T history): full (the long-context setting), none, "
        "or memory (the authors' 3-5k tokens a query); default full",
        choices=HISTORIES,
    ),
    ToolOption(
        "--history-layout",
        "history=full: authors (one text a query; a cache shares nothing) or events "
        "(one message an event; a persona's queries share their prefix); default authors",
        choices=LAYOUTS,
    ),
)
"""What v3's estimate takes beside its selectors."""


def question_requests(
    selected: Mapping[str, Any], where: Where, load: Callable[[Settings], Loaded[Any]]
) -> QuestionRequests:
    """The requests of the queries `selected` names (its `family`, `history` and
    `history_layout`), from the folder `where` names (read by `load`, the version's),
    else from the declared figures."""
    history = selected.get("history") or "full"
    layout = selected.get("history_layout") or "authors"
    family = selected.get("family") or "all"
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
    for question in loaded.questions:
        query = question.query
        prompt = text_tokens(str(query_to_sample(query, contexts, question.path).input))
        end = question.end_index
        if history == "memory":
            requests.append(Request(query.user_id, 0, MEMORY_TOKENS, end))
        elif history == "none":
            requests.append(Request(query.user_id, 0, prompt, end))
        else:
            shown = sum(text_tokens(m.text) for m in contexts.history(query.user_id, end))
            shared = shown if layout == "events" else 0  # the authors' text: no shared prefix
            requests.append(Request(query.user_id, min(shared, shown), shown + prompt, end))
    metadata = loaded.metadata
    return QuestionRequests(
        label, str(metadata["data_source"]), str(metadata["data_release"]), requests
    )


def _declared(label: str, history: str, layout: str, family: str) -> QuestionRequests:
    """`PERSONAS` x `QUERIES` requests of the declared size (module docstring)."""
    if history == "none" or family != "all":
        given = "--history none" if history == "none" else f"--family {family}"
        raise PersonaMemArgumentError(
            f"{given} needs --data-dir: the authors publish no prompt size without the "
            "history nor rows per family, so the estimate counts them in the data"
        )
    tokens = LONG_CONTEXT_TOKENS if history == "full" else MEMORY_TOKENS
    shared = tokens if history == "full" and layout == "events" else 0
    requests = [
        Request(f"persona {p}", shared, tokens, q) for p in range(PERSONAS) for q in range(QUERIES)
    ]
    words = DECLARED.format(tokens=tokens)
    return QuestionRequests(label, words, "nothing read: the declared figures", requests)
