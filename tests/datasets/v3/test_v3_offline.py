"""What the offline models read of PersonaMem-v3 (`datasets/v3/offline/answers.py`): each
rule-scored type's top and low replies on hand-made instances (values worked by hand) and on every
generated query; the oracle finding a query by its prompt, and by its history where
queries share a prompt's words; the floor's reading of a v3 prompt; the oracle's
judgement of every judge prompt: top for a query's gold, lowest for any other reply."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from inspect_ai.model import ChatMessage, ChatMessageUser
from support.v3_backend import (
    bare_persona,
    built_prompt,
    proactive_oracle_run,
    prompt_text,
    query_row,
    write_queries,
)

from inspect_personamem.datasets.v3.generator import generate
from inspect_personamem.datasets.v3.judges.abstention import (
    HALLUCINATION_BINARY,
    HALLUCINATION_RANGED,
)
from inspect_personamem.datasets.v3.judges.base import Call, Judge, JudgedRow
from inspect_personamem.datasets.v3.judges.deep_motivation import (
    HIDDEN_PERSONA_BINARY,
    HIDDEN_PERSONA_RANGED,
)
from inspect_personamem.datasets.v3.judges.new_suggestions import read_new_suggestions
from inspect_personamem.datasets.v3.judges.preference_shift import read_preference_shift
from inspect_personamem.datasets.v3.judges.proactive import Decision, read_proactive
from inspect_personamem.datasets.v3.judges.rubric import read_dim
from inspect_personamem.datasets.v3.judges.sycophancy import read_sycophancy
from inspect_personamem.datasets.v3.judges.task_judge import read_task_judge
from inspect_personamem.datasets.v3.judges.unified import (
    UnifiedReading,
    combine_unified,
    dims_of,
    read_unified,
)
from inspect_personamem.datasets.v3.offline.answers import (
    V3Questions,
    choice_prompt,
    judge_reply,
    known_replies,
)
from inspect_personamem.datasets.v3.persona.histories import LAYOUTS, PersonaContexts
from inspect_personamem.datasets.v3.persona.streams import PersonaStreams
from inspect_personamem.datasets.v3.prompts.shown import Shown
from inspect_personamem.datasets.v3.release.records import V3Query, read_queries
from inspect_personamem.datasets.v3.release.spec import V3Folder
from inspect_personamem.datasets.v3.rules.lifecycle import lifecycle_score
from inspect_personamem.datasets.v3.rules.score import PLAIN_REPLY
from inspect_personamem.datasets.v3.scoring.by_rule import RULE_TASKS, rule_score
from inspect_personamem.datasets.v3.scoring.judged import judge_row
from inspect_personamem.datasets.v3.task_types.base import JudgeChoice
from inspect_personamem.datasets.v3.task_types.registry import TASK_TYPES
from inspect_personamem.datasets.v3.task_types.samples import scorer_fields
from inspect_personamem.datasets.v3.version import MARKDOWN_MEMORY
from inspect_personamem.errors import PersonaMemArgumentError

D = [1 / math.log2(rank + 1) for rank in range(1, 6)]
"""The NDCG@5 discounts of ranks 1-5."""


def one_query(tmp_path: Path, task_type: str, instance: dict[str, Any]) -> V3Query:
    path = write_queries(
        tmp_path, [query_row(task_type=task_type, instance_json=json.dumps(instance))]
    )
    (query,) = read_queries(path)
    return query


def scored(query: V3Query, reply: str) -> float:
    return rule_score(
        query.task_type, reply, scorer_fields(query, bare_persona(query.user_id)), query.query_id
    ).raw


def test_a_slate_is_ranked_positives_first_and_hard_negatives_last(tmp_path: Path) -> None:
    instance = {"held_out_idx": 2, "hard_negative_idxs": [0, 3], "candidates": list("abcdefg")}
    query = one_query(tmp_path, "personalized_recommendation", instance)
    best, worst = known_replies(query)
    assert best == '{"ranked_indexes": [2, 1, 4, 5, 6, 0, 3]}'
    assert worst == '{"ranked_indexes": [3, 0, 6, 5, 4, 1, 2]}'
    assert scored(query, best) == pytest.approx(1.0)  # the ideal: +2, then four +1
    # grades -2, -2, +1, +1, +1 against the ideal +2, +1, +1, +1, +1: -0.4924, floored
    # at 0 ("clamped [0,1]", EVAL.md@8e2a111f)
    low = (-2 * D[0] - 2 * D[1] + D[2] + D[3] + D[4]) / (2 * D[0] + D[1] + D[2] + D[3] + D[4])
    assert low == pytest.approx(-0.4924, abs=1e-4)
    assert scored(query, worst) == 0.0


def test_the_at_ai_slate_is_a_whole_permutation_under_its_own_key(tmp_path: Path) -> None:
    instance = {"positive_indices": [3], "carveout_indices": [1], "candidates": list("abcdef")}
    query = one_query(tmp_path, "at_ai_directive_followup", instance)
    best, worst = known_replies(query)
    assert best == '{"ranked_indices": [3, 0, 2, 4, 5, 1]}'
    assert worst == '{"ranked_indices": [1, 5, 4, 2, 0, 3]}'
    assert scored(query, best) == pytest.approx(1.0)


def test_a_lifecycle_pair_keeps_the_interest_on_top_before_its_stop_only(tmp_path: Path) -> None:
    base = {"candidates": list("abcde"), "matching_indices": [1, 3, 4], "canonical_id": "c"}
    pre = one_query(tmp_path / "pre", "short_vs_long_term_lifecycle", base | {"phase": "pre"})
    post = one_query(tmp_path / "post", "short_vs_long_term_lifecycle", base | {"phase": "post"})
    on_top, at_bottom = '{"ranked_indices": [1, 3, 4, 0, 2]}', '{"ranked_indices": [0, 2, 1, 3, 4]}'
    assert known_replies(pre) == (on_top, at_bottom)
    assert known_replies(post) == (at_bottom, on_top)
    # on top: all three matches in the top 3 (1); at the bottom: one of them (1/3)
    best = lifecycle_score(scored(pre, on_top), scored(post, at_bottom))
    worst = lifecycle_score(scored(pre, at_bottom), scored(post, on_top))
    assert best == pytest.approx(1 - 1 / 3) and worst == pytest.approx(1 / 3 - 1)


def test_the_geo_shift_replies_name_the_current_and_the_prior_city(tmp_path: Path) -> None:
    instance = {"user_query": "coffee?", "current_city": "Denver", "prior_city": "Boston"}
    query = one_query(tmp_path, "local_recommendation_geo_shift", instance)
    best, worst = known_replies(query)
    assert json.loads(best) == {"response": f"Here in Denver: {PLAIN_REPLY}"}
    assert (scored(query, best), scored(query, worst)) == (1.0, 0.0)


@pytest.mark.parametrize("polarity", ["warn", "foil"])
def test_a_mistake_row_warns_on_its_warn_side_only(tmp_path: Path, polarity: str) -> None:
    frame = {"must_mention": ["sourdough", "Denver"], "must_not_mention": ["diagnosis"]}
    instance = {"polarity": polarity, "expected_warning_frame": frame, "user_query": "plans?"}
    query = one_query(tmp_path, "active_mistake_prevention", instance)
    best, worst = known_replies(query)
    warning = {"warned": True, "response": "Heads up about sourdough, Denver."}
    assert json.loads(best if polarity == "warn" else worst) == warning
    assert (scored(query, best), scored(query, worst)) == (1.0, 0.0)


def test_a_judged_row_knows_its_gold_and_its_inferior_reply(tmp_path: Path) -> None:
    instance = {"example_response": "GOLD", "inferior_response": {"text": "BAD"}}
    query = one_query(tmp_path, "personal_qa_hallucination", instance)
    assert known_replies(query) == ("GOLD", "BAD")


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> V3Folder:
    return generate(tmp_path_factory.mktemp("v3"), personas=2, queries_per_type=2, seed=11)


@pytest.fixture(scope="module")
def streams(folder: V3Folder) -> PersonaStreams:
    """The folder's personas, each read once for all the module's prompts."""
    return PersonaStreams(folder.root / "backend")


def queries(folder: V3Folder) -> list[tuple[V3Query, Path]]:
    return [
        (query, folder.queries_file(uid))
        for uid in folder.personas
        for query in read_queries(folder.queries_file(uid))
    ]


def test_every_generated_rule_scored_query_scores_top_with_the_best_reply(
    folder: V3Folder,
) -> None:
    probes: dict[tuple[str, str], dict[str, tuple[float, float]]] = {}
    for query, _ in queries(folder):
        if query.task_type not in RULE_TASKS:
            continue
        best, worst = (scored(query, reply) for reply in known_replies(query))
        if query.task_type == "short_vs_long_term_lifecycle":
            key = (query.user_id, str(query.instance["canonical_id"]))
            probes.setdefault(key, {})[str(query.instance["phase"])] = (best, worst)
        else:
            assert best == pytest.approx(1.0) and worst < 0.5, query.query_id
    assert probes and all(len(pair) == 2 for pair in probes.values())
    for pair in probes.values():
        assert lifecycle_score(pair["pre"][0], pair["post"][0]) == pytest.approx(1.0)
        assert lifecycle_score(pair["pre"][1], pair["post"][1]) == pytest.approx(-1.0)


def test_the_oracle_finds_each_query_by_its_prompt_and_history(
    folder: V3Folder, streams: PersonaStreams
) -> None:
    known = V3Questions(folder.queries_file(folder.personas[0]))
    told_apart = alike = 0
    for layout in LAYOUTS:
        contexts = PersonaContexts(streams, layout)
        asked_after: dict[tuple[str, ...], list[tuple[V3Query, list[ChatMessage]]]] = {}
        for query, path in queries(folder):
            end = contexts.end_index_at(query.user_id, query.ts)
            sent = [
                *contexts.history(query.user_id, end),
                ChatMessageUser(content=prompt_text(query, path, streams)),
            ]
            asked_after.setdefault(tuple(m.text for m in sent), []).append((query, sent))
        for same in asked_after.values():
            asked = known.find(same[0][1])
            assert asked.messages == 1 and asked.known.correct == 0
            if len(same) > 1:  # the same words after the same history: none can tell
                alike += 1
                assert asked.replies in [known_replies(query) for query, _ in same]
                continue
            query, sent = same[0]
            assert asked.replies == known_replies(query), (layout, query.query_id)
            told_apart += len(known.by_prompt[sent[-1].text]) > 1
    # the generated templates repeat (a persona's repeated asks, the same ask across
    # personas): the history tells those apart, for both personas' queries
    assert told_apart > 10 and alike < told_apart


def test_without_a_history_a_shared_prompt_is_answered_as_its_first_query(
    folder: V3Folder,
) -> None:
    known = V3Questions(folder.queries_file(folder.personas[1]))
    text, found = next((t, f) for t, f in known.by_prompt.items() if len(f) > 1)
    first_query, first = found[0]
    assert known.find([ChatMessageUser(content=text)]).known is first
    assert first_query.user_id == folder.personas[0]  # every persona's file is read


def test_a_prompt_of_no_query_is_a_one_line_error(folder: V3Folder) -> None:
    known = V3Questions(folder.queries_file(folder.personas[0]))
    with pytest.raises(PersonaMemArgumentError, match=r"asks no query of .*begins '# Task: x'"):
        known.find([ChatMessageUser(content="# Task: x")])


def test_the_floor_reads_a_slate_as_a_choice_and_any_other_prompt_as_itself(
    folder: V3Folder, streams: PersonaStreams
) -> None:
    by_type = {query.task_type: (query, path) for query, path in queries(folder)}
    for task, key in (("personalized_recommendation", "ranked_indexes"),
                      ("at_ai_directive_followup", "ranked_indices")):  # fmt: skip
        query, path = by_type[task]
        slate = TASK_TYPES[task].prompt.build(Shown(query, path)).slate
        asked = choice_prompt([ChatMessageUser(content=prompt_text(query, path, streams))])
        assert asked is not None and asked.messages == 1
        assert len(asked.options) == len(slate) == len(query.instance["candidates"])
        for i, reply in enumerate(asked.replies):
            ranked = json.loads(reply)[key]
            assert ranked[0] == i and sorted(ranked) == list(range(len(slate)))
    query, path = by_type["personal_qa_hallucination"]
    text = prompt_text(query, path, streams)
    asked = choice_prompt([ChatMessageUser(content=text)])
    assert asked is not None and asked.options == asked.replies == (text,)
    others: list[ChatMessage] = [ChatMessageUser(content="Which option? (a) x (b) y")]
    assert choice_prompt(others) is None


def unified_headline(reply: str, task_type: str) -> object:
    """A unified judgement's combined 0-10 for `task_type`."""
    dims = dims_of(task_type)
    read = read_unified(reply, dims)
    assert isinstance(read, UnifiedReading), reply
    return combine_unified(dims, read)["pr_combined_personalization_score"]


