"""PersonaMem (v1) as a dataset version: its entry in `datasets.registry`.

Three splits by history length (`split`: 32k, 128k, 1M), each a question file and a
shared-context file; a question's history is its shared context up to its end index.
Answers chosen among the four options are read by the official extraction.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any, Final

from inspect_ai.dataset import Dataset
from inspect_ai.scorer import Scorer

from inspect_personamem.data.contexts import NO_CONTEXTS, Contexts, sample_history
from inspect_personamem.data.evidence import Evidence
from inspect_personamem.data.release import ReleasedFile
from inspect_personamem.datasets.base import DatasetVersion, Group, Loaded
from inspect_personamem.datasets.declared import (
    Estimate,
    Offline,
    PaperLayout,
    Reported,
    ToolOption,
    Try,
)
from inspect_personamem.datasets.v1 import published
from inspect_personamem.datasets.v1.contexts import open_context_store
from inspect_personamem.datasets.v1.cost import question_requests
from inspect_personamem.datasets.v1.evidence import (
    check_token_fields,
    locate_evidence,
    token_distance,
)
from inspect_personamem.datasets.v1.files import locate_split_files, release_files
from inspect_personamem.datasets.v1.oracle import PersonaMemQuestions, choice_prompt
from inspect_personamem.datasets.v1.paper_prompt import PAPER
from inspect_personamem.datasets.v1.prompt import INSTRUCTION
from inspect_personamem.datasets.v1.question_types import CATEGORY_TITLES
from inspect_personamem.datasets.v1.records import QuestionRecord
from inspect_personamem.datasets.v1.samples import build_dataset, check_against_contexts
from inspect_personamem.datasets.v1.spec import DATA_DIR_ENV, PERSONAMEM, DataSource
from inspect_personamem.datasets.v1.splits import SPLITS, Split, check_split
from inspect_personamem.datasets.v1.trial import trial
from inspect_personamem.history.table import Prompted
from inspect_personamem.parameters import (
    Parameter,
    Point,
    Settings,
    Source,
    TaskSettings,
    settings_of,
)
from inspect_personamem.scoring.scorer import personamem_scorer
from inspect_personamem.types import NegativeEndIndexPolicy

TASK: Final = "personamem"
"""PersonaMem's task name."""


@dataclass(frozen=True)
class V1Settings:
    """PersonaMem's selector and own parameters (`DatasetVersion.settings`)."""

    split: Split
    shuffle: int | None
    negative_end_index: NegativeEndIndexPolicy


