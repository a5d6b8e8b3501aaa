"""PersonaMem-v2 as released: repository, pinned revision, files, and where they come from.

v2 differs from PersonaMem (v1) in layout, so it has its own spec: its question files
are chosen by `subset` (`benchmark`, `train`, `val`: v1's `split` means a context
length), and every row links one history file per context `length` (`32k`, `128k`),
one per persona, at a path inside the release. `V2Source` is one subset, located: a
folder, the PERSONAMEM_V2_DATA_DIR variable, or the hub at a revision (`data.files`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Final, Literal, get_args

from inspect_personamem.data.release import PinnedSource, Release, ReleasedFile
from inspect_personamem.datasets.v2.errata import ERRATA

Subset = Literal["benchmark", "train", "val"]
SUBSETS: tuple[Subset, ...] = get_args(Subset)
Length = Literal["32k", "128k"]
"""A history's context length: each row links one history file of each."""
LENGTHS: tuple[Length, ...] = get_args(Length)


def check_subset(subset: str) -> Subset:
    """Return `subset` typed as a Subset, or raise naming the valid choices."""
    for known in SUBSETS:
        if subset == known:
            return known
    raise ValueError(
        f"Unknown PersonaMem-v2 subset {subset!r}; choose one of {', '.join(SUBSETS)}."
    )


DATA_DIR_ENV: Final = "PERSONAMEM_V2_DATA_DIR"
"""Environment variable naming a local folder in the released layout (air-gapped use)."""


@dataclass(frozen=True)
class V2Spec(Release):
    """PersonaMem-v2's release: its question files and what is known of them."""

    questions_template: str
    """Path of a subset's question file in the release, `{subset}` standing for it."""
    released: Mapping[Subset, ReleasedFile]
    """Per subset, what is known of its question file at `revision`."""
    incorrect_answers: Mapping[Subset, int]
    """Per subset where it is known, how many incorrect answers every row holds."""

    def questions_file(self, subset: Subset) -> str:
        return self.questions_template.format(subset=subset)

    def subset_of_questions(self, path: Path) -> Subset | None:
        """The subset whose question file `path` is named as (`benchmark.csv`, ...), if any."""
        return next(
            (s for s in SUBSETS if path.name == PurePosixPath(self.questions_file(s)).name), None
        )


PERSONAMEM_V2: Final = V2Spec(
    name="PersonaMem-v2",
    repo_id="bowen-upenn/PersonaMem-v2",
    former_repo_ids=("bowen-upenn/ImplicitPersona",),  # its first name (PERSONAMEM_V2.md)
    # the revision a public notebook loaded (PERSONAMEM_V2.md, "Identity")
    revision="87abb2e774588a8bc97d939640ac2843c84aa1f1",
    license="CC-BY-4.0",
    questions_template="benchmark/text/{subset}.csv",
    released={
        # rows: the dataset's configs; bytes and sha256 of benchmark.csv: third-party
        # audits (PERSONAMEM_V2.md, "Identity" and "Files and sizes")
        "benchmark": ReleasedFile(
            5000, 42_426_457, "95f2a8a324aab7baf2af937feae12731369e2abf7cad5ab3e170594cb25a3e52"
        ),
        "train": ReleasedFile(18_549, None),
        "val": ReleasedFile(2061, None),
    },
    incorrect_answers={"benchmark": 3},
    errata=ERRATA,
)
"""PersonaMem-v2 (Jiang et al., arXiv 2512.06688), text questions."""


@dataclass(frozen=True)
class V2Source(PinnedSource):
    """One subset of PersonaMem-v2 and where its files come from.

    Order of places: `data_dir` (a folder in the released layout:
    `benchmark/text/{subset}.csv`, histories at the paths the rows link), else the
    PERSONAMEM_V2_DATA_DIR variable, else the hub at `repo_id`/`revision` (the spec's,
    unless given).
    """

    subset: Subset = "benchmark"
    data_dir: str | Path | None = None
    repo_id: str | None = None
    revision: str | None = None
    spec: V2Spec = field(default=PERSONAMEM_V2)
    data_dir_option: str = "-T data_dir"
    """How the user names the folder where this source is used (errors advise it)."""

    @property
    def data_dir_env(self) -> str:
        return DATA_DIR_ENV

    @property
    def questions_file(self) -> str:
        return self.spec.questions_file(self.subset)

    @property
    def wanted(self) -> str:
        """The files a folder must hold (for advice)."""
        folders = " and ".join(f"data/chat_history_{length}/" for length in LENGTHS)
        return f"{self.questions_file} and the history files under {folders}"
