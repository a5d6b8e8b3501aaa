"""Who a run's model and grader are (`report/read/identity.py`): a model's identity and
a grader's from their configs, the grader of an open run from its scores or its roles;
and, read from real logs of the offline oracle, the same model bound as its own grader
is self-graded as `-T grader=self` is, a base URL is part of a model, and a grader's
generation settings part of the grader."""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.model import GenerateConfig, Model, ModelConfig, get_model
from inspect_ai.scorer import Score

from inspect_personamem.datasets.v1.generator import generate_split
from inspect_personamem.report import build_report
from inspect_personamem.report.errors import ReportError
from inspect_personamem.report.glance import CAVEATS
from inspect_personamem.report.labels import run_labels
from inspect_personamem.report.read.identity import (
    Grader,
    generation_settings,
    graded_by,
    grader_of,
    model_identity,
)
from inspect_personamem.report.read.logs import read_runs
from inspect_personamem.report.read.runs import Run

ORACLE = "personamem/oracle"


@dataclass
class Logs:
    data: Path
    locations: dict[str, str]

    def runs(self, *keys: str) -> list[Run]:
        """The runs of `keys`, in that order."""
        found = {
            Path(run.location).name: run for run in read_runs(list(self.locations.values())).runs
        }
        return [found[Path(self.locations[key]).name] for key in keys]


def oracle(data: Path, accuracy: float = 0.7, **kwargs: Any) -> Model:
    return get_model(ORACLE, questions=str(data / "questions_32k.csv"), accuracy=accuracy, **kwargs)


def run(data: Path, folder: Path, grader: Model | str | None, **eval_args: Any) -> str:
    """The oracle (right with probability 0.7) answering openly, graded by
    `grader` (None: `-T grader=self`); `eval_args` go to Inspect's `eval`, `answer` to
    the task."""
    answer = eval_args.pop("answer", "open")
    task_args: dict[str, Any] = {"data_dir": str(data)}
    if answer == "open":
        task_args |= {"answer": "open", "grader_calibration": 0}
        task_args |= {"grader": "self"} if grader is None else {}
    [log] = inspect_eval(
        "inspect_personamem/personamem_32k",
        task_args=task_args,
        model=ORACLE,
        model_args={"questions": str(data / "questions_32k.csv"), "accuracy": 0.7},
        model_roles={"grader": grader} if grader is not None else None,
        log_dir=str(folder),
        display="none",
        **eval_args,
    )
    assert log.status == "success", log.error
    return str(log.location)


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> Logs:
    root = tmp_path_factory.mktemp("identity")
    data, folder = root / "data", root / "logs"
    generate_split(data, "32k", contexts=3, min_messages=12, max_messages=24, questions=4)
    hot = GenerateConfig(temperature=1.0)
    return Logs(
        data,
        {
            "role_self": run(data, folder, oracle(data)),
            "role_self_hot": run(data, folder, oracle(data, config=hot)),
            "other_accuracy": run(data, folder, oracle(data, accuracy=0.5)),
            "self": run(data, folder, None),
            "cold": run(data, folder, get_model(ORACLE, config=GenerateConfig(temperature=0.0))),
            "hot": run(data, folder, get_model(ORACLE, config=hot)),
            "server_a": run(data, folder, None, answer="choice", model_base_url="http://a.test/v1"),
            "server_b": run(data, folder, None, answer="choice", model_base_url="http://b.test/v1"),
        },
    )


def test_the_same_model_bound_as_its_grader_is_self_graded(logs: Logs) -> None:
    """By identity: the grader's name, the arguments that change it and its base URL are
    the model's (its generation settings aside); `-T grader=self` still is; the same
    name with another `accuracy` is another model."""
    role_self, hot, other, self_ = logs.runs("role_self", "role_self_hot", "other_accuracy", "self")
    assert (role_self.self_graded, hot.self_graded, self_.self_graded) == (True, True, True)
    assert not other.self_graded
    assert run_labels([role_self, other]) == [
        f"{ORACLE}, full history, open, self-graded",
        f"{ORACLE}, full history, open, graded by {ORACLE} (accuracy=0.5)",
    ]


def test_the_report_says_self_graded_by_identity(logs: Logs, tmp_path: Path) -> None:
    locations = [logs.locations[key] for key in ("role_self", "other_accuracy")]
    report = build_report(locations, tmp_path / "out")
    with (tmp_path / "out" / "tables" / "graders.csv").open(encoding="utf-8") as file:
        rows = {row["run"]: row for row in csv.DictReader(file)}
    mine = f"{ORACLE}, full history, open, self-graded"
    assert rows[mine]["self-graded"] == "yes"
    assert rows[mine]["grader"] == f"{ORACLE} itself"
    assert (
        rows[f"{ORACLE}, full history, open, graded by {ORACLE} (accuracy=0.5)"]["self-graded"]
        == "no"
    )
    assert report.caveats == [
        f"self-graded, 1 of 2 runs: {mine} (the same model bound to the grader role): "
        f"{CAVEATS['self-graded']}"
    ]


