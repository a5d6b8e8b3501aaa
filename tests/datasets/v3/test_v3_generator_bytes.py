"""The PersonaMem-v3 generator's output, pinned: for the configurations the tests and
`inspect-personamem try` use (and one with an odd count, where pairs are cut short), a
digest of every file it writes (path and bytes, the generated-files mark included), as
the generator wrote them before it was split by family (6d21d83, one module at
`datasets/v3/generator.py`). A change to the generator that moves one byte of what it
writes fails here; a deliberate one updates the digest and says why."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from inspect_personamem.datasets.v3.generator import generate
from inspect_personamem.datasets.v3.release.spec import LayoutName

PINNED: dict[tuple[LayoutName, int, int, int], tuple[int, str]] = {
    # (layout, personas, queries_per_type, seed): (files, digest)
    ("checkout", 2, 2, 3): (25, "e419d7d7da83165b40c552e71a73563e02ac4c644f52e2d1a2de32956a55d452"),
    ("hub", 2, 1, 7): (19, "d2a951e8cc9f0eeefe9fcaae0088fece673e20e1227e5123a853423ebc4229da"),
    ("checkout", 3, 2, 0): (37, "86c0407d4e295fd35a7f236e4774a22711fb8e2c2ed55c40dd1e51910e8f4069"),
    ("checkout", 1, 3, 11): (
        13,
        "90f88930c7e23df5ffbc98f1fdba901fe5b1faf86ed37a3dff3e2852ad13f505",
    ),
}
"""`test_v3_generator`'s folder (2 personas, 2 queries a type, seed 3); the hub layout as
`test_v3_hub` writes it (seed 7); what `try` writes by default (3 personas, 2 a type,
seed 0: `offline.answers.trial`); one persona of 3 queries a type (seed 11). Each
value: the number of files written and their digest. Moved on purpose (issue 49 item 5):
every second over_personalization_chatbot_text query is the authors' distractor_reject
arm (`synthetic.over_personalization._distractor_reject`)."""


def digest(root: Path) -> tuple[int, str]:
    """The number of files under `root` and a sha256 over each one's path and bytes, in
    path order."""
    files = sorted(p for p in root.rglob("*") if p.is_file())
    hasher = hashlib.sha256()
    for path in files:
        hasher.update(path.relative_to(root).as_posix().encode() + b"\0")
        hasher.update(path.read_bytes() + b"\0")
    return len(files), hasher.hexdigest()


@pytest.mark.parametrize(("layout", "personas", "k", "seed"), list(PINNED))
def test_the_generated_files_are_byte_identical_to_the_pinned_ones(
    tmp_path: Path, layout: LayoutName, personas: int, k: int, seed: int
) -> None:
    generate(tmp_path, personas=personas, queries_per_type=k, seed=seed, layout=layout)
    assert digest(tmp_path) == PINNED[layout, personas, k, seed]
