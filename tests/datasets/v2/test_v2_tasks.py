"""PersonaMem-v2's tasks: what the model sees (and that no label reaches it, a
retriever or a memory), the authors' multiple-choice rule, open answers, metrics."""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

import pytest
from inspect_ai.log import EvalLog
from inspect_ai.model import ChatMessage
from support.helpers import SMALL_V2, Reply, mock_model, run_task
from support.memories import RecordingMemory

from inspect_personamem.datasets.v2.files import load_questions
from inspect_personamem.datasets.v2.generator import generate_v2
from inspect_personamem.datasets.v2.histories import HistoryStore
from inspect_personamem.datasets.v2.prompt import APPENDED_SENTENCE, OPTIONS_INTRODUCTION
from inspect_personamem.datasets.v2.spec import V2Source
from inspect_personamem.errors import PersonaMemArgumentError
from inspect_personamem.run.tasks import TASKS

TASK = "inspect_personamem/personamem_v2_32k"
QUESTIONS = Path("benchmark/text/benchmark.csv")
_OPTION = re.compile(r"^([A-D])\. (.*)$", re.MULTILINE)


def longest_option_reply(messages: list[ChatMessage]) -> str:
    """Reasons, then names the longest option in the authors' form."""
    shown = _OPTION.findall(messages[-1].text)
    letter = max(shown, key=lambda item: len(item[1]))[0]
    return f"Thinking it over.\nFinal Answer: {letter}"


def run(data: Path, log_dir: Path, reply: Reply, **task_args: object) -> EvalLog:
    log = run_task(TASK, mock_model(reply), log_dir, {"data_dir": str(data), **task_args})
    assert log.status == "success", log.error
    return log


