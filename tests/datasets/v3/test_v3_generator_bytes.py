"""The PersonaMem-v3 generator's output, pinned: for the configurations the tests and
`inspect-personamem try` use (and one with an odd count, where pairs are cut short), a
digest of every file it writes (path and bytes, the generated-files mark included). A
change to the generator that moves one byte of what it writes fails here; a deliberate
one updates the digest and says why. Last updated on purpose for issue 49 item 2: each
type's `instance_json` now has the real rows' keys and shapes
(`test_v3_generator_keys`), the repetition types one row per cluster."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from inspect_personamem.datasets.v3.generator import generate
from inspect_personamem.datasets.v3.release.spec import LayoutName

PINNED: dict[tuple[LayoutName, int, int, int], tuple[int, str]] = {
    # (layout, personas, queries_per_type, seed): (files, digest)
    ("checkout", 2, 2, 3): (25, "4bd1912db1e9c27cf2504f9dc462ba57ca2f448397926541a0d5196cad4ce518"),
    ("hub", 2, 1, 7): (19, "9505521dbf077ec8cda0861af163b58eb6869ee4cb2f61d4b3dcd4250c5911c1"),
    ("checkout", 3, 2, 0): (37, "8736011a56f63c3212e685775ecf703f75a104778b3bde97e16796fe4f543b0c"),
    ("checkout", 1, 3, 11): (
        13,
        "33e45e33fc784f7fa8a029cb936a0714e2743b4edb35054f1a0db3d8db13780c",
    ),
}
"""`test_v3_generator`'s folder (2 personas, 2 queries a type, seed 3); the hub layout as
`test_v3_hub` writes it (seed 7); what `try` writes by default (3 personas, 2 a type,
seed 0: `offline.answers.trial`); one persona of 3 queries a type (seed 11). Each
value: the number of files written and their digest."""


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
