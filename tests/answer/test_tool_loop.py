"""The model's turns with the history's tools: within the budget, then made to answer;
a model that calls tools wrongly or too often counted, one an Inspect limit stops
between its calls not scored."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest
from inspect_ai.event import ModelEvent
from inspect_ai.log import EvalLog, EvalSample, resolve_sample_attachments
from inspect_ai.model import ChatMessage, ChatMessageAssistant, ChatMessageTool
from inspect_ai.tool import ToolChoice, ToolInfo
from support.helpers import Turn, mock_model, run_task, tool_calling_model

from inspect_personamem.scoring.scorer import UNANSWERED

TASK = "inspect_personamem/personamem_32k"
ANSWER = "<final_answer>(a)"


def run(data: Path, log_dir: Path, turn: Turn, **arguments: Any) -> EvalLog:
    """A tools run of the first three questions of `data` with the model `turn` makes."""
    eval_args = {k: arguments.pop(k) for k in ("message_limit",) if k in arguments}
    return run_task(
        TASK,
        tool_calling_model(turn),
        log_dir,
        {"data_dir": str(data), "history": "tools", **arguments},
        limit=3,
        **eval_args,
    )


def samples(log: EvalLog) -> list[EvalSample]:
    assert log.status == "success", log.error
    assert log.samples
    return [resolve_sample_attachments(sample) for sample in log.samples]


def metrics(log: EvalLog) -> dict[str, Any]:
    assert log.results is not None
    return {name: m.value for name, m in log.results.scores[0].metrics.items()}


def turns(log: EvalLog) -> list[list[list[ChatMessage]]]:
    """Per sample, what the model was sent in each of its turns."""
    return [
        [event.input for event in sample.events if isinstance(event, ModelEvent)]
        for sample in samples(log)
    ]


def always_searching(
    messages: list[ChatMessage], tools: list[ToolInfo], tool_choice: ToolChoice
) -> list[tuple[str, Any]]:
    """Calls a tool in every turn, whatever it is told."""
    return [("search_history", {"query": "garden"})]


@pytest.mark.slow  # an end-to-end run
def test_a_model_calling_more_often_than_the_budget_is_made_to_answer_and_counted(
    small_split: Path, tmp_path: Path
) -> None:
    def obeying(
        messages: list[ChatMessage], tools: list[ToolInfo], tool_choice: ToolChoice
    ) -> str | list[tuple[str, Any]]:
        return ANSWER if tool_choice == "none" else [("search_history", {"query": "garden"})]

    log = run(small_split, tmp_path, obeying, tool_budget=3)
    for sample, sent in zip(samples(log), turns(log), strict=True):
        assert len(sent) == 4  # three turns with a call each, then one told to answer
        record = sample.metadata["tools"]
        assert (record["asked"], record["errors"], record["finished"]) == (3, 0, True)
        assert sample.output.completion == ANSWER
    values = metrics(log)
    assert (values["tool_calls"], values["tool_budget_spent"], values["tool_errors"]) == (3, 1, 0)
    assert values["unparsed"] == 0


@pytest.mark.slow  # an end-to-end run
def test_a_model_that_calls_tools_when_told_to_answer_is_scored_on_what_it_wrote(
    small_split: Path, tmp_path: Path
) -> None:
    log = run(small_split, tmp_path, always_searching, tool_budget=2)
    for sample in samples(log):
        record = sample.metadata["tools"]
        assert (record["asked"], record["errors"], record["finished"]) == (3, 1, True)
        assert sample.scores is not None
        score = sample.scores["personamem_scorer"]
        assert score.value == "I" and score.metadata is not None
        assert score.metadata["status"] == "none"  # no letter read: unparsed, not unscored
    assert metrics(log)["unparsed"] == 1


@pytest.mark.slow  # an end-to-end run
def test_calls_past_the_budget_in_one_turn_are_refused(small_split: Path, tmp_path: Path) -> None:
    def greedy(
        messages: list[ChatMessage], tools: list[ToolInfo], tool_choice: ToolChoice
    ) -> str | list[tuple[str, Any]]:
        if any(isinstance(m, ChatMessageTool) for m in messages):
            return ANSWER
        return [("read_history", {"first": 0, "last": p}) for p in range(5)]

    log = run(small_split, tmp_path, greedy, tool_budget=3)
    for sample in samples(log):
        results = [m for m in sample.messages if isinstance(m, ChatMessageTool)]
        assert [m.error is None for m in results] == [True, True, True, False, False]
        assert all(
            m.error is not None and "budget of 3 tool calls is spent" in m.error.message
            for m in results[3:]
        )
        record = sample.metadata["tools"]
        assert (record["asked"], record["errors"], record["finished"]) == (5, 2, True)


@pytest.mark.slow  # an end-to-end run
def test_malformed_calls_are_answered_with_an_error_and_counted(
    small_split: Path, tmp_path: Path
) -> None:
    def clumsy(
        messages: list[ChatMessage], tools: list[ToolInfo], tool_choice: ToolChoice
    ) -> str | list[tuple[str, Any]]:
        if any(isinstance(m, ChatMessageTool) for m in messages):
            return ANSWER
        return [
            ("read_history", {"first": "the start", "last": 3}),
            ("read_history", {"first": 0}),
            ("forget_history", {}),
            ("read_history", {"first": 0, "last": 0}),
        ]

    log = run(small_split, tmp_path, clumsy)
    for sample in samples(log):
        results = [m for m in sample.messages if isinstance(m, ChatMessageTool)]
        assert [m.error is None for m in results] == [False, False, False, True]
        record = sample.metadata["tools"]
        assert (record["asked"], record["errors"], len(record["calls"])) == (4, 3, 1)
    assert metrics(log)["tool_errors"] == 9


@pytest.mark.slow  # an end-to-end run
def test_a_question_a_limit_stops_between_tool_calls_is_not_scored(
    small_split: Path, tmp_path: Path
) -> None:
    log = run(small_split, tmp_path, always_searching, message_limit=4)
    for sample in samples(log):
        assert sample.limit is not None and sample.limit.type == "message"
        assert sample.metadata["tools"]["finished"] is False
        assert sample.scores is not None
        score = sample.scores["personamem_scorer"]
        assert isinstance(score.value, float) and math.isnan(score.value)
        assert score.metadata == {"status": UNANSWERED}


def test_the_log_keeps_the_question_the_calls_their_results_and_the_reply(
    small_split: Path, tmp_path: Path
) -> None:
    """No history is sent: the model's first turn is the question alone, and no system
    line is added; what the tools returned is in the logged conversation."""

    def reading(
        messages: list[ChatMessage], tools: list[ToolInfo], tool_choice: ToolChoice
    ) -> str | list[tuple[str, Any]]:
        if any(isinstance(m, ChatMessageTool) for m in messages):
            return ANSWER
        return [("read_history", {"first": 0, "last": 1})]

    log = run(small_split, tmp_path, reading)
    for sample, sent in zip(samples(log), turns(log), strict=True):
        assert [m.role for m in sent[0]] == ["user"] and sent[0][0].text == sample.input
        assert [m.role for m in sample.messages] == ["user", "assistant", "tool", "assistant"]
        call = sample.messages[1]
        assert isinstance(call, ChatMessageAssistant) and call.tool_calls
        assert sample.messages[2].text.startswith("Messages 0 to 1 ")
        assert sample.metadata["tools"]["chars_read"] == len(sample.messages[2].text)
        assert sample.messages[-1].text == ANSWER
    read = [sample.metadata["tools"]["chars_read"] for sample in samples(log)]
    assert metrics(log)["tool_chars_read"] == sum(read) / len(read)


@pytest.mark.parametrize("answer", ["choice", "open"])
@pytest.mark.slow  # an end-to-end run
def test_a_model_that_calls_no_tool_answers_as_without_history(
    small_split: Path, tmp_path: Path, answer: str
) -> None:
    def answering(
        messages: list[ChatMessage], tools: list[ToolInfo], tool_choice: ToolChoice
    ) -> str:
        assert {tool.name for tool in tools} >= {"search_history", "read_history"}
        return ANSWER

    grader = mock_model(lambda messages: "Candidate 1 <final>1</final>", "mockllm/grader")
    log = run_task(
        TASK,
        tool_calling_model(answering),
        tmp_path,
        {"data_dir": str(small_split), "history": "tools", "answer": answer},
        limit=3,
        model_roles={"grader": grader},
    )
    for sample in samples(log):
        record = sample.metadata["tools"]
        assert (record["asked"], record["finished"]) == (0, True)
        assert sample.metadata["retrieval"]["status"] in ("missed", "not_located")
    values = metrics(log)
    assert values["tool_calls"] == 0 and values["evidence_found"] == 0
