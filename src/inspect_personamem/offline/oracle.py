"""`personamem/oracle`: an offline model that knows the answers and errs on purpose.

For trying the package, the report's example and tests, where no real model can be
reached: it reads a question file, finds the question the prompt asks, and answers
correctly with a chosen probability, else with another option. Asked the user's
message alone (`answer=open`), it replies with the text of the correct candidate
(with the same probability; else another candidate's). Bound as the grader
(`--model-role grader=personamem/oracle`, no question file needed), it names the
candidate whose text is the reply's, else none. Inspect finds it by its provider
name, `personamem` (registered in `_registry.py`):

    inspect eval inspect_personamem/personamem_32k --model personamem/oracle \\
        -M questions=$PWD/data/questions_32k.csv -M accuracy=0.8 -T data_dir=data

(`questions` absolute: Inspect logs model arguments as given, and a retry of the log
from another folder must find the file.)

It answers PersonaMem-v2 too, when the question file is v2's: named as a subset's
(`benchmark.csv`, `train.csv`, `val.csv`, as in the release's `benchmark/text/`), or
any file with `-M subset=...` (`-M split=...` reads any file as PersonaMem's). It then
finds the query in the user message (`asked`) and, for `answer=choice`, the options
in the options message after it (system or user), and answers `Final Answer: X`:

    inspect eval inspect_personamem/personamem_v2_32k --model personamem/oracle \\
        -M questions=$PWD/v2/benchmark/text/benchmark.csv -T data_dir=v2

Its chance of being right is `accuracy` with a history before the question and
`accuracy_without_history` without one, less `decay` for each step the fact asked
about lies back: in PersonaMem, each session elapsed past the first; in PersonaMem-v2,
each bin past the first (<1k tokens) of the snippet-to-query distance
(`data.v2.samples.distance_bin`: <1k, 1k-4k, 4k-8k, ...), at `-M length` (32k, the
default, or 128k: the question file holds both lengths' distances).

Each draw is a hash of (seed, model name, history or not, the question's messages),
so a rerun gives the same answers. It works with every prompt the tasks send
(shuffled options too): it finds the correct option by its text, not by its letter.
Its usage is an estimate (four characters a token), set so that Inspect never
reaches for a downloadable tokenizer. It says nothing about any real model.
"""

from __future__ import annotations

import hashlib
import json
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from inspect_ai.model import (
    ChatMessage,
    GenerateConfig,
    ModelAPI,
    ModelOutput,
)
from inspect_ai.tool import ToolChoice, ToolInfo

from inspect_personamem.data.options import LETTERS, final_answer
from inspect_personamem.datasets.v1.records import QuestionRecord
from inspect_personamem.datasets.v1.spec import PERSONAMEM
from inspect_personamem.datasets.v1.splits import Split, check_split
from inspect_personamem.datasets.v2 import prompt as v2_prompt
from inspect_personamem.datasets.v2.records import V2Record
from inspect_personamem.datasets.v2.records import read_questions as read_v2_questions
from inspect_personamem.datasets.v2.samples import distance_bin_index
from inspect_personamem.datasets.v2.spec import LENGTHS, PERSONAMEM_V2, SUBSETS, Length, Subset
from inspect_personamem.errors import PersonaMemArgumentError
from inspect_personamem.offline.reply import offline_output
from inspect_personamem.scoring.grader.prompt import GraderQuestion, read_grader_prompt

_Choice = TypeVar("_Choice", bound=str)


@dataclass(frozen=True)
class _Answer:
    """What the oracle knows of one question: its options' texts, the correct one's
    index, how many steps of `decay` its chance loses, and (PersonaMem) the end index
    of its history."""

    options: tuple[str, ...]
    correct: int
    decay_steps: int
    end_index: int | None = None

    def shown(self, prompt: str) -> list[str] | None:
        """The letter PersonaMem's `prompt` shows each option under; None unless all four
        show. Equal texts (a known defect of the data) take the letters in order."""
        letters: list[str] = []
        for option in self.options:
            forms = _option_forms(option)
            letter = next(
                (
                    letter
                    for letter in LETTERS
                    if letter not in letters
                    and any(f"({letter}) {form}" in prompt for form in forms)
                ),
                None,
            )
            if letter is None:
                return None
            letters.append(letter)
        return letters


@dataclass(frozen=True)
class _Asked:
    """A question found at the end of a prompt: what the oracle knows of it, how many
    of the last messages ask it (those before them are the history), and the reply
    that answers each option (its letter in the answer form, or its text)."""

    answer: _Answer
    messages: int
    replies: tuple[str, ...]


class _Questions(ABC):
    """A question file the oracle answers from."""

    def __init__(self, source: Path) -> None:
        self.source = source

    @abstractmethod
    def find(self, input: Sequence[ChatMessage]) -> _Asked:
        """The question the prompt `input` asks; raise if it asks none of the file's."""


