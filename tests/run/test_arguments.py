"""`run/arguments.py`: a task's parameters in one list (the version's selectors and
sources, the axes, the shared and the version's own, then the axis values'), which of
them change what is scored, and the checks that make each wrong argument a one-line
error before any data are read: a parameter of a value not chosen, a combination that
means nothing, a prompt the version does not offer, and a misspelt name."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from inspect_personamem.datasets.registry import VERSIONS
from inspect_personamem.errors import PersonaMemArgumentError
from inspect_personamem.run.arguments import (
    all_arguments,
    check_unknown,
    checked_settings,
    owners,
    parameters,
    scoring_defaults,
    task_parameters,
)
from inspect_personamem.run.migration import current_arguments

V1 = VERSIONS["v1"]


@pytest.mark.parametrize(
    ("arguments", "ignored", "chosen"),
    [
        ({"normalization": "chars"}, "normalization", "history='full', answer='choice'"),
        ({"prefill_chunk": 64}, "prefill_chunk", "history='full', answer='choice'"),
        ({"top_k": 3}, "top_k", "history='full', answer='choice'"),
        (
            {"answer": "logprob", "cache_breakpoints": False},
            "cache_breakpoints",
            "answer='logprob'",
        ),
        ({"history": "rag", "memory": "mem0"}, "memory", "history='rag'"),
    ],
)
def test_an_argument_of_a_value_not_chosen_is_an_error_naming_who_reads_it(
    small_split: Path, arguments: dict[str, Any], ignored: str, chosen: str
) -> None:
    from inspect_personamem.run.tasks import TASKS

    with pytest.raises(PersonaMemArgumentError, match=f"{ignored} have no effect with .*{chosen}"):
        TASKS["personamem_32k"](data_dir=str(small_split), **arguments)


def test_an_argument_left_at_its_default_is_accepted(small_split: Path) -> None:
    from inspect_personamem.run.tasks import TASKS

    task = TASKS["personamem_32k"](
        data_dir=str(small_split), answer="logprob", cache_breakpoints=True
    )
    assert task.metadata is not None
    assert (task.metadata["history"], task.metadata["answer"]) == ("full", "logprob")


def test_a_meaningless_combination_is_an_error_saying_why(small_split: Path) -> None:
    from inspect_personamem.run.tasks import TASKS

    refused = "answer='logprob', memory_prompt='paper': .* a prompt for answer='choice' only"
    with pytest.raises(PersonaMemArgumentError, match=refused):
        TASKS["personamem_32k"](
            data_dir=str(small_split), history="rag", retriever="bm25", memory_prompt="paper",
            answer="logprob",
        )  # fmt: skip


def test_a_history_read_through_tools_refuses_an_answer_that_writes_nothing() -> None:
    """Read off the tables (`calls_tools`, `writes_nothing`), in one line naming the
    answers that write."""
    version = VERSIONS["v1"]
    arguments = all_arguments({"history": "tools", "answer": "logprob"}, {}, version)
    with pytest.raises(PersonaMemArgumentError) as error:
        checked_settings(arguments, version)
    assert str(error.value) == (
        "PersonaMem task parameters history='tools', answer='logprob': answer='logprob' "
        "scores each option's likelihood as the model's reply: the model writes nothing, "
        "so it cannot call the tools history='tools' offers; use answer='choice' or 'open'"
    )


def test_every_parameter_says_whether_it_changes_what_is_scored() -> None:
    first = VERSIONS["v1"]
    defaults = scoring_defaults(first)
    assert set(defaults) == {n for n, p in parameters(first).items() if p.scoring}
    assert {"history", "answer", "top_k", "normalization"} <= set(defaults)
    assert not {"data_dir", "order", "embedding_cache", "split"} & set(defaults)


def test_the_parameters_come_in_the_order_the_task_takes_them() -> None:
    """The version's selectors, where its files are, the axes, the version's own, the
    shared ones; then each axis value's own, once each however many values read it."""
    assert [p.name for p in task_parameters(V1)] == [
        "split", "data_dir", "repo_id", "revision", "history", "answer", "system_messages",
        "shuffle", "negative_end_index", "keep_history_in_log", "order", "interleave_block",
    ]  # fmt: skip
    names = list(parameters(V1))
    assert names[:12] == [p.name for p in task_parameters(V1)]
    assert names[12:17] == ["retriever", "embedder", "embedding_cache", "top_k", "memory_prompt"]
    assert len(names) == len(set(names))
    assert parameters(V1)["repo_id"].default == V1.repo_id
    assert parameters(V1)["revision"].default == V1.revision


