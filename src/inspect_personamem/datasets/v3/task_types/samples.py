"""PersonaMem-v3 query rows (`release.records.V3Query`) as Inspect samples: the task's
prompt as the authors compose it for the model (its type's `TaskPrompt`), WITHOUT the
history (the history axis adds it, through `persona.histories.PersonaContexts`), and
apart from it what the scorers read (`prompts.shown.SCORER_KEY`).

Sources (bowen-upenn/PersonaMem-v3; full hashes in the shared COMMITS.md). The runner
(`evaluation/run_eval.py`@07bce3cd) hands each row's instance to a task runner
(`evaluation/run_eval_dispatch.py`, newest stored copy 0d90f3d2); each runner builds its
prompt from a template that takes a `history_block` and, in `llm_longctx`, passes the
authors' long-context text (`inference_utils.serialize_history_for_context`@7758d563).
Every template places the block in a section of its own and leaves the section out when
the block is None, as the agent modes call it. Our input is the template with
`history_block=None`, verbatim (`prompts.chatbot`, `prompts.slate`, `prompts.agentic`),
an agentic one with the query's ground-truth block (`prompts.ground_truth`), which the
authors' runner builds in every mode (`ground_truth_block` in the metadata: whether the
prompt has one). An agentic row's scorer fields carry the judges' evidence, rebuilt
from the persona as the authors rebuild it (`judges.source_a`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from inspect_ai.dataset import MemoryDataset, Sample

from inspect_personamem.datasets.v3.judges.source_a import SOURCE_A_KEY, backend_source_a
from inspect_personamem.datasets.v3.persona.histories import PersonaContexts, asked_at
from inspect_personamem.datasets.v3.persona.streams import Persona, PersonaStreams
from inspect_personamem.datasets.v3.prompts.ground_truth import ground_truth_block
from inspect_personamem.datasets.v3.prompts.shown import (
    SCORER_KEY,
    SCORER_ONLY,
    SHOWN_KEY,
    Prompt,
    Shown,
    TaskPrompt,
)
from inspect_personamem.datasets.v3.release.records import V3Query
from inspect_personamem.datasets.v3.rules.score import CANDIDATE_COUNT
from inspect_personamem.datasets.v3.task_types.registry import TASK_TYPES, TaskTypes


def scorer_fields(query: V3Query, persona: Persona) -> dict[str, Any]:
    """What the scorers read of `query` (the sample's `SCORER_KEY`): its scorer-only
    instance fields and columns, and for an agentic row the judges' Source A built from
    `persona`, its persona, at the row's time."""
    fields = {
        key: value
        for key, value in query.instance.items()
        if key in SCORER_ONLY or key.startswith("_")
    }
    fields["display_rubric"] = query.display_rubric
    fields["rubric_tags"] = list(query.rubric_tags)
    fields["expected_response_kind"] = query.expected_response_kind
    candidates = query.instance.get("candidates")
    fields[CANDIDATE_COUNT] = len(candidates) if isinstance(candidates, list) else 0
    evidence = backend_source_a(query.task_type, query.instance, persona, query.ts)
    if evidence is not None:  # the judge's, never the model's
        fields[SOURCE_A_KEY] = evidence
    return fields


def _target(query: V3Query, task: TaskPrompt) -> str | list[str]:
    instance = query.instance
    if task.target == "slate":
        positives = instance.get("positive_indices")
        if positives is None and "held_out_idx" in instance:
            positives = [instance["held_out_idx"]]
        return [str(i) for i in positives or []]
    gold = instance.get("example_response")
    return gold if isinstance(gold, str) else ""


def query_prompt(
    query: V3Query, streams: PersonaStreams, path: Path | str, task: TaskPrompt
) -> tuple[Shown, Prompt]:
    """The query's prompt by its type's `task`, with its ground-truth block (read from
    `streams` at the query's time), and the instance fields it read (`Shown`)."""
    persona = streams.persona(query.user_id)
    shown = Shown(query, path, persona)
    shown.ground_truth = ground_truth_block(query.task_type, persona, query.ts, shown)
    return shown, task.build(shown)


def query_to_sample(
    query: V3Query,
    contexts: PersonaContexts,
    path: Path | str,
    task_types: TaskTypes = TASK_TYPES,
) -> Sample:
    """One query row as a sample: the task's prompt without the history as input, the
    slate's lines as choices (ranking tasks only), what the scorers read apart. What a
    memory or retriever is searched with (`AskedAt.message`) is the row's `query_text`,
    or the prompt where it has none (Mem0 refuses an empty query; the authors' Mem0
    mode takes the most recent facts instead). The row's type is read from
    `task_types`; its prompt may read the row's persona (`Shown.persona`)."""
    task_type = task_types[query.task_type]
    task = task_type.prompt
    shown, prompt = query_prompt(query, contexts.streams, path, task)
    asked = asked_at(query, contexts)
    if not asked.message.strip():  # no user message (a ranking or proactive row)
        asked = replace(asked, message=prompt.text)
    metadata: dict[str, Any] = {
        **asked.metadata(),
        "query_id": query.query_id,
        "user_id": query.user_id,
        "task_type": query.task_type,
        "task_family": query.task_family,
        "family": task_type.family,
        "app_context": query.app_context,
        "mcp_tools_allowed": query.mcp_tools_allowed,
        "state_write_policy": query.state_write_policy,
        "ts": query.ts,
        "prompt_source": task.source,
        "prompt_provenance": task.provenance,
        "ground_truth_block": bool(shown.ground_truth),
        SHOWN_KEY: shown.read,
        SCORER_KEY: scorer_fields(query, contexts.streams.persona(query.user_id)),
    }
    return Sample(
        id=query.query_id,
        input=prompt.text,
        choices=list(prompt.slate) or None,
        target=_target(query, task),
        metadata=metadata,
    )


def build_v3_dataset(
    queries: Sequence[V3Query],
    contexts: PersonaContexts,
    path: Path | str,
    name: str,
    task_types: TaskTypes = TASK_TYPES,
) -> MemoryDataset:
    """The samples of `queries`, in their order (one persona's file: `path`)."""
    return MemoryDataset(
        [query_to_sample(query, contexts, path, task_types) for query in queries],
        name=name,
        shuffled=False,
    )