def test_a_graders_generation_settings_are_part_of_it(logs: Logs) -> None:
    """Graded by the same model at temperature 0 and 1: two graders, two runs."""
    cold, hot, role_self, role_self_hot = logs.runs("cold", "hot", "role_self", "role_self_hot")
    assert cold.key != hot.key and role_self.key != role_self_hot.key
    assert run_labels([cold, hot]) == [
        f"{ORACLE}, full history, open, graded by {ORACLE} (temperature=0.0)",
        f"{ORACLE}, full history, open, graded by {ORACLE} (temperature=1.0)",
    ]


def test_a_base_url_is_part_of_the_model(logs: Logs) -> None:
    """`--model-base-url`: the same model name against two servers is two models."""
    a, b = logs.runs("server_a", "server_b")
    assert a.model_id != b.model_id and a.key != b.key
    assert run_labels([a, b]) == [
        f"{ORACLE} (base_url=http://a.test/v1)",
        f"{ORACLE} (base_url=http://b.test/v1)",
    ]


def test_a_models_identity_is_its_name_arguments_as_text_and_base_url() -> None:
    """Arguments as text (JSON but for strings), sorted, where it runs (`device`) left
    out; the base URL among them where one was given."""
    assert model_identity("hf/local", {"model_path": "/m", "device": "cuda:0"}, None) == (
        "hf/local",
        (("model_path", "/m"),),
    )
    assert model_identity(ORACLE, {"decay": 0.1, "opts": {"b": 1, "a": [2]}}, "http://x") == (
        ORACLE,
        (("base_url", "http://x"), ("decay", "0.1"), ("opts", '{"a": [2], "b": 1}')),
    )


def test_a_graders_settings_are_those_that_change_its_replies() -> None:
    """How a model is called (retries, timeouts, connections, cache) is not part of a
    grader; what it replies (temperature, max_tokens) is, shown among its arguments."""
    config = GenerateConfig(temperature=0.5, max_tokens=64, max_retries=3, timeout=10)
    assert generation_settings(config) == {"temperature": "0.5", "max_tokens": "64"}
    grader = grader_of(ModelConfig(model=ORACLE, config=config, args={"accuracy": 0.9}))
    assert grader == Grader(
        (ORACLE, (("accuracy", "0.9"),)), (("max_tokens", "64"), ("temperature", "0.5"))
    )
    assert grader.shown == (
        ORACLE, (("accuracy", "0.9"), ("max_tokens", "64"), ("temperature", "0.5")),
    )  # fmt: skip


def _recorded(model: str) -> Score:
    """A score whose metadata names the model that graded it."""
    record = ModelConfig(model=model, config=GenerateConfig()).model_dump()
    return Score(value="C", metadata={"grader_model": record})


def test_an_open_runs_grader_is_the_one_its_scores_name_else_its_role() -> None:
    """Only open runs have one; the scores' record (a re-grade's) over the header's
    role; without a record, `grader=self` is the model itself, else the first model
    bound to the grader role; a role never bound, or two graders named, is refused."""
    model = (ORACLE, ())
    role = {"grader": [ModelConfig(model="mockllm/first"), ModelConfig(model="mockllm/next")]}
    open_, self_ = {"answer": "open", "grader": "role"}, {"answer": "open", "grader": "self"}
    assert graded_by({"answer": "choice"}, model, role, [_recorded("mockllm/x")]) is None
    assert graded_by(open_, model, role, [_recorded("mockllm/x"), Score(value="I")]) == Grader(
        ("mockllm/x", ())
    )
    assert graded_by(self_, model, None, [Score(value="C")]) == Grader(model)
    assert graded_by(open_, model, role, []) == Grader(("mockllm/first", ()))
    with pytest.raises(ReportError, match="records no model bound to it"):
        graded_by(open_, model, {}, [])
    with pytest.raises(ReportError, match="name 2 different graders"):
        graded_by(open_, model, role, [_recorded("mockllm/x"), _recorded("mockllm/y")])
    thinned = Score(value="C", metadata={"grader_model": "{'model': ..."})
    with pytest.raises(ReportError, match="grader_model cannot be read"):
        graded_by(open_, model, role, [thinned])
