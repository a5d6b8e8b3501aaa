"""Loading a release's queries (`datasets/v3/loading.py`): a persona whose query file
holds no query, or whose query file is gone while its other files are there, stops the
load in one line naming the file and the persona, in either layout, rather than leaving
the persona's queries out without a word (issue 51)."""

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


@pytest.mark.parametrize("layout", ["checkout", "hub"])
def test_a_persona_that_lost_its_query_file_stops_the_load_in_one_line(
    tmp_path: Path, layout: LayoutName
) -> None:
    folder = generate(tmp_path, personas=2, layout=layout)
    uid = folder.personas[1]
    folder.queries_file(uid).unlink()
    with pytest.raises(PersonaMemDataError) as raised:
        personamem_v3(data_dir=str(tmp_path))
    message = str(raised.value)
    kept = folder.layout.marker.format(uid=uid)
    assert "\n" not in message
    assert f"persona {uid}'s {kept} but not its {folder.layout.queries_file(uid)}" in message


def test_a_checkout_folder_of_no_persona_is_not_a_lost_persona(tmp_path: Path) -> None:
    # the authors' checkout holds `benchmark/benchmark_analysis/` (scripts) and legacy
    # `backend/{uid}/` folders with no queries: neither marks a persona
    folder = generate(tmp_path, personas=1)
    (tmp_path / "benchmark" / "benchmark_analysis").mkdir()
    (tmp_path / "benchmark" / "benchmark_analysis" / "build_stats.py").write_text("")
    (tmp_path / "backend" / "251").mkdir()
    (tmp_path / "backend" / "251" / "profile.json").write_text("{}")
    task = personamem_v3(data_dir=str(tmp_path))
    assert {str(s.id).split(":")[0] for s in task.dataset} == set(folder.personas)
