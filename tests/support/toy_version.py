"""A third dataset version, for tests only: what adding a version costs, in one module.

PersonaMem-toy has its own layout (`questions_<track>.csv` beside `histories_<track>.jsonl`,
one history per line), its own columns (three options, the right one by number), its
own question types (`skill`), its own distance unit (turns since the evidence, in
bins), one published number, a generator, and a selector of its own (`track`). It is
one `DatasetVersion`, its task functions and, in the tests that use it, one registry
entry (`registered_toy`): the core every version implements (files, records, samples,
history, evidence, scorer, groups) and, as data, what the tools read of it (its
published number, its estimate's requests, what `try` writes, what the offline models
read). The tasks, `inspect-personamem try`, `estimate` and `report` read it as they
read PersonaMem and PersonaMem-v2.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import pytest
from inspect_ai import Task, task
from inspect_ai.dataset import Dataset, MemoryDataset, Sample
from inspect_ai.model import ChatMessage
from inspect_ai.scorer import Scorer

from inspect_personamem.data.asked import AskedAt
from inspect_personamem.data.contexts import Contexts, chat_messages, sample_history
from inspect_personamem.data.csv_rows import read_rows
from inspect_personamem.data.evidence import Evidence
from inspect_personamem.data.files import ReadFile, data_release, locate_file
from inspect_personamem.data.known import Asked, ChoicePrompt, Known, KnownQuestions
from inspect_personamem.data.options import FINAL_ANSWER_TAG, LETTERS, final_answer
from inspect_personamem.data.provenance import mark_generated
from inspect_personamem.data.release import PinnedSource, Release, ReleasedFile
from inspect_personamem.data.requests import Request
from inspect_personamem.datasets import base
from inspect_personamem.datasets.declared import (
    Estimate,
    Offline,
    Published,
    PublishedNumber,
    QuestionRequests,
    Reported,
    Trial,
    Try,
    Where,
)
from inspect_personamem.datasets.registry import VERSIONS
from inspect_personamem.errors import PersonaMemArgumentError, PersonaMemDataError
from inspect_personamem.parameters import Parameter, Settings, Source, TaskSettings, settings_of
from inspect_personamem.run.build import build_task, task_arguments
from inspect_personamem.scoring.scorer import personamem_scorer

TRACKS: Final = ("short", "long")
COLUMNS: Final = (
    "qid", "history", "after_turn", "ask", "option_1", "option_2", "option_3", "right",
    "skill", "gap", "history_tokens",
)  # fmt: skip
SKILLS: Final = {"recall": "Recall a stated fact", "update": "Track an updated preference"}
PUBLISHED: Final = 0.61
"""The one published number: the toy paper's accuracy with the full history."""
INSTRUCTION: Final = f"Pick one, answering as {FINAL_ANSWER_TAG}(x)."
CHOICES: Final = 3
GAP_BINS: Final = {"<5": "<5", "5-19": "5-19", "20+": "20+"}
"""The toy paper's bins of turns since the evidence, in order."""


@dataclass(frozen=True)
class ToyQuestion:
    """A row of a toy question file."""

    question_id: str
    context_id: str
    end_index: int
    ask: str
    options: tuple[str, ...]
    right: int
    """Index of the right option, in file order."""
    skill: str
    gap: int
    """Turns since the evidence."""
    history_tokens: int


def read_questions(path: Path) -> list[ToyQuestion]:
    """Every row of a toy question file; a malformed cell is an error naming file, line,
    question and field."""
    questions = []
    for line, row in read_rows(path, COLUMNS):
        try:
            right, skill = int(row["right"]) - 1, row["skill"]
            if not 0 <= right < CHOICES:
                raise ValueError(f"right={row['right']}: choose 1, 2 or 3")
            if skill not in SKILLS:
                raise ValueError(f"skill={skill!r}: choose one of {', '.join(SKILLS)}")
            questions.append(
                ToyQuestion(
                    row["qid"],
                    row["history"],
                    int(row["after_turn"]),
                    row["ask"],
                    tuple(row[f"option_{n}"] for n in range(1, CHOICES + 1)),
                    right,
                    skill,
                    int(row["gap"]),
                    int(row["history_tokens"]),
                )  # fmt: skip
            )
        except ValueError as ex:
            raise PersonaMemDataError.at(path, str(ex), line=line, question_id=row["qid"]) from None
    return questions


