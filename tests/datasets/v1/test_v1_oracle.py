"""How the offline models read PersonaMem (`datasets/v1/oracle.py`): the oracle finds a
question of the question file in the official prompt, under any option order, and a
user's message alone by its history's length; what it cannot find is named; the floor
reads the official final message's question and options."""

from __future__ import annotations

import pytest
from inspect_ai.model import ChatMessage, ChatMessageAssistant, ChatMessageUser
from support.helpers import EXCERPT

from inspect_personamem.data.known import Known
from inspect_personamem.data.options import LETTERS, final_answer, shuffled_order
from inspect_personamem.datasets.v1.oracle import (
    PersonaMemQuestions,
    _open_answer,
    _option_forms,
    choice_prompt,
)
from inspect_personamem.datasets.v1.prompt import INSTRUCTION
from inspect_personamem.datasets.v1.records import read_questions
from inspect_personamem.datasets.v1.samples import build_dataset
from inspect_personamem.errors import PersonaMemArgumentError

RECORDS = read_questions(EXCERPT, "32k")
QUESTIONS = PersonaMemQuestions(EXCERPT, "32k")


def asked(text: str, history: int = 0) -> list[ChatMessage]:
    """`text` as the last user message after `history` messages."""
    before: list[ChatMessage] = [ChatMessageAssistant(content=f"m{i}") for i in range(history)]
    return [*before, ChatMessageUser(content=text)]


def test_the_official_prompt_is_found_with_its_answer_and_decay() -> None:
    """The excerpt's first row: answer (c), 5 sessions elapsed (4 steps of decay)."""
    sample = build_dataset(RECORDS, "x", None)[0]
    found = QUESTIONS.find(asked(str(sample.input)))
    record = RECORDS[0]
    assert found.known == Known(record.options.bodies(), 2, 4, 182)
    assert found.messages == 1
    assert found.replies == tuple(final_answer(x) for x in "abcd")


def test_reordered_options_are_found_under_the_letters_shown() -> None:
    sample = build_dataset(RECORDS, "x", 7)[0]
    order = shuffled_order(7, RECORDS[0].question_id, 4)  # order[i]: the option shown at i
    found = QUESTIONS.find(asked(str(sample.input)))
    assert found.replies == tuple(final_answer(LETTERS[order.index(j)]) for j in range(4))
    assert found.replies[found.known.correct] == final_answer(str(sample.target).strip("()"))


def test_a_users_message_alone_is_found_by_its_text() -> None:
    record = RECORDS[4]  # asked after 169 messages
    found = QUESTIONS.find(asked(record.question, 169))
    assert found.known.end_index == 169 and found.known.decay_steps == 1
    assert found.replies == record.options.bodies()  # an open answer names no letter


def test_a_text_asked_over_several_histories_is_told_apart_by_its_end_index() -> None:
    first, second = Known(("a",), 0, 0, 10), Known(("b",), 0, 0, 20)
    assert _open_answer([first, second], 20) is second
    assert _open_answer([first, second], 10) is first
    assert _open_answer([first, second], 0) is first  # no history: the first


def test_a_prompt_holding_no_question_of_the_file_is_named() -> None:
    with pytest.raises(PersonaMemArgumentError) as info:
        QUESTIONS.find(asked("What is the weather like?"))
    assert str(info.value) == (
        f"personamem/oracle: the last user message holds no question of {EXCERPT} with its "
        "four options (it begins 'What is the weather like?'); point -M questions at the "
        "file the task reads"
    )


def test_a_question_shown_without_its_four_options_is_not_found() -> None:
    text = f"{RECORDS[0].question}\n\n{INSTRUCTION}\n\n['(a) one', '(b) two']"
    with pytest.raises(PersonaMemArgumentError, match="holds no question of"):
        QUESTIONS.find(asked(text))


def test_an_options_text_is_sought_as_is_and_escaped_in_either_literal() -> None:
    assert _option_forms('it\'s "x"\nnew') == (
        'it\'s "x"\nnew',
        'it\'s \\"x\\"\\nnew',
        'it\\\'s "x"\\nnew',
    )


def test_the_floor_reads_the_official_final_message() -> None:
    sample = build_dataset(RECORDS, "x", None)[0]
    prompt = choice_prompt(asked(str(sample.input), 3))
    assert prompt is not None
    assert prompt.question == RECORDS[0].question
    assert prompt.options == RECORDS[0].options.bodies()
    assert prompt.messages == 1
    assert prompt.replies == tuple(final_answer(x) for x in "abcd")


def test_the_floor_reads_nothing_without_the_instruction_and_names_bad_options() -> None:
    assert choice_prompt(asked("just a message")) is None
    with pytest.raises(PersonaMemArgumentError) as info:
        choice_prompt(asked(f"q\n\n{INSTRUCTION}\n\n['(a) x', '(b) y', '(c) z']"))
    assert str(info.value) == "the options cannot be read (expected 4 options, found 3)"
