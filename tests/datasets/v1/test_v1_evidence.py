"""Where a v1 question's evidence lies: the session of the message at its token distance,
else `distance_to_ref_in_blocks - 1` sessions before its own; a bad token field stops
only a run that reads it."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
from inspect_ai.model import ChatMessage, ChatMessageAssistant, ChatMessageSystem, ChatMessageUser
from support.evidence import located

from inspect_personamem.data.contexts import session_starts
from inspect_personamem.datasets.registry import VERSIONS
from inspect_personamem.datasets.v1.evidence import (
    TokenDistance,
    check_token_fields,
    locate_evidence,
    token_distance,
)
from inspect_personamem.datasets.v1.generator import write_questions
from inspect_personamem.datasets.v1.records import read_questions
from inspect_personamem.errors import PersonaMemDataError
from inspect_personamem.run.arguments import all_arguments, checked_settings


def history(*lengths: int, lead: int = 0) -> list[ChatMessage]:
    """Sessions of the given lengths (each a persona system message and turns), after
    `lead` messages outside any session."""
    messages: list[ChatMessage] = [ChatMessageUser(content=f"lead {i}") for i in range(lead)]
    for number, length in enumerate(lengths):
        messages.append(ChatMessageSystem(content=f"Current user persona: {number}"))
        for turn in range(length - 1):
            role = ChatMessageUser if turn % 2 == 0 else ChatMessageAssistant
            messages.append(role(content=f"session {number} turn {turn}"))
    return messages


def roles(messages: list[ChatMessage]) -> list[str]:
    return [message.role for message in messages]


def counted(messages: list[ChatMessage], at: int, per_token: int = 4) -> TokenDistance:
    """Token fields as the authors count them, `per_token` letters a token (question
    left out): the history's contents joined by spaces, and from message `at` on."""
    joined = " ".join(message.text for message in messages)
    before = len(" ".join(message.text for message in messages[:at]))
    tokens = len(joined) // per_token
    return TokenDistance(tokens, len(joined), tokens - before // per_token)


def test_sessions_open_at_each_system_message() -> None:
    assert session_starts(roles(history(3, 4, 2))) == [0, 3, 7]
    assert session_starts(roles(history(3, 4, lead=2))) == [0, 2, 5]


def test_the_token_walk_finds_the_session_of_the_message_at_the_distance() -> None:
    messages = history(3, 4, 5, 6)[:15]  # sessions open at 0, 3, 7, 12
    for at, span in ((1, (0, 3)), (4, (3, 7)), (9, (7, 12)), (13, (12, 15))):
        found = locate_evidence(messages, 2, counted(messages, at))
        assert found.rule == "tokens" and found.spans == (span,), found.where
        assert list(found.shown) == messages[span[0] : span[1]]
        assert f"message {at}," in found.where
    # the token distance wins where the blocks say otherwise (3 of 270 real questions)
    assert locate_evidence(messages, 9, counted(messages, 4)).spans == ((3, 7),)


def test_the_walk_takes_the_message_starting_nearest_the_distance() -> None:
    """The character proxy is approximate: a message is found from a distance a few
    characters either side of where it starts."""
    messages = history(3, 4, 5)
    exact = counted(messages, 7, per_token=1)
    for off in (-5, 5):
        near = TokenDistance(exact.tokens, exact.letters, exact.distance + off)
        found = locate_evidence(messages, 1, near)
        assert "message 7," in found.where and found.spans == ((7, 12),)


def test_the_walk_scales_tokens_by_the_rows_letters_per_token() -> None:
    messages = history(4, 4, 4)
    for per_token in (1, 3, 5):
        found = locate_evidence(messages, 1, counted(messages, 5, per_token))
        assert found.spans == ((4, 8),) and "message 5," in found.where


def test_without_token_fields_the_evidence_is_d_minus_1_sessions_back() -> None:
    messages = history(3, 4, 5, 6)[:15]
    for blocks, span in ((1, (12, 15)), (2, (7, 12)), (4, (0, 3))):
        found = locate_evidence(messages, blocks, None)
        assert found.rule == "sessions" and found.spans == (span,), found.where
        assert "token fields missing" in found.where
    # the question's own session is the last to open before its end index
    assert locate_evidence(messages[:13], 2, None).spans == ((7, 12),)
    assert locate_evidence(messages[:12], 2, None).spans == ((3, 7),)


@pytest.mark.parametrize(
    ("tokens", "why"),
    [
        (TokenDistance(100, 10, 50), "context_length_in_letters 10 is not the history's"),
        (TokenDistance(100, 0, 50), "context_length_in_letters 0 is not the history's"),
        (TokenDistance(100, 10, 101), "distance_to_ref_in_tokens 101 is not within"),
        (TokenDistance(100, 10, 0), "distance_to_ref_in_tokens 0 is not within"),
        (TokenDistance(0, 10, 0), "distance_to_ref_in_tokens 0 is not within"),
    ],
)
def test_token_fields_that_do_not_fit_the_history_fall_back_to_sessions(
    tokens: TokenDistance, why: str
) -> None:
    messages = history(3, 4, 5)
    found = locate_evidence(messages, 2, tokens)
    assert found.rule == "sessions" and found.spans == ((3, 7),)
    assert why in found.where


def test_letters_within_a_hundredth_of_the_history_are_read() -> None:
    messages = history(3, 4, 5)
    exact = counted(messages, 4, per_token=1)
    close = TokenDistance(exact.tokens, exact.letters + exact.letters // 200, exact.distance)
    assert locate_evidence(messages, 9, close).rule == "tokens"


def test_a_distance_past_the_first_session_is_not_located() -> None:
    messages = history(3, 4, 5)
    for blocks in (4, 0, -1):
        missing = locate_evidence(messages, blocks, None)
        assert not missing.located and missing.shown == ()
        assert "not located (token fields missing)" in missing.where
        assert "session 3, which has 2 before it" in missing.where
    assert locate_evidence(messages, 3, None).spans == ((0, 3),)
    nothing = locate_evidence([], 1, TokenDistance(10, 10, 5))
    assert not nothing.located and nothing.where == "no history before the question"


def test_the_record_names_the_rule() -> None:
    messages = history(3, 4)
    assert locate_evidence(messages, 1, None).record()["rule"] == "sessions"
    assert locate_evidence(messages, 1, counted(messages, 1)).record()["rule"] == "tokens"


def test_token_fields_are_read_only_where_all_three_are_integers() -> None:
    columns = {
        "context_length_in_tokens": 100,
        "context_length_in_letters": 450,
        "distance_to_ref_in_tokens": 40,
    }
    assert token_distance(columns) == TokenDistance(100, 450, 40)
    for field in columns:
        assert token_distance({**columns, field: ""}) is None


def excerpt_with(tmp_path: Path, field: str, value: str) -> tuple[Path, str]:
    """The excerpt's rows as a 32k question file, row 4's `field` set to `value`."""
    from support.helpers import EXCERPT

    with EXCERPT.open(encoding="utf-8", newline="") as file:
        rows = list(csv.DictReader(file))
    rows[3][field] = value
    path = tmp_path / "questions_32k.csv"
    write_questions(path, rows)
    return path, rows[3]["question_id"]


@pytest.mark.parametrize(
    "field", ["context_length_in_tokens", "context_length_in_letters", "distance_to_ref_in_tokens"]
)
def test_a_bad_token_field_stops_a_run_that_reads_evidence_naming_it(
    tmp_path: Path, field: str
) -> None:
    path, question_id = excerpt_with(tmp_path, field, "12k")
    records = read_questions(path, "32k")  # read, not yet checked
    with pytest.raises(PersonaMemDataError) as info:
        check_token_fields(records)
    text = str(info.value)
    assert "\n" not in text
    assert text.startswith(f"{path}, line 5, question_id {question_id}, field '{field}'")
    assert "expected an integer, found '12k'" in text
    # an empty cell is missing, not bad: that question falls back to sessions
    path, _ = excerpt_with(tmp_path, field, "")
    check_token_fields(read_questions(path, "32k"))


def test_a_run_stops_on_a_bad_token_field_only_where_it_reads_evidence(
    tmp_path: Path, small_split: Path
) -> None:
    """The evidence run stops before any sample; a full-history run never reads it."""
    version = VERSIONS["v1"]
    [questions] = small_split.glob("questions_*.csv")
    with questions.open(encoding="utf-8", newline="") as file:
        rows = list(csv.DictReader(file))
    rows[2]["distance_to_ref_in_tokens"] = "n/a"
    write_questions(questions, rows)
    with pytest.raises(PersonaMemDataError, match="field 'distance_to_ref_in_tokens'"):
        located("v1", small_split)
    arguments = all_arguments({"data_dir": str(small_split), "history": "full"}, {}, version)
    settings = checked_settings(arguments, version)
    loaded = version.load(arguments, True)
    assert len(version.dataset(loaded.questions, loaded, settings)) == len(rows)
    # the questions whose fields are read are located by their tokens, the other not
    rows[2]["distance_to_ref_in_tokens"] = ""
    write_questions(questions, rows)
    rules = {
        sample_id: evidence.rule for sample_id, (_, evidence) in located("v1", small_split).items()
    }
    assert rules.pop(rows[2]["question_id"]) == "sessions"
    assert set(rules.values()) == {"tokens"}
