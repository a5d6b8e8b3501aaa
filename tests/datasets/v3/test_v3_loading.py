"""Loading a release's queries (`datasets/v3/loading.py`): a persona whose query file
holds no query, is gone while its other files are there, or cannot be read (the OS
refusing it, not UTF-8, not parsable) stops the load in one line naming the file and
the persona, in either layout, rather than leaving the persona's queries out without a
word; with `-T skip_bad_personas=true` such personas are left out, each named in the
task's metadata (`skipped_personas`, which the log keeps) and a warning (issue 51)."""

from __future__ import annotations

from pathlib import Path
from typing import IO, Any

import pytest

from inspect_personamem.datasets.v3.generator import generate
from inspect_personamem.datasets.v3.release.spec import LayoutName
from inspect_personamem.errors import PersonaMemDataError
from inspect_personamem.report.read.logs import data_checked
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


def _unreadable(path: Path, how: str, layout: LayoutName, monkeypatch: pytest.MonkeyPatch) -> str:
    """Spoil a queries file `how` (the OS refusing it, a byte that is not UTF-8, a row
    or file the reader cannot parse); what the one-line error says of it."""
    data = path.read_bytes()
    if how == "permissions":  # as root a mode cannot refuse a read, so the OS is made to
        opened = Path.open

        def refuse(self: Path, *args: Any, **kwargs: Any) -> IO[Any]:
            if self == path:
                raise PermissionError(13, "Permission denied", str(path))
            file: IO[Any] = opened(self, *args, **kwargs)
            return file

        monkeypatch.setattr(Path, "open", refuse)
        monkeypatch.setattr(Path, "read_text", lambda self, **kw: refuse(self).read())
        return "not readable (Permission denied)"
    if how == "not utf-8":
        path.write_bytes(data[:300] + b"\xff" + data[300:])
        return "is not UTF-8" if layout == "checkout" else "can't decode byte 0xff"
    if layout == "checkout":  # a row of many more cells than the header has
        lines = data.split(b"\r\n")
        path.write_bytes(b"\r\n".join([*lines[:2], b"x," * 40, *lines[2:]]))
        return "more fields than the header"
    path.write_text("[{", encoding="utf-8")
    return "not JSON"


@pytest.mark.parametrize("layout", ["checkout", "hub"])
@pytest.mark.parametrize("how", ["permissions", "not utf-8", "unparsable"])
def test_a_persona_with_an_unreadable_query_file_stops_the_load_in_one_line(
    tmp_path: Path, layout: LayoutName, how: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = generate(tmp_path, personas=2, layout=layout)
    uid = folder.personas[1]
    path = folder.queries_file(uid)
    said = _unreadable(path, how, layout, monkeypatch)
    with pytest.raises(PersonaMemDataError) as raised:
        personamem_v3(data_dir=str(tmp_path))
    message = str(raised.value)
    assert "\n" not in message
    assert f"persona {uid}" in message and str(path) in message and said in message
    assert "skip_bad_personas=true" in message


@pytest.mark.parametrize("layout", ["checkout", "hub"])
def test_skip_bad_personas_leaves_them_out_and_names_them(
    tmp_path: Path, layout: LayoutName, caplog: pytest.LogCaptureFixture
) -> None:
    folder = generate(tmp_path, personas=6, layout=layout)
    good, empty, spoilt, lost, broken, bare = folder.personas
    (folder.persona_folder(broken) / "instagram.json").write_text("[{", encoding="utf-8")
    (folder.persona_folder(bare) / "profile.json").unlink()
    path = folder.queries_file(spoilt)
    path.write_bytes(path.read_bytes()[:300] + b"\xff" + path.read_bytes()[300:])
    folder.queries_file(empty).write_text("[]\n" if layout == "hub" else "", encoding="utf-8")
    folder.queries_file(lost).unlink()
    task = personamem_v3(data_dir=str(tmp_path), skip_bad_personas=True)
    assert {str(s.id).split(":")[0] for s in task.dataset} == {good}
    assert task.metadata is not None
    skipped = task.metadata["skipped_personas"]
    bad = (empty, spoilt, lost, broken, bare)
    named = [[uid for uid in bad if f"persona {uid}" in line] for line in skipped]
    assert sorted(named) == sorted([uid] for uid in bad), skipped
    assert all("\n" not in line for line in skipped)
    warned = [
        r.getMessage() for r in caplog.records if "skipped (skip_bad_personas)" in r.getMessage()
    ]
    assert len(warned) == len(bad)
    # the default run stops on the first, and a run skipping nothing records none
    with pytest.raises(PersonaMemDataError):
        personamem_v3(data_dir=str(tmp_path))
    clean = generate(tmp_path / "clean", personas=1, layout=layout)
    kept = personamem_v3(data_dir=str(clean.root), skip_bad_personas=True)
    assert (kept.metadata or {})["skipped_personas"] == []
    assert "skipped_personas" not in (personamem_v3(data_dir=str(clean.root)).metadata or {})


def test_the_report_names_the_skipped_personas_beside_what_was_checked() -> None:
    metadata = {"data_checked": "nothing known", "skipped_personas": ["persona 9: no query"]}
    assert data_checked(metadata) == "nothing known; 1 skipped: persona 9: no query"
    assert data_checked({**metadata, "skipped_personas": []}) == "nothing known"
    unknown = data_checked({"skipped_personas": ["persona 9: x"]})
    assert unknown == "unknown; 1 skipped: persona 9: x"
