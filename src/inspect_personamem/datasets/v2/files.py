"""Find PersonaMem-v2's files: the subset's question file, and a persona's history when
first needed.

Through `data.files.locate_file`, as PersonaMem's: the source's folder (in the
released layout), else PERSONAMEM_V2_DATA_DIR, else the hub at the pinned revision
(cache first, failing fast offline). The question file is checked against what is
known of the released one (`V2Spec.released`) as v1's is: from the hub at the pinned
revision a difference is an error, from elsewhere a warning and a `data_release` mark.
History files are located one at a time, at the path their row links, so that only
the personas asked about are downloaded.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from inspect_personamem.data.files import ReadFile, data_release, locate_file, must_be_released
from inspect_personamem.datasets.v2.records import V2Record, read_questions
from inspect_personamem.datasets.v2.spec import Length, V2Source


@dataclass(frozen=True)
class QuestionFile:
    """A subset's question file and where it came from."""

    path: Path
    source: str
    """`local folder ...` or `hf://datasets/{repo}@{revision}`."""
    must_be_released: bool
    """Downloaded from the spec's own repository at its pinned revision, so it must be
    the released file."""


@dataclass(frozen=True)
class SubsetQuestions:
    """A subset's records, read from its question file, and how that file compares with
    the released one."""

    records: list[V2Record]
    file: QuestionFile
    data_release: str
    """`released`, `not the released file: <the first difference>`, or `synthetic: ...`."""


def load_questions(source: V2Source) -> SubsetQuestions:
    """Locate, read and check the question file of `source`'s subset."""
    file = locate_questions(source)
    records = read_questions(file.path, source.subset, source.spec)
    name, released = source.questions_file, source.spec.released[source.subset]
    read = ReadFile(
        file.path, name, released, lambda: released.difference(name, file.path, len(records))
    )
    return SubsetQuestions(records, file, data_release(source, [read]))


def locate_questions(source: V2Source) -> QuestionFile:
    """The subset's question file as a local path, downloaded if needed."""
    path, where = locate_file(source, source.questions_file, f"subset {source.subset}")
    return QuestionFile(path, where, must_be_released(source))


def locate_history(source: V2Source, record: V2Record, length: Length) -> Path:
    """The history file of `length` that `record` links, as a local path."""
    return locate_file(
        source, record.history_link(length), f"persona {record.persona_id}'s {length} history"
    )[0]
