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
distinct content words the authors' verifier asks. Updated again on purpose for issue 52
(proactive placement, `synthetic.moments`): the sensitive window lies inside the query
window at any second, the proactive rows fall outside it but the restraint rows, with
the restraint type's act companion a day after it closes, and each row's trigger within
2 hours before it, no two rows of different gold within 2 hours."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from inspect_personamem.datasets.v3.generator import generate
from inspect_personamem.datasets.v3.release.spec import LayoutName

PINNED: dict[tuple[LayoutName, int, int, int], tuple[int, str]] = {
    # (layout, personas, queries_per_type, seed): (files, digest)
    ("checkout", 2, 2, 3): (25, "296d54fcedabd2e19f50f9e3caef2bd0c0359db483115bac2af0461d92f199b9"),
    ("hub", 2, 1, 7): (19, "290c26fa5b3b6e6c48050f1e5d8d92fcc4f25274c4035ce5e435203d2a891f30"),
    ("checkout", 3, 2, 0): (37, "28bfd588ce8ee5a3adc609c78f9ecbcb2f49ffd93e80ad5999b930ba6a7fef0f"),
    ("checkout", 1, 3, 11): (
        13,
        "a9ae1db702d330c6ab0c95eafc26472b153b36d67e845a03e98d0c3dca3c5d68",
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