@pytest.mark.parametrize(
    ("name", "readers"),
    [
        ("top_k", ["history=rag", "history=memory", "history=tools"]),
        ("embedder", ["history=rag", "history=tools"]),
        ("memory", ["history=memory", "history=tools"]),
        ("tool_budget", ["history=tools"]),
        ("cache_breakpoints", ["answer=choice", "answer=open"]),
        ("normalization", ["answer=logprob"]),
        ("history", []),  # an axis, no value's own
    ],
)
def test_owners_are_the_axis_values_that_read_a_parameter(name: str, readers: list[str]) -> None:
    assert owners(name, V1) == readers


def test_every_argument_not_given_is_its_default() -> None:
    """An axis value's parameter given through the signature's catch-all (Inspect hands
    a name the signature lacks there) is an argument like any other."""
    arguments = all_arguments({"history": "rag"}, {"retriever": "bm25", "top_k": 2}, V1)
    assert list(arguments) == list(parameters(V1))
    assert (arguments["history"], arguments["retriever"], arguments["top_k"]) == ("rag", "bm25", 2)
    assert arguments["answer"] == "choice" and arguments["memory_prompt"] == "official"
    assert arguments["revision"] == V1.revision


def test_several_ignored_arguments_are_one_error_naming_each_one_s_readers() -> None:
    arguments = all_arguments({"top_k": 3, "retriever": "bm25"}, {}, V1)
    with pytest.raises(PersonaMemArgumentError) as error:
        checked_settings(arguments, V1)
    assert str(error.value) == (
        "PersonaMem task parameter(s) retriever, top_k have no effect with history='full', "
        "answer='choice' (read by retriever: history=rag; top_k: history=rag, history=memory, "
        "history=tools): leave them out"
    )


def test_the_chosen_values_are_the_point_of_a_checked_run() -> None:
    point = checked_settings(
        all_arguments({"history": "rag", "retriever": "bm25"}, {}, V1), V1
    ).point
    assert (point.history.name, point.answer.name) == ("rag", "choice")
    point = checked_settings(
        all_arguments({"history": "none", "answer": "open", "grader": "self"}, {}, V1), V1
    ).point
    assert (point.history.name, point.answer.name) == ("none", "open")


def test_a_value_is_checked_before_the_axes_are_read() -> None:
    with pytest.raises(PersonaMemArgumentError, match=re.escape("history='Full': choose one of")):
        checked_settings(all_arguments({"history": "Full"}, {}, V1), V1)


def test_a_prompt_the_version_does_not_offer_is_an_error() -> None:
    """PersonaMem offers its authors' `paper` prompt; PersonaMem-v2 none."""
    v2 = VERSIONS["v2"]
    arguments = all_arguments(
        {"history": "rag", "retriever": "bm25", "memory_prompt": "paper"}, {}, v2
    )
    with pytest.raises(PersonaMemArgumentError, match="memory_prompt='paper': .* offers official$"):
        checked_settings(arguments, v2)
    arguments = all_arguments(
        {"history": "rag", "retriever": "bm25", "memory_prompt": "paper"}, {}, V1
    )
    assert checked_settings(arguments, V1).point.history.name == "rag"


def test_no_unknown_argument_is_no_error() -> None:
    check_unknown({}, V1)
    assert all_arguments({}, {"top_k": 4}, V1)["top_k"] == 4  # declared: not unknown


def test_unknown_arguments_are_named_each_with_the_one_meant_where_one_is_close() -> None:
    with pytest.raises(PersonaMemArgumentError) as error:
        all_arguments({}, {"topk": 3, "zzz": True}, V1)
    message = str(error.value)
    assert message.startswith(
        "PersonaMem task has no parameter topk=3 (did you mean top_k?); zzz=True. "
        "Its parameters: split, data_dir, repo_id,"
    )
    assert message.endswith(", grader_seed")


@pytest.mark.parametrize(
    ("logged", "now"),
    [
        ({"history": "tools", "tools": "apps"}, {"history": "apps", "apps_transport": "process"}),
        ({"history": "tools", "tools": "mcp"}, {"history": "apps", "apps_transport": "mcp"}),
        ({"history": "tools", "tools": "history"}, {"history": "tools"}),
        ({"history": "full", "tools": "apps"}, {"history": "full"}),
        ({"method": "rag"}, {"history": "rag"}),
    ],
)
def test_an_old_logs_arguments_read_in_todays_terms(
    logged: dict[str, str], now: dict[str, str]
) -> None:
    """PersonaMem-v3's apps agent was `history=tools` with `tools=apps|mcp`; version 1's
    `method=` is the two axes."""
    assert current_arguments(logged, VERSIONS["v3"].release) == now
