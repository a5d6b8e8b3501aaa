"""PersonaMem-v3's real rows, read as the package reads a release: every persona folder
under `tests/fixtures/personamem_v3_real/` (`{uid}/queries.csv`, rows copied verbatim from
bowen-upenn/PersonaMem-v3, CC-BY-NC-4.0; `SOURCE.md` there names the commit) laid out
as the authors' checkout (`benchmark/{uid}/queries.csv`, `backend/{uid}/` with a profile
and empty apps, since `history=none` reads no event for a prompt).

Every row is read by the loader (`read_queries`, and the task as `-T history=none`
loads it); every row's sample is built; on every rule-scored row the authors'
`example_response` scores at the top its rule gives and no lower than its
`inferior_response`; on every judged row the judge's prompt is built and carries the
row's own fields (an agentic row: the evidence the authors' judge is given for it, its
query line and Source A from the persona at the row's time). A cell longer than the csv
module's 131,072 characters is read; one past the reader's bound (`MAX_CELL_CHARS`) is
one line naming the file, the line and the column. A row the package cannot serve yet is
marked in `KNOWN_GAPS` (xfail, strict: the mark must go when the row is served), naming
the field it lacks. A row of a type the
release does not hold (`families.NOT_RELEASED`: persona 115's `agentic_wrong_recipient_check`
of the older build these files are) stops the load of its file in one line saying why;
the other rows of its file are read without it.
"""

from __future__ import annotations

import asyncio
import csv
import json
import re
import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

import pytest
from inspect_ai.dataset import Sample

from inspect_personamem.datasets.v3.generator import write_persona, write_queries
from inspect_personamem.datasets.v3.judges.base import Judge
from inspect_personamem.datasets.v3.judges.preface import dumps
from inspect_personamem.datasets.v3.judges.source_a import QUERY_LINES, SOURCE_A_KEY
from inspect_personamem.datasets.v3.persona.histories import PersonaContexts
from inspect_personamem.datasets.v3.persona.streams import PersonaStreams
from inspect_personamem.datasets.v3.prompts.shown import SCORER_KEY, SHOWN_KEY
from inspect_personamem.datasets.v3.release import records
from inspect_personamem.datasets.v3.release.families import NOT_RELEASED
from inspect_personamem.datasets.v3.release.records import V3Query, read_queries
from inspect_personamem.datasets.v3.rules.ranking import Slate, ranking_reply
from inspect_personamem.datasets.v3.scoring.by_rule import RULE_TASKS, missing_field, rule_score
from inspect_personamem.datasets.v3.scoring.judged import judge_row
from inspect_personamem.datasets.v3.task_types.registry import TASK_TYPES
from inspect_personamem.datasets.v3.task_types.samples import query_to_sample
from inspect_personamem.errors import PersonaMemDataError
from inspect_personamem.run.tasks import personamem_v3

FIXTURES: Final = Path(__file__).resolve().parents[2] / "fixtures" / "personamem_v3_real"
PERSONAS: Final = sorted(p.name for p in FIXTURES.iterdir() if (p / "queries.csv").is_file())

KNOWN_GAPS: Final[dict[str, str]] = {}
"""query_id -> the field the package lacks to serve the row: every test of the row is
expected to fail (strict: the mark goes when the row is served). None of 105's or 229's
rows here lacks one. A row of a task type the package does not know is a gap too (`gap`)."""
JUDGE_LACKS: Final[dict[str, str]] = {}
"""query_id -> why the row's judge prompt lacks the row, though the row is served. None
does: an agentic row's judge is given the evidence the authors give theirs (Source A from
the persona at the row's time, `judges.source_a`)."""
_NO_WARNING = (
    "a warn row whose gold holds none of the authors' warning phrases "
    "(e6_active_mistake_prevention.py@4206dddf `_WARN_PHRASE_RE`), so their rule reads "
    "it as no warning"
)
GOLD_BELOW_TOP: Final[dict[str, str]] = {
    "105:0162:e6_105_p3_warn": _NO_WARNING,
    "115:0144:e6_115_p3_warn": _NO_WARNING,  # "I'm not sure — I don't have the schedule..."
}
"""Rule-scored rows whose gold the authors' own rule scores below its top, and why."""
DISPLAYED_RANKING: Final = re.compile(r"Ranked indexes: (\[[0-9, ]*\])")
"""How the release writes a ranking row's gold and foil: a display line, not the JSON
reply the prompt asks for (the authors' parser reads that line as no ranking)."""