class ToyHistories:
    """A track's histories (`data.contexts.Contexts`): one JSON object a line."""

    def __init__(self, path: Path | None) -> None:
        self._histories: dict[str, tuple[ChatMessage, ...]] = {}
        if path is None:
            return
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            value = json.loads(line)
            self._histories[value["id"]] = chat_messages(value["turns"], f"{path}, line {number}")

    def messages(self, context_id: str) -> Sequence[ChatMessage]:
        return self._histories[context_id]

    def history(self, context_id: str, end_index: int) -> Sequence[ChatMessage]:
        return self._histories[context_id][:end_index]


def gap_bin(turns: int) -> str:
    """Turns since the evidence, in the toy paper's bins (`GAP_BINS`)."""
    return "<5" if turns < 5 else "5-19" if turns < 20 else "20+"


def prompt(question: ToyQuestion, shown: Sequence[str]) -> str:
    """The toy task's final user message: the question, the options, the instruction."""
    options = "\n".join(f"({letter}) {text}" for letter, text in zip(LETTERS, shown, strict=False))
    return f"{question.ask}\n\n{options}\n\n{INSTRUCTION}"


@dataclass(frozen=True)
class ToySource(PinnedSource):
    """A track and where its files come from."""

    track: str
    data_dir: str | Path | None
    repo_id: str | None
    revision: str | None
    spec: Any
    data_dir_option: str = "-T data_dir"
    data_dir_env: str = "PERSONAMEM_TOY_DATA_DIR"

    @property
    def wanted(self) -> str:
        return f"the files questions_{self.track}.csv and histories_{self.track}.jsonl"


def requests(selected: Mapping[str, str], where: Where) -> QuestionRequests:
    """The estimate's requests: a track's questions, their histories' token counts."""
    source = TOY._source(base.one_of("track", selected["track"], TRACKS), where)
    _, found, rows, release = TOY._read(source)
    requests = [
        Request(q.context_id, q.history_tokens, q.history_tokens + 40, q.end_index) for q in rows
    ]
    return QuestionRequests(f"toy {source.track}", found, release, requests)


def choice_prompt(input: Sequence[ChatMessage]) -> ChoicePrompt | None:
    """The floor's reading of a toy prompt: the question and the three options shown."""
    read = _read_prompt(input[-1].text)
    if read is None:
        return None
    question, shown = read
    return ChoicePrompt(question, shown, 1, tuple(final_answer(x) for x in LETTERS[:3]))


@dataclass(frozen=True)
class ToySettings:
    """The toy's selector and own parameter (`DatasetVersion.settings`)."""

    track: str
    shuffle: int


