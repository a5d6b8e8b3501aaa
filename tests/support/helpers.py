"""Test helpers: where the real data lie, offline mock models (one that replies, one
that also calls tools), running a task."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Final

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog
from inspect_ai.model import (
    ChatCompletionChoice,
    ChatMessage,
    ChatMessageAssistant,
    GenerateConfig,
    Model,
    ModelOutput,
    ModelUsage,
    get_model,
)
from inspect_ai.tool import ToolCall, ToolChoice, ToolInfo

from inspect_personamem.answer.table import ANSWERS
from inspect_personamem.datasets.registry import VERSIONS
from inspect_personamem.datasets.v2.generator import V2Shape
from inspect_personamem.history.table import HISTORIES
from inspect_personamem.parameters import Point
from inspect_personamem.run.arguments import parameters

ROOT = Path(__file__).resolve().parents[2]
"""The repository's root (README.md, tasks.yaml, benchmarks/, scripts/, docs/)."""
FIXTURES = ROOT / "tests" / "fixtures"
EXCERPT = FIXTURES / "questions_32k_excerpt.csv"
V2_ROW = FIXTURES / "personamem_v2_benchmark_row0.json"
"""Row 0 of PersonaMem-v2's benchmark subset, with the types `datasets` gave it."""
V2_ROW_CSV = FIXTURES / "personamem_v2_benchmark_row0.csv"
"""That row as `datasets` and pandas write it to CSV."""
V2_HISTORY_EXCERPT = FIXTURES / "personamem_v2_chat_history_32k_persona521.first40lines.txt"
SHARED_DATA = ROOT.parent / "shared" / "data"
REAL_QUESTIONS = SHARED_DATA / "questions_32k.csv"
REFERENCE_RESPONSES = SHARED_DATA / "reference_responses_32k.csv"

SMALL_V2 = V2Shape(
    personas=3,
    min_messages=20,
    max_messages=40,
    min_questions=2,
    max_questions=4,
    long_factor=2.0,
    message_chars=60,
)
"""A PersonaMem-v2 subset small enough for a unit test (the `small_v2` fixture's)."""

Reply = Callable[[list[ChatMessage]], str]

DISPLAY: Final = "log"
"""The display of the runs tests make: Inspect's `none` display still renders its task
table into its silenced console as each run ends (about a quarter of a small run); `log`
reports through `logging` alone (and tests/conftest.py keeps that console silent)."""


def require(path: Path) -> Path:
    """Skip the test cleanly where a file of ../shared is absent."""
    if not path.is_file():
        pytest.skip(f"{path} is not available")
    return path


def mock_model(reply: Reply, name: str = "mockllm/model") -> Model:
    """A mockllm model answering `reply(messages)`, with usage set so that it never
    reaches for tiktoken's downloadable encoding (offline)."""

    def output(
        messages: list[ChatMessage], tools: Any, tool_choice: Any, config: GenerateConfig
    ) -> ModelOutput:
        result = ModelOutput.from_content(name.split("/", 1)[1], reply(messages))
        result.usage = ModelUsage(input_tokens=len(messages), output_tokens=1, total_tokens=1)
        return result

    return get_model(name, custom_outputs=output)


Turn = Callable[[list[ChatMessage], list[ToolInfo], ToolChoice], str | list[tuple[str, Any]]]
"""A model's turn: the messages, the tools offered and the tool choice -> its reply, or
the tools it calls (name and arguments) in one message."""


def tool_calling_model(turn: Turn, name: str = "mockllm/model") -> Model:
    """A mockllm model that replies or calls tools as `turn` says, with usage set (as
    `mock_model`'s); each call's id is its place in the conversation."""

    def output(
        messages: list[ChatMessage],
        tools: list[ToolInfo],
        tool_choice: ToolChoice,
        config: GenerateConfig,
    ) -> ModelOutput:
        made = turn(messages, tools, tool_choice)
        model = name.split("/", 1)[1]
        if isinstance(made, str):
            result = ModelOutput.from_content(model, made)
        else:
            calls = [
                ToolCall(id=f"call-{len(messages)}-{i}", function=function, arguments=arguments)
                for i, (function, arguments) in enumerate(made)
            ]
            message = ChatMessageAssistant(content="", tool_calls=calls, model=model)
            result = ModelOutput(
                model=model,
                choices=[ChatCompletionChoice(message=message, stop_reason="tool_calls")],
            )
        result.usage = ModelUsage(input_tokens=len(messages), output_tokens=1, total_tokens=1)
        return result

    return get_model(name, custom_outputs=output)


def run_task(
    task: str,
    model: Model,
    log_dir: Path,
    task_args: dict[str, Any] | None = None,
    **eval_args: Any,
) -> EvalLog:
    """Run one task to completion, offline, and return its log (without the live sample
    buffer that `inspect view` reads while a run is in flight: no test reads it, and it
    costs about a fifth of a small run; shown on the `DISPLAY`)."""
    eval_args.setdefault("log_realtime", False)
    logs = inspect_eval(
        task,
        task_args=task_args or {},
        model=model,
        log_dir=str(log_dir),
        display=DISPLAY,
        **eval_args,
    )
    assert len(logs) == 1
    return logs[0]


def last_user_text(messages: Sequence[ChatMessage]) -> str:
    return messages[-1].text


def offline_env(tmp_path: Path) -> dict[str, str]:
    """The environment with every web request sent to a closed port and no tiktoken
    cache: a run that reached for the network would fail."""
    empty = tmp_path / "no-tiktoken"
    empty.mkdir(exist_ok=True)
    dead = "http://127.0.0.1:9"
    return {
        **os.environ,
        "HTTP_PROXY": dead,
        "HTTPS_PROXY": dead,
        "TIKTOKEN_CACHE_DIR": str(empty),
        "HF_HUB_OFFLINE": "1",
    }


def run_script(script: str, env: dict[str, str], **kwargs: object) -> dict[str, Any]:
    """Run `script` in a fresh interpreter (huggingface_hub reads HF_* at import) with
    `kwargs` as JSON in its first argument, in an environment without HF_* or
    PERSONAMEM_* variables but `env`; return the JSON object its last line prints."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("HF_", "PERSONAMEM_"))}
    result = subprocess.run(
        [sys.executable, "-c", script, json.dumps(kwargs)],
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return dict(json.loads(result.stdout.strip().splitlines()[-1]))


def version_prompts(key: str, **given: Any) -> dict[str, str]:
    """The fixed texts a run of dataset version `key` with these task arguments (the
    others at their defaults) sends a model (`DatasetVersion.prompts`)."""
    version = VERSIONS[key]
    settings = {name: p.default for name, p in parameters(version).items()} | given
    point = Point(HISTORIES[settings["history"]], ANSWERS[settings["answer"]])
    return version.prompts(point, settings)
