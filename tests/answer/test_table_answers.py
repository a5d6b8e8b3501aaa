"""`-T answer=...` (`answer/table.py`): the refusals of open and logprob answers (no
grader bound, a grader bound besides `grader=self`; the paper prompt, a prompt for
answer=choice only, refused by the argument check), and the words each adds to a run's
label."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval as inspect_eval
from support.helpers import DISPLAY, mock_model

from inspect_personamem.answer.table import ANSWERS
from inspect_personamem.datasets.v1.version import VERSION
from inspect_personamem.errors import PersonaMemArgumentError
from inspect_personamem.run.arguments import parameters
from inspect_personamem.run.tasks import TASKS


def settings(**given: Any) -> dict[str, Any]:
    """PersonaMem's task arguments at their defaults, but those given."""
    return {name: p.default for name, p in parameters(VERSION).items()} | given


def refusal(answer: str, **given: Any) -> str | None:
    """What `answer` refuses of these settings, where no grader is bound."""
    value = ANSWERS[answer]
    return value.refuses(value.own(settings(answer=answer, **given)))


def test_no_grader_bound_is_one_line_before_any_data(small_split: Path) -> None:
    with pytest.raises(PersonaMemArgumentError) as info:
        TASKS["personamem_32k"](data_dir=str(small_split), answer="open")
    message = str(info.value)
    assert "no grader is bound: add --model-role grader=<model>" in message
    assert "-T grader=self" in message and "\n" not in message


def test_the_paper_prompt_shows_options_and_is_refused(small_split: Path) -> None:
    refused = "answer='open', memory_prompt='paper': .* a prompt for answer='choice' only"
    with pytest.raises(PersonaMemArgumentError, match=refused):
        TASKS["personamem_32k"](
            data_dir=str(small_split),
            answer="open",
            history="rag",
            retriever="bm25",
            memory_prompt="paper",
            grader="self",
        )


def test_open_answers_take_a_bound_grader_or_self_but_not_both(
    small_split: Path, tmp_path: Path
) -> None:
    assert refusal("open", grader="self") is None
    assert refusal("logprob") is None
    with pytest.raises(PersonaMemArgumentError) as info:
        inspect_eval(
            "inspect_personamem/personamem_32k",
            task_args={"data_dir": str(small_split), "answer": "open", "grader": "self"},
            model=mock_model(lambda _: "(a)"),
            model_roles={"grader": mock_model(lambda _: "<candidate>1</candidate>")},
            log_dir=str(tmp_path),
            display=DISPLAY,
        )
    assert str(info.value).endswith(
        "-T grader=self grades with the model under test, but a grader is bound "
        "(--model-role grader=...): leave out one of the two"
    )


@pytest.mark.parametrize(
    ("answer", "given", "label"),
    [
        ("choice", {}, ""),
        ("open", {}, "open"),
        ("open", {"grader_seed": 3}, "open, grader seed 3"),
        ("open", {"grader_calibration": 0}, "open"),  # not a scoring setting
        ("logprob", {}, "logprob"),
        ("logprob", {"normalization": "chars"}, "logprob, chars"),
        ("logprob", {"normalization": "sum", "context_window": 512}, "logprob, sum, 512"),
        ("logprob", {"option_batch_size": 8}, "logprob"),
    ],
)
def test_a_runs_label_names_the_answer_and_its_changed_scoring_settings(
    answer: str, given: dict[str, Any], label: str
) -> None:
    value = ANSWERS[answer]
    assert value.label(value.own(settings(answer=answer, **given))) == label
