"""Finding PersonaMem-v2's files: a folder in the released layout, the environment
variable, and the real hub client against a local stand-in server (no mocking of
huggingface_hub); the question file checked against the release."""

from __future__ import annotations

import dataclasses
import hashlib
from pathlib import Path

import pytest
from support.helpers import SMALL_V2, run_script
from support.servers.hf_hub import serve_hub

from inspect_personamem.data.provenance import MARK
from inspect_personamem.data.release import ReleasedFile
from inspect_personamem.datasets.v2.files import load_questions, locate_questions
from inspect_personamem.datasets.v2.generator import generate_v2
from inspect_personamem.datasets.v2.spec import DATA_DIR_ENV, PERSONAMEM_V2, Subset, V2Source
from inspect_personamem.errors import PersonaMemDataError

REPO, REVISION = PERSONAMEM_V2.repo_id, PERSONAMEM_V2.revision
LOAD = (
    "import json, sys\n"
    "from inspect_personamem.datasets.v2.spec import V2Source\n"
    "from inspect_personamem.datasets.v2.files import load_questions\n"
    "from inspect_personamem.datasets.v2.histories import HistoryStore\n"
    "from inspect_personamem.errors import PersonaMemDataError\n"
    "try:\n"
    "    source = V2Source(**json.loads(sys.argv[1]))\n"
    "    questions = load_questions(source)\n"
    "    record = questions.records[-1]\n"
    "    messages = HistoryStore(source, '32k').messages(record)\n"
    "    print(json.dumps({'questions': str(questions.file.path),"
    " 'source': questions.file.source, 'data_release': questions.data_release,"
    " 'rows': len(questions.records), 'link': record.chat_history_32k_link,"
    " 'messages': [m.text for m in messages]}))\n"
    "except PersonaMemDataError as ex:\n"
    "    print(json.dumps({'error': str(ex)}))\n"
)


def test_a_local_folder(small_v2: Path) -> None:
    questions = load_questions(V2Source(data_dir=small_v2))
    assert questions.file.path == (small_v2 / "benchmark/text/benchmark.csv").resolve()
    assert questions.file.source == f"local folder {small_v2}"
    assert not questions.file.must_be_released
    assert len({r.persona_id for r in questions.records}) == 3