class PersonaMemV1(DatasetVersion[QuestionRecord]):
    """PersonaMem as released with the paper (Jiang et al., COLM 2025)."""

    key = "v1"
    release = PERSONAMEM
    task = TASK
    summary = (
        "PersonaMem: pick the reply that fits the user's current profile after a long history."
    )
    data_dir_help = "the split's two files"
    data_dir_env = DATA_DIR_ENV
    selectors = (
        Parameter(
            "split",
            "32k",
            str,
            "Context length of the split (only `personamem` takes it).",
            choices=SPLITS,
            scoring=False,  # recorded apart: a report keys runs by it
        ),
    )
    fixed = "split"
    settings = V1Settings
    own = (
        Parameter(
            "shuffle",
            None,
            int,
            "Seed of a per-question reordering of the options; none keeps the official order.",
        ),
        Parameter(
            "negative_end_index",
            "official",
            str,
            "Rows whose end index is negative (about 44 in 128k): official (slice as Python "
            "does, warn with a count), skip, or error.",
            choices=("official", "skip", "error"),
        ),
    )
    groups = (
        Group(
            "category",
            "category",
            "question type",
            mean_of_values="category_macro",
            values=CATEGORY_TITLES,
        ),
        Group("topic", "topic", "topic"),
        Group(
            "distance_to_ref_in_blocks", "sessions", "sessions elapsed", numeric=True, suffix="_ago"
        ),
        Group("distance_bin", "sessions_bin", "sessions elapsed (bins)", suffix="_ago"),
    )
    memory_prompts = MappingProxyType({"paper": PAPER})
    reported = Reported(
        PaperLayout(
            question_type="category",
            topic="topic",
            sessions="distance_to_ref_in_blocks",
            sessions_bins="distance_bin",
            along="sessions elapsed since the relevant preference",
            split=published.SPLIT,
            models=published.published_models,
            methods=published.published_methods,
            method_of=published.published_method,
            default_names=published.DEFAULT_NAMES,
        ),
        cluster_words=(
            "shared context (questions over one history are not independent; Inspect's "
            "`cluster='shared_context_id'`)"
        ),
        evidence_groups=("category", "distance_bin"),
        earlier_evidence=(
            "the session `distance_to_ref_in_blocks` before the question's own, one session "
            "further back than the token distance places it for 267 of 270 real 128k "
            "questions (task versions before 2.3.0: docs/changelog.md)"
        ),
    )
    """The paper's figures and tables, and the runs next to the published numbers
    (`report/paper.py`; the numbers: `datasets/v1/published.py`); errors clustered by
    shared context; retrieval's evidence split by question type and distance; and
    where its evidence lay before task version 2.3.0."""
    cluster = "shared_context_id"  # questions over one history are not independent

    estimate = Estimate(
        lambda selected, where: question_requests(check_split(selected["split"]), where)
    )
    """The split's question file alone (no context file), its rows' token counts."""
    trying = Try(
        "a PersonaMem split (the real question file when one is given, with generated "
        "histories that fit it; else generated questions)",
        lambda options, count, seed: trial(
            options["questions"], options["split"], count=count, seed=seed, task=TASK
        ),
        (
            ToolOption(
                "--questions",
                "a real question file (e.g. questions_32k.csv) to ask, over synthetic "
                "histories; default: synthetic questions",
                Path,
            ),
            ToolOption("--split", "split (default: from --questions, or 32k)", choices=SPLITS),
        ),
    )
    """A split of `count` synthetic questions, or the given question file's."""
    offline = Offline(
        files_named_by="split",
        steps="sessions elapsed since the fact",
        named_selection=PERSONAMEM.split_of_questions,
        questions=lambda path, selected: PersonaMemQuestions(path, check_split(selected["split"])),
        choice_prompt=choice_prompt,
        question_file=lambda arguments, _: PERSONAMEM.questions_file(
            check_split(str(arguments["split"]))
        ),
    )
    """The official final user message (question, instruction, options) and the split's
    question file."""

    def released_questions(self, selected: Mapping[str, str]) -> ReleasedFile:
        return PERSONAMEM.released[check_split(selected["split"])]

    def released_files(self, selected: Mapping[str, str]) -> dict[str, ReleasedFile]:
        """The split's question file and context file."""
        split = check_split(selected["split"])
        return {
            PERSONAMEM.questions_file(split): PERSONAMEM.released[split],
            PERSONAMEM.contexts_file(split): PERSONAMEM.released_contexts[split],
        }

    def load(self, arguments: Settings, reads_history: bool) -> Loaded[QuestionRecord]:
        own: V1Settings = self.own_settings(arguments)
        split, where = own.split, settings_of(Source, arguments)
        source = DataSource(
            split, where.data_dir, where.repo_id, where.revision, with_contexts=reads_history
        )
        files = locate_split_files(source)
        store = open_context_store(files.contexts) if files.contexts is not None else None
        rows = PERSONAMEM.read_questions(files.questions, split)
        release, checked = release_files(source, files, rows, 0 if store is None else len(store))
        records = check_against_contexts(rows, store, files.questions, own.negative_end_index)
        return Loaded(
            questions=records,
            contexts=NO_CONTEXTS if store is None else store,
            metadata={
                "split": split,
                "data_source": files.source,
                "data_release": release,
                "data_checked": checked,
            },
        )

    def dataset(
        self,
        questions: Sequence[QuestionRecord],
        loaded: Loaded[QuestionRecord],
        settings: TaskSettings,
    ) -> Dataset:
        """The questions' samples; a run that locates evidence first checks the token
        fields it reads (`datasets/v1/evidence.py`)."""
        if settings.point.history.reads_evidence:
            check_token_fields(questions)
        own = settings.typed(V1Settings)
        return build_dataset(questions, f"{self.task}_{own.split}", own.shuffle)

    def evidence(self, metadata: Mapping[str, Any], contexts: Contexts) -> Evidence:
        """The session of the message `distance_to_ref_in_tokens` before the question,
        else the session `distance_to_ref_in_blocks - 1` before its own
        (`datasets/v1/evidence.py`)."""
        return locate_evidence(
            sample_history(contexts, metadata),
            int(metadata["distance_to_ref_in_blocks"]),
            token_distance(metadata),
        )

    def scorer(self, settings: TaskSettings) -> Scorer:
        """The answer's own scorer (open answers' grader), else the official extraction."""
        own: Scorer | None = settings.answer_scorer()
        return own if own is not None else personamem_scorer()

    def prompts(self, point: Point, settings: Settings) -> dict[str, str]:
        """The axes' texts, and the official instruction where the final user message
        carries it (the options shown, not in the authors' RAG prompt)."""
        history = point.history.own(settings)
        paper = isinstance(history, Prompted) and history.memory_prompt == "paper"
        official = point.answer.name == "choice" and not paper
        own = {"datasets/v1/prompt.py:INSTRUCTION": INSTRUCTION} if official else {}
        return {**point.prompts(settings), **(PAPER.texts if paper else {}), **own}

    def refuses_selector(self, flag: str) -> str:
        """PersonaMem's length is its split, and its split is all that chooses."""
        if flag == "--length":
            return "PersonaMem (v1) has its length in --split"
        return "PersonaMem (v1) is chosen by --split"


VERSION: Final = PersonaMemV1()
"""PersonaMem's entry in the registry."""
