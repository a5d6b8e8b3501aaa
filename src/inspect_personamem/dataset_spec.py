"""What a dataset version is, in one object: where its files live and how they read.

`DatasetSpec` holds the repository, the pinned revision, the licence, the splits and
their file names, the row reader and the label mapping per split. `PERSONAMEM` is
the released PersonaMem (v1); a later version (PersonaMem-v2) is a second spec, not
edits across modules. `DataSource` is one split of a spec, located: the spec, the
split and where its files come from (a folder, or the hub at a revision), so that
these travel together instead of as four loose arguments.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from .question_types import RAW_LABELS
from .records import QuestionRecord, read_questions
from .splits import SPLITS, Split

DATA_DIR_ENV: Final = "PERSONAMEM_DATA_DIR"
"""Environment variable naming a local folder with the split files (air-gapped use)."""


@dataclass(frozen=True)
class DatasetSpec:
    """A released dataset version: files, pinned revision, licence, rows and labels."""

    name: str
    repo_id: str
    """Hugging Face dataset repository holding the released files."""
    revision: str
    """Pinned commit of `repo_id`: results are comparable only on the same files."""
    license: str
    splits: tuple[Split, ...]
    questions_template: str
    """File name of a split's question table, `{split}` standing for the split."""
    contexts_template: str
    """File name of a split's shared-context JSONL."""
    read_questions: Callable[[Path, Split], list[QuestionRecord]]
    """The row reader: a question file to validated records (raises naming row and field)."""
    labels: Mapping[Split, Mapping[str, str]]
    """Per split, raw `question_type` label -> paper category."""

    def questions_file(self, split: Split) -> str:
        return self.questions_template.format(split=split)

    def contexts_file(self, split: Split) -> str:
        return self.contexts_template.format(split=split)

    def split_of_questions(self, path: Path) -> Split | None:
        """The split whose question file `path` is named as, if any."""
        return next((s for s in self.splits if path.name == self.questions_file(s)), None)


PERSONAMEM: Final = DatasetSpec(
    name="PersonaMem",
    repo_id="bowen-upenn/PersonaMem",
    revision="2d676b2aeeddd1ee2ff4ff611bf867fcb2261d6e",
    license="MIT",
    splits=SPLITS,
    questions_template="questions_{split}.csv",
    contexts_template="shared_contexts_{split}.jsonl",
    read_questions=read_questions,
    labels=RAW_LABELS,
)
"""PersonaMem as released with the paper (Jiang et al., COLM 2025)."""


@dataclass(frozen=True)
class DataSource:
    """One split of a dataset and where its files come from.

    Order of places: `data_dir`, else the PERSONAMEM_DATA_DIR variable, else the hub
    at `repo_id`/`revision` (the spec's, unless given).
    """

    split: Split
    data_dir: str | Path | None = None
    repo_id: str | None = None
    revision: str | None = None
    spec: DatasetSpec = field(default=PERSONAMEM)
    data_dir_option: str = "-T data_dir"
    """How the user names the folder where this source is used (errors advise it):
    the task's `-T data_dir`, the `estimate` command's `--data-dir`."""

    @property
    def repo(self) -> str:
        return self.repo_id or self.spec.repo_id

    @property
    def pinned(self) -> str:
        return self.revision or self.spec.revision
