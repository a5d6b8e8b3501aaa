"""A question stopped by an Inspect limit before the model replied is not an answer.

It is scored with Inspect's unscored sentinel (NaN): every metric leaves it out,
Inspect counts it in `unscored_samples`, and the sample's `limit` says why.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import anyio
import pytest
from inspect_ai.log import EvalLog, EvalSample
from inspect_ai.model import (
    ChatMessage,
    GenerateConfig,
    Model,
    ModelAPI,
    ModelOutput,
    ModelUsage,
    get_model,
    get_model_info,
    modelapi,
    set_model_info,
)
from inspect_ai.scorer import CORRECT
from inspect_ai.tool import ToolChoice, ToolInfo
from support.helpers import mock_model, run_task
from support.servers.openai_chat import oracle_answers, serve_chat

from inspect_personamem.cost.prices import prices_path
from inspect_personamem.scoring.scorer import UNANSWERED

TASK = "inspect_personamem/personamem_32k"
HANG_WORD = "HANG"


@modelapi(name="personamem_test_hang")
class HangingModel(ModelAPI):
    """Answers (a) at once, except after a history of more than `hang_after` messages,
    where it waits until cancelled (a model that hangs)."""

    def __init__(
        self, model_name: str, base_url: str | None = None, api_key: str | None = None,
        config: GenerateConfig | None = None, hang_after: int = 0, **model_args: Any,
    ) -> None:  # fmt: skip
        super().__init__(model_name, base_url, api_key, [], config or GenerateConfig())
        self.hang_after = int(hang_after)

    async def generate(
        self, input: list[ChatMessage], tools: list[ToolInfo], tool_choice: ToolChoice,
        config: GenerateConfig,
    ) -> ModelOutput:  # fmt: skip
        if len(input) > self.hang_after:
            await anyio.Event().wait()
        output = ModelOutput.from_content(self.model_name, "<final_answer>(a)")
        output.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
        return output


def samples(log: EvalLog) -> list[EvalSample]:
    assert log.status == "success", log.error
    assert log.samples is not None
    return log.samples


def assert_limited_are_unscored(log: EvalLog, limit: str) -> tuple[int, int]:
    """Every sample stopped by `limit` is unscored and every other one scored; the stored
    accuracy is over the scored ones. Returns (scored, limited)."""
    scored, limited = [], []
    for sample in samples(log):
        assert sample.scores is not None
        score = sample.scores["personamem_scorer"]
        if sample.limit is not None:
            assert sample.limit.type == limit
            assert isinstance(score.value, float) and math.isnan(score.value)
            assert score.metadata == {"status": UNANSWERED}
            limited.append(sample)
        else:
            assert not (isinstance(score.value, float) and math.isnan(score.value))
            scored.append(score.value == CORRECT)
    assert log.results is not None
    results = log.results.scores[0]
    assert results.unscored_samples == len(limited)
    assert results.scored_samples == len(scored)
    if scored:
        assert results.metrics["accuracy"].value == sum(scored) / len(scored)
        assert results.metrics["unparsed"].value == 0.0
    return len(scored), len(limited)


def answer_a(messages: list[ChatMessage]) -> str:
    return "<final_answer>(a)"


@pytest.mark.slow  # an end-to-end run
def test_a_message_limit_leaves_questions_unscored(small_split: Path, tmp_path: Path) -> None:
    log = run_task(
        TASK, mock_model(answer_a), tmp_path, {"data_dir": str(small_split)}, message_limit=40
    )
    scored, limited = assert_limited_are_unscored(log, "message")
    assert scored and limited  # the split's histories are 30 to 60 messages long


@pytest.mark.slow  # waits out a ten-second time limit, once: every question at a time
def test_a_time_limit_on_a_hanging_model_leaves_questions_unscored(
    small_split: Path, tmp_path: Path
) -> None:
    """Only the hanging questions come near the limit: the others answer in under a
    second, together, where one second once left too little (and Inspect gives scoring
    half the limit)."""
    model: Model = get_model("personamem_test_hang/model", hang_after=40)
    log = run_task(
        TASK, model, tmp_path, {"data_dir": str(small_split)},
        time_limit=10, max_samples=24, max_connections=24,
    )  # fmt: skip
    scored, limited = assert_limited_are_unscored(log, "time")
    assert scored and limited


@pytest.mark.slow  # an end-to-end run
def test_a_token_limit_leaves_questions_unscored(small_split: Path, tmp_path: Path) -> None:
    def a_token_a_message(
        messages: list[ChatMessage], tools: Any, tool_choice: Any, config: GenerateConfig
    ) -> ModelOutput:
        output = ModelOutput.from_content("model", "<final_answer>(a)")
        output.usage = ModelUsage(
            input_tokens=len(messages), output_tokens=1, total_tokens=len(messages) + 1
        )
        return output

    model = get_model("mockllm/model", custom_outputs=a_token_a_message)
    log = run_task(TASK, model, tmp_path, {"data_dir": str(small_split)}, token_limit=42)
    scored, limited = assert_limited_are_unscored(log, "token")
    assert scored and limited


@pytest.mark.slow  # an end-to-end run
def test_a_cost_limit_leaves_questions_unscored(small_split: Path, tmp_path: Path) -> None:
    """Priced by the package's table (Inspect's `--model-cost-config`), a question whose
    first call costs more than `--cost-limit` is stopped as by any other limit. The
    limit is the median of the costs a run without it logged; the model, a local
    stand-in of OpenAI's API answering as the offline oracle."""
    costs = str(prices_path())
    args = {"data_dir": str(small_split)}
    with serve_chat(oracle_answers(small_split / "questions_32k.csv", 0.8)) as server:
        model = get_model("openai/gpt-4.1", base_url=server.url, api_key="stand-in")
        # Inspect keeps a priced run's costs for the process: unprice the model, as a
        # fresh process has it, whichever test ran here before
        unpriced = get_model_info("openai/gpt-4.1")
        assert unpriced is not None
        set_model_info("openai/gpt-4.1", unpriced.model_copy(update={"cost": None}))
        with pytest.raises(Exception, match="cost_limit requires cost data.*--model-cost-config"):
            run_task(TASK, model, tmp_path / "unpriced", args, cost_limit=0.01)
        priced = run_task(TASK, model, tmp_path / "priced", args, model_cost_config=costs)
        spent = [s.model_usage["openai/gpt-4.1"].total_cost or 0.0 for s in samples(priced)]
        limit = sorted(spent)[len(spent) // 2]
        log = run_task(TASK, model, tmp_path / "limited", args, model_cost_config=costs,
                       cost_limit=limit)  # fmt: skip
    scored, limited = assert_limited_are_unscored(log, "cost")
    assert limited == sum(cost > limit for cost in spent) > 0 and scored


@pytest.mark.slow  # an end-to-end run
def test_every_history_and_method_is_unscored_when_stopped(
    small_split: Path, tmp_path: Path
) -> None:
    """The rag path (retrieval, then the model) too; and with no history, nothing stops.
    (Every question alike: the first 6, two of each context, stand for all.)"""
    log = run_task(
        TASK,
        mock_model(answer_a),
        tmp_path / "rag",
        {"data_dir": str(small_split), "history": "rag", "retriever": "bm25"},
        message_limit=1,
        limit=6,
    )
    assert assert_limited_are_unscored(log, "message") == (0, 6)
    none = run_task(
        TASK, mock_model(answer_a), tmp_path / "none",
        {"data_dir": str(small_split), "history": "none"}, message_limit=2, limit=6,
    )  # fmt: skip
    assert assert_limited_are_unscored(none, "message") == (6, 0)