class ToyVersion(base.DatasetVersion[ToyQuestion]):
    """PersonaMem-toy: the third version."""

    key = "toy"
    release = Release("PersonaMem-toy", "example/personamem-toy", "0" * 40, "CC0-1.0")
    task = "personamem_toy"
    summary = "PersonaMem-toy: a test-only version with three options and turns apart."
    data_dir_help = "a track's question and history files"
    data_dir_env = "PERSONAMEM_TOY_DATA_DIR"
    selectors = (Parameter("track", "short", str, "Which track.", choices=TRACKS, scoring=False),)
    fixed = "track"
    own = (Parameter("shuffle", 0, int, "Seed of the options' order."),)
    settings = ToySettings
    groups = (
        base.Group("skill", "skill", "skill", values=SKILLS),
        base.Group(
            "gap_bin", "gap", "turns since the evidence", values={"<5": "<5", "5-19": "5-19"}
        ),
    )
    cluster = "history"
    estimate: Estimate | None = Estimate(requests)  # None in a test: a core-only version
    trying: Try | None = Try(
        "a synthetic PersonaMem-toy track",
        lambda options, count, seed: Trial(
            "inspect_personamem/personamem_toy_short",
            lambda folder: generate(folder, "short", questions=count, seed=seed),
            "generated",
        ),
    )
    offline: Offline | None = Offline(
        files_named_by="track",
        steps="five turns since the evidence",
        named_selection=lambda path: next(
            (t for t in TRACKS if path.name == f"questions_{t}.csv"), None
        ),
        questions=lambda path, selected: ToyKnown(path),
        choice_prompt=choice_prompt,
    )
    reported = Reported(
        published=Published(
            lambda: (PublishedNumber("paper", "full history", "", PUBLISHED, PUBLISHED, "", ""),),
            "Set beside, not equated.",
        ),
        cluster_words="history (a history's questions are not independent)",
        evidence_groups=("skill", "gap_bin"),
    )

    def released_questions(self, selected: Mapping[str, str]) -> ReleasedFile:
        return ReleasedFile(6 if selected["track"] == "short" else 12, None)

    def released_files(self, selected: Mapping[str, str]) -> dict[str, ReleasedFile]:
        return {f"questions_{selected['track']}.csv": self.released_questions(selected)}

    def check(self, settings: TaskSettings) -> None:
        """Nothing beyond what the axes refuse."""

    def _source(self, track: str, where: Where | Source) -> ToySource:
        if isinstance(where, Where):
            given = (where.data_dir, where.repo_id, where.revision)
            return ToySource(track, *given, spec=self, data_dir_option=where.data_dir_option)
        return ToySource(track, where.data_dir, where.repo_id, where.revision, self)

    def _read(self, source: ToySource) -> tuple[Path, str, list[ToyQuestion], str]:
        """The track's question file, where it came from, its rows and how it compares."""
        name = f"questions_{source.track}.csv"
        path, found = locate_file(source, name, f"track {source.track}")
        rows = read_questions(path)
        released = self.released_questions({"track": source.track})
        read = ReadFile(path, name, released, lambda: released.difference(name, path, len(rows)))
        return path, found, rows, data_release(source, [read])

    def load(self, arguments: Settings, reads_history: bool) -> base.Loaded[ToyQuestion]:
        own: ToySettings = self.own_settings(arguments)
        source = self._source(own.track, settings_of(Source, arguments))
        _, found, rows, release = self._read(source)
        histories = None
        if reads_history:
            name = f"histories_{source.track}.jsonl"
            histories, _ = locate_file(source, name, f"track {source.track}")
        metadata = {"track": source.track, "data_source": found, "data_release": release}
        return base.Loaded(rows, ToyHistories(histories), metadata)

    def dataset(
        self,
        questions: Sequence[ToyQuestion],
        loaded: base.Loaded[ToyQuestion],
        settings: TaskSettings,
    ) -> Dataset:
        own = settings.typed(ToySettings)
        samples = []
        for question in questions:
            order = list(range(CHOICES))
            random.Random(f"{own.shuffle}:{question.question_id}").shuffle(order)
            shown = [question.options[i] for i in order]
            samples.append(
                Sample(
                    id=question.question_id,
                    input=prompt(question, shown),
                    choices=shown,
                    target=f"({LETTERS[order.index(question.right)]})",
                    metadata={
                        **AskedAt(question.context_id, question.end_index, question.ask).metadata(),
                        "history": question.context_id,
                        "skill": question.skill,
                        "gap": question.gap,
                        "gap_bin": gap_bin(question.gap),
                        "option_order": order,
                    },
                )
            )
        name = f"{self.task}_{own.track}"
        return MemoryDataset(samples, name=name, shuffled=False)

    def evidence(self, metadata: Mapping[str, Any], contexts: Contexts) -> Evidence:
        """The one turn `gap` turns before the question's last."""
        history = sample_history(contexts, metadata)
        at = len(history) - 1 - int(metadata["gap"])
        if at < 0:
            return Evidence((), (), "before the history: not located")
        return Evidence(((at, at + 1),), (history[at],), f"turn {at}")

    def scorer(self, settings: TaskSettings) -> Scorer:
        own: Scorer | None = settings.answer_scorer()
        return own if own is not None else personamem_scorer()


