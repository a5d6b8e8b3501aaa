"""End-to-end `inspect eval` runs with mockllm, offline."""

from __future__ import annotations

import csv
import logging
import os
import re
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import pytest
from inspect_ai import eval_retry
from inspect_ai.log import EvalLog, EvalSample
from inspect_ai.model import ChatMessage, get_model
from inspect_ai.scorer import Score
from support.helpers import (
    DISPLAY,
    REAL_QUESTIONS,
    REFERENCE_RESPONSES,
    mock_model,
    require,
    run_task,
)

from inspect_personamem.datasets.v1.contexts import ContextStore
from inspect_personamem.datasets.v1.generator import (
    contexts_for_questions,
    generate_split,
    write_contexts,
)
from inspect_personamem.datasets.v1.question_types import normalise_question_type
from inspect_personamem.datasets.v1.records import read_questions
from inspect_personamem.errors import PersonaMemArgumentError
from inspect_personamem.history.system_messages import conversation
from inspect_personamem.run.tasks import TASKS

TASK = "inspect_personamem/personamem_32k"


def score_of(sample: EvalSample) -> Score:
    assert sample.scores is not None
    return sample.scores["personamem_scorer"]


def metrics(log: EvalLog) -> dict[str, float]:
    assert log.status == "success", log.error
    assert log.results is not None
    return {name: m.value for name, m in log.results.scores[0].metrics.items()}


class Recorder:
    """A reply function that answers (c) and keeps what it was sent."""

    def __init__(self, answer: str = "<final_answer>(c)") -> None:
        self.answer = answer
        self.sent: dict[str, list[ChatMessage]] = {}

    def __call__(self, messages: list[ChatMessage]) -> str:
        self.sent[messages[-1].text] = messages
        return self.answer


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("history", "Full"),
        ("system_messages", "kep"),
        ("negative_end_index", "skipp"),
        ("order", "fille"),
        ("answer", "loglik"),
        ("normalization", "token"),
        ("shuffle", "3"),
        ("keep_history_in_log", "yes"),
        ("option_batch_size", 2.5),
    ],
)
def test_a_misspelt_parameter_fails_naming_it(small_split: Path, name: str, value: object) -> None:

    with pytest.raises(ValueError, match=f"parameter {name}={value!r}"):
        TASKS["personamem_32k"](data_dir=str(small_split), **{name: value})


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("option_batch_size", 0, "option_batch_size=0: must be at least 1"),
        ("prefill_chunk", 0, "prefill_chunk=0: must be at least 1"),
        ("context_window", 0, "context_window=0: must be at least 1 (leave it out for the"),
        ("interleave_block", -1, "interleave_block=-1: must be at least 0"),
        ("data_dir", 12, "data_dir=12: a string needed"),
    ],
)
def test_an_out_of_range_parameter_fails_before_any_sample(
    small_split: Path, tmp_path: Path, name: str, value: object, message: str
) -> None:
    task_args = {"data_dir": str(small_split), "answer": "logprob", name: value}
    if name == "data_dir":
        task_args["answer"] = "choice"
    with pytest.raises(PersonaMemArgumentError, match=re.escape(message)):
        run_task(TASK, mock_model(Recorder()), tmp_path / "logs", task_args)
    assert not (tmp_path / "logs").exists()  # stopped before a log was started


def test_an_unknown_argument_is_an_error_naming_the_one_meant(
    small_split: Path, tmp_path: Path
) -> None:
    """Inspect drops an argument the signature lacks with a warning; the task sees it."""
    with pytest.raises(PersonaMemArgumentError) as info:
        run_task(
            TASK,
            mock_model(Recorder()),
            tmp_path,
            {"data_dir": str(small_split), "histroy": "none"},
        )
    assert str(info.value).startswith(
        "PersonaMem task has no parameter histroy='none' (did you mean history?). "
        "Its parameters: split, data_dir,"
    )
    with pytest.raises(PersonaMemArgumentError, match="personamem_32k runs split=32k: leave out"):
        run_task(TASK, mock_model(Recorder()), tmp_path, {"split": "128k"})
    with pytest.raises(PersonaMemArgumentError) as gone:  # task version 1's parameter
        run_task(TASK, mock_model(Recorder()), tmp_path, {"method": "rag"})
    assert "method is gone (task version 2)" in str(gone.value)
    assert "method=logprob is -T answer=logprob; method=rag is -T history=rag" in str(gone.value)


