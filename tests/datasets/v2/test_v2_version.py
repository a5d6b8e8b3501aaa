"""PersonaMem-v2 as a dataset version (`datasets/v2/version.py`): the arguments it
refuses beyond the axes' own (a judge without open answers, merged system messages
with the options as a final system message), how judged runs are scored and labelled,
and what is known of the files its selectors pick."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from inspect_personamem.answer.table import ANSWERS
from inspect_personamem.datasets.v2.spec import PERSONAMEM_V2
from inspect_personamem.datasets.v2.version import JUDGED, VERSION
from inspect_personamem.errors import PersonaMemArgumentError
from inspect_personamem.history.table import HISTORIES
from inspect_personamem.parameters import Point, TaskSettings
from inspect_personamem.run.arguments import parameters
from inspect_personamem.run.tasks import TASKS


def settings(**given: Any) -> dict[str, Any]:
    """PersonaMem-v2's task arguments at their defaults, but those given."""
    return {name: p.default for name, p in parameters(VERSION).items()} | given


def point(answer: str, history: str = "full") -> Point:
    return Point(HISTORIES[history], ANSWERS[answer])


def test_a_judge_other_than_options_needs_open_answers() -> None:
    with pytest.raises(PersonaMemArgumentError) as info:
        VERSION.check(
            TaskSettings.of(settings(judge="preference"), point("choice"), VERSION.settings)
        )
    assert str(info.value) == (
        "PersonaMem-v2 task parameter judge='preference' judges open answers: pass "
        "answer=open, or leave judge out"
    )
    VERSION.check(
        TaskSettings.of(
            settings(answer="open", judge="preference"), point("open"), VERSION.settings
        )
    )


def test_merged_system_messages_need_the_options_in_a_user_message() -> None:
    """The options message is the last one: merging has nothing to fold it into; with
    options_role=user, or where no options are shown (open answers), merge is taken."""
    with pytest.raises(PersonaMemArgumentError, match="pass options_role=user with merge$"):
        VERSION.check(
            TaskSettings.of(settings(system_messages="merge"), point("choice"), VERSION.settings)
        )
    VERSION.check(
        TaskSettings.of(
            settings(system_messages="merge", options_role="user"),
            point("choice"),
            VERSION.settings,
        )
    )
    VERSION.check(
        TaskSettings.of(
            settings(system_messages="merge", answer="open"), point("open"), VERSION.settings
        )
    )


def test_a_judged_run_is_scored_and_labelled_as_judged() -> None:
    assert VERSION.scored_as("graded", settings(judge="preference")) == JUDGED == "judged"
    assert VERSION.scored_as("graded", settings()) == "graded"
    assert VERSION.scored_as("chosen", settings()) == "chosen"
    assert VERSION.label_words(settings(judge="preference")) == ["preference judge"]
    assert VERSION.label_words(settings()) == []
    assert VERSION.label_words({}) == []


def test_a_judged_run_reports_the_judges_figures_instead_of_the_unparsed_share() -> None:
    """accuracy, its interval, its clustered stderr, one figure metric, then one per
    group (7)."""
    groups = len(VERSION.groups)
    assert groups == 7
    assert len(VERSION.metrics(JUDGED)) == 4 + groups
    assert len(VERSION.metrics("chosen")) == 4 + groups
    judged, chosen = VERSION.metrics(JUDGED)[3], VERSION.metrics("chosen")[3]
    assert "judge_figures" in repr(judged) and "unparsed" in repr(chosen)


def test_the_released_files_are_the_subsets_question_file() -> None:
    assert VERSION.released_files({"subset": "val", "length": "32k"}) == {
        "benchmark/text/val.csv": PERSONAMEM_V2.released["val"]
    }
    assert VERSION.released_questions({"subset": "benchmark"}).rows == 5000
    assert VERSION.released_rows({"subset": "train"}) == "18,549"
    assert VERSION.released_rows({}) == "5,000"
    with pytest.raises(ValueError, match="Unknown PersonaMem-v2 subset 'test'"):
        VERSION.released_files({"subset": "test"})


def test_judge_needs_open_answers(small_v2: Path) -> None:
    with pytest.raises(PersonaMemArgumentError, match="judge='preference' judges open answers"):
        TASKS["personamem_v2_32k"](data_dir=str(small_v2), judge="preference")
