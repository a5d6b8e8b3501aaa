"""Find a dataset's files: a local folder, or the pinned Hugging Face revision.

Order: the source's `data_dir`, else its environment variable (PERSONAMEM_DATA_DIR for
PersonaMem), else `huggingface_hub.hf_hub_download` from the dataset repository at a
pinned revision (cached by huggingface_hub; `HF_HUB_OFFLINE=1` uses the cache only and
fails fast). A named folder is used as is, never mixed with the hub. Whatever fails
ends in one PersonaMemDataError that says what failed and how to provide the files.
`locate_file` does this for any source (`FileSource`: a dataset version's selection
of files).

Every file the run reads is then checked against what is known of the released one
(rows, bytes, sha256: `ReleasedFile`; where known, row by row): from the hub at
the pinned revision a difference is an error (a damaged download); from a folder, or
another revision, it is a warning and a mark in the task's metadata (`data_release`),
which the report shows, as it shows a file the package generated (`synthetic: ...`).

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
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol
from urllib.parse import urlsplit

from inspect_personamem.data.provenance import generated_by
from inspect_personamem.data.release import NOT_RELEASED, RELEASED, SYNTHETIC, Release, ReleasedFile
from inspect_personamem.errors import PersonaMemDataError

logger = logging.getLogger(__name__)


class FileSource(Protocol):
    """Where a dataset version's files come from: what the locator needs of a source."""

    @property
    def spec(self) -> Release: ...

    @property
    def data_dir(self) -> str | Path | None:
        """A local folder holding the files; None: the environment variable, else the hub."""

    @property
    def data_dir_option(self) -> str:
        """How the user names the folder (errors advise it): `-T data_dir`, `--data-dir`."""

    @property
    def data_dir_env(self) -> str:
        """The environment variable naming a local folder."""

    @property
    def repo(self) -> str:
        """The hub repository to download from, by its current name."""

    @property
    def renamed(self) -> str | None:
        """The repository's former name, where the source was given it."""

    @property
    def pinned(self) -> str:
        """The revision of `repo` to download."""

    @property
    def is_release(self) -> bool:
        """Whether `repo` at `pinned` is the spec's own release."""

    @property
    def wanted(self) -> str:
        """The files a folder must hold, for advice: `the files a.csv and b.jsonl`."""


@dataclass(frozen=True)
class ReadFile:
    """A file a run read, what is known of the released one, and how it differs."""

    path: Path
    name: str
    """Its path inside the release."""
    released: ReleasedFile
    difference: Callable[[], str | None]
    """How it differs from the released one (None: it matches all that is known), worked
    out only where the file is not generated."""


def data_release(source: FileSource, read: Sequence[ReadFile]) -> str:
    """`released` where every file the run read matches everything known of the released
    one; `synthetic: ...` where the package generated one of them (not compared with the
    release at all); else `not the released file: ...`, the files that differ named, as
    `release_mark` says (a warning, or an error for a download that must be released)."""
    generated = synthetic(source, [file.name for file in read])
    if generated:
        return generated
    must_be = must_be_released(source)
    marks = [
        release_mark(
            source, file.path, file.name, difference, must_be and file.released.of_pinned_revision
        )
        for file in read
        if (difference := file.difference()) is not None
    ]
    if not marks:
        return RELEASED
    return NOT_RELEASED + "; ".join(mark.removeprefix(NOT_RELEASED) for mark in marks)


def data_checked(read: Sequence[ReadFile], not_read: Sequence[str] = ()) -> str:
    """What the release check could compare each file read with (`rows, bytes,
    sha256`), then the files of the release the run did not read: the run's
    `data_checked`, shown beside `data_release`."""
    checked = [_checked(file.name, file.released) for file in read]
    return "; ".join([*checked, *(f"{name}: not read" for name in not_read)])


def _checked(name: str, released: ReleasedFile) -> str:
    """What a copy of the released `name` is checked against, and that its bytes and
    digest are not where they are unknown."""
    unknown = "" if released.size is not None else " (its bytes and digest unknown)"
    return f"{name}: {released.known}{unknown}"


def must_be_released(source: FileSource) -> bool:
    """Whether the files come from the spec's own repository at its pinned revision
    (not a folder), so that they must be the released files."""
    return _folder(source) is None and source.is_release


NAMED_FILES = 3
"""The most files of one generator `synthetic` names each; more are counted, the first
and last named (a generated v3 folder holds six files a persona)."""


