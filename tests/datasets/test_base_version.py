"""What a dataset version is (`datasets/base.py`): a value one of a parameter's choices
or a one-line refusal, a parameter as an option, and what every version derives from
its declarations: its tasks, its mean group, the selection a run asked, the released
rows, the selectors it refuses."""

from __future__ import annotations

import pytest

from inspect_personamem.datasets.base import Group, one_of, option_flag
from inspect_personamem.datasets.registry import VERSIONS
from inspect_personamem.errors import PersonaMemArgumentError

V1, V2 = VERSIONS["v1"], VERSIONS["v2"]


def test_a_value_is_one_of_the_choices_or_a_one_line_refusal() -> None:
    assert one_of("length", "128k", ("32k", "128k")) == "128k"
    with pytest.raises(PersonaMemArgumentError) as info:
        one_of("length", "128K", ("32k", "128k"))
    assert str(info.value) == "length='128K': choose one of 32k, 128k"


def test_a_parameter_is_an_option_with_dashes() -> None:
    assert option_flag("interleave_block") == "--interleave-block"
    assert option_flag("split") == "--split"


def test_the_tasks_are_one_and_one_per_fixed_value() -> None:
    assert V1.fixed_values == ("32k", "128k", "1M")
    assert V1.task_names == ("personamem", "personamem_32k", "personamem_128k", "personamem_1M")
    assert V2.task_names == ("personamem_v2", "personamem_v2_32k", "personamem_v2_128k")


def test_the_mean_group_is_the_one_averaging_its_values() -> None:
    assert V1.mean_group == Group(
        "category", "category", "question type", mean_of_values="category_macro",
        values=V1.groups[0].values,
    )  # fmt: skip
    assert V2.mean_group is None


@pytest.mark.parametrize(
    ("key", "arguments", "task", "selection"),
    [
        ("v1", {}, "inspect_personamem/personamem_128k", "128k"),
        ("v1", {"split": "1M"}, "inspect_personamem/personamem", "1M"),
        ("v1", {}, "personamem", "unknown"),
        ("v2", {"subset": "val"}, "inspect_personamem/personamem_v2_32k", "val 32k"),
        ("v2", {}, "personamem_v2", "unknown unknown"),
        ("v2", {"subset": "train", "length": "128k"}, "personamem_v2", "train 128k"),
    ],
)
def test_the_selection_comes_from_the_arguments_else_the_tasks_name(
    key: str, arguments: dict[str, str], task: str, selection: str
) -> None:
    assert VERSIONS[key].selection(arguments, task) == selection


def test_the_released_rows_are_of_the_selected_file_defaults_filling_in() -> None:
    assert V1.released_rows({}) == "589"
    assert V1.released_rows({"split": "128k"}) == "2,727"
    assert V2.released_rows({"length": "128k"}) == "5,000"


def test_another_versions_selector_is_refused_naming_this_ones() -> None:
    assert V2.refuses_selector("--split") == "PersonaMem-v2 takes --subset and --length"
    assert V1.refuses_selector("--length") == "PersonaMem (v1) has its length in --split"


def test_metrics_are_accuracy_its_interval_its_error_and_one_per_group() -> None:
    groups = len(V1.groups)
    assert len(V1.metrics("chosen")) == 4 + groups
    assert len(V1.group_metrics()) == groups == 4
    assert "grader" in repr(V1.metrics("graded")[3])
    assert V1.scored_as("graded", {}) == "graded" and V1.label_words({}) == []