@pytest.mark.slow  # a process of its own
def test_the_inspect_command_prints_a_deliberate_error_alone(
    small_split: Path, tmp_path: Path
) -> None:
    """No traceback: Inspect's command prints a PrerequisiteError as its message; rich
    markup-like text (`[messages]`) survives; no sample runs, no log is written."""
    line = (small_split / "shared_contexts_32k.jsonl").read_text(encoding="utf-8").split("\n")[0]
    (small_split / "shared_contexts_32k.jsonl").write_text(
        line.replace("[", '[], "extra": [', 1) + "\n", encoding="utf-8"
    )
    result = subprocess.run(
        [
            str(Path(sys.executable).parent / "inspect"), "eval", TASK, "--model", "mockllm/model",
            "-T", f"data_dir={small_split}", "--log-dir", str(tmp_path / "logs"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "COLUMNS": "1000"},
    )  # fmt: skip
    output = result.stdout + result.stderr
    assert result.returncode == 1
    assert "Traceback" not in output and "File " not in output
    assert "expected a single-key object {context_id: [messages]}, found keys" in output
    assert "field 'shared_context_id': its shared context cannot be read" in output
    assert not (tmp_path / "logs").exists()


@pytest.mark.slow  # a run and its retry
def test_a_relative_path_is_named_in_a_warning_and_the_log_retries_from_its_folder(
    small_split: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Inspect logs the task arguments as given, and `eval-retry` creates the task from
    them (no public Inspect API lets a task change what is logged): a relative folder is
    named in a warning, the run's `data_source` is absolute, and the log retries from
    the folder it was made in."""
    monkeypatch.chdir(small_split.parent)
    oracle = get_model("personamem/oracle", questions=str(small_split / "questions_32k.csv"))
    with caplog.at_level(logging.WARNING):
        log = run_task(TASK, oracle, tmp_path / "logs", {"data_dir": small_split.name}, limit=4)
    assert log.status == "success", log.error
    assert log.eval.task_args_passed == {"data_dir": small_split.name}
    assert (log.eval.metadata or {})["data_source"] == f"local folder {small_split.resolve()}"
    warned = [r.getMessage() for r in caplog.records if "relative to" in r.getMessage()]
    assert warned and f"data_dir={small_split.name}: relative to {small_split.parent}" in warned[0]
    assert log.location
    (retried,) = eval_retry(log.location, log_dir=str(tmp_path / "retried"), display=DISPLAY)
    assert retried.status == "success", retried.error
    assert retried.samples is not None and len(retried.samples) == 4  # the run's limit


def test_unknown_split_fails_naming_the_choices(small_split: Path) -> None:

    with pytest.raises(ValueError, match="split='64k': choose one of 32k, 128k, 1M"):
        TASKS["personamem"](split="64k", data_dir=str(small_split))


@pytest.fixture(scope="module")
def split(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The `small_split` data, made once for the tests of this module that only read it."""
    folder = tmp_path_factory.mktemp("split") / "data"
    generate_split(folder, "32k", contexts=3, min_messages=30, max_messages=60, questions=24)
    return folder


@pytest.fixture(scope="module")
def default_run(split: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[EvalLog, Recorder]:
    """A run with every parameter at its default (system_messages=keep), once, and what
    its model was sent."""
    recorder = Recorder("Let me think. <final_answer>(c)</final_answer>")
    logs = tmp_path_factory.mktemp("logs")
    log = run_task(TASK, mock_model(recorder), logs, {"data_dir": str(split)})
    return log, recorder


@pytest.mark.parametrize(  # the default's run is read by other tests too: the fast one
    "policy", ["keep", pytest.param("merge", marks=pytest.mark.slow),
               pytest.param("drop", marks=pytest.mark.slow)]
)  # fmt: skip
def test_history_joined_at_solve_time_under_each_policy(
    split: Path, tmp_path: Path, policy: str, default_run: tuple[EvalLog, Recorder]
) -> None:
    if policy == "keep":  # the default
        log, recorder = default_run
    else:
        recorder = Recorder()
        log = run_task(
            TASK, mock_model(recorder), tmp_path / "logs",
            {"data_dir": str(split), "system_messages": policy},
        )  # fmt: skip
    records = {r.question_id: r for r in read_questions(split / "questions_32k.csv", "32k")}
    store = ContextStore(split / "shared_contexts_32k.jsonl")
    assert log.samples is not None and len(log.samples) == 24
    for sample in log.samples:
        record = records[str(sample.id)]
        question = sample.messages[0]
        expected = conversation(
            store.history(record.context_id, record.end_index),
            [question],
            policy,  # type: ignore[arg-type]
        )
        sent = [m for m in recorder.sent.values() if m[-1].text == expected[-1].text]
        assert len(sent) == 1
        assert [(m.role, m.text) for m in sent[0]] == [(m.role, m.text) for m in expected]
        # the history is gone from the logged state: question and reply only
        assert [m.role for m in sample.messages] == ["user", "assistant"]
        assert sample.input == question.text
    if policy != "keep":
        assert all(m.role != "system" for sent in recorder.sent.values() for m in sent)


@pytest.mark.slow  # an end-to-end run
def test_keep_history_in_log_leaves_it_in_the_messages(small_split: Path, tmp_path: Path) -> None:
    log = run_task(
        "inspect_personamem/personamem_32k",
        mock_model(Recorder()),
        tmp_path / "logs",
        {"data_dir": str(small_split), "keep_history_in_log": True},
        limit=3,
    )
    assert log.samples is not None
    for sample in log.samples:
        end = (sample.metadata or {})["end_index_in_shared_context"]
        assert len(sample.messages) == end + 2


@pytest.mark.slow  # an end-to-end run
def test_no_history_sends_the_question_alone(small_split: Path, tmp_path: Path) -> None:
    recorder = Recorder()
    log = run_task(
        "inspect_personamem/personamem",
        mock_model(recorder),
        tmp_path / "logs",
        {"split": "32k", "data_dir": str(small_split), "history": "none"},
    )
    metrics(log)
    assert len(recorder.sent) == 24
    assert all(len(messages) == 1 for messages in recorder.sent.values())


def test_metric_values_match_a_recomputation(
    split: Path, default_run: tuple[EvalLog, Recorder]
) -> None:
    records = read_questions(split / "questions_32k.csv", "32k")
    log, _ = default_run  # every reply: "Let me think. <final_answer>(c)</final_answer>"
    values = metrics(log)
    correct = [r.correct_letter == "c" for r in records]
    assert values["accuracy"] == pytest.approx(sum(correct) / len(records))
    assert values["unparsed"] == 0
    by_category: dict[str, list[bool]] = defaultdict(list)
    for record, ok in zip(records, correct, strict=True):
        by_category[record.category].append(ok)
    for category, oks in by_category.items():
        assert values[f"category_{category}"] == pytest.approx(sum(oks) / len(oks))
    assert values["category_macro"] == pytest.approx(
        sum(sum(oks) / len(oks) for oks in by_category.values()) / len(by_category)
    )
    assert log.samples is not None
    assert {score_of(s).answer for s in log.samples} == {"(c)"}


@pytest.mark.slow  # an end-to-end run
def test_unanswered_and_ambiguous_replies_count_as_incorrect(
    small_split: Path, tmp_path: Path
) -> None:
    replies = iter(["I cannot say.", "(a) or (b)"] * 3)
    log = run_task(
        "inspect_personamem/personamem_32k",
        mock_model(lambda messages: next(replies)),
        tmp_path / "logs",
        {"data_dir": str(small_split)},
        max_samples=1,
        limit=6,
    )
    values = metrics(log)
    assert values["accuracy"] == 0 and values["unparsed"] == 1
    assert log.samples is not None
    statuses = [(score_of(s).metadata or {})["status"] for s in log.samples]
    assert sorted(statuses) == ["multiple"] * 3 + ["none"] * 3


@pytest.mark.slow  # an end-to-end run
def test_shuffled_options_are_scored_against_the_remapped_target(
    small_split: Path, tmp_path: Path
) -> None:
    records = {r.question: r for r in read_questions(small_split / "questions_32k.csv", "32k")}

    def knows_the_answer(messages: list[ChatMessage]) -> str:
        text = messages[-1].text
        record = records[text.split("\n\n", 1)[0]]
        body = record.options.bodies()["abcd".index(record.correct_letter)]
        for letter in "abcd":
            if f"({letter}) {body}" in text:
                return f"<final_answer>({letter})"
        raise AssertionError("correct option not shown")

    log = run_task(
        "inspect_personamem/personamem_32k",
        mock_model(knows_the_answer),
        tmp_path / "logs",
        {"data_dir": str(small_split), "shuffle": 11},
    )
    assert metrics(log)["accuracy"] == 1.0
    assert log.samples is not None
    moved = [
        s
        for s in log.samples
        if s.target != f"({records[str(s.input).split(chr(10))[0]].correct_letter})"
    ]
    assert moved  # the shuffle did change targets


@pytest.mark.slow
def test_all_real_32k_questions_score_as_the_official_run(tmp_path: Path) -> None:
    """The 589 real questions over generated contexts, answered with a real model's
    responses: every sample scores as the official script scored it."""
    questions = require(REAL_QUESTIONS)
    with require(REFERENCE_RESPONSES).open(newline="", encoding="utf-8") as file:
        reference = {row["question_id"]: row for row in csv.DictReader(file)}
    folder = tmp_path / "data"
    folder.mkdir()
    (folder / "questions_32k.csv").write_bytes(questions.read_bytes())
    records = read_questions(questions, "32k")
    write_contexts(
        folder / "shared_contexts_32k.jsonl",
        contexts_for_questions([r.columns for r in records]),
        message_chars=40,
    )
    responses: dict[str, list[str]] = defaultdict(list)
    for record in records:
        prompt = read_prompt(record.question, str(record.columns["all_options"]))
        responses[prompt].append(reference[record.question_id]["model_response"])

    log = run_task(
        "inspect_personamem/personamem_32k",
        mock_model(lambda messages: responses[messages[-1].text].pop()),
        tmp_path / "logs",
        {"data_dir": str(folder)},
    )
    values = metrics(log)
    assert values["accuracy"] == pytest.approx(347 / 589)
    assert log.samples is not None and len(log.samples) == 589
    for sample in log.samples:
        official = reference[str(sample.id)]["score"] == "True"
        assert (score_of(sample).value == "C") == official
    by_category: dict[str, list[bool]] = defaultdict(list)
    for row in reference.values():
        by_category[normalise_question_type("32k", row["question_type"])].append(
            row["score"] == "True"
        )
    for category, oks in by_category.items():
        assert values[f"category_{category}"] == pytest.approx(sum(oks) / len(oks))


def read_prompt(question: str, options: str) -> str:
    from inspect_personamem.datasets.v1.prompt import final_user_message

    return final_user_message(question, options)
