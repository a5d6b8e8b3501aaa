"""`answer=open`: the model gets the user's message alone after the history, with
every history source; a run without a grader stops before any sample."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from inspect_ai.model import ChatMessage
from support.graders import open_run
from support.helpers import mock_model, run_task

from inspect_personamem.datasets.v1.contexts import open_context_store
from inspect_personamem.datasets.v1.prompt import INSTRUCTION
from inspect_personamem.errors import PersonaMemArgumentError
from inspect_personamem.run.tasks import TASKS

INSPECT = Path(sys.executable).parent / "inspect"


@pytest.mark.parametrize(
    ("history", "extra"),
    [("full", {}), ("none", {}), ("rag", {"retriever": "bm25", "top_k": 3})],
)
@pytest.mark.slow  # an end-to-end run
def test_the_model_gets_the_user_message_alone_after_the_history(
    small_split: Path, tmp_path: Path, history: str, extra: dict[str, object]
) -> None:
    sent: list[list[ChatMessage]] = []

    def reply(messages: list[ChatMessage]) -> str:
        sent.append(messages)
        return "Sounds lovely, enjoy it."

    log = run_task(
        "inspect_personamem/personamem_32k",
        mock_model(reply),
        tmp_path,
        {"data_dir": str(small_split), "answer": "open", "history": history, **extra},
        model_roles={"grader": "personamem/oracle"},
        limit=6,
    )
    assert log.status == "success", log.error
    assert log.samples is not None and len(sent) == 6
    store = open_context_store(small_split / "shared_contexts_32k.jsonl")
    asked = {s.metadata["user_question_or_message"]: s for s in log.samples}
    for messages in sent:
        question = messages[-1].text
        sample = asked[question]  # the last message is the user's message, verbatim
        meta = sample.metadata
        assert messages[-1].role == "user"
        everything = "\n".join(m.text for m in messages)
        assert INSTRUCTION not in everything
        assert not any(option in everything for option in sample.choices or [])
        before = messages[:-1]
        if history == "full":
            context = store.history(meta["shared_context_id"], meta["end_index_in_shared_context"])
            assert [m.text for m in before] == [m.text for m in context]
        elif history == "none":
            assert before == []
    for sample in log.samples:  # the transcript keeps what the model was asked, and its reply
        assert [m.role for m in sample.messages] == ["user", "assistant"]
        assert sample.messages[0].text == sample.metadata["user_question_or_message"]


@pytest.mark.slow  # an end-to-end run
def test_with_a_memory_system_too(small_split: Path, tmp_path: Path) -> None:
    log = open_run(
        small_split,
        tmp_path,
        {"grader": "personamem/oracle"},
        history="memory",
        memory="support.memories:SpyMemory",
        limit=4,
    )
    assert log.status == "success", log.error
    assert log.results is not None and log.results.scores[0].name == "graded_scorer"


def test_grader_parameters_need_answer_open(small_split: Path) -> None:
    with pytest.raises(PersonaMemArgumentError, match="grader_calibration have no effect"):
        TASKS["personamem_32k"](data_dir=str(small_split), grader_calibration=10)


@pytest.mark.slow
def test_inspect_stops_before_any_sample_without_a_grader(
    small_split: Path, tmp_path: Path
) -> None:
    done = subprocess.run(
        [str(INSPECT), "eval", "inspect_personamem/personamem_32k", "--model",
         "personamem/oracle", "-M", f"questions={small_split / 'questions_32k.csv'}",
         "-T", f"data_dir={small_split}", "-T", "answer=open",
         "--log-dir", str(tmp_path / "logs")],
        capture_output=True, text=True, timeout=300, cwd=tmp_path,
        env={**os.environ, "COLUMNS": "1000"},
    )  # fmt: skip
    output = (done.stdout + done.stderr).strip()
    assert done.returncode != 0
    assert "no grader is bound" in output and "Traceback" not in output
    assert len(output.splitlines()) == 1, output
    assert not (tmp_path / "logs").exists()
