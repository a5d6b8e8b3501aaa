"""PersonaMem-v3 read as the hub releases it (`datasets/v3/release/hub.py`, `version.py`'s load):
a generated folder in the hub's layout runs under `inspect eval` and sends the model
exactly what the same personas in a checkout's layout send; the download runs the real
huggingface_hub client against a local stand-in of the hub (no mocking of it): the branch
`main` resolved to the commit it serves, every file of that one commit, the commit
recorded in `data_release`, the pinned commit fetched as is, the cache read offline; a
missing file, a wrong revision and offline mode without a cache each one line naming the
repository, the revision and the file."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai.model import ChatMessage
from support.helpers import mock_model, run_script
from support.servers.hf_hub import serve_hub

from inspect_personamem.data.asked import AskedAt
from inspect_personamem.data.provenance import MARK
from inspect_personamem.datasets.v3.generator import generate
from inspect_personamem.datasets.v3.release.spec import (
    HUB_FILES,
    HUB_PERSONAS,
    PERSONAMEM_V3,
    V3Folder,
)
from inspect_personamem.run.tasks import personamem_v3

TASK = "inspect_personamem/personamem_v3"
REPO = PERSONAMEM_V3.repo_id
COMMIT = "0123456789abcdef0123456789abcdef01234567"
"""The commit a stand-in hub serves its branch `main` at."""
PINNED = PERSONAMEM_V3.revision
REPLY = '{"ranked_indices": [0, 1, 2], "response": "A short reply."}'
LOAD = (
    "import json, sys\n"
    "from dataclasses import replace\n"
    "from inspect_personamem.datasets.v3.release.spec import PERSONAMEM_V3\n"
    "from inspect_personamem.datasets.v3.version import PersonaMemV3\n"
    "from inspect_personamem.errors import PersonaMemDataError\n"
    "given = json.loads(sys.argv[1])\n"
    "spec = replace(PERSONAMEM_V3, hub_personas=tuple(given.pop('personas')))\n"
    "class Few(PersonaMemV3):  # the hub's 100 personas cut to the generated ones\n"
    "    def _source(self, arguments):\n"
    "        return replace(super()._source(arguments), spec=spec)\n"
    "settings = {'data_dir': None, 'repo_id': PERSONAMEM_V3.repo_id,\n"
    "            'revision': PERSONAMEM_V3.revision, 'family': 'all',\n"
    "            'history_layout': 'authors', 'history': 'full', **given}\n"
    "try:\n"
    "    loaded = Few().load(settings, True)\n"
    "    keys = ('data_source', 'data_release', 'data_checked', 'personas')\n"
    "    print(json.dumps({k: loaded.metadata[k] for k in keys}\n"
    "                     | {'questions': len(loaded.questions)}))\n"
    "except PersonaMemDataError as ex:\n"
    "    print(json.dumps({'error': str(ex)}))\n"
)


@pytest.fixture(scope="module")
def hub(tmp_path_factory: pytest.TempPathFactory) -> V3Folder:
    return generate(tmp_path_factory.mktemp("hub"), personas=2, seed=7, layout="hub")


def test_the_hub_personas_are_the_release_script_s_hundred() -> None:
    assert len(HUB_PERSONAS) == len(set(HUB_PERSONAS)) == 100
    assert {"105", "115", "229", "282", "760"} <= set(HUB_PERSONAS)
    assert list(HUB_PERSONAS) == sorted(HUB_PERSONAS, key=int)
    assert HUB_FILES[0] == "test.json" and "persona.html" not in HUB_FILES


@pytest.mark.slow  # two runs of the task over a generated split, 62 queries each
def test_a_hub_snapshot_sends_what_the_checkout_sends(hub: V3Folder, tmp_path: Path) -> None:
    """Same seed, both layouts: every sample's messages the same, so the time mask the
    checkout's end-to-end test checks holds of the hub's layout as well; but for the
    trending alerts' ground-truth block, whose list is `trending.json`'s in a checkout and,
    the hub shipping none, the most used hashtags before T."""
    checkout = generate(tmp_path / "checkout", personas=2, seed=7)
    sent: dict[str, dict[str, str]] = {}
    trending: set[str] = set()
    for name, folder in (("hub", hub), ("checkout", checkout)):
        (log,) = inspect_eval(
            TASK,
            model=mock_model(lambda messages: REPLY),
            model_roles={"grader": mock_model(lambda messages: "{}", "mockllm/grader")},
            task_args={"data_dir": str(folder.root), "keep_history_in_log": True},
            log_dir=str(tmp_path / name),
            display="none",
        )
        assert log.status == "success", log.error
        assert log.samples is not None and len(log.samples) == 62
        metadata = log.eval.metadata or {}
        assert metadata["data_release"].startswith("synthetic: ")
        assert folder.layout.queries_file(folder.personas[0]) in metadata["data_release"]
        assert metadata["data_source"].endswith(f"({folder.layout.where})")
        sent[name] = {
            str(sample.id): _texts([m for m in sample.messages if m.role != "assistant"])
            for sample in log.samples
        }
        trending |= {
            str(s.id) for s in log.samples if s.metadata["task_type"] == "agentic_trending_alert"
        }
    assert sent["hub"].keys() == sent["checkout"].keys()
    differ = {k for k, text in sent["hub"].items() if text != sent["checkout"][k]}
    assert differ == trending and len(trending) == 2


TASK_OFFLINE = (
    "import json, sys\n"
    "from inspect_ai.model import get_model\n"
    "from inspect_ai.model._model import init_model_roles\n"
    "from inspect_personamem.run.tasks import personamem_v3\n"
    "from inspect_personamem.errors import PersonaMemDataError\n"
    "init_model_roles({'grader': get_model('mockllm/model')})  # as --model-role binds it\n"
    "try:\n"
    "    personamem_v3(**json.loads(sys.argv[1]))\n"
    "    print(json.dumps({}))\n"
    "except PersonaMemDataError as ex:\n"
    "    print(json.dumps({'error': str(ex)}))\n"
)


@pytest.mark.slow
@pytest.mark.parametrize("given", [{}, {"revision": "main"}], ids=["pinned", "revision"])
def test_without_a_folder_the_task_reads_the_hub(tmp_path: Path, given: dict[str, str]) -> None:
    """The registered task, no folder named: its first file is the first hub persona's
    queries at the spec's revision, or at `-T revision` (here offline, nothing cached)."""
    env = {"HF_HUB_OFFLINE": "1", "HF_HUB_CACHE": str(tmp_path / "empty")}
    message = _one_line_error(run_script(TASK_OFFLINE, env, **given))
    revision = given.get("revision", PINNED)
    assert message.startswith(
        f"Could not get backend/{HUB_PERSONAS[0]}/test.json (persona {HUB_PERSONAS[0]}'s "
        f"queries) of dataset {REPO} at revision {revision} from the Hugging Face hub "
        "(HF_HUB_OFFLINE"
    )


