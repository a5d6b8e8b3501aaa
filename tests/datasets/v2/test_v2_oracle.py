"""`personamem/oracle` on PersonaMem-v2: it finds the query and the shown options in
the prompts the v2 task sends, answers in the authors' form by the correct option's
text (whatever letter the seeded order shows it under), and errs as told."""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import Sequence
from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.dataset import Sample
from inspect_ai.model import ChatMessage, ChatMessageUser, GenerateConfig
from support.helpers import DISPLAY

from inspect_personamem.datasets.v2.extraction import read_answer
from inspect_personamem.datasets.v2.files import load_questions
from inspect_personamem.datasets.v2.generator import V2Shape, generate_v2
from inspect_personamem.datasets.v2.records import V2Record
from inspect_personamem.datasets.v2.samples import distance_bin_index
from inspect_personamem.datasets.v2.spec import V2Source
from inspect_personamem.errors import PersonaMemArgumentError
from inspect_personamem.offline.oracle import OracleModel
from inspect_personamem.run.tasks import TASKS

SHAPE = V2Shape(
    personas=4,
    min_messages=40,
    max_messages=80,
    min_questions=10,
    max_questions=10,
    long_factor=3.3,
    message_chars=860,
)
"""40 questions whose snippet-to-query distances span several bins (<1k to 8k-16k)."""
HISTORY = ChatMessageUser(content="An earlier message.")


@pytest.fixture(scope="module")
def v2_data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("v2")
    generate_v2(folder, shape=SHAPE, seed=5)
    return folder


def questions_of(data: Path) -> Path:
    return data / "benchmark" / "text" / "benchmark.csv"


def records_of(data: Path) -> dict[str, V2Record]:
    """The rows by query."""
    return {r.query: r for r in load_questions(V2Source(data_dir=data)).records}


def samples(data: Path, **task_args: object) -> list[Sample]:
    """The samples the v2 task asks (with no history: the input is what is sent)."""
    task = TASKS["personamem_v2_32k"](data_dir=str(data), history="none", **task_args)
    return list(task.dataset)


def reply(oracle: OracleModel, messages: Sequence[ChatMessage]) -> str:
    output = asyncio.run(oracle.generate(list(messages), [], "none", GenerateConfig()))
    return output.completion


def messages_of(sample: Sample) -> list[ChatMessage]:
    assert not isinstance(sample.input, str)
    return list(sample.input)


def query(sample: Sample) -> str:
    assert sample.metadata is not None
    return str(sample.metadata["query"])


def target(sample: Sample) -> str:
    """The letter the correct option is shown under (the target is `(x)`)."""
    return str(sample.target)[1].upper()


def letter_read(text: str) -> str | None:
    """The letter the v2 scorer's rule reads from a reply."""
    return read_answer(text).letter


@pytest.mark.parametrize("options_role", ["system", "user"])
@pytest.mark.parametrize("shuffle", [0, 1, 2])
def test_it_names_the_letter_the_correct_option_is_shown_under(
    v2_data: Path, options_role: str, shuffle: int
) -> None:
    right = OracleModel("oracle", questions=str(questions_of(v2_data)), accuracy=1.0)
    wrong = OracleModel(
        "oracle", questions=str(questions_of(v2_data)), accuracy=0.0, accuracy_without_history=0.0
    )
    asked = samples(v2_data, options_role=options_role, shuffle=shuffle)
    assert {m.role for s in asked for m in messages_of(s)[-1:]} == {options_role}
    targets = [target(sample) for sample in asked]
    assert len(set(targets)) > 1  # the correct option is not always under one letter
    for sample, shown in zip(asked, targets, strict=True):
        with_history = [HISTORY, *messages_of(sample)]
        said = reply(right, with_history)
        assert said == f"Final Answer: {shown}"
        assert letter_read(said) == shown
        assert letter_read(reply(wrong, with_history)) not in (shown, None)


def test_open_prompts_get_the_correct_answers_text(v2_data: Path) -> None:
    records = records_of(v2_data)
    right = OracleModel("oracle", questions=str(questions_of(v2_data)), accuracy_without_history=1)
    wrong = OracleModel("oracle", questions=str(questions_of(v2_data)), accuracy_without_history=0)
    asked = samples(v2_data, answer="open", grader="self")
    assert asked and all(len(messages_of(sample)) == 1 for sample in asked)
    for sample in asked:
        record = records[query(sample)]
        assert reply(right, messages_of(sample)) == record.correct_answer
        assert reply(wrong, messages_of(sample)) in record.incorrect_answers