class _PersonaMemQuestions(_Questions):
    """PersonaMem's question file: the question, and for `answer=choice` its options,
    in the last user message."""

    def __init__(self, source: Path, split: Split) -> None:
        super().__init__(source)
        self.answers = _answers(PERSONAMEM.read_questions(source, split))

    def find(self, input: Sequence[ChatMessage]) -> _Asked:
        prompt = input[-1].text
        if prompt in self.answers:  # the user's message alone: answer=open
            answer = _open_answer(self.answers[prompt], len(input) - 1)
            return _Asked(answer, 1, answer.options)
        first = prompt.split("\n\n", 1)[0]
        texts = [first] if first in self.answers else [q for q in self.answers if q in prompt]
        for text in sorted(texts, key=len, reverse=True):
            for answer in self.answers[text]:
                letters = answer.shown(prompt)
                if letters is not None:
                    return _Asked(answer, 1, tuple(final_answer(letter) for letter in letters))
        raise PersonaMemArgumentError(
            f"personamem/oracle: the last user message holds no question of {self.source} "
            f"with its four options (it begins {prompt[:80]!r}); "
            "point -M questions at the file the task reads"
        )


class _V2Questions(_Questions):
    """PersonaMem-v2's question file: the query in the user message the task sends
    (`asked`), and for `answer=choice` the options message after it."""

    def __init__(self, source: Path, subset: Subset, length: Length) -> None:
        super().__init__(source)
        self.answers: dict[str, list[_Answer]] = {}
        for record in read_v2_questions(source, subset):
            self.answers.setdefault(v2_prompt.asked(record.query), []).append(
                _v2_answer(record, length)
            )

    def find(self, input: Sequence[ChatMessage]) -> _Asked:
        last = input[-1].text
        if last in self.answers:  # the user's message alone: answer=open
            answer = self.answers[last][0]
            return _Asked(answer, 1, answer.options)
        shown = v2_prompt.read_options_message(last)
        if shown is not None and len(input) > 1:
            for answer in self.answers.get(input[-2].text, []):
                if sorted(shown) == sorted(answer.options):
                    letters = (v2_prompt.OPTION_LETTERS[shown.index(x)] for x in answer.options)
                    return _Asked(answer, 2, tuple(map(v2_prompt.final_answer, letters)))
        raise PersonaMemArgumentError(
            f"personamem/oracle: the prompt asks no question of {self.source}: its last "
            "messages are neither a query of the file alone nor a query and its options "
            f"message (the last begins {last[:80]!r}); "
            "point -M questions at the file the task reads"
        )


def _v2_answer(record: V2Record, length: Length) -> _Answer:
    """A PersonaMem-v2 row's answer: the correct option first, losing `decay` for each
    bin past the first of its snippet-to-query distance at `length`."""
    return _Answer(
        options=(record.correct_answer, *record.incorrect_answers),
        correct=0,
        decay_steps=distance_bin_index(record.distance_to_query(length)),
    )


def _one_of(name: str, value: str, choices: tuple[_Choice, ...]) -> _Choice:
    """`value` typed as one of `choices`, or a one-line error naming them."""
    for known in choices:
        if value == known:
            return known
    raise PersonaMemArgumentError(
        f"personamem/oracle: {name}={value!r}: choose one of {', '.join(choices)}"
    )


def _questions(
    source: Path, split: str | None, subset: str | None, length: str | None
) -> _Questions:
    """The question file, read as PersonaMem's or PersonaMem-v2's: `-M split` says
    PersonaMem, `-M subset` PersonaMem-v2; else its name (a v2 subset's name is v2's)."""
    if split is not None and subset is not None:
        raise PersonaMemArgumentError(
            "personamem/oracle: -M split names a PersonaMem split, -M subset a PersonaMem-v2 "
            "subset: pass one"
        )
    found = (
        _one_of("subset", subset, SUBSETS)
        if subset is not None
        else (PERSONAMEM_V2.subset_of_questions(source) if split is None else None)
    )
    if found is not None:
        return _V2Questions(source, found, _one_of("length", length or "32k", LENGTHS))
    if length is not None:
        raise PersonaMemArgumentError(
            f"personamem/oracle: -M length is PersonaMem-v2's, and {source} is read as "
            "PersonaMem's; pass -M subset=benchmark for a v2 question file of another name"
        )
    return _PersonaMemQuestions(source, _question_split(source, split))


def _question_split(path: Path, split: str | None) -> Split:
    found = check_split(split) if split is not None else PERSONAMEM.split_of_questions(path)
    if found is None:
        raise PersonaMemArgumentError(
            f"personamem/oracle: cannot tell the split of {path} from its name; "
            "pass -M split=32k, 128k or 1M (or -M subset=... for a PersonaMem-v2 file)"
        )
    return found


