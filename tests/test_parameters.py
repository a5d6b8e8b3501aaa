"""`parameters.py`: a parameter's check of a value (choices, kind, bound, None where it
is the default), an axis value's table as its choices, the point two axis values make
(its question order, its builders' arguments, its prompts and scorer), the typed
settings a run's or a log's arguments make, and the values a run changed from their
defaults."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from inspect_personamem.errors import PersonaMemArgumentError
from inspect_personamem.parameters import (
    AxisValue,
    NoSettings,
    Parameter,
    Point,
    TaskSettings,
    changed,
    settings_of,
)


def builder(*args: Any, **kwargs: Any) -> None:
    raise AssertionError("not built")


SYSTEM = Parameter("system_messages", "keep", str, "", choices=("keep", "merge", "drop"))
TOP_K = Parameter("top_k", 5, int, "", minimum=1)
WINDOW = Parameter("context_window", None, int, "", minimum=1)
FLAG = Parameter("keep_history_in_log", False, bool, "")


@pytest.mark.parametrize(
    ("parameter", "value"),
    [(SYSTEM, "merge"), (TOP_K, 1), (TOP_K, 40), (WINDOW, None), (WINDOW, 8), (FLAG, True)],
)
def test_a_value_of_the_parameter_s_is_accepted(parameter: Parameter, value: Any) -> None:
    parameter.check(value)


@pytest.mark.parametrize(
    ("parameter", "value", "message"),
    [
        (SYSTEM, "kep", "system_messages='kep': choose one of keep, merge, drop"),
        (SYSTEM, None, "system_messages=None: choose one of keep, merge, drop"),
        (TOP_K, "3", "top_k='3': an integer needed"),
        (TOP_K, True, "top_k=True: an integer needed"),  # a bool is no integer here
        (TOP_K, 2.0, "top_k=2.0: an integer needed"),
        (TOP_K, None, "top_k=None: an integer needed"),  # None only where it is the default
        (TOP_K, 0, "top_k=0: must be at least 1"),
        (WINDOW, 0, "context_window=0: must be at least 1 (leave it out for the default)"),
        (FLAG, "yes", "keep_history_in_log='yes': true or false needed"),
        (FLAG, 1, "keep_history_in_log=1: true or false needed"),
    ],
)
def test_a_wrong_value_is_a_one_line_error_naming_the_parameter(
    parameter: Parameter, value: Any, message: str
) -> None:
    with pytest.raises(PersonaMemArgumentError) as error:
        parameter.check(value)
    assert str(error.value) == f"PersonaMem task parameter {message}"


@dataclass(frozen=True)
class RagOwn:
    top_k: int
    grader: str


@dataclass(frozen=True)
class WindowOwn:
    context_window: int | None
    keep_history_in_log: bool


FULL: AxisValue[NoSettings] = AxisValue("full", "", builder, NoSettings)
RAG: AxisValue[RagOwn] = AxisValue(
    "rag",
    "",
    builder,
    RagOwn,
    parameters=(TOP_K, Parameter("grader", "role", str, "", for_scorer=True)),
    order="grouped",
    prompts=lambda settings: {"rag.py:A": "a", "shared.py:S": "from history"},
)
LOGPROB: AxisValue[NoSettings] = AxisValue(
    "logprob",
    "",
    builder,
    NoSettings,
    order="file",
    scorer=lambda settings: "scorer",
    prompts=lambda settings: {"shared.py:S": "from answer"},
)


def test_an_axis_takes_its_table_s_names_as_its_choices() -> None:
    axis = Parameter("history", "full", str, "", table={"full": FULL, "rag": RAG})
    assert axis.allowed == ("full", "rag")
    axis.check("rag")
    with pytest.raises(PersonaMemArgumentError, match="history='none': choose one of full, rag"):
        axis.check("none")
    assert TOP_K.allowed == () and SYSTEM.allowed == ("keep", "merge", "drop")


def test_the_answer_s_order_wins_then_the_history_s_then_interleaved() -> None:
    assert Point(RAG, LOGPROB).order == "file"
    assert Point(RAG, FULL).order == "grouped"
    assert Point(FULL, FULL).order == "interleaved"


def settings(history: AxisValue[Any], answer: AxisValue[Any], **given: Any) -> TaskSettings:
    shared: dict[str, Any] = {"data_dir": None, "repo_id": "r", "revision": "v"}
    shared |= {"system_messages": "keep", "keep_history_in_log": False, "order": None}
    shared |= {"interleave_block": 0}
    return TaskSettings.of(shared | given, Point(history, answer), NoSettings)


def test_a_builder_gets_its_own_arguments_but_those_read_in_scoring() -> None:
    task = settings(RAG, LOGPROB, top_k=3, grader="self")
    assert task.builder_arguments(RAG) == {"top_k": 3}
    assert task.builder_arguments(LOGPROB) == {}
    assert task.typed(RagOwn) == RagOwn(3, "self") == task.history
    assert task.typed(NoSettings) == task.answer == task.version


def test_a_point_s_prompts_are_both_values_the_answer_s_last() -> None:
    arguments = {"top_k": 5, "grader": "role"}
    assert Point(RAG, LOGPROB).prompts(arguments) == {"rag.py:A": "a", "shared.py:S": "from answer"}
    assert Point(FULL, FULL).prompts({}) == {}


def test_the_answer_s_own_scorer_is_made_from_the_settings_or_is_none() -> None:
    assert settings(FULL, LOGPROB).answer_scorer() == "scorer"
    assert settings(RAG, FULL, top_k=4, grader="role").answer_scorer() is None


def test_a_log_s_text_is_read_as_each_parameter_s_kind_and_a_missing_one_at_its_default() -> None:
    """Settings as a log gives them back (text) are read as numbers, flags and None."""
    assert settings_of(RagOwn, {"top_k": "4"}, (TOP_K, Parameter("grader", "role", str, ""))) == (
        RagOwn(4, "role")
    )
    text = {"context_window": "None", "keep_history_in_log": "True"}
    assert settings_of(WindowOwn, text, (WINDOW, FLAG)) == WindowOwn(None, True)
    assert settings_of(WindowOwn, {"context_window": "8"}, (WINDOW, FLAG)) == WindowOwn(8, False)


def test_an_axis_value_s_settings_are_named_as_its_parameters() -> None:
    with pytest.raises(TypeError, match="odd's settings: RagOwn has fields"):
        AxisValue("odd", "", builder, RagOwn, parameters=(TOP_K,))


def test_changed_values_are_compared_as_text_as_a_log_gives_them() -> None:
    parameters = (TOP_K, WINDOW, SYSTEM)
    assert changed(parameters, top_k="5", context_window="None", system_messages="drop") == ["drop"]
    assert changed(parameters, system_messages="keep", top_k=4) == ["4"]
    assert changed(parameters) == []