def _read_prompt(text: str) -> tuple[str, tuple[str, ...]] | None:
    """The question and the options shown, from a toy prompt; None for another."""
    body, instruction, rest = text.rpartition(f"\n\n{INSTRUCTION}")
    ask, _, shown = body.rpartition("\n\n")
    lines = shown.split("\n")
    prefixes = [f"({letter}) " for letter in LETTERS[:CHOICES]]
    if not instruction or rest or [line[:4] for line in lines] != prefixes:
        return None
    return ask, tuple(line[4:] for line in lines)


class ToyKnown(KnownQuestions):
    """A toy question file, for the offline oracle."""

    def __init__(self, source: Path) -> None:
        super().__init__(source)
        self.rows = {q.ask: q for q in read_questions(source)}

    def find(self, input: Sequence[ChatMessage]) -> Asked:
        text = input[-1].text
        read = _read_prompt(text)
        question = self.rows.get(text if read is None else read[0])
        if question is None:
            raise PersonaMemArgumentError(f"no toy question in {text[:60]!r}")
        known = Known(question.options, question.right, question.gap // 5, question.end_index)
        if read is None:  # the user's message alone: answer=open
            return Asked(known, 1, question.options)
        letters = [LETTERS[read[1].index(option)] for option in question.options]
        return Asked(known, 1, tuple(final_answer(letter) for letter in letters))


def generate(folder: Path, track: str, *, questions: int = 12, seed: int = 0) -> Path:
    """Write a track of `questions` questions over three histories, marked as generated;
    return its question file."""
    rng = random.Random(seed)
    folder.mkdir(parents=True, exist_ok=True)
    histories = {f"h{n}": 30 + 10 * n for n in range(3)}
    with (folder / f"histories_{track}.jsonl").open("w", encoding="utf-8") as file:
        for history, turns in histories.items():
            messages = [
                {"role": ("user", "assistant")[i % 2], "content": f"{history} turn {i}"}
                for i in range(turns)
            ]
            file.write(json.dumps({"id": history, "turns": messages}) + "\n")
    lines = [",".join(COLUMNS)]
    for n in range(questions):
        history = f"h{n % 3}"
        after = rng.randrange(5, histories[history])
        options = [f"answer {n}.{k}" for k in range(CHOICES)]
        lines.append(
            ",".join(
                [
                    f"t{n}",
                    history,
                    str(after),
                    f"Toy question {n}?",
                    *options,
                    str(rng.randrange(1, CHOICES + 1)),
                    ("recall", "update")[n % 2],
                    str(rng.randrange(0, 30)),
                    str(after * 12),
                ]
            )  # fmt: skip
        )
    path = folder / f"questions_{track}.csv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    for written in (path, folder / f"histories_{track}.jsonl"):
        mark_generated(folder, written, __name__)
    return path


TOY: Final = ToyVersion()
"""The third version's entry."""


# Its tasks, written as `run.tasks` writes every version's. Named with the package's
# prefix, which Inspect adds only to the installed package's functions, so that
# `inspect_personamem/personamem_toy_short` runs as the package's tasks run.


@task(name="inspect_personamem/personamem_toy")
def personamem_toy(
    track: str = "short",
    data_dir: str | None = None,
    repo_id: str = "example/personamem-toy",
    revision: str = "0000000000000000000000000000000000000000",
    history: str = "full",
    answer: str = "choice",
    system_messages: str = "keep",
    shuffle: int = 0,
    keep_history_in_log: bool = False,
    order: str | None = None,
    interleave_block: int = 10,
    # history=rag
    retriever: str = "dense",
    # history=rag, history=tools
    embedder: str = "BAAI/bge-m3",
    embedding_cache: str | None = None,
    # history=rag, history=memory, history=tools
    top_k: int = 5,
    # history=rag, history=memory
    memory_prompt: str = "official",
    # history=memory, history=tools
    memory: str | None = None,
    memory_config: str | None = None,
    # history=tools
    search: str = "bm25",
    tool_budget: int = 6,
    tool_result_chars: int = 6000,
    # answer=choice, answer=open
    cache_breakpoints: bool = True,
    # answer=logprob
    normalization: str = "tokens",
    context_window: int | None = None,
    option_batch_size: int = 4,
    prefill_chunk: int | None = None,
    # answer=open
    grader: str = "role",
    grader_calibration: int = 50,
    grader_seed: int = 0,
    **unknown: Any,
) -> Task:
    """PersonaMem-toy: a test-only version with three options and turns apart."""
    return build_task(TOY, task_arguments(TOY, locals()))


@task(name="inspect_personamem/personamem_toy_short")
def personamem_toy_short(
    data_dir: str | None = None,
    repo_id: str = "example/personamem-toy",
    revision: str = "0000000000000000000000000000000000000000",
    history: str = "full",
    answer: str = "choice",
    system_messages: str = "keep",
    shuffle: int = 0,
    keep_history_in_log: bool = False,
    order: str | None = None,
    interleave_block: int = 10,
    # history=rag
    retriever: str = "dense",
    # history=rag, history=tools
    embedder: str = "BAAI/bge-m3",
    embedding_cache: str | None = None,
    # history=rag, history=memory, history=tools
    top_k: int = 5,
    # history=rag, history=memory
    memory_prompt: str = "official",
    # history=memory, history=tools
    memory: str | None = None,
    memory_config: str | None = None,
    # history=tools
    search: str = "bm25",
    tool_budget: int = 6,
    tool_result_chars: int = 6000,
    # answer=choice, answer=open
    cache_breakpoints: bool = True,
    # answer=logprob
    normalization: str = "tokens",
    context_window: int | None = None,
    option_batch_size: int = 4,
    prefill_chunk: int | None = None,
    # answer=open
    grader: str = "role",
    grader_calibration: int = 50,
    grader_seed: int = 0,
    **unknown: Any,
) -> Task:
    """PersonaMem-toy: a test-only version with three options and turns apart.

    Runs track=short (`track` given is an error).
    """
    return build_task(TOY, task_arguments(TOY, locals(), "short"))


@task(name="inspect_personamem/personamem_toy_long")
def personamem_toy_long(
    data_dir: str | None = None,
    repo_id: str = "example/personamem-toy",
    revision: str = "0000000000000000000000000000000000000000",
    history: str = "full",
    answer: str = "choice",
    system_messages: str = "keep",
    shuffle: int = 0,
    keep_history_in_log: bool = False,
    order: str | None = None,
    interleave_block: int = 10,
    # history=rag
    retriever: str = "dense",
    # history=rag, history=tools
    embedder: str = "BAAI/bge-m3",
    embedding_cache: str | None = None,
    # history=rag, history=memory, history=tools
    top_k: int = 5,
    # history=rag, history=memory
    memory_prompt: str = "official",
    # history=memory, history=tools
    memory: str | None = None,
    memory_config: str | None = None,
    # history=tools
    search: str = "bm25",
    tool_budget: int = 6,
    tool_result_chars: int = 6000,
    # answer=choice, answer=open
    cache_breakpoints: bool = True,
    # answer=logprob
    normalization: str = "tokens",
    context_window: int | None = None,
    option_batch_size: int = 4,
    prefill_chunk: int | None = None,
    # answer=open
    grader: str = "role",
    grader_calibration: int = 50,
    grader_seed: int = 0,
    **unknown: Any,
) -> Task:
    """PersonaMem-toy: a test-only version with three options and turns apart.

    Runs track=long (`track` given is an error).
    """
    return build_task(TOY, task_arguments(TOY, locals(), "long"))


@pytest.fixture
def registered_toy() -> Iterator[dict[str, Callable[..., Task]]]:
    """The toy version as one more registry entry: its task functions by name."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setitem(VERSIONS, TOY.key, TOY)
        yield {
            "personamem_toy": personamem_toy,
            "personamem_toy_short": personamem_toy_short,
            "personamem_toy_long": personamem_toy_long,
        }
