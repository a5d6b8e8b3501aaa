"""PersonaMem's release: where its files live and how they read.

`DatasetSpec` holds the repository, the pinned revision, the licence, the splits and
their file names, the row reader, the label mapping per split and what is known of
the released question and context files (rows, bytes, sha256; the 32k question file's
rows one by one), which a copy is checked against.
`PERSONAMEM` is the released PersonaMem. `DataSource` is one split of a spec, located:
the spec, the split and where its files come from (a folder, or the hub at a
revision), so that these travel together instead of as four loose arguments.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from inspect_personamem.data.release import PinnedSource, Release, ReleasedFile
from inspect_personamem.datasets.v1.errata import ERRATA
from inspect_personamem.datasets.v1.question_types import RAW_LABELS
from inspect_personamem.datasets.v1.records import QuestionRecord, read_questions
from inspect_personamem.datasets.v1.released_rows import released_rows, row_differences
from inspect_personamem.datasets.v1.splits import SPLITS, Split

DATA_DIR_ENV: Final = "PERSONAMEM_DATA_DIR"
"""Environment variable naming a local folder with the split files (air-gapped use)."""


@dataclass(frozen=True)
class DatasetSpec(Release):
    """PersonaMem's release: its splits, files, rows and labels."""

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
    released_contexts: Mapping[Split, ReleasedFile]
    """Per split, what is known of its context file at `revision`."""

    def questions_file(self, split: Split) -> str:
        return self.questions_template.format(split=split)

    def contexts_file(self, split: Split) -> str:
        return self.contexts_template.format(split=split)

    def release_difference(
        self, split: Split, path: Path, records: Sequence[QuestionRecord]
    ) -> str | None:
        """How the question file at `path` (read as `records`) differs from the split's
        released one, or None where it matches everything known; where the release's
        rows are known (`released_rows`), which rows differ and how."""
        name = self.questions_file(split)
        difference = self.released[split].difference(name, path, len(records))
        rows = released_rows(name)
        if difference is None or rows is None:
            return difference
        return "; ".join([difference, *row_differences(records, rows)])

    def contexts_difference(self, split: Split, path: Path, contexts: int) -> str | None:
        """How the context file at `path` (of `contexts` contexts) differs from the
        split's released one, or None where it matches everything known."""
        return self.released_contexts[split].difference(self.contexts_file(split), path, contexts)

    def split_of_questions(self, path: Path) -> Split | None:
        """The split whose question file `path` is named as, if any."""
        return next((s for s in self.splits if path.name == self.questions_file(s)), None)


PERSONAMEM: Final = DatasetSpec(
    name="PersonaMem",
    # the name the authors now use (their v2 and v3 dataset cards link v1 here), at the
    # revision third parties pin (PERSONAMEM.md, "Files"); the repository was
    # bowen-upenn/PersonaMem, pinned here at 2d676b2aeeddd1ee2ff4ff611bf867fcb2261d6e
    # before (task version 2.2.0 and earlier)
    repo_id="bowen-upenn/PersonaMem-v1",
    revision="73dfd752d477d0c466cd441f1669397f5726d7ab",
    former_repo_ids=("bowen-upenn/PersonaMem",),
    license="MIT",
    splits=SPLITS,
    questions_template="questions_{split}.csv",
    contexts_template="shared_contexts_{split}.jsonl",
    read_questions=read_questions,
    labels=RAW_LABELS,
    released={
        # 32k: a third party's pin at the pinned revision (PERSONAMEM.md, "Files"), the
        # bytes of our copy (shared/data/questions_32k.csv), whose sha256 we computed;
        # 128k and 1M: rows and bytes at the former pin 2d676b2a of the same release
        # (PERSONAMEM.md, "Files"), so a download that differs is marked, not refused
        "32k": ReleasedFile(
            589, 1_305_366, "cccd34cf53e0bc4d9536c04cff5ca045156d9a4e227e83327112482840bbc93c"
        ),
        "128k": ReleasedFile(2727, 5_259_005, of_pinned_revision=False),
        "1M": ReleasedFile(2674, 5_147_772, of_pinned_revision=False),
    },
    released_contexts={
        # 32k: the same third party's pin at the pinned revision; 128k and 1M: contexts
        # in the files as another third party counted them, sizes not known
        "32k": ReleasedFile(
            37,
            5_613_210,
            "217247ebfec9e8442fc53570c795ab69f21aad08745f7de78d9beab51b122d4a",
            unit="contexts",
        ),
        "128k": ReleasedFile(110, None, unit="contexts", of_pinned_revision=False),
        "1M": ReleasedFile(33, None, unit="contexts", of_pinned_revision=False),
    },
    errata=ERRATA,
)
"""PersonaMem as released with the paper (Jiang et al., COLM 2025)."""


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
    with_contexts: bool = True
    """Whether the context file is read (not with `history=none`, nor by the estimate)."""

    @property
    def data_dir_env(self) -> str:
        return DATA_DIR_ENV

    @property
    def wanted(self) -> str:
        """The files a folder must hold (for advice)."""
        questions = self.spec.questions_file(self.split)
        if not self.with_contexts:
            return f"the file {questions}"
        return f"the files {questions} and {self.spec.contexts_file(self.split)}"
