"""`parameters.py`: a parameter's check of a value (choices, kind, bound, None where it
is the default), an axis value's table as its choices, the point two axis values make
(its question order, its builders' arguments, its prompts and scorer), and the values
a run changed from their defaults."""

from __future__ import annotations

from typing import Any

import pytest

from inspect_personamem.errors import PersonaMemArgumentError
from inspect_personamem.parameters import AxisValue, Parameter, Point, changed


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


FULL = AxisValue("full", "", builder)
RAG = AxisValue(
    "rag",
    "",
    builder,
    parameters=(TOP_K, Parameter("grader", "role", str, "", for_scorer=True)),
    order="grouped",
    prompts=lambda settings: {"rag.py:A": "a", "shared.py:S": "from history"},
)
LOGPROB = AxisValue(
    "logprob",
    "",
    builder,
    order="file",
    scorer=lambda settings: f"scorer of {settings['top_k']}",
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


def test_a_builder_gets_its_own_arguments_but_those_read_in_scoring() -> None:
    arguments = {"top_k": 3, "grader": "self", "history": "rag"}
    point = Point(RAG, LOGPROB)
    assert point.own(RAG, arguments) == {"top_k": 3}
    assert point.own(LOGPROB, arguments) == {}


def test_a_point_s_prompts_are_both_values_the_answer_s_last() -> None:
    assert Point(RAG, LOGPROB).prompts({}) == {"rag.py:A": "a", "shared.py:S": "from answer"}
    assert Point(FULL, FULL).prompts({}) == {}


def test_the_answer_s_own_scorer_is_made_from_the_settings_or_is_none() -> None:
    assert Point(FULL, LOGPROB).answer_scorer({"top_k": 4}) == "scorer of 4"
    assert Point(RAG, FULL).answer_scorer({"top_k": 4}) is None


def test_changed_values_are_compared_as_text_as_a_log_gives_them() -> None:
    parameters = (TOP_K, WINDOW, SYSTEM)
    settings = {"top_k": "5", "context_window": "None", "system_messages": "drop"}
    assert changed(settings, parameters, "top_k", "context_window", "system_messages") == ["drop"]
    assert changed(
        {"top_k": 4, "system_messages": "keep"}, parameters, "system_messages", "top_k"
    ) == ["4"]
    assert changed(settings, parameters) == []