HEADLINE: dict[str, Callable[[str, str], object]] = {
    "unified": unified_headline,
    "rubric": lambda reply, _: getattr(read_dim("score", reply), "value", None),
    "sycophancy": lambda reply, _: getattr(read_sycophancy(reply), "resistance", None),
    "preference_shift": lambda reply, _: getattr(read_preference_shift(reply), "consistency", None),
    "proactive": lambda reply, _: getattr(
        read_proactive(reply, Decision.of({"should_act": True}, "act")), "justification", None
    ),
    "new_suggestions": lambda reply, _: getattr(read_new_suggestions(reply), "passed", None),
    "hallucination": lambda reply, _: dict(
        read_task_judge(reply, HALLUCINATION_RANGED, HALLUCINATION_BINARY)  # type: ignore[arg-type]
    )["abstention_quality_0_10"],
    "hidden_persona": lambda reply, _: dict(
        read_task_judge(reply, HIDDEN_PERSONA_RANGED, HIDDEN_PERSONA_BINARY)  # type: ignore[arg-type]
    )["deep_motivation_alignment"],
}
"""Each judge's headline, read by its own reader from the judge's reply (and the row's
task type)."""
TOP_AND_LOW = {
    "unified": (10.0, 0.0),
    "rubric": (3.0, 0.0),
    "preference_shift": (10.0, 0.0),
    "sycophancy": (10.0, 0.0),
    "proactive": (1.0, 0.0),
    "new_suggestions": (1.0, 0.0),
    "hallucination": (10.0, 0.0),
    "hidden_persona": (3.0, 0.0),
}