def synthetic(source: FileSource, names: Sequence[str]) -> str:
    """`synthetic: <file> written by <generator>` for the files of `names` (paths inside
    the release) that the package generated in the source's folder (`data.provenance`),
    or `<first>, ... <last> (<n> files) written by <generator>` for more than
    `NAMED_FILES` of one, logged as a warning; empty where it generated none."""
    folder = _folder(source)
    if folder is None:  # the hub's files are the repository's
        return ""
    root = folder[0]
    by_generator: dict[str, list[str]] = {}
    for name in names:
        if (by := generated_by(root, name)) is not None:
            by_generator.setdefault(by, []).append(name)
    if not by_generator:
        return ""
    generated = [
        f"{written[0]}, ... {written[-1]} ({len(written)} files) written by {by}"
        if len(written) > NAMED_FILES
        else "; ".join(f"{name} written by {by}" for name in written)
        for by, written in by_generator.items()
    ]
    logger.warning(
        f"{root}: {'; '.join(generated)}: a run on generated data, never comparable with "
        "runs on the released data."
    )
    return SYNTHETIC + "; ".join(generated)


def release_mark(
    source: FileSource, path: Path, name: str, difference: str | None, must_be: bool
) -> str:
    """`released` where the file at `path` (the release's `name`) has no `difference`
    from the released one; else `not the released file: <difference>`, with a warning,
    or an error where the file `must_be` the released one."""
    if difference is None:
        return RELEASED
    if must_be:
        raise PersonaMemDataError(
            f"{path} is not the released {name} of {source.repo} at revision "
            f"{source.pinned} ({difference}): a damaged download? Delete it from the Hugging "
            "Face cache (huggingface-cli delete-cache) and run again."
        )
    logger.warning(
        f"{path} is not the released {name} of {source.spec.repo_id} at revision "
        f"{source.spec.revision} ({difference}): results are not comparable with runs on the "
        "released data."
    )
    return NOT_RELEASED + difference


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


def locate_file(source: FileSource, name: str, purpose: str) -> tuple[Path, str]:
    """The file `name` (a path inside the release) of `source` as a local path, and
    where it came from; `purpose` (`split 32k`) says in errors what it was wanted for."""
    folder = _folder(source)
    if folder is not None:
        return _from_folder(name, purpose, source, *folder)
    return _from_hub(name, purpose, source)


def _folder(source: FileSource) -> tuple[Path, str] | None:
    """The local folder to read the files from and what named it; None: the hub."""
    if source.data_dir is not None:
        return Path(source.data_dir), source.data_dir_option
    env_dir = os.environ.get(source.data_dir_env)
    return (Path(env_dir), source.data_dir_env) if env_dir else None


def _from_folder(
    name: str, purpose: str, source: FileSource, folder: Path, given_by: str
) -> tuple[Path, str]:
    path = folder / name
    if not folder.is_dir():
        raise PersonaMemDataError(
            f"{folder} (given by {given_by}) is not a folder. Put {source.wanted} of "
            f"{source.repo} in a folder and point {given_by} there."
        )
    if not path.is_file():
        raise PersonaMemDataError(
            f"{folder} (given by {given_by}) lacks {name} for {purpose}. "
            f"Put the files of {source.repo} there, or point {given_by} elsewhere."
        )
    return path.resolve(), f"local folder {folder.resolve()}"


def _from_hub(name: str, purpose: str, source: FileSource) -> tuple[Path, str]:
    from huggingface_hub import hf_hub_download

    repo, revision = source.repo, source.pinned
    where = f"hf://datasets/{repo}@{revision}"
    if source.renamed:  # recorded as resolved
        where += f" (given as {source.renamed}, its former name)"
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
            raise _hub_error(name, purpose, source, unreachable)
    try:
        path = hf_hub_download(repo, name, repo_type="dataset", revision=revision)
    except Exception as ex:  # every hub failure gets the same advice
        first_line = (str(ex).strip().splitlines() or [""])[0]
        raise _hub_error(name, purpose, source, f"{type(ex).__name__}: {first_line}") from ex
    return Path(path).resolve(), where


def _hub_error(name: str, purpose: str, source: FileSource, reason: str) -> PersonaMemDataError:
    repo, revision = source.repo, source.pinned
    offline = " (HF_HUB_OFFLINE is set: only the local cache was tried)" if hub_offline() else ""
    return PersonaMemDataError(
        f"Could not get {name} ({purpose}) of dataset {repo} at revision {revision} from the "
        f"Hugging Face hub{offline}: {reason}; "
        f"to run without the hub, download {source.wanted} from "
        f"https://huggingface.co/datasets/{repo}/tree/{revision} into a folder and "
        f"pass {source.data_dir_option}=FOLDER or set {source.data_dir_env}=FOLDER."
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