def _question_file(questions: str) -> Path:
    """The question file `-M questions` names, which must exist where the model is made.

    Inspect logs model arguments as given, so a relative path fails from another folder
    (`inspect eval-retry` of the log): the error says so."""
    path = Path(questions)
    if path.is_file():
        return path
    where = "" if path.is_absolute() else f" (relative to the current folder {Path.cwd()})"
    raise PersonaMemArgumentError(
        f"personamem/oracle: -M questions={questions}: no such file{where}. Pass the question "
        "file the task reads as an absolute path: a log keeps model arguments as given, so "
        "a relative one names nothing when the log is retried from another folder."
    )


def _probability(name: str, value: Any) -> float:
    number = float(value)
    if not 0.0 <= number <= 1.0:
        raise PersonaMemArgumentError(
            f"personamem/oracle: {name} must be within [0, 1], not {value}"
        )
    return number


def _option_forms(text: str) -> tuple[str, ...]:
    """How an option's text can appear in a prompt: as is, or inside a JSON or Python
    literal of the option list (escaped quotes, backslashes, newlines)."""
    return (text, json.dumps(text, ensure_ascii=False)[1:-1], repr(text)[1:-1])


class OracleModel(ModelAPI):
    """Answers PersonaMem and PersonaMem-v2 questions right with probability `accuracy`
    (with a history) or `accuracy_without_history` (no history before the question),
    less `decay` for each step back of the fact the question needs (see the module
    docstring); wrong answers are another option, chosen by the same hash."""

    def __init__(
        self,
        model_name: str,
        base_url: str | None = None,
        api_key: str | None = None,
        config: GenerateConfig | None = None,
        *,
        questions: str | None = None,
        split: str | None = None,
        subset: str | None = None,
        length: str | None = None,
        accuracy: float = 0.8,
        accuracy_without_history: float = 0.4,
        decay: float = 0.0,
        seed: int = 0,
        **model_args: Any,
    ) -> None:
        super().__init__(model_name, base_url, api_key, [], config or GenerateConfig())
        if model_args:
            raise PersonaMemArgumentError(
                f"personamem/oracle: unknown model argument(s) {', '.join(sorted(model_args))}; "
                "it takes questions, split, subset, length, accuracy, "
                "accuracy_without_history, decay and seed"
            )
        self.accuracy = _probability("accuracy", accuracy)
        self.accuracy_without_history = _probability(
            "accuracy_without_history", accuracy_without_history
        )
        self.decay = _probability("decay", decay)
        self.seed = int(seed)
        self.source = None if questions is None else _question_file(questions)
        self.questions = (
            None if self.source is None else _questions(self.source, split, subset, length)
        )

    async def generate(
        self,
        input: list[ChatMessage],
        tools: list[ToolInfo],
        tool_choice: ToolChoice,
        config: GenerateConfig,
    ) -> ModelOutput:
        graded = read_grader_prompt(input[-1].text)
        if graded is not None:
            return offline_output(self.model_name, _verdict(graded), input)
        if self.questions is None:
            raise PersonaMemArgumentError(
                "personamem/oracle needs the question file it answers: -M questions=PATH "
                "(only as a grader does it need none)"
            )
        asked = self.questions.find(input)
        question = "\n\n".join(message.text for message in input[-asked.messages :])
        right = self._right(asked.answer, len(input) > asked.messages, question)
        return offline_output(self.model_name, asked.replies[right], input)

    def _right(self, answer: _Answer, with_history: bool, question: str) -> int:
        """The option it answers: the correct one with its chance, else another."""
        chance = self.accuracy if with_history else self.accuracy_without_history
        chance -= self.decay * answer.decay_steps
        draw = hashlib.sha256(
            f"{self.seed}|{self.model_name}|{with_history}|{question}".encode()
        ).digest()
        others = [i for i in range(len(answer.options)) if i != answer.correct]
        return answer.correct if draw[0] / 256 < chance else others[draw[1] % len(others)]


def _open_answer(answers: list[_Answer], history: int) -> _Answer:
    """The question a user's message asks after `history` messages: a text asked over
    several histories is told apart by its end index; with no history (or another
    count) the first is taken."""
    return next((a for a in answers if a.end_index == history), answers[0])


def _verdict(graded: GraderQuestion) -> str:
    """The grader's verdict: the candidate whose text is the reply's, else none."""
    reply = graded.reply.strip()
    named = next(
        (str(i) for i, text in enumerate(graded.candidates, 1) if text.strip() == reply), "none"
    )
    return f"<candidate>{named}</candidate>"


def _answers(records: list[QuestionRecord]) -> dict[str, list[_Answer]]:
    """Question text -> the answers of every question asking it (a text can be asked
    over several histories with other options)."""
    answers: dict[str, list[_Answer]] = {}
    for record in records:
        answers.setdefault(record.question, []).append(
            _Answer(
                options=record.options.bodies(),
                correct=LETTERS.index(record.correct_letter),
                decay_steps=max(0, int(record.columns["distance_to_ref_in_blocks"]) - 1),
                end_index=record.end_index,
            )
        )
    return answers
