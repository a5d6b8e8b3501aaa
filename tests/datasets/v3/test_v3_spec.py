"""PersonaMem-v3's release as data (`datasets/v3/release/spec.py`): the repository, the revision
not yet pinned, the licence; the two layouts a `data_dir` may hold, found in generated
folders; each missing file named in one line."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from support.v3_backend import query_row, write_persona, write_queries

from inspect_personamem.data.files import FileSource
from inspect_personamem.datasets.v3.persona.streams import read_persona
from inspect_personamem.datasets.v3.release.records import read_queries
from inspect_personamem.datasets.v3.release.spec import (
    CHECKOUT,
    CHECKOUT_RELEASED,
    GITHUB_QUERY_ROWS,
    GITHUB_REVISION,
    HUB,
    HUB_REVISION_VERIFIED,
    PERSONA_FILES,
    PERSONAMEM_V3,
    V3Source,
    check_folder,
)
from inspect_personamem.errors import PersonaMemDataError


def checkout(root: Path, uids: tuple[str, ...] = ("105", "115")) -> Path:
    """A checkout of the authors' repository: each persona's queries and files, and a
    legacy persona folder with no queries (as `backend/251/` is)."""
    for uid in uids:
        write_persona(root / "backend" / uid, {"user_id": uid}, {})
        query = query_row(query_id=f"{uid}:0003:recsys_2026-04-04_a5", user_id=uid)
        write_queries(root / "benchmark" / uid, [query])
    write_persona(root / "backend" / "251", {"user_id": "251"}, {})
    return root


def hub(root: Path, uids: tuple[str, ...] = ("105",)) -> Path:
    for uid in uids:
        write_persona(root / "backend" / uid, {"user_id": uid}, {})
        (root / "backend" / uid / "test.json").write_text("[]", encoding="utf-8")
    return root


def test_the_release_names_repository_licence_and_an_unverified_revision() -> None:
    assert PERSONAMEM_V3.repo_id == "bowen-upenn/PersonaMem-v3"
    assert PERSONAMEM_V3.license == "CC-BY-NC-4.0"
    assert "non-commercial" in PERSONAMEM_V3.license_note
    # a pin is a 40-hex commit (the third-party catalog's), not yet checked on the hub
    assert re.fullmatch(r"[0-9a-f]{40}", PERSONAMEM_V3.revision)
    assert PERSONAMEM_V3.revision == "7b00a090b35b7293e6efeeb19494207f32b5a9ee"
    assert HUB_REVISION_VERIFIED is False


def test_what_is_known_of_105s_queries_is_the_pinned_commits() -> None:
    released = CHECKOUT_RELEASED["benchmark/105/queries.csv"]
    assert released.rows == 124 == GITHUB_QUERY_ROWS["105"][GITHUB_REVISION]
    assert released.size is None and not released.of_pinned_revision
    assert sorted(GITHUB_QUERY_ROWS["105"].values()) == [124, 129]


def test_a_checkout_is_found_with_its_personas_and_read(tmp_path: Path) -> None:
    folder = check_folder(checkout(tmp_path, ("760", "105", "115")))
    assert folder.layout is CHECKOUT
    assert folder.personas == ("105", "115", "760")  # numeric order; 251 has no queries
    [query] = read_queries(folder.queries_file("115"))
    assert query.user_id == "115"
    assert read_persona(folder.persona_folder("115"), "115").user_id == "115"


def test_a_hub_download_is_found_by_its_test_json(tmp_path: Path) -> None:
    folder = check_folder(hub(tmp_path, ("229", "105")))
    assert folder.layout is HUB
    assert folder.personas == ("105", "229")
    assert folder.queries_file("105") == tmp_path / "backend/105/test.json"


@pytest.mark.parametrize("name", PERSONA_FILES)
def test_a_missing_persona_file_is_named_in_one_line(tmp_path: Path, name: str) -> None:
    (checkout(tmp_path) / "backend" / "115" / name).unlink()
    with pytest.raises(PersonaMemDataError) as raised:
        check_folder(tmp_path)
    message = str(raised.value)
    assert "\n" not in message
    assert f"lacks backend/115/{name}, which persona 115 needs" in message
    assert "benchmark/{uid}/queries.csv" in message


def test_a_persona_asked_for_without_queries_is_named(tmp_path: Path) -> None:
    with pytest.raises(PersonaMemDataError, match=r"lacks benchmark/282/queries\.csv"):
        check_folder(checkout(tmp_path), personas=("105", "282"))


def test_a_folder_of_neither_layout_says_what_either_holds(tmp_path: Path) -> None:
    (tmp_path / "data").mkdir()
    with pytest.raises(PersonaMemDataError) as raised:
        check_folder(tmp_path, given_by="PERSONAMEM_V3_DATA_DIR")
    message = str(raised.value)
    assert "given by PERSONAMEM_V3_DATA_DIR" in message and "\n" not in message
    assert "benchmark/{uid}/queries.csv" in message and "backend/{uid}/test.json" in message
    with pytest.raises(PersonaMemDataError, match="is not a folder"):
        check_folder(tmp_path / "absent")


def test_a_layout_with_no_personas_is_refused(tmp_path: Path) -> None:
    (tmp_path / "benchmark").mkdir()
    with pytest.raises(PersonaMemDataError, match=r"holds no persona's benchmark/\{uid\}"):
        check_folder(tmp_path)


def test_the_source_is_a_file_source_of_the_spec() -> None:
    source: FileSource = V3Source(data_dir="somewhere")
    assert source.repo == "bowen-upenn/PersonaMem-v3"
    assert source.pinned == PERSONAMEM_V3.revision and source.is_release
    assert source.data_dir_env == "PERSONAMEM_V3_DATA_DIR"
    assert "backend/{uid}/ with profile.json" in source.wanted
