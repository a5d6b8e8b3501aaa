"""Find a split's two files: a local folder, or the pinned Hugging Face revision.

Order: the source's `data_dir`, else the PERSONAMEM_DATA_DIR environment variable,
else `huggingface_hub.hf_hub_download` from the dataset repository at a pinned
revision (cached by huggingface_hub; `HF_HUB_OFFLINE=1` uses the cache only and
fails fast). A named folder is used as is, never mixed with the hub. Whatever fails
ends in one PersonaMemDataError that says what failed and how to provide the files.

The question file is then checked against what is known of the released one (rows,
bytes, sha256: `DatasetSpec.released`): from the hub at the pinned revision a
difference is an error (a damaged download); from a folder, or another revision, it
is a warning and a mark in the task's metadata (`data_release`), which the report shows.

Failing fast: a file of a pinned commit never changes, so the local cache is tried
first, without the network. huggingface_hub retries a failed connection for about
25 s; when the hub's host cannot be resolved or connected to at all (no network),
retrying cannot help, so that is checked first, in a second or so (skipped behind a
proxy, where the proxy resolves the host).
"""

from __future__ import annotations

import logging
import os
import re
import socket
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from ..errors import PersonaMemDataError
from .spec import DATA_DIR_ENV, NOT_RELEASED, RELEASED, DataSource

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class SplitFiles:
    """The question CSV and context JSONL of one split, and where they came from."""

    questions: Path
    contexts: Path
    source: str
    must_be_released: bool
    """Downloaded from the spec's own repository at its pinned revision, so they must
    be the released files."""


def locate_split_files(source: DataSource) -> SplitFiles:
    """Resolve the split's two files to local paths, downloading them if needed."""
    questions, where = locate_question_file(source)
    contexts, _ = _locate(source.spec.contexts_file(source.split), source)
    return SplitFiles(
        questions=questions,
        contexts=contexts,
        source=where,
        must_be_released=_folder(source) is None and source.is_release,
    )


def data_release(source: DataSource, files: SplitFiles, rows: int) -> str:
    """`released` where the question file (of `rows` rows) matches everything known of
    the released one; else `not the released file: <the first difference>`, with a
    warning, or an error where the file had to be the released one."""
    name = source.spec.questions_file(source.split)
    difference = source.spec.release_difference(source.split, files.questions, rows)
    if difference is None:
        return RELEASED
    if files.must_be_released:
        raise PersonaMemDataError(
            f"{files.questions} is not the released {name} of {source.repo} at revision "
            f"{source.pinned} ({difference}): a damaged download? Delete it from the Hugging "
            "Face cache (huggingface-cli delete-cache) and run again."
        )
    logger.warning(
        f"{files.questions} is not the released {name} of {source.spec.repo_id} at revision "
        f"{source.spec.revision} ({difference}): results are not comparable with runs on the "
        "released data."
    )
    return NOT_RELEASED + difference


def locate_question_file(source: DataSource) -> tuple[Path, str]:
    """The split's question file alone (all that token counts need), and its source."""
    return _locate(source.spec.questions_file(source.split), source)


_COMMIT = re.compile(r"[0-9a-f]{40}")
CONNECT_TIMEOUT = 5.0
"""Seconds allowed to open a connection to the hub before giving up at once."""
_PROXY_VARIABLES = (
    "HTTPS_PROXY",
    "https_proxy",
    "HTTP_PROXY",
    "http_proxy",
    "ALL_PROXY",
    "all_proxy",
)


def _locate(name: str, source: DataSource) -> tuple[Path, str]:
    folder = _folder(source)
    if folder is not None:
        return _from_folder(name, source, *folder)
    return _from_hub(name, source)


def _folder(source: DataSource) -> tuple[Path, str] | None:
    """The local folder to read the files from and what named it; None: the hub."""
    if source.data_dir is not None:
        return Path(source.data_dir), source.data_dir_option
    env_dir = os.environ.get(DATA_DIR_ENV)
    return (Path(env_dir), DATA_DIR_ENV) if env_dir else None


def _from_folder(name: str, source: DataSource, folder: Path, given_by: str) -> tuple[Path, str]:
    path = folder / name
    if not folder.is_dir():
        raise PersonaMemDataError(
            f"{folder} (given by {given_by}) is not a folder. Put the files "
            f"{source.spec.questions_file(source.split)} and "
            f"{source.spec.contexts_file(source.split)} of {source.repo} in a folder and "
            f"point {given_by} there."
        )
    if not path.is_file():
        raise PersonaMemDataError(
            f"{folder} (given by {given_by}) lacks {name} for split {source.split}. "
            f"Put the files of {source.repo} there, or point {given_by} elsewhere."
        )
    return path.resolve(), f"local folder {folder}"


def _from_hub(name: str, source: DataSource) -> tuple[Path, str]:
    from huggingface_hub import hf_hub_download

    repo, revision = source.repo, source.pinned
    where = f"hf://datasets/{repo}@{revision}"
    if _COMMIT.fullmatch(revision):  # a commit's files never change: a cached copy is it
        try:
            cached = hf_hub_download(
                repo, name, repo_type="dataset", revision=revision, local_files_only=True
            )
        except Exception:  # not cached (or no usable cache): fetch it below
            pass
        else:
            return Path(cached).resolve(), where
    if not hub_offline():
        unreachable = unreachable_hub()
        if unreachable is not None:
            raise _hub_error(name, source, unreachable)
    try:
        path = hf_hub_download(repo, name, repo_type="dataset", revision=revision)
    except Exception as ex:  # every hub failure gets the same advice
        first_line = (str(ex).strip().splitlines() or [""])[0]
        raise _hub_error(name, source, f"{type(ex).__name__}: {first_line}") from ex
    return Path(path).resolve(), where


def _hub_error(name: str, source: DataSource, reason: str) -> PersonaMemDataError:
    repo, revision, spec = source.repo, source.pinned, source.spec
    offline = " (HF_HUB_OFFLINE is set: only the local cache was tried)" if hub_offline() else ""
    return PersonaMemDataError(
        f"Could not get {name} of dataset {repo} at revision {revision} from the "
        f"Hugging Face hub{offline}: {reason}\n"
        f"To run without the hub, download {spec.questions_file(source.split)} and "
        f"{spec.contexts_file(source.split)} from "
        f"https://huggingface.co/datasets/{repo}/tree/{revision} into a folder and "
        f"pass {source.data_dir_option}=FOLDER or set {DATA_DIR_ENV}=FOLDER."
    )


def unreachable_hub() -> str | None:
    """Why the hub's host cannot be reached at all (no retry would help), or None.

    Behind a proxy the host need not resolve here, so nothing is checked."""
    from huggingface_hub import constants

    if any(os.environ.get(name) for name in _PROXY_VARIABLES):
        return None
    url = urlsplit(constants.ENDPOINT)
    host = url.hostname
    if not host:
        return None
    port = url.port or (443 if url.scheme == "https" else 80)
    try:
        addresses = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError as ex:
        return f"the hub's host {host} cannot be resolved ({ex}): is this machine offline?"
    errors = []
    for family, kind, protocol, _, address in addresses:
        try:
            with socket.socket(family, kind, protocol) as connection:
                connection.settimeout(CONNECT_TIMEOUT)
                connection.connect(address)
            return None
        except OSError as ex:
            errors.append(str(ex) or type(ex).__name__)
    return f"no connection to the hub at {host}:{port} ({'; '.join(errors)})"


def hub_offline() -> bool:
    from huggingface_hub import constants

    return bool(constants.HF_HUB_OFFLINE)