def test_a_hub_folder_not_generated_says_nothing_was_checked(tmp_path: Path) -> None:
    """The hub publishes no size, digest or row count: a folder of its files (here a
    generated one with its generator's mark removed) is read, and marked unchecked."""
    folder = generate(tmp_path, personas=1, seed=7, layout="hub")
    (tmp_path / MARK).unlink()
    metadata = personamem_v3(data_dir=str(tmp_path)).metadata or {}
    uid = folder.personas[0]
    assert metadata["data_release"] == (
        f"unchecked: nothing is known of the released backend/{uid}/test.json and the rest "
        "(no size, digest or row count read)"
    )
    assert metadata["data_checked"] == (
        f"nothing known of the {len(HUB_FILES)} files read (the hub dataset {REPO}: no size, "
        "digest or row count of them is published), so none was checked"
    )
    assert metadata["data_source"] == f"local folder {tmp_path.resolve()} (the hub dataset {REPO})"


def test_items_out_of_time_order_are_each_masked_at_their_own_time(tmp_path: Path) -> None:
    """`add_chatbot_personalized_to_test.py` appends rows at the end of a sorted file,
    each `query_id` naming its new place: read so, every query keeps the point in its
    history its own `ts` gives, wherever it stands in the file."""
    folder = generate(tmp_path, personas=1, seed=7, layout="hub")
    uid = folder.personas[0]
    before = _points(personamem_v3(data_dir=str(tmp_path)))
    path = folder.queries_file(uid)
    items = json.loads(path.read_text(encoding="utf-8"))
    moved = [*items[3:], *items[:3]]  # the three earliest now last
    for place, item in enumerate(moved):
        item["query_id"] = f"{uid}:{place:04d}:{item['query_id'].split(':', 2)[2]}"
    path.write_text(json.dumps(moved), encoding="utf-8")
    after = _points(personamem_v3(data_dir=str(tmp_path)))
    assert after == before and len(after) == 31
    assert len({end for _, end in after.values()}) > 1  # not all at one point


def _points(task: Task) -> dict[str, tuple[int, int]]:
    """Per instance id: the query's time and its point in its persona's history."""
    return {
        str(sample.id).split(":", 2)[2]: (
            int((sample.metadata or {})["ts"]),
            AskedAt.of(sample.metadata or {}).end_index,
        )
        for sample in task.dataset
    }


def _texts(messages: list[ChatMessage]) -> str:
    return "\n".join(message.text for message in messages)


def _load(env: dict[str, str], hub: V3Folder, **given: str) -> dict[str, Any]:
    return run_script(LOAD, env, personas=list(hub.personas), **given)