def _raw_rows(uid: str) -> list[dict[str, str]]:
    """The fixture's rows as the csv module reads them (the version line skipped)."""
    with (FIXTURES / uid / "queries.csv").open(encoding="utf-8", newline="") as file:
        file.readline()
        return list(csv.DictReader(file))


ALL_ROWS: Final = [(uid, row) for uid in PERSONAS for row in _raw_rows(uid)]
ROWS: Final = [(u, r) for u, r in ALL_ROWS if r["task_type"] not in NOT_RELEASED]
"""The rows of the types the release holds."""
RETIRED: Final = [(u, r) for u, r in ALL_ROWS if r["task_type"] in NOT_RELEASED]
"""The rows of a type the release does not hold, which the package refuses."""


def gap(row: Mapping[str, str]) -> str | None:
    """Why the package cannot serve `row` yet (naming the field), or None."""
    return KNOWN_GAPS.get(row["query_id"])


def _param(uid: str, row: Mapping[str, str], why: str | None) -> Any:
    marks = [pytest.mark.xfail(strict=True, reason=why)] if why else []
    return pytest.param(uid, row["query_id"], id=row["query_id"], marks=marks)


def _params(rows: list[tuple[str, dict[str, str]]]) -> list[Any]:
    """One param per row, its query_id its id; a row with a `gap` expected to fail."""
    return [_param(uid, row, gap(row)) for uid, row in rows]


def checkout(root: Path, uid: str, *, verbatim: bool = False) -> Path:
    """A checkout of persona `uid` at `root`: its fixture's queries (`verbatim`: the file
    as copied; else its rows of the types the release holds), a profile, no event."""
    path = root / "benchmark" / uid / "queries.csv"
    if verbatim:
        path.parent.mkdir(parents=True)
        shutil.copyfile(FIXTURES / uid / "queries.csv", path)
    else:
        rows = served(uid)
        write_queries(path.parent, rows, first=_first_line(uid), columns=list(rows[0]))
    write_persona(root / "backend" / uid, {"user_id": uid}, {})
    return path


def served(uid: str) -> list[dict[str, str]]:
    """Persona `uid`'s fixture rows of the types the release holds."""
    return [r for u, r in ROWS if u == uid]


def _first_line(uid: str) -> str:
    """The fixture's version line."""
    with (FIXTURES / uid / "queries.csv").open(encoding="utf-8", newline="") as file:
        return file.readline().rstrip("\r\n")


def row_of(root: Path, uid: str, query_id: str) -> tuple[V3Query, Path, PersonaContexts]:
    """Row `query_id` of persona `uid` alone in a checkout at `root` (so that another row's
    gap does not stop it), read by the loader."""
    row = next(r for r in _raw_rows(uid) if r["query_id"] == query_id)
    path = write_queries(root / "benchmark" / uid, [row], first=_first_line(uid), columns=list(row))
    write_persona(root / "backend" / uid, {"user_id": uid}, {})
    (query,) = read_queries(path)
    return query, path, PersonaContexts(PersonaStreams(root / "backend"))


def persona_gaps(uid: str) -> None:
    """xfail the whole-file test of a persona some of whose rows have a `gap`."""
    gaps = [r["query_id"] for r in served(uid) if gap(r)]
    if gaps:
        pytest.xfail(f"rows the package cannot serve yet: {', '.join(gaps)}")


def stated(reply: str, rule: object) -> str:
    """`reply` as the prompt asks for it: on a slate, a display line `Ranked indexes:
    [...]` as the JSON under the key its prompt asks for; any other reply as it is."""
    found = DISPLAYED_RANKING.fullmatch(reply.strip())
    if found is None or not isinstance(rule, Slate):
        return reply
    return ranking_reply(rule.key, json.loads(found.group(1)))


def metadata(sample: Sample) -> dict[str, Any]:
    """The sample's metadata (every v3 sample has some)."""
    assert sample.metadata is not None
    return sample.metadata


