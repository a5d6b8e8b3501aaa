"""The PersonaMem-v3 generator's output, pinned: for the configurations the tests and
`inspect-personamem try` use (and one with an odd count, where pairs are cut short), a
digest of every file it writes (path and bytes, the generated-files mark included). A
change to the generator that moves one byte of what it writes fails here; a deliberate
one updates the digest and says why. Last updated on purpose for issue 52 item 1: query
times fall on any second of the query window, not on whole hours (`synthetic.world`,
`test_v3_generator_size`), and the geo-shift timeline starts at a drawn second; the
background events are drawn by one `World.background_event` (same draws)."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from inspect_personamem.datasets.v3.generator import generate
from inspect_personamem.datasets.v3.release.spec import LayoutName

PINNED: dict[tuple[LayoutName, int, int, int], tuple[int, str]] = {
    # (layout, personas, queries_per_type, seed): (files, digest)
    ("checkout", 2, 2, 3): (25, "2ca6d04dfa71e1a84721522aa020f0d04559c04c2783000d0b988689dc94c500"),
    ("hub", 2, 1, 7): (19, "e8ddaa669496a0adc717c20ac3616c4aac37cf4fcade44e88b2b4ee0190e8f9e"),
    ("checkout", 3, 2, 0): (37, "0e5d7046f48f2161d14ca8fae607f8a7b9906c7874cf7786342b1d7be955a27f"),
    ("checkout", 1, 3, 11): (
        13,
        "50ab2cdbb18c9eecbd6a46bb9275f48a27cd0535b76a89928eacbe991273d126",
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
