"""Finding the split files: local folder, environment variable, and the real hub client
against a local stand-in server (no mocking of huggingface_hub)."""

from __future__ import annotations

import hashlib
import socket
from collections.abc import Callable
from pathlib import Path

import pytest
from support.helpers import REAL_QUESTIONS, require, run_script
from support.servers.hf_hub import serve_hub

from inspect_personamem.data.provenance import MARK
from inspect_personamem.datasets.v1.files import locate_split_files
from inspect_personamem.datasets.v1.generator import (
    contexts_for_questions,
    generate_split,
    write_contexts,
)
from inspect_personamem.datasets.v1.records import read_questions
from inspect_personamem.datasets.v1.spec import DATA_DIR_ENV, PERSONAMEM, DataSource
from inspect_personamem.errors import PersonaMemDataError
from inspect_personamem.run.tasks import TASKS
from inspect_personamem.types import HistoryName

DEFAULT_REPO_ID, DEFAULT_REVISION = PERSONAMEM.repo_id, PERSONAMEM.revision

LOCATE = (
    "import json, sys\n"
    "from inspect_personamem.datasets.v1.spec import DataSource\n"
    "from inspect_personamem.datasets.v1.files import locate_split_files\n"
    "from inspect_personamem.errors import PersonaMemDataError\n"
    "try:\n"
    "    f = locate_split_files(DataSource('32k', **json.loads(sys.argv[1])))\n"
    "    print(json.dumps({'questions': str(f.questions), 'contexts': str(f.contexts),"
    " 'source': f.source}))\n"
    "except PersonaMemDataError as ex:\n"
    "    print(json.dumps({'error': str(ex)}))\n"
)
BUILD = (
    "import json, sys\n"
    "from inspect_personamem.run.tasks import TASKS\n"
    "from inspect_personamem.errors import PersonaMemDataError\n"
    "try:\n"
    "    task = TASKS['personamem']('32k', **json.loads(sys.argv[1]))\n"
    "    print(json.dumps({'data_release': (task.metadata or {})['data_release']}))\n"
    "except PersonaMemDataError as ex:\n"
    "    print(json.dumps({'error': str(ex)}))\n"
)


def locate_in_subprocess(
    env: dict[str, str], script: str = LOCATE, **kwargs: str
) -> dict[str, str]:
    """Run the locator (or `script`) in a fresh interpreter."""
    return run_script(script, env, **kwargs)


def test_local_folder_argument(small_split: Path) -> None:
    files = locate_split_files(DataSource("32k", small_split))
    assert files.questions == (small_split / "questions_32k.csv").resolve()
    assert files.contexts == (small_split / "shared_contexts_32k.jsonl").resolve()
    assert files.source == f"local folder {small_split}"


