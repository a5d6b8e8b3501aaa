"""PersonaMem-v3 as released: repository, revision, licence, the two layouts its files come
in, and what a folder of them must hold.

Sources: `../shared/docs/PERSONAMEM_V3.md` section 1 and `../shared/data/personamem_v3/`
(full commit hashes in its COMMITS.md).

- The hub dataset `bowen-upenn/PersonaMem-v3` (`HUB`): per persona `backend/{uid}/` with
  the profile, the five apps' files, the calendar, `persona.html` and the queries as
  `test.json` (the newest pipeline writes it instead of `queries.csv`; `testjson` reads
  it), for the 100 personas of `HUB_PERSONAS`; no `trending.json` nor
  `ai_studio_memory.json` (`HUB_FILES`). `HUB_REVISION` pins the commit a third-party
  benchmark catalog downloads the hub's `backend/` at (the only commit of the hub found
  anywhere); this package has not checked it against the hub (`HUB_REVISION_VERIFIED`).
  A branch given instead (`-T revision=main`) is resolved at download to the commit the
  hub serves, which the run records (`hub.download`).
- A checkout of the authors' GitHub repository of the same name (`CHECKOUT`): queries in
  `benchmark/{uid}/queries.csv` (`records.read_queries`), the persona's files in
  `backend/{uid}/`, for five personas (`GITHUB_PERSONAS`); it also holds legacy persona
  files (`backend/251/`, flat `backend/{uid}_*`), which have no queries and are passed by.

A persona folder must hold `profile.json` and the four apps of the authors' masked view
(`AUTHORS_APPS`); `ai_studio.json`, `calendar.json` and `trending.json` are read
where present (`streams.read_persona`); `ai_studio_memory.json` and `persona.html` are
released but not read. `check_folder` finds the layout and personas of a `data_dir` and
names the first missing file in one line.

Licence: the code is MIT; the data, derived from facebook/gistbench, is CC-BY-NC-4.0
(non-commercial), which every page and card that shows v3 must say.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final, Literal

from inspect_personamem.data.release import PinnedSource, Release, ReleasedFile
from inspect_personamem.errors import PersonaMemDataError

App = Literal["instagram", "facebook", "threads", "chatbot", "ai_studio"]
APPS: Final[tuple[App, ...]] = ("instagram", "facebook", "threads", "chatbot", "ai_studio")
"""The apps whose files are lists of events, in the order ties in time are merged."""
AUTHORS_APPS: Final[tuple[App, ...]] = ("instagram", "facebook", "threads", "chatbot")
"""The apps of the authors' masked view and long-context text (`APPS` in
`backend_query.py`@00c8a9f0 and @af993eb8): required here."""
REPO_ID: Final = "bowen-upenn/PersonaMem-v3"
"""The hub dataset and the GitHub repository share this name."""
HUB_REVISION: Final = "7b00a090b35b7293e6efeeb19494207f32b5a9ee"
"""The hub's commit that EventHorizon-Lab/MindBridge's benchmark catalog pins and
downloads `backend/*/{five apps, calendar, test}.json` at
(`src/mindbridge/benchmarks/task_catalog.py`@0870b121, `_PERSONAMEM_V3`, fetched with
`snapshot_download(repo_type="dataset")`, with a digest of its own over those files; its
research notes link `huggingface.co/datasets/bowen-upenn/PersonaMem-v3/tree/` at the
same commit). No page, sheet or script of the authors names a commit of the hub."""
HUB_REVISION_VERIFIED: Final = False
"""Whether the package has checked `HUB_REVISION` against the hub itself (this machine
has no network): not yet, and nothing of its files (size, digest, rows) is known here, so
a download at it is checked against nothing (`hub.HubSnapshot.release` says so)."""
LICENSE: Final = "CC-BY-NC-4.0"
LICENSE_NOTE: Final = (
    "PersonaMem-v3's data is derived from facebook/gistbench and licensed CC-BY-NC-4.0: "
    "non-commercial use only, with attribution (the authors' code is MIT)."
)
"""The words every page and card that shows v3 carries."""
DATA_DIR_ENV: Final = "PERSONAMEM_V3_DATA_DIR"
"""Environment variable naming a local folder in either layout (air-gapped use)."""

GITHUB_PERSONAS: Final = ("105", "115", "229", "282", "760")
"""The personas whose full v3 files the GitHub repository holds (`backend/{uid}/` and
`benchmark/{uid}/queries.csv`)."""
GITHUB_REVISION: Final = "4756046e56c8500aab3bad306610da78709c89df"
"""The GitHub commit whose `benchmark/105/queries.csv` and `backend/105/` app files were
read together (the shared excerpts are of it): the one `CHECKOUT_RELEASED` describes."""
GITHUB_QUERY_ROWS: Final[Mapping[str, Mapping[str, int]]] = {
    "105": {
        "4756046e56c8500aab3bad306610da78709c89df": 124,
        "1b47d8b87533e2ad4b861b5334f0d130370b1353": 129,
    },
}
"""Query rows of a persona's `queries.csv` at each GitHub commit it was read at. Which of
105's two is newer is not known (no commit dates were readable); 1b47d8b8's rows differ
in `user_query` wording, so the two are different data, not a cut."""
CHECKOUT_RELEASED: Final[Mapping[str, ReleasedFile]] = {
    # 1,219,083 characters, not bytes (the file has non-ASCII text and likely CRLF line
    # ends): its size in bytes and digest are unknown
    "benchmark/105/queries.csv": ReleasedFile(
        GITHUB_QUERY_ROWS["105"][GITHUB_REVISION], None, unit="queries", of_pinned_revision=False
    ),
}
"""What is known of a checkout's files at `GITHUB_REVISION`: not the hub's revision, so a
difference is marked, never an error (`ReleasedFile.of_pinned_revision`)."""

HUB_PERSONAS: Final = tuple(
    (  # noqa: SIM905 (a hundred ids one a line would be a hundred lines)
        "1 2 3 5 6 8 9 10 13 14 17 18 19 20 21 23 25 26 27 29 32 34 35 36 37 38 41 43 44 45 "
        "46 48 49 51 52 53 55 56 58 60 61 62 63 64 65 66 67 68 69 70 71 72 73 74 75 76 77 78 "
        "79 80 81 82 83 85 86 87 89 90 91 93 94 96 97 98 99 100 101 102 103 104 105 106 107 "
        "108 109 111 112 113 114 115 116 117 118 209 229 282 461 655 760 835"
    ).split()
)
"""The hub's 100 personas in numeric order: `RANKED` of `scripts/export_hf_release.py`,
the newest stored copy (82,960 characters; its upload commit message "PersonaMem-v3
release: full 100-persona cohort"; its commit was not shown, the search index reads it
as id 58522092939), whose `USERS` it copies to `backend/{uid}/`. A test holds the count
and the GitHub five among them."""
HUB_FILES: Final = (
    "test.json",
    "profile.json",
    "instagram.json",
    "facebook.json",
    "threads.json",
    "chatbot.json",
    "ai_studio.json",
    "calendar.json",
)
"""What a download fetches per persona: the export script's `PER_PERSONA_FILES` but
`persona.html` (a page for people, not read), the queries first."""
PERSONA_FILES: Final = ("profile.json", *(f"{app}.json" for app in AUTHORS_APPS))
"""What every persona folder must hold: `streams.read_persona` refuses a folder without."""
PERSONA_FILES_READ_IF_PRESENT: Final = ("ai_studio.json", "calendar.json", "trending.json")
PERSONA_FILES_NOT_READ: Final = ("ai_studio_memory.json", "persona.html")
"""Released beside the rest, and not read here (the authors' memory writer's output;
a page for people)."""

LayoutName = Literal["hub", "checkout"]


@dataclass(frozen=True)
class Layout:
    """Where a layout keeps a persona's queries and files, `{uid}` standing for it."""

    name: LayoutName
    queries: str
    backend: str
    where: str
    """Whose layout it is, in words."""
    marker: str
    """A file every persona of the layout has beside its queries (the checkout's build
    audit, the hub's profile): a persona with it and without its queries file lost the
    file, which `check_folder` refuses rather than leave the persona out."""

    def queries_file(self, uid: str) -> str:
        return self.queries.format(uid=uid)

    def persona_folder(self, uid: str) -> str:
        return self.backend.format(uid=uid)

    def persona_files(self, uid: str) -> tuple[str, ...]:
        """The files a persona of this layout must have, its queries first."""
        folder = self.persona_folder(uid)
        return (self.queries_file(uid), *(f"{folder}/{name}" for name in PERSONA_FILES))


