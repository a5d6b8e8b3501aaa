"""PersonaMem-v3's queries read for a run (`load`, its version's `load`, from the source
its version names): a folder (a `data_dir`, else PERSONAMEM_V3_DATA_DIR, else the hub's
snapshot, downloaded), every persona's queries of the family asked (`V3Question`: a
query row with its point in its persona's history), the streams read in any case (a
query's point is counted in events before its time), and what the task's metadata says
of where the files came from and how they compare with the release.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from inspect_personamem.data.files import ReadFile, data_checked, data_release, synthetic
from inspect_personamem.data.release import ReleasedFile
from inspect_personamem.datasets.base import Loaded, one_of
from inspect_personamem.datasets.v3.persona.histories import LAYOUTS, PersonaContexts, asked_at
from inspect_personamem.datasets.v3.persona.streams import PersonaStreams
from inspect_personamem.datasets.v3.release.families import FAMILIES
from inspect_personamem.datasets.v3.release.hub import HubSnapshot, download
from inspect_personamem.datasets.v3.release.records import V3Query, read_queries
from inspect_personamem.datasets.v3.release.spec import (
    CHECKOUT,
    DATA_DIR_ENV,
    PERSONA_FILES_READ_IF_PRESENT,
    PERSONAMEM_V3,
    SKIP_ADVICE,
    V3Folder,
    V3Source,
    check_folder,
)
from inspect_personamem.datasets.v3.release.testjson import read_test_json
from inspect_personamem.errors import PersonaMemArgumentError, PersonaMemDataError

logger = logging.getLogger(__name__)

ALL: Final = "all"
"""`family=all`: every task family."""
FAMILY_CHOICES: Final = (ALL, *FAMILIES)
UNCHECKED: Final = "unchecked: "
"""How `data_release` begins where nothing is known of any file the run read."""


@dataclass(frozen=True)
class V3Question:
    """A query row with its point in its persona's history (`data.order.Asked`)."""

    query: V3Query
    end_index: int
    path: Path
    """Its persona's queries file."""

    @property
    def context_id(self) -> str:
        return self.query.user_id

    @property
    def question_id(self) -> str:
        return self.query.query_id


def _folder(source: V3Source, skip: bool) -> tuple[V3Folder, str, HubSnapshot | None]:
    """The folder to read (a `data_dir`, else PERSONAMEM_V3_DATA_DIR, else the hub's
    snapshot, downloaded), where it came from, and the snapshot where it is one; with
    `skip`, its personas missing a file left out and named (`check_folder`)."""
    if source.data_dir is not None:
        root, given_by = Path(source.data_dir), source.data_dir_option
    elif os.environ.get(DATA_DIR_ENV):
        root, given_by = Path(os.environ[DATA_DIR_ENV]), DATA_DIR_ENV
    else:
        snapshot = download(source)
        folder = check_folder(snapshot.root, snapshot.personas, snapshot.where, skip)
        return folder, snapshot.where, snapshot
    folder = check_folder(root, given_by=given_by, skip=skip)
    return folder, f"local folder {root.resolve()} ({folder.layout.where})", None


@dataclass(frozen=True)
class V3Settings:
    """PersonaMem-v3's selector and own parameters (`DatasetVersion.settings`)."""

    family: str
    history_layout: str
    judge: str
    """Which rubric judge scores the rubric types (`task_types.base.JUDGE_CHOICES`)."""
    skip_bad_personas: bool
    """Leave out a persona whose files cannot be read, named in the log, rather than
    stop the load (`load`)."""


