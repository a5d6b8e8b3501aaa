"""Find a split's two files: a local folder, or the pinned Hugging Face revision.

Order: the `data_dir` argument, else the PERSONAMEM_DATA_DIR environment variable,
else `huggingface_hub.hf_hub_download` from the dataset repository at a pinned
revision (cached by huggingface_hub; `HF_HUB_OFFLINE=1` uses the cache only and
fails fast). A named folder is used as is, never mixed with the hub. Whatever fails
ends in one PersonaMemDataError that says what failed and how to provide the files.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from .errors import PersonaMemDataError
from .splits import (
    DATA_DIR_ENV,
    DEFAULT_REPO_ID,
    DEFAULT_REVISION,
    Split,
    contexts_filename,
    questions_filename,
)


@dataclass(frozen=True)
class SplitFiles:
    """The question CSV and context JSONL of one split, and where they came from."""

    questions: Path
    contexts: Path
    source: str


def locate_split_files(
    split: Split,
    data_dir: str | Path | None = None,
    repo_id: str = DEFAULT_REPO_ID,
    revision: str = DEFAULT_REVISION,
) -> SplitFiles:
    """Resolve the split's two files to local paths, downloading them if needed."""
    questions, source = locate_question_file(split, data_dir, repo_id, revision)
    contexts, _ = _locate(contexts_filename(split), split, data_dir, repo_id, revision)
    return SplitFiles(questions=questions, contexts=contexts, source=source)


def locate_question_file(
    split: Split,
    data_dir: str | Path | None = None,
    repo_id: str = DEFAULT_REPO_ID,
    revision: str = DEFAULT_REVISION,
) -> tuple[Path, str]:
    """The split's question file alone (all that token counts need), and its source."""
    return _locate(questions_filename(split), split, data_dir, repo_id, revision)


def _locate(
    name: str, split: Split, data_dir: str | Path | None, repo_id: str, revision: str
) -> tuple[Path, str]:
    if data_dir is not None:
        return _from_folder(name, split, Path(data_dir), "data_dir")
    env_dir = os.environ.get(DATA_DIR_ENV)
    if env_dir:
        return _from_folder(name, split, Path(env_dir), DATA_DIR_ENV)
    return _from_hub(name, split, repo_id, revision)


def _from_folder(name: str, split: Split, folder: Path, given_by: str) -> tuple[Path, str]:
    path = folder / name
    if not path.is_file():
        raise PersonaMemDataError(
            f"{folder} (given by {given_by}) lacks {name} for split {split}. "
            f"Put the files of {DEFAULT_REPO_ID} there, or point {given_by} elsewhere."
        )
    return path.resolve(), f"local folder {folder}"


def _from_hub(name: str, split: Split, repo_id: str, revision: str) -> tuple[Path, str]:
    from huggingface_hub import hf_hub_download

    try:
        path = hf_hub_download(repo_id, name, repo_type="dataset", revision=revision)
    except Exception as ex:  # every hub failure gets the same advice
        first_line = (str(ex).strip().splitlines() or [""])[0]
        offline = " (HF_HUB_OFFLINE is set: only the local cache was tried)" if _offline() else ""
        raise PersonaMemDataError(
            f"Could not get {name} of dataset {repo_id} at revision {revision} from the "
            f"Hugging Face hub{offline}: {type(ex).__name__}: {first_line}\n"
            f"To run without the hub, download {questions_filename(split)} and "
            f"{contexts_filename(split)} from "
            f"https://huggingface.co/datasets/{repo_id}/tree/{revision} into a folder and "
            f"pass -T data_dir=FOLDER or set {DATA_DIR_ENV}=FOLDER."
        ) from ex
    return Path(path).resolve(), f"hf://datasets/{repo_id}@{revision}"


def _offline() -> bool:
    from huggingface_hub import constants

    return bool(constants.HF_HUB_OFFLINE)