def test_environment_variable(small_split: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(DATA_DIR_ENV, str(small_split))
    assert locate_split_files(DataSource("32k")).questions.parent == small_split.resolve()


def test_folder_missing_a_file_names_it(small_split: Path) -> None:
    (small_split / "shared_contexts_32k.jsonl").unlink()
    with pytest.raises(PersonaMemDataError) as info:
        locate_split_files(DataSource("32k", small_split))
    assert "lacks shared_contexts_32k.jsonl" in str(info.value) and str(small_split) in str(
        info.value
    )


@pytest.mark.slow
def test_hub_download_at_the_pinned_revision_then_offline_cache(
    small_split: Path, tmp_path: Path
) -> None:
    cache = str(tmp_path / "hf-cache")
    with serve_hub(small_split, DEFAULT_REPO_ID, DEFAULT_REVISION) as (endpoint, requests):
        found = locate_in_subprocess({"HF_ENDPOINT": endpoint, "HF_HUB_CACHE": cache})
    assert "error" not in found, found
    assert Path(found["questions"]).read_bytes() == (small_split / "questions_32k.csv").read_bytes()
    assert (
        Path(found["contexts"]).read_bytes()
        == (small_split / "shared_contexts_32k.jsonl").read_bytes()
    )
    assert found["source"] == f"hf://datasets/{DEFAULT_REPO_ID}@{DEFAULT_REVISION}"
    assert (
        f"GET /datasets/{DEFAULT_REPO_ID}/resolve/{DEFAULT_REVISION}/questions_32k.csv" in requests
    )
    # with the server gone, offline mode reads the same files from the cache
    offline = locate_in_subprocess({"HF_HUB_OFFLINE": "1", "HF_HUB_CACHE": cache})
    assert offline == found


@pytest.mark.slow
def test_unknown_revision_gives_one_clear_message(small_split: Path, tmp_path: Path) -> None:
    with serve_hub(small_split, DEFAULT_REPO_ID, DEFAULT_REVISION) as (endpoint, _):
        found = locate_in_subprocess(
            {"HF_ENDPOINT": endpoint, "HF_HUB_CACHE": str(tmp_path / "c")}, revision="0" * 40
        )
    message = found["error"]
    assert (
        f"Could not get questions_32k.csv (split 32k) of dataset {DEFAULT_REPO_ID} at revision "
        f"{'0' * 40}" in message
    )
    assert "-T data_dir=FOLDER" in message and DATA_DIR_ENV in message


@pytest.mark.slow
def test_offline_without_cache_fails_fast(tmp_path: Path) -> None:
    found = locate_in_subprocess({"HF_HUB_OFFLINE": "1", "HF_HUB_CACHE": str(tmp_path / "empty")})
    assert "HF_HUB_OFFLINE is set: only the local cache was tried" in found["error"]
    assert f"https://huggingface.co/datasets/{DEFAULT_REPO_ID}/tree/" in found["error"]


@pytest.mark.slow
def test_other_repository_and_revision(small_split: Path, tmp_path: Path) -> None:
    """`repo_id` and `revision` are settings: a mirror under another name is fetched as is."""
    repo, revision = "someone/PersonaMem-v1", "1" * 40
    with serve_hub(small_split, repo, revision) as (endpoint, requests):
        found = locate_in_subprocess(
            {"HF_ENDPOINT": endpoint, "HF_HUB_CACHE": str(tmp_path / "c")},
            repo_id=repo,
            revision=revision,
        )
    assert found["source"] == f"hf://datasets/{repo}@{revision}"
    assert Path(found["questions"]).read_bytes() == (small_split / "questions_32k.csv").read_bytes()
    assert f"GET /datasets/{repo}/resolve/{revision}/shared_contexts_32k.jsonl" in requests


@pytest.mark.parametrize(
    ("endpoint", "reason"),
    [
        pytest.param(  # a name lookup: seconds where the resolver is slow to say no
            "http://personamem-test.invalid",
            "the hub's host personamem-test.invalid cannot be",
            marks=pytest.mark.slow,
        ),
        pytest.param(  # a process of its own
            "http://127.0.0.1:{port}",
            "no connection to the hub at 127.0.0.1:{port}",
            marks=pytest.mark.slow,
        ),
    ],
)
def test_an_unreachable_hub_fails_at_once_not_after_retries(
    tmp_path: Path, endpoint: str, reason: str
) -> None:
    """huggingface_hub retries a failed connection for about 25 s; with no way to reach
    the host at all, the locator fails at once."""
    no_proxy = {name: "" for name in ("HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy")}
    # a port nothing listens on: bound, never listening, and held for the whole test, so
    # no other process (another test's server) can take it and answer
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
        found = locate_in_subprocess(
            {
                "HF_ENDPOINT": endpoint.format(port=port),
                "HF_HUB_CACHE": str(tmp_path / "empty"),
                "ALL_PROXY": "",
                "all_proxy": "",
                **no_proxy,
            }
        )
    # the reason is the locator's own check, made before any download is tried: so no
    # download was tried, and none was retried
    assert reason.format(port=port) in found["error"]
    assert "pass -T data_dir=FOLDER or set PERSONAMEM_DATA_DIR=FOLDER" in found["error"]


def test_a_data_dir_that_is_not_a_folder(tmp_path: Path) -> None:
    source = DataSource("32k", tmp_path / "nowhere", data_dir_option="--data-dir")
    with pytest.raises(PersonaMemDataError) as info:
        locate_split_files(source)
    assert str(info.value) == (
        f"{tmp_path / 'nowhere'} (given by --data-dir) is not a folder. Put the files "
        "questions_32k.csv and shared_contexts_32k.jsonl of bowen-upenn/PersonaMem-v1 in a "
        "folder and point --data-dir there."
    )


def real_split(folder: Path, rows: int | None = None) -> Path:
    """A folder with the real 32k question file (its first `rows` rows, cut at a row
    boundary, if given) and synthetic contexts that fit it (marked as generated)."""
    folder.mkdir()
    lines = require(REAL_QUESTIONS).read_bytes().split(b"\r\n")
    questions = folder / "questions_32k.csv"
    questions.write_bytes(b"\r\n".join(lines if rows is None else lines[: rows + 1]))
    records = read_questions(questions, "32k")
    sizes = contexts_for_questions([record.columns for record in records])
    write_contexts(folder / "shared_contexts_32k.jsonl", sizes, message_chars=20)
    return folder


def real_questions(folder: Path, edit: Callable[[bytes], bytes] = lambda raw: raw) -> Path:
    """A folder holding the real 32k question file alone, edited by `edit`."""
    folder.mkdir()
    (folder / "questions_32k.csv").write_bytes(edit(require(REAL_QUESTIONS).read_bytes()))
    return folder


def built(folder: Path, history: HistoryName = "full") -> dict[str, str]:
    """The data metadata of the 32k task built on `folder`."""
    metadata = TASKS["personamem"]("32k", data_dir=str(folder), history=history).metadata or {}
    return {key: str(metadata[key]) for key in ("data_release", "data_checked")}


def data_release(folder: Path, history: HistoryName = "full") -> str:
    return built(folder, history)["data_release"]


def test_the_real_question_file_without_history_is_released_and_needs_no_contexts(
    tmp_path: Path,
) -> None:
    """history=none reads the question file alone: no context file is needed, and the
    run is on the released data."""
    assert built(real_questions(tmp_path / "data"), "none") == {
        "data_release": "released",
        "data_checked": "questions_32k.csv: rows, bytes, sha256; shared_contexts_32k.jsonl: "
        "not read",
    }


def test_a_run_that_reads_the_history_still_needs_the_context_file(tmp_path: Path) -> None:
    with pytest.raises(PersonaMemDataError, match="lacks shared_contexts_32k.jsonl"):
        data_release(real_questions(tmp_path / "data"))


@pytest.mark.slow  # the real question file
def test_generated_histories_beside_the_real_questions_are_synthetic(tmp_path: Path) -> None:
    """What `inspect-personamem try --questions` writes: a run that reads the generated
    contexts is on synthetic data, one that reads only the real questions is not."""
    folder = real_split(tmp_path / "data")
    assert data_release(folder) == (
        "synthetic: shared_contexts_32k.jsonl written by inspect_personamem.datasets.v1.generator"
    )
    assert data_release(folder, "none") == "released"


@pytest.mark.slow  # the real question file
def test_unmarked_contexts_are_checked_against_the_released_contexts(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The same contexts without the generator's mark: the context file is checked as
    the question file is (the 32k release's contexts, bytes and sha256 are known)."""
    folder = real_split(tmp_path / "data")
    (folder / MARK).unlink()
    size = (folder / "shared_contexts_32k.jsonl").stat().st_size
    release = data_release(folder)
    assert release == (
        f"not the released file: {size:,} bytes where the released shared_contexts_32k.jsonl "
        "has 5,613,210 (" + (f"{5_613_210 - size:,} fewer: a cut file?)")
    )
    (warning,) = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert "shared_contexts_32k.jsonl" in warning and "not comparable" in warning


def test_a_question_file_cut_at_a_row_boundary_says_where(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Cut at a row boundary, it is valid CSV: the released row count and rows tell."""
    lines = require(REAL_QUESTIONS).read_bytes().split(b"\r\n")
    folder = real_questions(tmp_path / "data", lambda raw: b"\r\n".join(lines[:490]))
    last = read_questions(folder / "questions_32k.csv", "32k")[-1].question_id
    difference = (
        "489 rows where the released questions_32k.csv has 589 (100 missing: a cut file?); "
        f"cut after question {last}, the released file's row 489"
    )
    assert data_release(folder, "none") == "not the released file: " + difference
    (warning,) = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert warning == (
        f"{(folder / 'questions_32k.csv').resolve()} is not the released questions_32k.csv of "
        f"{DEFAULT_REPO_ID} at revision {DEFAULT_REVISION} ({difference}): results are not "
        "comparable with runs on the released data."
    )


@pytest.mark.slow  # the real question file
def test_a_question_file_cut_inside_its_last_number_names_the_row(tmp_path: Path) -> None:
    """The last row's end index loses its last digit: as many rows, valid CSV, the row
    still readable; the row table names it as cut short."""
    folder = real_questions(tmp_path / "data", lambda raw: raw[:-1])
    records = read_questions(folder / "questions_32k.csv", "32k")
    assert len(records) == 589
    last = records[-1]
    assert data_release(folder, "none") == (
        "not the released file: 1,305,365 bytes where the released questions_32k.csv has "
        f"1,305,366 (1 fewer: a cut file?); the row of question {last.question_id} at line "
        f"{last.line} differs from the released row (1 character shorter: cut short, its last "
        "cells are not the released ones)"
    )


@pytest.mark.parametrize(
    ("edit", "difference"),
    [
        (
            lambda raw: raw + b"\r\n",
            "1,305,368 bytes where the released questions_32k.csv has 1,305,366 (2 more)",
        ),
        (
            lambda raw: raw.replace(b"(c)", b"(d)", 1),
            "sha256 {digest} where the released questions_32k.csv has "
            "cccd34cf53e0bc4d9536c04cff5ca045156d9a4e227e83327112482840bbc93c; the row of "
            "question {first} at line 2 differs from the released row (as long, other text)",
        ),
    ],
    ids=["bytes", "sha256"],
)
def test_the_same_rows_with_other_bytes_are_not_the_released_file(
    tmp_path: Path, edit: Callable[[bytes], bytes], difference: str
) -> None:
    folder = real_questions(tmp_path / "data", edit)
    questions = folder / "questions_32k.csv"
    digest = hashlib.sha256(questions.read_bytes()).hexdigest()
    first = read_questions(questions, "32k")[0].question_id
    assert data_release(folder, "none") == "not the released file: " + difference.format(
        digest=digest, first=first
    )


def test_a_synthetic_split_is_marked_synthetic(small_split: Path) -> None:
    assert data_release(small_split) == (
        "synthetic: questions_32k.csv written by inspect_personamem.datasets.v1.generator; "
        "shared_contexts_32k.jsonl written by inspect_personamem.datasets.v1.generator"
    )


def test_a_file_copied_over_a_generated_one_is_not_taken_for_it(tmp_path: Path) -> None:
    """The real question file copied over a generated one (of another size): released."""
    folder = tmp_path / "data"
    generate_split(folder, "32k", contexts=3, min_messages=30, max_messages=60, questions=24)
    (folder / "questions_32k.csv").write_bytes(require(REAL_QUESTIONS).read_bytes())
    assert data_release(folder, "none") == "released"


def test_a_damaged_generator_mark_is_an_error_naming_it(small_split: Path) -> None:
    (small_split / MARK).write_text("{not json", encoding="utf-8")
    with pytest.raises(PersonaMemDataError, match=f"{MARK}: not the package's record"):
        data_release(small_split)


@pytest.mark.slow
def test_the_real_file_from_the_pinned_revision_is_released(tmp_path: Path) -> None:
    folder = real_split(tmp_path / "data")
    with serve_hub(folder, DEFAULT_REPO_ID, DEFAULT_REVISION) as (endpoint, _):
        found = locate_in_subprocess(
            {"HF_ENDPOINT": endpoint, "HF_HUB_CACHE": str(tmp_path / "c")}, BUILD, history="none"
        )
    assert found == {"data_release": "released"}  # the contexts here are not the release's


@pytest.mark.slow
def test_the_former_pin_of_the_renamed_repository_is_checked_and_marked(tmp_path: Path) -> None:
    """The repository's former name at its former pin: the name resolves to the current
    one, the run records that it did, and the files are checked against the release,
    a difference marked (the contexts' facts are of the current pin), not refused."""
    folder = real_split(tmp_path / "data")
    size = (folder / "shared_contexts_32k.jsonl").stat().st_size
    former, revision = "bowen-upenn/PersonaMem", "2d676b2aeeddd1ee2ff4ff611bf867fcb2261d6e"
    env = {"HF_ENDPOINT": "", "HF_HUB_CACHE": str(tmp_path / "c")}
    with serve_hub(folder, DEFAULT_REPO_ID, revision) as (endpoint, requests):
        env["HF_ENDPOINT"] = endpoint
        located = locate_in_subprocess(env, repo_id=former, revision=revision)
        found = locate_in_subprocess(env, BUILD, repo_id=former, revision=revision)
    assert located["source"] == (
        f"hf://datasets/{DEFAULT_REPO_ID}@{revision} (given as {former}, its former name)"
    )
    assert f"GET /datasets/{DEFAULT_REPO_ID}/resolve/{revision}/questions_32k.csv" in requests
    assert found == {
        "data_release": f"not the released file: {size:,} bytes where the released "
        f"shared_contexts_32k.jsonl has 5,613,210 ({5_613_210 - size:,} fewer: a cut file?)"
    }


@pytest.mark.slow
def test_the_former_name_at_the_pinned_revision_must_be_the_release(tmp_path: Path) -> None:
    """Resolved, the former name at the pinned revision is the release itself: a
    context file that differs from the release's is a damaged download."""
    folder = real_split(tmp_path / "data")
    with serve_hub(folder, DEFAULT_REPO_ID, DEFAULT_REVISION) as (endpoint, _):
        found = locate_in_subprocess(
            {"HF_ENDPOINT": endpoint, "HF_HUB_CACHE": str(tmp_path / "c")},
            BUILD,
            repo_id="bowen-upenn/PersonaMem",
        )
    assert "is not the released shared_contexts_32k.jsonl of " in found["error"]
    assert f"{DEFAULT_REPO_ID} at revision {DEFAULT_REVISION}" in found["error"]


@pytest.mark.slow
def test_another_file_from_the_pinned_revision_is_an_error(
    small_split: Path, tmp_path: Path
) -> None:
    """There, the file can only be a damaged download (or a hub serving other data)."""
    with serve_hub(small_split, DEFAULT_REPO_ID, DEFAULT_REVISION) as (endpoint, _):
        found = locate_in_subprocess(
            {"HF_ENDPOINT": endpoint, "HF_HUB_CACHE": str(tmp_path / "c")}, BUILD
        )
    path, message = found["error"].split(" is not ", 1)
    assert Path(path).is_relative_to(tmp_path / "c")  # the cached download
    assert message == (
        f"the released questions_32k.csv of {DEFAULT_REPO_ID} at revision {DEFAULT_REVISION} "
        "(24 rows where the released questions_32k.csv has 589 (565 missing: a cut file?); none "
        "of its rows is a released row): a damaged download? Delete it from the Hugging Face "
        "cache (huggingface-cli delete-cache) and run again."
    )


@pytest.mark.slow
def test_another_revision_is_marked_not_released(small_split: Path, tmp_path: Path) -> None:
    revision = "1" * 40
    with serve_hub(small_split, DEFAULT_REPO_ID, revision) as (endpoint, _):
        found = locate_in_subprocess(
            {"HF_ENDPOINT": endpoint, "HF_HUB_CACHE": str(tmp_path / "c")},
            BUILD,
            revision=revision,
        )
    assert found == {
        "data_release": "not the released file: 24 rows where the released questions_32k.csv "
        "has 589 (565 missing: a cut file?); none of its rows is a released row; 3 contexts "
        "where the released "
        "shared_contexts_32k.jsonl has 37 (34 missing: a cut file?)"
    }