@pytest.fixture(scope="module")
def v2(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The `small_v2` data, made once for the tests of this module that only read it."""
    folder = tmp_path_factory.mktemp("v2") / "v2"
    generate_v2(folder, shape=SMALL_V2)
    return folder


@pytest.fixture(scope="module")
def longest_run(
    v2: Path, tmp_path_factory: pytest.TempPathFactory
) -> tuple[EvalLog, list[list[ChatMessage]]]:
    """A run at the defaults, the model naming the longest option, once; what it was sent."""
    sent: list[list[ChatMessage]] = []

    def reply(messages: list[ChatMessage]) -> str:
        sent.append(messages)
        return longest_option_reply(messages)

    return run(v2, tmp_path_factory.mktemp("logs"), reply), sent


def test_the_model_sees_the_whole_history_the_query_and_the_options(
    v2: Path, longest_run: tuple[EvalLog, list[list[ChatMessage]]]
) -> None:
    log, sent = longest_run
    records = load_questions(V2Source(data_dir=v2)).records
    store = HistoryStore(V2Source(data_dir=v2), "32k")
    assert log.samples is not None and len(sent) == len(records)
    by_query = {record.query + APPENDED_SENTENCE: record for record in records}
    for messages in sent:
        *history, question, options = messages
        record = by_query[question.text]
        assert question.role == "user" and options.role == "system"
        assert [m.text for m in history] == [m.text for m in store.messages(record)]
        assert history[0].role == "system"  # the persona card, as the authors send it
        assert options.text.startswith(OPTIONS_INTRODUCTION)
        shown = [text for _, text in _OPTION.findall(options.text)]
        assert sorted(shown) == sorted([record.correct_answer, *record.incorrect_answers])


def test_scored_by_the_authors_rule(longest_run: tuple[EvalLog, list[list[ChatMessage]]]) -> None:
    log, _ = longest_run
    assert log.samples is not None and log.results is not None
    expected = [max(s.choices or [], key=len) == s.metadata["correct_answer"] for s in log.samples]
    metrics = {name: m.value for name, m in log.results.scores[0].metrics.items()}
    assert metrics["accuracy"] == pytest.approx(sum(expected) / len(expected))
    assert metrics["unparsed"] == 0.0
    assert any(name.startswith("pref_type_") for name in metrics)
    assert any(name.startswith("distance_bin_") for name in metrics)
    assert "who_self" in metrics or "who_others" in metrics
    for sample in log.samples:
        assert sample.scores is not None
        assert (sample.scores["v2_choice_scorer"].metadata or {})["pattern"] == 2  # Final Answer:


@pytest.mark.slow  # an end-to-end run
def test_answer_the_known_weakness_reads_t_and_counts_it(small_v2: Path, tmp_path: Path) -> None:
    log = run(small_v2, tmp_path, lambda messages: "Answer: the second one")
    assert log.results is not None
    metrics = {name: m.value for name, m in log.results.scores[0].metrics.items()}
    assert metrics["accuracy"] == 0.0 and metrics["unparsed"] == 1.0
    assert log.samples is not None and log.samples[0].scores is not None
    score = log.samples[0].scores["v2_choice_scorer"]
    assert score.answer == "T" and score.metadata == {
        "status": "not_an_option",
        "letter_read": "T",
        "pattern": 4,
    }


@pytest.mark.slow  # an end-to-end run
def test_options_in_a_user_message_where_asked(small_v2: Path, tmp_path: Path) -> None:
    roles: list[str] = []

    def reply(messages: list[ChatMessage]) -> str:
        roles.append(messages[-1].role)
        return longest_option_reply(messages)

    run(small_v2, tmp_path, reply, options_role="user")
    assert set(roles) == {"user"}


def test_the_order_is_seeded(small_v2: Path) -> None:
    def orders(seed: int) -> list[list[int]]:
        task = TASKS["personamem_v2_32k"](data_dir=str(small_v2), shuffle=seed)
        return [list((s.metadata or {})["option_order"]) for s in task.dataset]

    assert orders(0) == orders(0) != orders(1)
    assert {tuple(sorted(order)) for order in orders(0)} == {(0, 1, 2, 3)}


def test_refusals_are_one_line(small_v2: Path) -> None:
    with pytest.raises(PersonaMemArgumentError, match="options_role=user with merge"):
        TASKS["personamem_v2_32k"](data_dir=str(small_v2), system_messages="merge")
    with pytest.raises(PersonaMemArgumentError, match="no parameter split"):
        TASKS["personamem_v2_32k"](data_dir=str(small_v2), split="128k")
    with pytest.raises(PersonaMemArgumentError, match="runs length=32k"):
        TASKS["personamem_v2_32k"](data_dir=str(small_v2), length="128k")


def test_the_authors_rag_prompt_is_personamem_s_and_refused_before_any_data(
    tmp_path: Path,
) -> None:
    """PersonaMem-v2 offers no `memory_prompt` but the official one: `paper` is refused
    as any prompt it does not offer, before a file is looked for."""
    with pytest.raises(PersonaMemArgumentError, match="memory_prompt='paper': .* offers official$"):
        TASKS["personamem_v2_32k"](
            data_dir=str(tmp_path / "none"), history="rag", retriever="bm25", memory_prompt="paper"
        )


MARKED_TEXT = (
    "short_persona", "preference", "topic_query", "topic_preference",
    "conversation_scenario", "pref_type", "raw_persona_file", "prev_pref",
)  # fmt: skip
MARKED_NUMBERS = ("total_", "distance_", "num_")


def with_label_markers(folder: Path) -> None:
    """Rewrite the question file with a marker in every label column that can hold one:
    text and JSON a `LABELMARK` word, numbers one beginning 98765 (found nowhere else).
    (`who`, `updated` and `sensitive_info` take two values each: nothing to mark.)"""
    path = folder / QUESTIONS
    with path.open(newline="", encoding="utf-8") as file:
        rows = list(csv.DictReader(file))
    columns = list(rows[0])
    numbers = [column for column in columns if column.startswith(MARKED_NUMBERS)]
    for index, row in enumerate(rows):
        row |= {column: f"LABELMARK{column}{index}" for column in MARKED_TEXT}
        row["expanded_persona"] = json.dumps({"marker": f"LABELMARKexpanded{index}"})
        row["related_conversation_snippet"] = json.dumps(
            [{"role": "user", "content": f"LABELMARKsnippet{index}"}]
        )
        row |= {c: str(987_650_000 + index * 100 + n) for n, c in enumerate(numbers)}
    with path.open("w", newline="", encoding="utf-8") as file:
        writer = csv.DictWriter(file, columns, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)


@pytest.mark.slow  # an end-to-end run
@pytest.mark.parametrize(
    "history",
    [
        {"history": "full"},
        {"history": "none"},
        {"history": "evidence"},
        {"history": "rag", "retriever": "bm25"},
        {"history": "memory", "memory": "support.memories:RecordingMemory"},
    ],  # fmt: skip
)
@pytest.mark.parametrize("answer", ["choice", "open"])
def test_no_label_reaches_the_model_a_retriever_or_a_memory(
    small_v2: Path, tmp_path: Path, history: dict[str, str], answer: str
) -> None:
    with_label_markers(small_v2)
    RecordingMemory.texts, RecordingMemory.added = [], {}
    seen: list[str] = []

    def reply(messages: list[ChatMessage]) -> str:
        seen.extend(m.text for m in messages)
        return longest_option_reply(messages) if answer == "choice" else "Sure."

    task_args: dict[str, object] = {"data_dir": str(small_v2), "answer": answer, **history}
    if answer == "open":
        task_args |= {"grader": "self", "grader_calibration": 0}
    log = run_task(TASK, mock_model(reply), tmp_path, task_args)
    assert log.status == "success", log.error
    # (with answer=open the model also grades itself: its grader prompt is in `seen`)
    text = "\n".join(seen + RecordingMemory.texts)
    if history["history"] == "evidence":  # the one setting that shows a label: the snippet
        snippets = re.findall(r"LABELMARKsnippet\d+", text)
        assert len(set(snippets)) == len(log.samples or [])
        text = re.sub(r"LABELMARKsnippet\d+", "", text)
    assert "LABELMARK" not in text and "98765" not in text
    if history["history"] == "memory":  # each persona's history ingested once
        assert RecordingMemory.added and set(RecordingMemory.added.values()) == {1}


@pytest.mark.slow  # an end-to-end run
def test_open_answers_are_graded_through_the_grader_role(small_v2: Path, tmp_path: Path) -> None:
    log = run_task(
        TASK,
        mock_model(lambda messages: "Sure, happy to help."),
        tmp_path,
        {"data_dir": str(small_v2), "answer": "open", "grader_calibration": 3},
        model_roles={"grader": "personamem/oracle"},  # names a candidate only if quoted
    )
    assert log.status == "success", log.error
    assert log.results is not None
    metrics = {name: m.value for name, m in log.results.scores[0].metrics.items()}
    assert metrics["accuracy"] == 0.0 and metrics["grader_none"] == 1.0
    assert metrics["grader_identity"] == 1.0 and metrics["grader_calibrated"] == 3
    assert any(name.startswith("pref_type_") for name in metrics)


def test_questions_are_sent_interleaved_across_personas_unless_asked_otherwise(
    small_v2: Path,
) -> None:
    """For prompt caching, as v1's: a persona's next question comes one round later, so
    its history is cached by then; `order=file` keeps the file's order. Sample ids (the
    row index) stay the same in any order."""
    in_file = [
        str(s.id) for s in TASKS["personamem_v2_32k"](data_dir=str(small_v2), order="file").dataset
    ]
    interleaved = [str(s.id) for s in TASKS["personamem_v2_32k"](data_dir=str(small_v2)).dataset]
    assert [int(i.split(":")[1]) for i in in_file] == list(range(len(in_file)))
    assert sorted(interleaved) == sorted(in_file) and interleaved != in_file
    personas = [i.split(":")[0] for i in interleaved]
    assert len(set(personas[:3])) == 3  # one question of each of the three personas first