def rate_right(oracle: OracleModel, asked: list[Sample], history: bool) -> float:
    said = [reply(oracle, [HISTORY, *messages_of(s)] if history else messages_of(s)) for s in asked]
    right = [letter_read(text) == target(s) for text, s in zip(said, asked, strict=True)]
    return sum(right) / len(right)


def test_with_a_history_it_is_right_more_often_and_repeatably(v2_data: Path) -> None:
    asked = samples(v2_data) + samples(v2_data, shuffle=1)  # 80 prompts
    oracle = OracleModel(
        "oracle", questions=str(questions_of(v2_data)), accuracy=0.8, accuracy_without_history=0.4
    )
    with_history, without = rate_right(oracle, asked, True), rate_right(oracle, asked, False)
    assert with_history > 0.65 and without < 0.55
    assert rate_right(oracle, asked, True) == with_history
    reseeded = OracleModel("oracle", questions=str(questions_of(v2_data)), seed=1)
    said = [reply(reseeded, messages_of(s)) for s in asked]
    assert said != [reply(oracle, messages_of(s)) for s in asked]


@pytest.mark.parametrize("length", ["32k", "128k"])
def test_decay_takes_its_step_for_each_distance_bin_past_the_first(
    v2_data: Path, length: str
) -> None:
    """With accuracy 1 and decay 0.5: right in the first bin, never from the third on;
    the bins of `-M length`'s distances."""
    records = records_of(v2_data)
    oracle = OracleModel(
        "oracle", questions=str(questions_of(v2_data)), accuracy=1, decay=0.5, length=length
    )
    by_bin: dict[int, list[bool]] = {}
    for sample in samples(v2_data):
        record = records[query(sample)]
        distance = getattr(record, f"distance_from_related_snippet_to_query_{length}")
        said = reply(oracle, [HISTORY, *messages_of(sample)])
        right = letter_read(said) == target(sample)
        by_bin.setdefault(min(distance_bin_index(distance), 2), []).append(right)
    assert set(by_bin) == {0, 1, 2}  # the data span the bins
    assert all(by_bin[0]) and not any(by_bin[2])


@pytest.mark.slow  # an end-to-end run
def test_a_prompt_not_in_the_file_is_named(v2_data: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    generate_v2(other, shape=SHAPE, seed=9)
    oracle = OracleModel("oracle", questions=str(questions_of(other)))
    for asked in (samples(v2_data)[0], samples(v2_data, answer="open", grader="self")[0]):
        with pytest.raises(PersonaMemArgumentError, match="asks no question of") as info:
            reply(oracle, messages_of(asked))
        assert str(questions_of(other)) in str(info.value)
    (log,) = inspect_eval(
        "inspect_personamem/personamem_v2_32k",
        task_args={"data_dir": str(v2_data)},
        model="personamem/oracle",
        model_args={"questions": str(questions_of(other))},
        log_dir=str(tmp_path / "logs"),
        display=DISPLAY,
        limit=1,
    )
    assert log.status == "error" and log.error is not None
    assert "asks no question of" in log.error.message


def test_the_file_is_v2_by_its_name_or_by_subset(v2_data: Path, tmp_path: Path) -> None:
    renamed = tmp_path / "mine.csv"
    shutil.copyfile(questions_of(v2_data), renamed)
    with pytest.raises(PersonaMemArgumentError, match="-M subset="):
        OracleModel("oracle", questions=str(renamed))  # read as PersonaMem's: no split
    oracle = OracleModel("oracle", questions=str(renamed), subset="benchmark", accuracy=1)
    sample = samples(v2_data)[0]
    assert reply(oracle, [HISTORY, *messages_of(sample)]) == f"Final Answer: {target(sample)}"
    with pytest.raises(PersonaMemArgumentError, match="pass one"):
        OracleModel("oracle", questions=str(renamed), subset="benchmark", split="32k")
    with pytest.raises(PersonaMemArgumentError, match="length='64k': choose one of 32k, 128k"):
        OracleModel("oracle", questions=str(questions_of(v2_data)), length="64k")
    with pytest.raises(PersonaMemArgumentError, match="subset='test': choose one of"):
        OracleModel("oracle", questions=str(renamed), subset="test")
    with pytest.raises(PersonaMemArgumentError, match="-M length is PersonaMem-v2's"):
        OracleModel("oracle", questions=str(renamed), split="32k", length="32k")