HUB: Final = Layout(
    "hub",
    "backend/{uid}/test.json",
    "backend/{uid}",
    f"the hub dataset {REPO_ID}",
    "backend/{uid}/profile.json",
)
CHECKOUT: Final = Layout(
    "checkout",
    "benchmark/{uid}/queries.csv",
    "backend/{uid}",
    f"a checkout of github.com/{REPO_ID}",
    "benchmark/{uid}/build_audit.json",
)
LAYOUTS: Final = (CHECKOUT, HUB)
"""In the order a folder is tried: a checkout's `benchmark/` decides it."""


@dataclass(frozen=True)
class V3Spec(Release):
    """PersonaMem-v3's release: its layouts and what is known of their files."""

    layouts: tuple[Layout, ...]
    github_personas: tuple[str, ...]
    hub_personas: tuple[str, ...]
    """The personas a download fetches."""
    github_revision: str
    released: Mapping[str, ReleasedFile]
    """What is known of a file, by its path inside its layout."""
    license_note: str


PERSONAMEM_V3: Final = V3Spec(
    name="PersonaMem-v3",
    repo_id=REPO_ID,
    revision=HUB_REVISION,
    license=LICENSE,
    layouts=LAYOUTS,
    github_personas=GITHUB_PERSONAS,
    hub_personas=HUB_PERSONAS,
    github_revision=GITHUB_REVISION,
    released=CHECKOUT_RELEASED,
    license_note=LICENSE_NOTE,
)
"""PersonaMem-v3 (Jiang et al., 2026; arXiv 2608.21381 per third-party pages only)."""


