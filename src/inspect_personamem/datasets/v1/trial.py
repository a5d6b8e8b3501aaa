"""What `inspect-personamem try` runs on PersonaMem: a split written into a folder, the
real question file when one is given (with synthetic histories that fit its end
indices and distances, each question's evidence placed where its row says), else fully
synthetic; what it generates is marked so (`data.provenance`), and every run that
reads it labelled synthetic."""

from __future__ import annotations

import shutil
from pathlib import Path

from inspect_personamem.datasets.declared import Trial
from inspect_personamem.datasets.v1.fitting import write_fitting_contexts
from inspect_personamem.datasets.v1.generator import generate_split
from inspect_personamem.datasets.v1.spec import PERSONAMEM
from inspect_personamem.datasets.v1.splits import Split, check_split
from inspect_personamem.errors import PersonaMemArgumentError


def trial(questions: Path | None, split: str | None, *, count: int, seed: int, task: str) -> Trial:
    """The split `try` writes and its task (`<task>_<split>`): the split given, else
    that of the question file's name, else 32k; checked before anything is written."""
    chosen = _split_of(questions, split)
    return Trial(
        f"inspect_personamem/{task}_{chosen}",
        lambda folder: write_split(folder, chosen, questions, count=count, seed=seed),
        "generated" if questions is None else "real questions, generated histories",
    )


def write_split(
    folder: Path, split: Split, questions: Path | None, *, count: int, seed: int
) -> Path:
    """Write a split into `folder`; return its question file. A given question file is
    copied byte for byte and read first, so a faulty one fails naming row and field."""
    folder.mkdir(parents=True, exist_ok=True)
    if questions is None:
        written, _ = generate_split(
            folder,
            split,
            contexts=max(1, count // 10),
            min_messages=40,
            max_messages=80,
            questions=count,
            seed=seed,
        )
        return written
    records = PERSONAMEM.read_questions(questions, split)
    target = folder / PERSONAMEM.questions_file(split)
    shutil.copyfile(questions, target)
    columns = [record.columns for record in records]
    write_fitting_contexts(folder / PERSONAMEM.contexts_file(split), columns, seed=seed)
    return target


def _split_of(questions: Path | None, split: str | None) -> Split:
    if split is not None:
        return check_split(split)
    if questions is None:
        return "32k"
    found = PERSONAMEM.split_of_questions(questions)
    if found is None:
        raise PersonaMemArgumentError(
            f"cannot tell the split of {questions} from its name; pass --split"
        )
    return found
