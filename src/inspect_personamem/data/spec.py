"""What a dataset version is, in one object: where its files live and how they read.

`DatasetSpec` holds the repository, the pinned revision, the licence, the splits and
their file names, the row reader, the label mapping per split and what is known of
the released question files (rows, bytes, sha256), which a copy is checked against.
`PERSONAMEM` is the released PersonaMem (v1); a later version (PersonaMem-v2) is a
second spec, not edits across modules. `DataSource` is one split of a spec, located:
the spec, the split and where its files come from (a folder, or the hub at a
revision), so that these travel together instead of as four loose arguments.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final, Protocol

from .question_types import RAW_LABELS
from .records import QuestionRecord, read_questions
from .splits import SPLITS, Split

DATA_DIR_ENV: Final = "PERSONAMEM_DATA_DIR"
"""Environment variable naming a local folder with the split files (air-gapped use)."""

RELEASED: Final = "released"
"""`data_release` in a task's metadata when its question file matches everything known
of the released one."""
NOT_RELEASED: Final = "not the released file: "
"""The beginning of `data_release` when it does not, followed by the first difference."""
SYNTHETIC: Final = "synthetic: "
"""The beginning of `data_release` for generated data (`inspect-personamem try`, the
package's generators), followed by what generated it."""


@dataclass(frozen=True)
class ReleasedFile:
    """What is known of a released question file: a copy that differs is other data."""

    rows: int
    size: int | None
    """In bytes; None where not known."""
    sha256: str | None = None
    """Known only where a byte-exact copy is in hand."""

    def difference(self, name: str, path: Path, rows: int) -> str | None:
        """How the file at `path`, of `rows` rows, differs from the released `name` (the
        first of rows, bytes and sha256 that does), or None."""
        if rows != self.rows:
            return f"{rows} rows, the released {name} has {self.rows}"
        size = path.stat().st_size
        if self.size is not None and size != self.size:
            return f"{size:,} bytes, the released {name} has {self.size:,}"
        if self.sha256 is not None:
            digest = hashlib.sha256(path.read_bytes()).hexdigest()
            if digest != self.sha256:
                return f"sha256 {digest}, the released {name} has {self.sha256}"
        return None


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
    released: Mapping[Split, ReleasedFile]
    """Per split, what is known of its question file at `revision`."""

    def questions_file(self, split: Split) -> str:
        return self.questions_template.format(split=split)

    def contexts_file(self, split: Split) -> str:
        return self.contexts_template.format(split=split)

    def release_difference(self, split: Split, path: Path, rows: int) -> str | None:
        """How the question file at `path` (`rows` rows) differs from the split's
        released one, or None where it matches everything known."""
        return self.released[split].difference(self.questions_file(split), path, rows)

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
    released={
        # rows and bytes: the files at the pinned revision (PERSONAMEM.md, "Files");
        # sha256: computed from the byte-exact copy of questions_32k.csv we hold
        # (shared/data/questions_32k.csv), the only one of the three in hand
        "32k": ReleasedFile(
            589, 1_305_366, "cccd34cf53e0bc4d9536c04cff5ca045156d9a4e227e83327112482840bbc93c"
        ),
        "128k": ReleasedFile(2727, 5_259_005),
        "1M": ReleasedFile(2674, 5_147_772),
    },
)
"""PersonaMem as released with the paper (Jiang et al., COLM 2025)."""


class HubRelease(Protocol):
    """What a dataset version says of its hub repository."""

    @property
    def repo_id(self) -> str: ...

    @property
    def revision(self) -> str: ...


class PinnedSource:
    """The hub side of a source (mixed into `DataSource` and v2's `V2Source`): its
    repository and revision, the spec's unless given."""

    repo_id: str | None
    revision: str | None
    spec: HubRelease

    @property
    def repo(self) -> str:
        return self.repo_id or self.spec.repo_id

    @property
    def pinned(self) -> str:
        return self.revision or self.spec.revision

    @property
    def is_release(self) -> bool:
        """Whether the hub source is the spec's own repository at its pinned revision,
        whose question file must be the released one."""
        return self.repo == self.spec.repo_id and self.pinned == self.spec.revision


@dataclass(frozen=True)
class DataSource(PinnedSource):
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
    def data_dir_env(self) -> str:
        return DATA_DIR_ENV

    @property
    def wanted(self) -> str:
        """The files a folder must hold (for advice)."""
        return (
            f"the files {self.spec.questions_file(self.split)} and "
            f"{self.spec.contexts_file(self.split)}"
        )