@dataclass(frozen=True)
class V3Folder:
    """A `data_dir` checked: its layout and the personas it holds, each with every
    file it must have."""

    root: Path
    layout: Layout
    personas: tuple[str, ...]
    skipped: tuple[str, ...] = ()
    """Where a bad persona was to be skipped (`check_folder`'s `skip`): one line each,
    naming the persona and what is wrong with its files."""

    def queries_file(self, uid: str) -> Path:
        return self.root / self.layout.queries_file(uid)

    def persona_folder(self, uid: str) -> Path:
        return self.root / self.layout.persona_folder(uid)


def check_folder(
    root: Path,
    personas: tuple[str, ...] | None = None,
    given_by: str = "-T data_dir",
    skip: bool = False,
) -> V3Folder:
    """`root`'s layout and personas (`personas`, or every one with a queries file), each
    persona's files there; else one line naming the first missing file, or, with `skip`,
    the personas missing one left out and named (`V3Folder.skipped`)."""
    if not root.is_dir():
        raise PersonaMemDataError(f"{root} (given by {given_by}) is not a folder.")
    layout = layout_of(root, given_by)
    found = personas_in(root, layout)
    lost = sorted(set(personas_in(root, layout, layout.marker)) - set(found), key=_uid_order)
    bad: dict[str, str] = {}  # never a persona dropped without a word
    for uid in lost if personas is None else ():
        bad[uid] = (
            f"{root} (given by {given_by}) holds persona {uid}'s "
            f"{layout.marker.format(uid=uid)} but not its {layout.queries_file(uid)} "
            f"({layout.where}); restore it, or remove the persona's files to run without "
            f"the persona{SKIP_ADVICE}"
        )
    wanted = found if personas is None else personas
    for uid in wanted:
        missing = next((n for n in layout.persona_files(uid) if not (root / n).is_file()), None)
        if missing is not None:
            bad[uid] = (
                f"{root} (given by {given_by}) lacks {missing}, which persona {uid} needs "
                f"({layout.where}: {_needs(layout)}){SKIP_ADVICE}"
            )
    if bad and not skip:
        raise PersonaMemDataError(bad[min(bad, key=_uid_order)])
    kept = tuple(uid for uid in wanted if uid not in bad)
    if not kept:
        raise PersonaMemDataError(
            f"{root} (given by {given_by}) holds no persona's {layout.queries} ({layout.where})"
            + (f"; skipped: {'; '.join(bad.values())}" if bad else ".")
        )
    return V3Folder(root, layout, kept, tuple(bad[uid] for uid in sorted(bad, key=_uid_order)))


SKIP_ADVICE: Final = " (or -T skip_bad_personas=true to run without it, named in the log)"
"""What a bad persona's error adds: the run can leave it out where a user says so."""


def layout_of(root: Path, given_by: str = "-T data_dir") -> Layout:
    """A checkout where `root` has a `benchmark/` folder; the hub's where it has
    `backend/` and no `benchmark/`; else one line saying what either would hold."""
    if (root / "benchmark").is_dir():
        return CHECKOUT
    if (root / "backend").is_dir():
        return HUB
    either = " or ".join(f"{layout.queries} ({layout.where})" for layout in LAYOUTS)
    raise PersonaMemDataError(
        f"{root} (given by {given_by}) is not PersonaMem-v3: it holds neither {either}."
    )


def personas_in(root: Path, layout: Layout, file: str | None = None) -> tuple[str, ...]:
    """The personas with a queries file in `root` (or with `file`, a path of the layout
    with `{uid}`), numbers in numeric order."""
    pattern = file or layout.queries
    before, after = pattern.split("{uid}")
    found = [
        path.relative_to(root).as_posix().removeprefix(before).removesuffix(after)
        for path in root.glob(pattern.replace("{uid}", "*"))
        if path.is_file()
    ]
    return tuple(sorted(found, key=_uid_order))


def _uid_order(uid: str) -> tuple[int, int, str]:
    return (0, int(uid), "") if uid.isdigit() else (1, 0, uid)


def _needs(layout: Layout) -> str:
    folder = layout.persona_folder("{uid}")
    files = ", ".join(PERSONA_FILES)
    return f"{layout.queries} and {folder}/ with {files}"


@dataclass(frozen=True)
class V3Source(PinnedSource):
    """Where a run's PersonaMem-v3 files come from: `data_dir` (either layout), else the
    PERSONAMEM_V3_DATA_DIR variable, else the hub at `repo_id`/`revision` (the spec's,
    unless given; `hub.download`)."""

    data_dir: str | Path | None = None
    repo_id: str | None = None
    revision: str | None = None
    spec: V3Spec = field(default=PERSONAMEM_V3)
    data_dir_option: str = "-T data_dir"

    @property
    def data_dir_env(self) -> str:
        return DATA_DIR_ENV

    @property
    def wanted(self) -> str:
        """The files a folder must hold (for advice)."""
        return " or ".join(f"{_needs(layout)} ({layout.where})" for layout in LAYOUTS)