def test_the_environment_variable(small_v2: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(DATA_DIR_ENV, str(small_v2))
    assert locate_questions(V2Source()).source == f"local folder {small_v2}"


def test_another_subset(tmp_path: Path) -> None:
    generate_v2(tmp_path, subset="val", shape=dataclasses.replace(SMALL_V2, personas=1))
    assert load_questions(V2Source("val", tmp_path)).file.path.name == "val.csv"
    with pytest.raises(PersonaMemDataError) as info:
        load_questions(V2Source("train", tmp_path))
    assert str(info.value) == (
        f"{tmp_path} (given by -T data_dir) lacks benchmark/text/train.csv for subset train. "
        "Put the files of bowen-upenn/PersonaMem-v2 there, or point -T data_dir elsewhere."
    )


def test_a_data_dir_that_is_not_a_folder(tmp_path: Path) -> None:
    source = V2Source(data_dir=tmp_path / "nowhere", data_dir_option="--data-dir")
    with pytest.raises(PersonaMemDataError) as info:
        locate_questions(source)
    assert str(info.value) == (
        f"{tmp_path / 'nowhere'} (given by --data-dir) is not a folder. Put "
        "benchmark/text/benchmark.csv and the history files under data/chat_history_32k/ and "
        "data/chat_history_128k/ of bowen-upenn/PersonaMem-v2 in a folder and point "
        "--data-dir there."
    )


def released_as(path: Path, rows: int, size: int | None, sha256: str | None) -> V2Source:
    """A source reading `path`'s folder, with a spec whose release holds these facts."""
    release: dict[Subset, ReleasedFile] = {"benchmark": ReleasedFile(rows, size, sha256)}
    spec = dataclasses.replace(PERSONAMEM_V2, released=release)
    return V2Source(data_dir=path.parents[2], spec=spec)


def test_a_synthetic_subset_is_marked_synthetic(small_v2: Path) -> None:
    assert load_questions(V2Source(data_dir=small_v2)).data_release == (
        "synthetic: benchmark/text/benchmark.csv written by "
        "inspect_personamem.datasets.v2.generator"
    )


def test_another_subset_is_marked_not_released_with_a_warning(
    small_v2: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The same rows without the generator's mark: not the released file, and how."""
    (small_v2 / MARK).unlink()
    questions = load_questions(V2Source(data_dir=small_v2))
    rows = len(questions.records)
    difference = (
        f"{rows} rows where the released benchmark/text/benchmark.csv has 5000 "
        f"({5000 - rows} missing: a cut file?)"
    )
    assert questions.data_release == f"not the released file: {difference}"
    (warning,) = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert warning == (
        f"{questions.file.path} is not the released benchmark/text/benchmark.csv of {REPO} at "
        f"revision {REVISION} ({difference}): results are not comparable with runs on the "
        "released data."
    )


def test_the_released_facts_are_checked_where_known(small_v2: Path) -> None:
    (small_v2 / MARK).unlink()
    path = small_v2 / "benchmark/text/benchmark.csv"
    rows = len(load_questions(V2Source(data_dir=small_v2)).records)
    size, digest = path.stat().st_size, hashlib.sha256(path.read_bytes()).hexdigest()
    assert load_questions(released_as(path, rows, size, digest)).data_release == "released"
    assert load_questions(released_as(path, rows, None, None)).data_release == "released"
    assert load_questions(released_as(path, rows, size + 1, None)).data_release == (
        f"not the released file: {size:,} bytes where the released "
        f"benchmark/text/benchmark.csv has {size + 1:,} (1 fewer: a cut file?)"
    )
    assert load_questions(released_as(path, rows, size, "0" * 64)).data_release == (
        f"not the released file: sha256 {digest} where the released "
        f"benchmark/text/benchmark.csv has {'0' * 64}"
    )


@pytest.mark.slow
def test_hub_download_is_lazy_per_persona_then_offline_cache(
    small_v2: Path, tmp_path: Path
) -> None:
    """From another revision (so not the release): the question file, then only the
    history of the persona asked about; offline, the same from the cache."""
    cache, revision = str(tmp_path / "hf-cache"), "1" * 40
    with serve_hub(small_v2, REPO, revision) as (endpoint, requests):
        found = run_script(
            LOAD, {"HF_ENDPOINT": endpoint, "HF_HUB_CACHE": cache}, revision=revision
        )
    assert "error" not in found, found
    served = small_v2 / "benchmark/text/benchmark.csv"
    assert Path(found["questions"]).read_bytes() == served.read_bytes()
    assert found["source"] == f"hf://datasets/{REPO}@{revision}"
    assert found["data_release"].startswith("not the released file: ")
    prefix = f"/datasets/{REPO}/resolve/{revision}/"
    fetched = {r.split(prefix, 1)[1] for r in requests if r.startswith(f"GET {prefix}")}
    assert fetched == {"benchmark/text/benchmark.csv", found["link"]}
    assert len(found["messages"]) >= SMALL_V2.min_messages
    offline = run_script(LOAD, {"HF_HUB_OFFLINE": "1", "HF_HUB_CACHE": cache}, revision=revision)
    assert offline == found


@pytest.mark.slow
def test_a_history_missing_from_the_hub_names_persona_and_path(
    small_v2: Path, tmp_path: Path
) -> None:
    revision = "1" * 40
    record = load_questions(V2Source(data_dir=small_v2)).records[-1]  # the one LOAD asks for
    (small_v2 / record.chat_history_32k_link).unlink()
    with serve_hub(small_v2, REPO, revision) as (endpoint, _):
        found = run_script(
            LOAD, {"HF_ENDPOINT": endpoint, "HF_HUB_CACHE": str(tmp_path / "c")}, revision=revision
        )
    first_line, advice = found["error"].split("; to run without the hub, ")
    assert "\n" not in found["error"]
    assert first_line.startswith(
        f"Could not get {record.chat_history_32k_link} (persona {record.persona_id}'s 32k "
        f"history) of dataset {REPO} at revision {revision} from the Hugging Face hub: "
    )
    assert advice.endswith(f"pass -T data_dir=FOLDER or set {DATA_DIR_ENV}=FOLDER.")


@pytest.mark.slow
def test_the_pinned_revision_must_serve_the_released_file(small_v2: Path, tmp_path: Path) -> None:
    with serve_hub(small_v2, REPO, REVISION) as (endpoint, _):
        found = run_script(LOAD, {"HF_ENDPOINT": endpoint, "HF_HUB_CACHE": str(tmp_path / "c")})
    path, message = found["error"].split(" is not ", 1)
    assert Path(path).is_relative_to(tmp_path / "c")  # the cached download
    assert message.startswith(
        f"the released benchmark/text/benchmark.csv of {REPO} at revision {REVISION} ("
    )
    assert message.endswith(
        "a damaged download? Delete it from the Hugging Face cache "
        "(huggingface-cli delete-cache) and run again."
    )


@pytest.mark.slow
def test_offline_without_cache_fails_fast(tmp_path: Path) -> None:
    found = run_script(LOAD, {"HF_HUB_OFFLINE": "1", "HF_HUB_CACHE": str(tmp_path / "empty")})
    assert found["error"].startswith(
        "Could not get benchmark/text/benchmark.csv (subset benchmark) of dataset "
        f"{REPO} at revision {REVISION} from the Hugging Face hub (HF_HUB_OFFLINE is set: only "
        "the local cache was tried): "
    )
    assert f"https://huggingface.co/datasets/{REPO}/tree/{REVISION}" in found["error"]