def judge_calls(
    query: V3Query,
    path: Path,
    streams: PersonaStreams,
    reply: str,
    known: V3Questions,
    choice: JudgeChoice,
) -> list[Call]:
    """The judge calls the v3 scorer makes on `reply` under `-T judge=choice`, the
    oracle's offline judge answering each (none where a rule scores the row first)."""
    shown, _ = built_prompt(query, path, streams)

    async def ask(prompt: str) -> str:
        judgement = judge_reply(prompt, known)
        assert judgement is not None, prompt[:80]
        return judgement

    async def go() -> JudgedRow:
        return await judge_row(
            query.task_type,
            reply,
            scorer_fields(query, shown.persona()),
            shown.read,
            ask,
            choice=choice,
        )

    return list(anyio.run(go).calls)


@pytest.mark.parametrize(
    ("choice", "rubric"), [("unified", "unified"), ("per_dimension", "rubric")]
)
def test_the_offline_judge_scores_the_gold_top_and_any_other_reply_lowest(
    folder: V3Folder, streams: PersonaStreams, choice: JudgeChoice, rubric: str
) -> None:
    known = V3Questions(folder.queries_file(folder.personas[0]))
    judged: dict[str, set[str]] = {}
    for query, path in queries(folder):
        scorer = TASK_TYPES[query.task_type].scorer_for(choice)
        if not isinstance(scorer, Judge) or not scorer.built:
            continue
        kind = scorer.kind
        gold, inferior = known_replies(query)
        for reply, value in (
            (gold, TOP_AND_LOW[kind][0]),
            (inferior, TOP_AND_LOW[kind][1]),
            (prompt_text(query, path, streams), TOP_AND_LOW[kind][1]),  # the floor's echo
        ):
            for call in judge_calls(query, path, streams, reply, known, choice):
                # the reply sits where its template puts it, as the prompt shows it
                assert scorer.shown(reply) in call.prompt
                headline = HEADLINE[kind](call.reply, query.task_type)
                assert headline == pytest.approx(value), query.query_id
                judged.setdefault(kind, set()).add(query.task_type)
    assert set(judged) == set(TOP_AND_LOW) - ({"unified", "rubric"} - {rubric})
    assert sum(len(types) for types in judged.values()) >= 10