def load(
    source: V3Source,
    own: V3Settings,
    reads_history: bool,
    history: str | None,
    reads_apps: bool = False,
) -> Loaded[V3Question]:
    """Every persona's queries of the folder (of `family`, unless all), each with its
    point in its persona's history; the streams are read in any case (a query's point
    is counted in events before its time). `history`: the run's history source (None:
    not said, as by the cost estimate). A persona whose files cannot be read (a file
    missing, empty, unreadable, not UTF-8 or malformed) stops the load in one line
    naming it, or, with `skip_bad_personas`, is left out, warned of and named in the
    metadata (`skipped_personas`), which the log and the report keep.

    A persona as read is kept only while its samples are built (`PersonaStreams(keep=1)`;
    the histories keep its `Timeline`), unless the run `reads_apps`: an agent over the
    apps reads its persona at each query's time, as the run goes."""
    folder, where, snapshot = _folder(source, own.skip_bad_personas)
    root = folder.root
    family = one_of("family", own.family, FAMILY_CHOICES)
    contexts = PersonaContexts(
        PersonaStreams(root / "backend", keep=None if reads_apps else 1),
        layout=one_of("history_layout", own.history_layout, LAYOUTS),
    )
    questions: list[V3Question] = []
    read: list[ReadFile] = []
    names: list[str] = []
    skipped = list(folder.skipped)
    for uid in folder.personas:
        path = folder.queries_file(uid)
        try:
            rows = _persona_queries(folder, uid, where)
            asked = [V3Question(q, asked_at(q, contexts).end_index, path) for q in rows]
        except PersonaMemDataError as ex:  # never a persona dropped without a word
            line = str(ex) if f"persona {uid}" in str(ex) else f"persona {uid}: {ex}"
            if not own.skip_bad_personas:
                raise PersonaMemDataError(line + SKIP_ADVICE) from None
            skipped.append(line)
            continue
        name = folder.layout.queries_file(uid)
        names.extend(folder.layout.persona_files(uid))
        names.extend(  # read where present (`streams.read_persona`)
            f"{folder.layout.persona_folder(uid)}/{name}"
            for name in PERSONA_FILES_READ_IF_PRESENT
            if (folder.persona_folder(uid) / name).is_file()
        )
        released = PERSONAMEM_V3.released.get(name)
        if released is not None:
            read.append(_read_file(path, name, released, len(rows)))
        questions.extend(q for q in asked if family == ALL or q.query.family == family)
    for line in skipped:
        logger.warning("PersonaMem-v3: skipped (skip_bad_personas): %s", line)
    if not questions:
        raise PersonaMemDataError(f"{root} ({where}) holds no query of family {family!r}")
    generated = synthetic(source, names)
    if history == "evidence" and not generated:
        raise PersonaMemArgumentError(
            f"PersonaMem-v3 takes history='evidence' only on generated data: the release "
            f"({root}) does not say which events a query rests on, so its evidence would "
            "be empty; choose another history"
        )
    release = generated or (
        data_release(source, read)
        if read
        else UNCHECKED
        + (
            snapshot.release
            if snapshot is not None
            else f"nothing is known of the released {', '.join(names[:1])} and the rest "
            "(no size, digest or row count read)"
        )
    )
    return Loaded(
        questions=questions,
        contexts=contexts,
        metadata={
            "family": family,
            "personas": list(folder.personas),
            "data_source": where,
            "data_release": release,
            "data_checked": data_checked(read)
            or f"nothing known of the {len(names)} files read ({folder.layout.where}: no "
            "size, digest or row count of them is published), so none was checked",
            "license": PERSONAMEM_V3.license_note,
            **({"skipped_personas": skipped} if own.skip_bad_personas else {}),
        },
    )


def _persona_queries(folder: V3Folder, uid: str, where: str) -> list[V3Query]:
    """Persona `uid`'s queries, read and checked; one line where there are none."""
    path = folder.queries_file(uid)
    rows = read_queries(path) if folder.layout is CHECKOUT else read_test_json(path, uid)
    if not rows:
        raise PersonaMemDataError(
            f"{path}: persona {uid}'s queries file holds no query ({where}); restore "
            "it, or remove the persona's files to run without the persona"
        )
    return rows


def _read_file(path: Path, name: str, released: ReleasedFile, rows: int) -> ReadFile:
    return ReadFile(path, name, released, lambda: released.difference(name, path, rows))
