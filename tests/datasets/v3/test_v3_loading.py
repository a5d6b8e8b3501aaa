"""Loading a release's queries (`datasets/v3/loading.py`): a persona whose query file
holds no query stops the load in one line naming the file and the persona, in either
layout, rather than leaving the persona's queries out without a word (issue 51)."""

from __future__ import annotations

from pathlib import Path

import pytest

from inspect_personamem.datasets.v3.generator import generate
from inspect_personamem.datasets.v3.release.spec import LayoutName
from inspect_personamem.errors import PersonaMemDataError
from inspect_personamem.run.tasks import personamem_v3


@pytest.mark.parametrize(("layout", "empty"), [("checkout", "{}\n"), ("hub", "[]\n")])
def test_a_persona_with_no_query_stops_the_load_in_one_line(
    tmp_path: Path, layout: LayoutName, empty: str
) -> None:
    folder = generate(tmp_path, personas=2, layout=layout)
    uid = folder.personas[1]
    path = folder.queries_file(uid)
    if layout == "checkout":  # the version line and the header, no row
        empty = "".join(path.read_text(encoding="utf-8").splitlines(keepends=True)[:2])
    path.write_text(empty, encoding="utf-8")
    with pytest.raises(PersonaMemDataError) as raised:
        personamem_v3(data_dir=str(tmp_path))
    message = str(raised.value)
    assert "\n" not in message
    assert message.startswith(f"{path}: persona {uid}'s queries file holds no query")
