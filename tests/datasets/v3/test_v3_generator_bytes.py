"""The PersonaMem-v3 generator's output, pinned: for the configurations the tests and
`inspect-personamem try` use (and one with an odd count, where pairs are cut short), a
digest of every file it writes (path and bytes, the generated-files mark included). A
change to the generator that moves one byte of what it writes fails here; a deliberate
one updates the digest and says why. Last updated on purpose for issue 52 item 1: query
times are batched as the release's are (`synthetic.world`): the agentic types on the
authors' grids over the window from the hidden-persona rows (its opening) to the
context-shift rows (its `t_probe`), one time per batch; the other types at any second
of the query window, not on whole hours (`test_v3_generator_size`); a DM digest's gold
runs longer (its filler: 160 characters, not 60), so that it always holds the 25
distinct content words the authors' verifier asks."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from inspect_personamem.datasets.v3.generator import generate
from inspect_personamem.datasets.v3.release.spec import LayoutName

PINNED: dict[tuple[LayoutName, int, int, int], tuple[int, str]] = {
    # (layout, personas, queries_per_type, seed): (files, digest)
    ("checkout", 2, 2, 3): (25, "ee1e97707b12b10edb151a9881427f870c0ebd55e092cffe5ec442a26628b699"),
    ("hub", 2, 1, 7): (19, "01d4593c889495146a485dd46611d4a92716492839029304cdce1cd51a7d2842"),
    ("checkout", 3, 2, 0): (37, "8a13a1bce86fcdc14b98a1274a6db057c5ad5c2e192b90ff2fcbc4d922eb9b58"),
    ("checkout", 1, 3, 11): (
        13,
        "5cb9d6328e8080185358c610a5848e62efa8cd9193f1cf842db92ff451dc1987",
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
