"""A run as the report reads it (`report/read/runs.py`): what the log says of how it
ran, or for an older log the installed package; its key, its shortfalls, and the marks
its labels carry for a subset or other data."""

from __future__ import annotations

from pathlib import Path

from inspect_ai.log import read_eval_log, write_eval_log
from support.reports import Logs, a_run, results

from inspect_personamem.data.release import NOT_RELEASED, SYNTHETIC
from inspect_personamem.datasets.v1.spec import PERSONAMEM
from inspect_personamem.report.read.identity import Grader, model_identity
from inspect_personamem.report.read.logs import read_runs


def test_a_log_made_before_the_repository_was_renamed_reads_as_before(
    logs: Logs, tmp_path: Path
) -> None:
    """A log of task version 2.2.0: the repository's former name at its former pin, on
    the released data as the task recorded it. Its repository is read by its current
    name (a setting like today's runs'), its pin as it was, its data as released."""
    log = read_eval_log(logs.locations["a_full"], header_only=True)
    former, pin = "bowen-upenn/PersonaMem", "2d676b2aeeddd1ee2ff4ff611bf867fcb2261d6e"
    log.eval.task_args.update(repo_id=former, revision=pin)
    log.eval.metadata = {
        **(log.eval.metadata or {}),
        "data_source": f"hf://datasets/{former}@{pin}",
        "data_release": "released",
    }
    write_eval_log(log, str(tmp_path / "old.json"))
    [old] = read_runs([tmp_path / "old.json"]).runs
    assert (old.settings["repo_id"], old.settings["revision"]) == (PERSONAMEM.repo_id, pin)
    assert old.data_release == "released" and not old.unreleased and not old.marks


def test_how_a_run_ran_is_read_from_its_log_and_an_older_log_is_said_to_predate_it(
    logs: Logs, tmp_path: Path
) -> None:
    """What the task wrote into the log of how it ran (`run/facts.py`) describes the run,
    not the installed package's axis tables: a later package reads an earlier run as it
    ran. A log made before tasks wrote it is described by the installed package, and a
    note says so."""
    log = read_eval_log(logs.locations["a_full"])
    assert log.eval.metadata is not None
    facts = log.eval.metadata["facts"]
    assert (facts["upper_bound"], facts["scored_as"], facts["judged"]) == (False, "chosen", False)
    assert facts["scoring_defaults"]["history"] == "full"
    log.eval.metadata["facts"] = {
        **facts,
        "upper_bound": True,
        "scored_as": "judged",
        "judged": True,
        "scoring_defaults": {**facts["scoring_defaults"], "history": "none"},
        "evidence_rule": "a rule since changed",
    }
    write_eval_log(log, str(tmp_path / "later.eval"))
    del log.eval.metadata["facts"]
    write_eval_log(log, str(tmp_path / "older.eval"))
    [later] = read_runs([tmp_path / "later.eval"]).runs
    assert later.upper_bound and later.judged and later.scored_as == "judged"
    assert later.settings["history"] == "full" and "history=full" in later.changed_settings
    assert later.evidence_located_by == "a rule since changed" and not later.described_by
    older_read = read_runs([tmp_path / "older.eval"])
    [older] = older_read.runs
    assert not older.upper_bound and not older.judged and older.scored_as == "chosen"
    assert "history=full" not in older.changed_settings
    assert older.prompts == facts["prompts"]  # today's package sends the same texts
    assert older.evidence_located_by == facts["evidence_rule"]
    assert older.described_by.startswith("described by the installed package, version ")
    assert f"older.eval (mockllm/model-a): {older.described_by}" in older_read.notes


def test_a_complete_run_has_no_shortfalls_and_an_incomplete_one_says_each() -> None:
    four = results([1.0, 0.0], [1.0, 1.0])
    assert a_run(four).shortfalls == [] and a_run(four).complete
    short = a_run(
        four[:3], planned=4, status="error", errors=1, unanswered=2, limits={"message": 2}
    )
    assert short.shortfalls == [
        "status error",
        "3 of 4 scored",
        "1 errored",
        "2 not answered: stopped by an Inspect limit",
    ]
    assert not short.complete
    # a run over part of its split is complete, but marked a subset
    subset = a_run(four, dataset_size=589)
    assert subset.complete and subset.subset == "subset 4/589" and subset.marks == ["subset 4/589"]


def test_what_a_runs_data_are_is_read_off_its_data_release() -> None:
    """Released data carry no mark; another file says why it is not the released one;
    generated data say by what; a log that does not say is taken as it is."""
    released, unknown = a_run(), a_run(data_release=None)
    assert (released.unreleased, released.synthetic, released.marks) == ("", "", [])
    assert (unknown.unreleased, unknown.synthetic, unknown.marks) == ("", "", [])
    other = a_run(data_release=f"{NOT_RELEASED}sha256 differs")
    assert other.unreleased == "sha256 differs" and other.marks == ["not released data"]
    generated = a_run(data_release=f"{SYNTHETIC}generate_split (seed 0)")
    assert generated.synthetic == "generate_split (seed 0)" and not generated.unreleased
    assert generated.marks == ["synthetic data"]
    assert a_run(data_release=SYNTHETIC).synthetic == "a generator not named"
    both = a_run(results([1.0]), dataset_size=10, data_release=f"{NOT_RELEASED}edited")
    assert both.marks == ["subset 1/10", "not released data"]


def test_runs_that_differ_only_in_time_share_a_key_and_a_setting_changes_it() -> None:
    """The key is model x split x settings x grader; a run's changed settings are those
    off the task's defaults, `key=value`."""
    earlier, later = a_run(), a_run(location="b.eval", eval_id="eval-b")
    assert earlier.key == later.key and earlier.changed_settings == []
    none = a_run(settings={"history": "none"})
    assert none.key != earlier.key and none.changed_settings == ["history=none"]
    assert earlier.key_with(none.settings) == none.key
    assert a_run(model_args={"decay": "0.1"}).key != earlier.key
    assert a_run(base_url="http://a.test/v1").model_id == model_identity(
        "mockllm/model-a", {}, "http://a.test/v1"
    )


def test_a_run_graded_by_its_own_model_is_self_graded_however_the_grader_generated() -> None:
    """The grader's model (name, arguments, base URL) against the run's; its generation
    settings aside. A run without a grader is not self-graded."""
    settings = {"answer": "open"}
    model = ("mockllm/model-a", ())
    hot = Grader(model, (("temperature", "1.0"),))
    assert a_run(settings=settings, grader=hot).self_graded
    other = Grader(("mockllm/model-b", ()))
    assert not a_run(settings=settings, grader=other).self_graded
    assert not a_run().self_graded
    assert (
        a_run(settings=settings, grader=hot).key
        != a_run(settings=settings, grader=Grader(model)).key
    )


def test_an_older_log_is_described_by_the_installed_package() -> None:
    """Without the facts a task writes, a run's facts are what the installed package
    says of its settings: an evidence run is an upper bound, a full-history one not."""
    older = a_run()
    assert older.described_by.startswith("described by the installed package, version ")
    assert not older.upper_bound and older.scored_as == "chosen" and not older.judged
    assert a_run(settings={"history": "evidence"}).upper_bound
    logged = a_run(logged_facts={**older.facts, "upper_bound": True})
    assert logged.described_by == "" and logged.upper_bound
