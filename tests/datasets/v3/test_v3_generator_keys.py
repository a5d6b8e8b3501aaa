"""The generator writes what the release writes (issue 49 item 2): for every task type the
real fixtures hold (`tests/fixtures/personamem_v3_real/{uid}/instance_keys.json`, the key
manifests read from the authors' `benchmark/{uid}/queries.csv`), the generated rows'
`instance_json` has the real rows' keys and nested shapes. Every manifest under that
folder is read, so the test tightens as fixtures arrive.

The rule, per task type, over the manifests of all personas together:

- keys: every key that every real row carries (their intersection) is generated, and
  every generated key is one some real row carries (their union), but the generator's
  own annotations `GENERATED_ONLY` (`_generated_evidence`, `_generated_decoys`: where a
  generated query's evidence and decoys lie, which the offline oracle and the time-mask
  tests read; underscored, so no prompt shows them);
- nested shapes, in the manifests' notation (`a.b` an object under an object, `a[0]`
  the objects of a list, their keys' union; `KEYED_BY_DATA` not descended into): every
  object the generator writes sits at a path some real row has one at, with keys among
  the real ones there; and a value the
  generator writes as text or a number is not one real rows hold as an object (a path
  of the manifest names it). A key both shapes in real rows would need its own rule;
  none has so far.

A real key a generated row lacks would let a misreading of it pass on generated data; a
generated key no real row has is a field the package could come to read that the release
never holds.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, Final

import pytest

from inspect_personamem.datasets.v3.generator import generate
from inspect_personamem.datasets.v3.release.families import NOT_RELEASED
from inspect_personamem.datasets.v3.release.records import V3Query, read_queries
from inspect_personamem.datasets.v3.task_types.registry import TASK_TYPES

REAL: Final = Path(__file__).parents[2] / "fixtures" / "personamem_v3_real"
GENERATED_ONLY: Final = frozenset({"_generated_evidence", "_generated_decoys"})
"""The generator's own annotations (module docstring)."""
KEYED_BY_DATA: Final = frozenset({"final_state_expected.must_contain_count"})
"""Objects whose keys are data (tool names -> counts), which the manifests do not list."""
UNSEEN_ARMS: Final = {
    "distractor_reject": (
        "over_personalization_chatbot_text's arm built by `build_c3_instance` "
        "(evaluation/build_benchmark.py@8e2a111f), its own keys as that builder writes them"
    )
}
"""Arms of a type no fixture row shows: their rows must carry every key every real row of
the type carries, but their own keys and shapes come from the authors' builder, not a
manifest."""


def _manifests() -> list[dict[str, Any]]:
    return [
        json.loads(path.read_text(encoding="utf-8"))
        for path in sorted(REAL.glob("*/instance_keys.json"))
    ]


def _real() -> dict[str, dict[str, Any]]:
    """Per task type, over every manifest: the rows read, the keys' union and
    intersection, each nested path's keys (union) and the personas that show it."""
    real: dict[str, dict[str, Any]] = {}
    for manifest in _manifests():
        for task, entry in manifest["task_types"].items():
            seen = real.setdefault(
                task, {"rows": 0, "union": set(), "every": None, "nested": {}, "personas": []}
            )
            seen["rows"] += entry["rows"]
            seen["union"] |= set(entry["instance_keys"])
            every = set(entry["keys_in_every_row"])
            seen["every"] = every if seen["every"] is None else seen["every"] & every
            for path, keys in entry["nested"].items():
                # `a[].b` (as one manifest writes it) is `a[0].b`
                seen["nested"].setdefault(path.replace("[]", "[0]"), set()).update(keys)
            seen["personas"].append(f"{manifest['persona']}@{manifest['commit'][:8]}")
    return real


REAL_TYPES: Final = _real()
SERVED_TYPES: Final = sorted(REAL_TYPES.keys() - NOT_RELEASED.keys())
"""The real rows' task types the release holds (the files are of older builds, which
also hold retired types: `families.NOT_RELEASED`, whose rows the package refuses)."""


def shapes(value: Any, path: str) -> Iterator[tuple[str, frozenset[str]]]:
    """The objects in `value` (at `path`) and their keys, in the manifests' notation."""
    if path in KEYED_BY_DATA:
        return
    if isinstance(value, Mapping):
        if value:
            yield path, frozenset(value)
        for key, item in value.items():
            yield from shapes(item, f"{path}.{key}")
    elif isinstance(value, list):
        for item in value:
            if isinstance(item, Mapping):
                yield from shapes(item, f"{path}[0]")


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[V3Query]]:
    folder = generate(tmp_path_factory.mktemp("v3"), personas=2, queries_per_type=3, seed=5)
    rows: dict[str, list[V3Query]] = {}
    for uid in folder.personas:
        for query in read_queries(folder.queries_file(uid)):
            rows.setdefault(query.task_type, []).append(query)
    return rows


def test_the_manifests_are_there_and_name_their_source() -> None:
    manifests = _manifests()
    assert manifests, f"no key manifest under {REAL}"
    for manifest in manifests:
        assert manifest["repo"] == "bowen-upenn/PersonaMem-v3"
        assert len(manifest["commit"]) == 40 and manifest["task_types"]
        for task, entry in manifest["task_types"].items():
            assert entry["rows"] >= 1, task
            assert set(entry["keys_in_every_row"]) <= set(entry["instance_keys"]), task


def test_every_real_type_is_served_or_refused_as_not_released() -> None:
    assert not REAL_TYPES.keys() - TASK_TYPES.keys() - NOT_RELEASED.keys()


@pytest.mark.parametrize("task", SERVED_TYPES)
def test_generated_instances_have_the_real_keys(
    task: str, generated: dict[str, list[V3Query]]
) -> None:
    real = REAL_TYPES[task]
    where = f"{task} (real: {real['rows']} rows of {', '.join(real['personas'])})"
    rows = generated[task]
    for query in rows:
        keys = set(query.instance) - GENERATED_ONLY
        assert not real["every"] - keys, f"{where}: {query.query_id} lacks real keys"
        if query.instance.get("arm") not in UNSEEN_ARMS:
            assert not keys - real["union"], f"{where}: {query.query_id} has keys no real row has"


@pytest.mark.parametrize("task", SERVED_TYPES)
def test_generated_instances_have_the_real_nested_shapes(
    task: str, generated: dict[str, list[V3Query]]
) -> None:
    real = REAL_TYPES[task]
    nested: dict[str, set[str]] = real["nested"]
    for query in generated[task]:
        if query.instance.get("arm") in UNSEEN_ARMS:
            continue
        for key, value in query.instance.items():
            if key in GENERATED_ONLY:
                continue
            if not isinstance(value, (Mapping, list)) and value is not None:
                held = [p for p in nested if p == key or p.startswith((f"{key}.", f"{key}["))]
                assert not held, f"{task}: {key} generated as {type(value).__name__}, real {held}"
            for path, keys in shapes(value, key):
                assert path in nested, f"{task}: {query.query_id} writes an object at {path}"
                extra = keys - nested[path]
                assert not extra, f"{task}: {query.query_id} {path} has {sorted(extra)}"