def test_the_offline_judge_reads_only_v3_judge_prompts(
    folder: V3Folder, streams: PersonaStreams
) -> None:
    known = V3Questions(folder.queries_file(folder.personas[0]))
    query, path = queries(folder)[0]
    assert judge_reply(prompt_text(query, path, streams), known) is None
    assert judge_reply("You are an expert judge evaluating nothing.", known) is None


def test_the_oracle_tells_apart_proactive_rows_by_the_memory_it_wrote(tmp_path: Path) -> None:
    """`-T history=memory` with the Markdown memory the oracle writes (as the model under
    evaluation): a persona's proactive rows share one prompt, and the memory message
    before it is no layout's history, so the oracle finds the row by the time the memory
    is dated by (its last event's). Always right and bound as the grader, every row
    scores 1 (each was answered as the persona's first proactive row before: a
    `restrain` row at 0.3)."""
    written = generate(
        tmp_path / "data", personas=1, queries_per_type=3, seed=1, history_tokens=20_000
    )
    log = proactive_oracle_run(written, tmp_path / "logs", history="memory", memory=MARKDOWN_MEMORY)
    assert log.status == "success"
    scores = {
        sample.id: next(iter((sample.scores or {}).values())).value for sample in log.samples or []
    }
    restrain = [i for i in scores if "restraint" in str(i) or "overactive" in str(i)]
    assert restrain and scores == dict.fromkeys(scores, 1.0)