def strings(value: object) -> list[str]:
    """Every text of a JSON value (keys left out)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, Mapping):
        return [s for v in value.values() for s in strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in strings(v)]
    return []


# --- read -------------------------------------------------------------------------------


@pytest.mark.parametrize("uid", PERSONAS)
def test_every_row_is_read_as_released(tmp_path: Path, uid: str) -> None:
    persona_gaps(uid)
    raw = served(uid)
    queries = read_queries(checkout(tmp_path, uid))
    assert [q.query_id for q in queries] == [r["query_id"] for r in raw]
    for query, row in zip(queries, raw, strict=True):
        assert query.user_id == uid and query.task_type == row["task_type"]
        assert query.instance == json.loads(row["instance_json"])
        assert query.ts == int(row["ts"]) and query.query_text == row["query_text"]


@pytest.mark.parametrize("uid", PERSONAS)
def test_the_task_loads_every_row_with_no_history(tmp_path: Path, uid: str) -> None:
    persona_gaps(uid)
    checkout(tmp_path, uid)
    task = personamem_v3(data_dir=str(tmp_path), history="none")
    assert [s.id for s in task.dataset] == [r["query_id"] for r in served(uid)]


@pytest.mark.parametrize(("uid", "query_id"), [(u, r["query_id"]) for u, r in RETIRED])
def test_a_row_of_a_type_the_release_does_not_hold_stops_its_file_saying_why(
    tmp_path: Path, uid: str, query_id: str
) -> None:
    task_type = next(r["task_type"] for u, r in RETIRED if r["query_id"] == query_id)
    path = checkout(tmp_path, uid, verbatim=True)
    with pytest.raises(PersonaMemDataError) as raised:
        read_queries(path)
    message = str(raised.value)
    assert "\n" not in message and str(path) in message and query_id in message
    assert task_type in message and NOT_RELEASED[task_type].split(" (")[0] in message


@pytest.mark.parametrize(("uid", "query_id"), _params(ROWS))
def test_each_row_builds_its_sample_showing_no_gold(
    tmp_path: Path, uid: str, query_id: str
) -> None:
    query, path, contexts = row_of(tmp_path, uid, query_id)
    sample = query_to_sample(query, contexts, path)
    shown = (
        sample.input
        if isinstance(sample.input, str)
        else "\n".join(message.text for message in sample.input)
    )
    assert sample.id == query_id and shown.strip()
    assert metadata(sample)[SCORER_KEY] is not None
    gold = query.instance.get("example_response")
    if isinstance(gold, str) and len(gold) > 30:
        assert gold not in shown


def test_a_real_row_missing_what_its_prompt_needs_is_one_line(tmp_path: Path) -> None:
    uid, row = next((u, r) for u, r in ROWS if r["task_type"] == "personalized_recommendation")
    instance = json.loads(row["instance_json"])
    del instance["candidates"]
    path = write_queries(
        tmp_path / "benchmark" / uid, [{**row, "instance_json": json.dumps(instance)}]
    )
    write_persona(tmp_path / "backend" / uid, {"user_id": uid}, {})
    query = read_queries(path)[0]
    with pytest.raises(PersonaMemDataError) as raised:
        query_to_sample(query, PersonaContexts(PersonaStreams(tmp_path / "backend")), path)
    message = str(raised.value)
    assert "\n" not in message
    assert str(path) in message and row["query_id"] in message
    assert "instance_json.candidates" in message


# --- scored -----------------------------------------------------------------------------

RULE_ROWS: Final = [(u, r) for u, r in ROWS if r["task_type"] in RULE_TASKS]
JUDGED_ROWS: Final = [(u, r) for u, r in ROWS if r["task_type"] not in RULE_TASKS]


@pytest.mark.parametrize(("uid", "query_id"), _params(RULE_ROWS))
def test_the_gold_scores_at_the_top_and_no_lower_than_the_foil(
    tmp_path: Path, uid: str, query_id: str
) -> None:
    query, path, contexts = row_of(tmp_path, uid, query_id)
    fields = metadata(query_to_sample(query, contexts, path))[SCORER_KEY]
    task = TASK_TYPES[query.task_type]
    assert missing_field(query.task_type, fields) == ""
    inferior = query.instance["inferior_response"]
    foil = inferior["text"] if isinstance(inferior, dict) else inferior

    def accuracy(reply: str) -> float:
        value = rule_score(query.task_type, stated(reply, task.scorer), fields, query_id).accuracy
        assert value is not None
        return value

    gold = accuracy(query.instance["example_response"])
    top = accuracy(task.scorer.replies(query.instance)[0])
    assert gold >= accuracy(foil)
    if query_id in GOLD_BELOW_TOP:
        assert gold < top, f"now at the top: drop it from GOLD_BELOW_TOP ({query_id})"
    else:
        assert gold == top


def _judged_params() -> list[Any]:
    params = []
    for uid, row in JUDGED_ROWS:
        why = gap(row) or JUDGE_LACKS.get(row["query_id"])
        judge = TASK_TYPES[row["task_type"]].scorer if why is None else None
        if isinstance(judge, Judge) and not judge.built:
            why = f"no judge prompt: {row['task_type']} is unscored ({judge.why})"
        params.append(_param(uid, row, why))
    return params


@pytest.mark.parametrize(("uid", "query_id"), _judged_params())
def test_the_judge_prompt_carries_the_row(tmp_path: Path, uid: str, query_id: str) -> None:
    query, path, contexts = row_of(tmp_path, uid, query_id)
    sample = query_to_sample(query, contexts, path)
    fields, shown = metadata(sample)[SCORER_KEY], metadata(sample)[SHOWN_KEY]
    judge = TASK_TYPES[query.task_type].scorer
    assert isinstance(judge, Judge)
    gold = str(query.instance["example_response"])
    prompts: list[str] = []

    async def ask(prompt: str) -> str:
        prompts.append(prompt)
        return "{}"

    asyncio.run(judge_row(query.task_type, gold, fields, shown, ask))
    assert prompts, f"no judge prompt was built for {query.task_type}"
    text = "\n".join(prompts)
    assert judge.shown(gold) in text  # the reply judged
    evidence = fields.get(SOURCE_A_KEY)
    if evidence is not None:
        # the authors' judge is given no field of an agentic row but through its query
        # line (`_query_text_for`); its evidence is the persona's at the row's time
        assert QUERY_LINES[query.task_type](query.instance) in text
        assert dumps(evidence["unified"]) in text
        return
    own = [s for s in strings({**fields, **shown}) if len(s) >= 25 and s != gold]
    assert any(s in text for s in own), "the prompt holds none of the row's own fields"


# --- long cells -------------------------------------------------------------------------


def _long_row(length: int) -> dict[str, str]:
    """A real row whose `instance_json` is made at least `length` characters long by
    repeating its 48-hour engagements (as real chatbot rows run long)."""
    uid, row = next(
        (u, r)
        for u, r in ROWS
        if json.loads(r["instance_json"]).get("post_test_window", {}).get("post_test_engagements")
    )
    instance = json.loads(row["instance_json"])
    window = instance["post_test_window"]
    seen = list(window["post_test_engagements"])
    while len(json.dumps(instance)) < length:
        window["post_test_engagements"] = window["post_test_engagements"] + seen
    return {**row, "instance_json": json.dumps(instance)}


def test_a_cell_past_the_csv_modules_limit_is_read(tmp_path: Path) -> None:
    row = _long_row(200_000)
    assert len(row["instance_json"]) > csv.field_size_limit() == 131_072
    path = write_queries(tmp_path / "benchmark" / row["user_id"], [row])
    (query,) = read_queries(path)
    assert query.instance == json.loads(row["instance_json"])
    assert csv.field_size_limit() == 131_072  # the process's limit as it was


def test_a_cell_past_the_readers_bound_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(records, "MAX_CELL_CHARS", 150_000)
    row = _long_row(160_000)
    path = write_queries(tmp_path / "benchmark" / row["user_id"], [row])
    with pytest.raises(PersonaMemDataError) as raised:
        read_queries(path)
    assert str(raised.value) == (
        f"{path}, line 3, field 'instance_json': a field longer than 150,000 characters, the "
        "most the reader of this file's version reads (a quote left open runs a field on "
        "into the rows after it)"
    )
    assert csv.field_size_limit() == 131_072
