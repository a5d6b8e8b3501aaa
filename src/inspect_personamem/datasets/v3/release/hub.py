"""PersonaMem-v3 from the Hugging Face hub: every persona's files of `spec.HUB_FILES`,
each through `data.files.locate_file` (the cache first for a commit, `HF_HUB_OFFLINE`
honoured, each failure one error naming the repository, revision and file).

The spec's revision is a commit (`spec.HUB_REVISION`, found in a third-party catalog and
not checked against the hub here). A branch may be given instead (`-T revision=main`):
the first file is fetched at the revision given and the commit the hub served it from
read off the cache (`huggingface_hub.try_to_load_from_cache`, the snapshot it lies in);
every other file is then fetched at that commit, so one run's files are of one commit,
and the run records it (`HubSnapshot.release`) so that `-T revision=<commit>` reads the
same files again.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path, PurePosixPath

from inspect_personamem.data.files import locate_file
from inspect_personamem.datasets.v3.release.spec import HUB, HUB_FILES, V3Source
from inspect_personamem.errors import PersonaMemDataError


@dataclass(frozen=True)
class HubSnapshot:
    """The hub's files of one commit, in the cache's snapshot folder (the hub's layout)."""

    root: Path
    repo: str
    revision: str
    """The revision given."""
    commit: str
    """The commit the files are of."""
    personas: tuple[str, ...]

    @property
    def where(self) -> str:
        return f"hf://datasets/{self.repo}@{self.commit}"

    @property
    def release(self) -> str:
        """What the run's `data_release` says of the files (nothing is known of them)."""
        given = "" if self.revision == self.commit else f", revision {self.revision!r} resolved"
        return (
            f"{self.repo} at commit {self.commit}{given} (-T revision={self.commit} reads the "
            "same files); no size, digest or row count of the hub's files is known, so none "
            "was checked"
        )


def download(source: V3Source) -> HubSnapshot:
    """Every persona's files of `source.spec.hub_personas` at `source`'s revision, one
    commit's; the first failure is one error naming the file."""
    personas = source.spec.hub_personas
    first = HUB.queries_file(personas[0])
    locate_file(source, first, f"persona {personas[0]}'s queries")
    # the cache keeps a commit's files under snapshots/<commit>/, as the release lays them
    root = _snapshot_file(source, first).parents[len(PurePosixPath(first).parts) - 1]
    commit = root.name
    at_commit = replace(source, revision=commit)
    for uid in personas:
        for name in HUB_FILES:
            locate_file(at_commit, f"{HUB.persona_folder(uid)}/{name}", f"persona {uid}")
    return HubSnapshot(root, source.repo, source.pinned, commit, personas)


def _snapshot_file(source: V3Source, name: str) -> Path:
    """The cached copy of `name` at `source`'s revision, in its snapshot folder (not the
    blob it links to): `.../snapshots/<commit>/<name>`."""
    from huggingface_hub import try_to_load_from_cache

    found = try_to_load_from_cache(source.repo, name, revision=source.pinned, repo_type="dataset")
    if not isinstance(found, str):
        raise PersonaMemDataError(
            f"{name} of {source.repo} at revision {source.pinned} was fetched but is not in "
            "the Hugging Face cache: is HF_HUB_CACHE changing under the run?"
        )
    return Path(found)
