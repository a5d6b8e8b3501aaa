"""Find a PersonaMem split's files (the question file, and the context file where the
run reads a history) and check them against the release (`data.files`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from inspect_personamem.data.files import (
    ReadFile,
    data_checked,
    data_release,
    locate_file,
)
from inspect_personamem.datasets.v1.records import QuestionRecord
from inspect_personamem.datasets.v1.spec import DataSource


@dataclass(frozen=True)
class SplitFiles:
    """The question CSV and context JSONL of one split, and where they came from."""

    questions: Path
    contexts: Path | None
    """None where the run reads no history (`DataSource.with_contexts`)."""
    source: str


def locate_split_files(source: DataSource) -> SplitFiles:
    """Resolve the split's files to local paths, downloading them if needed: the
    question file, and the context file where the source reads it."""
    questions, where = locate_file(
        source, source.spec.questions_file(source.split), f"split {source.split}"
    )
    contexts = None
    if source.with_contexts:
        contexts, _ = locate_file(
            source, source.spec.contexts_file(source.split), f"split {source.split}"
        )
    return SplitFiles(questions=questions, contexts=contexts, source=where)


def release_files(
    source: DataSource, files: SplitFiles, records: Sequence[QuestionRecord], contexts: int
) -> tuple[str, str]:
    """The run's `data_release` and `data_checked`: the question file (read as
    `records`) and, where read, the context file (of `contexts` contexts), each against
    what is known of the released one."""
    spec, split = source.spec, source.split
    questions, context_file = spec.questions_file(split), spec.contexts_file(split)
    read = [
        ReadFile(
            files.questions,
            questions,
            spec.released[split],
            lambda: spec.release_difference(split, files.questions, records),
        )
    ]
    if files.contexts is not None:
        path = files.contexts
        read.append(
            ReadFile(
                path,
                context_file,
                spec.released_contexts[split],
                lambda: spec.contexts_difference(split, path, contexts),
            )
        )
    not_read = [] if files.contexts is not None else [context_file]
    return data_release(source, read), data_checked(read, not_read)