@pytest.mark.slow
def test_main_is_resolved_to_the_commit_it_serves_and_recorded(
    hub: V3Folder, tmp_path: Path
) -> None:
    cache = str(tmp_path / "hf-cache")
    with serve_hub(hub.root, REPO, "main", COMMIT) as (endpoint, requests):
        found = _load({"HF_ENDPOINT": endpoint, "HF_HUB_CACHE": cache}, hub, revision="main")
    assert "error" not in found, found
    assert found["data_source"] == f"hf://datasets/{REPO}@{COMMIT}"
    assert found["data_release"] == (
        f"unchecked: {REPO} at commit {COMMIT}, revision 'main' resolved (-T revision="
        f"{COMMIT} reads the same files); no size, digest or row count of the hub's files "
        "is known, so none was checked"
    )
    files = len(hub.personas) * len(HUB_FILES)  # test.json, the profile, 5 apps, calendar
    assert found["data_checked"] == (
        f"nothing known of the {files} files read (the hub dataset {REPO}: no size, digest or "
        "row count of them is published), so none was checked"
    )
    assert found["personas"] == list(hub.personas) and found["questions"] == 62
    first, second = hub.personas
    gets = [r.split()[1] for r in requests if r.startswith("GET ") and "/resolve/" in r]
    # the branch once, for the first file; every other file at the commit it resolved to
    assert gets[0] == f"/datasets/{REPO}/resolve/main/backend/{first}/test.json"
    assert sorted(gets[1:]) == sorted(
        f"/datasets/{REPO}/resolve/{COMMIT}/backend/{uid}/{name}"
        for uid in (first, second)
        for name in HUB_FILES
        if (uid, name) != (first, "test.json")
    )
    # with the server gone, offline mode reads the same commit's files from the cache
    offline = _load({"HF_HUB_OFFLINE": "1", "HF_HUB_CACHE": cache}, hub, revision="main")
    assert offline == found


@pytest.mark.slow
def test_the_pinned_commit_is_fetched_as_is(hub: V3Folder, tmp_path: Path) -> None:
    with serve_hub(hub.root, REPO, PINNED) as (endpoint, requests):
        found = _load({"HF_ENDPOINT": endpoint, "HF_HUB_CACHE": str(tmp_path / "c")}, hub)
    assert found["data_source"] == f"hf://datasets/{REPO}@{PINNED}"
    assert found["data_release"].startswith(f"unchecked: {REPO} at commit {PINNED} (-T ")
    fetched = [r for r in requests if "/resolve/" in r]
    assert len(fetched) >= 2 * len(HUB_FILES)
    assert all(f"/resolve/{PINNED}/" in r for r in fetched)


def _one_line_error(found: dict[str, str]) -> str:
    message = found["error"]
    assert "\n" not in message
    assert "pass -T data_dir=FOLDER or set PERSONAMEM_V3_DATA_DIR=FOLDER" in message
    return message


@pytest.mark.slow
def test_a_file_missing_on_the_hub_is_named(hub: V3Folder, tmp_path: Path) -> None:
    served = generate(tmp_path / "served", personas=2, seed=7, layout="hub")
    uid = served.personas[1]
    (served.persona_folder(uid) / "calendar.json").unlink()
    with serve_hub(served.root, REPO, "main", COMMIT) as (endpoint, _):
        found = _load(
            {"HF_ENDPOINT": endpoint, "HF_HUB_CACHE": str(tmp_path / "c")},
            served,
            revision="main",
        )
    message = _one_line_error(found)
    assert message.startswith(
        f"Could not get backend/{uid}/calendar.json (persona {uid}) of dataset {REPO} at "
        f"revision {COMMIT} from the Hugging Face hub: "
    )


@pytest.mark.slow
def test_a_wrong_revision_is_named(hub: V3Folder, tmp_path: Path) -> None:
    wrong = "f" * 40
    with serve_hub(hub.root, REPO, "main", COMMIT) as (endpoint, _):
        found = _load(
            {"HF_ENDPOINT": endpoint, "HF_HUB_CACHE": str(tmp_path / "c")}, hub, revision=wrong
        )
    message = _one_line_error(found)
    first = hub.personas[0]
    assert message.startswith(
        f"Could not get backend/{first}/test.json (persona {first}'s queries) of dataset "
        f"{REPO} at revision {wrong} from the Hugging Face hub: "
    )


@pytest.mark.slow
def test_offline_without_a_cache_fails_at_once(hub: V3Folder, tmp_path: Path) -> None:
    found = _load({"HF_HUB_OFFLINE": "1", "HF_HUB_CACHE": str(tmp_path / "empty")}, hub)
    message = _one_line_error(found)
    assert re.match(
        rf"Could not get backend/{hub.personas[0]}/test\.json .* at revision {PINNED} from "
        r"the Hugging Face hub \(HF_HUB_OFFLINE is set: only the local cache was tried\): ",
        message,
    )
    assert f"https://huggingface.co/datasets/{REPO}/tree/{PINNED}" in message
