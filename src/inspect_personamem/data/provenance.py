"""Which files of a data folder the package generated, so that no run on them is taken
for a run on the released data.

A dataset version's generator (its `generator` module, and so `inspect-personamem try`)
records every file it writes in `personamem-synthetic.json` at the folder's root:
`{"files": {"<path inside the folder>": {"by": "<what wrote it>", "bytes": <size>}}}`.
The task reads the mark for each file it reads from a folder (`data.files.data_release`),
and labels the run `synthetic: ...` when any of them is listed at its size (a file
copied over a generated one since is not the generated file). A file the mark does not
list is checked against the release as any other; a real question file copied beside
generated histories stays real, and a run that reads only it (`history=none`) is a run
on it.
"""

from __future__ import annotations

import json
from pathlib import Path, PurePosixPath
from typing import Any, Final

from inspect_personamem.errors import PersonaMemDataError

MARK: Final = "personamem-synthetic.json"
"""The file, at a data folder's root, that lists the files the package generated there."""


def mark_generated(root: Path, path: Path, by: str) -> None:
    """Record in `root`'s mark that `by` wrote `path` (a file inside `root`)."""
    files = _marked(root)
    files[PurePosixPath(path.relative_to(root)).as_posix()] = {
        "by": by,
        "bytes": path.stat().st_size,
    }
    (root / MARK).write_text(json.dumps({"files": files}, indent=1) + "\n", encoding="utf-8")


def generated_by(root: Path, name: str) -> str | None:
    """What wrote the file `name` (a path inside the folder `root`), where the package
    generated it; None for a file the mark does not list, or lists at another size (or
    a folder without a mark)."""
    entry = _marked(root).get(name)
    if entry is None or (root / name).stat().st_size != entry["bytes"]:
        return None
    return str(entry["by"])


def _marked(root: Path) -> dict[str, dict[str, Any]]:
    mark = root / MARK
    if not mark.is_file():
        return {}
    try:
        files = json.loads(mark.read_text(encoding="utf-8"))["files"]
    except (ValueError, KeyError, TypeError) as ex:
        raise PersonaMemDataError(
            f"{mark}: not the package's record of generated files ({type(ex).__name__}: {ex}); "
            "delete it only if no file in the folder was generated"
        ) from None
    entries = files.values() if isinstance(files, dict) else ()
    if not isinstance(files, dict) or not all(
        isinstance(entry, dict) and isinstance(entry.get("bytes"), int) for entry in entries
    ):
        raise PersonaMemDataError(
            f"{mark}: field 'files' is not a mapping of file to {{'by': ..., 'bytes': ...}}"
        )
    return files
