"""A run as the report reads it (`Run`): what was run, on what, and its scored
questions, with what the log says of how it ran (`run.facts`) or, for a log made
before tasks wrote that, what the installed package says."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from functools import cached_property
from importlib.metadata import version
from typing import Any

from inspect_personamem.data.release import NOT_RELEASED, RELEASED, SYNTHETIC
from inspect_personamem.datasets.base import JUDGED, DatasetVersion
from inspect_personamem.datasets.registry import VERSIONS
from inspect_personamem.parameters import Point
from inspect_personamem.report.read.identity import Grader, ModelId, RunKey, model_identity
from inspect_personamem.report.read.samples import SampleResult
from inspect_personamem.report.read.tool_use import ToolUse
from inspect_personamem.run.arguments import scoring_defaults
from inspect_personamem.run.facts import run_facts

PACKAGE = f"the installed package, version {version('inspect-personamem')}"
"""What describes a run whose log predates the facts tasks write (`Run.described_by`)."""


def setting_defaults(benchmark: str) -> dict[str, str]:
    """The value a log of dataset version `benchmark` (its registry key) without an
    argument ran with: the task's default."""
    return {key: str(value) for key, value in scoring_defaults(VERSIONS[benchmark]).items()}


UNRELEASED_MARK = "not released data"
"""What the label of a run on other data than the released file says."""
SYNTHETIC_MARK = "synthetic data"
"""What the label of a run on generated data says."""


@dataclass(frozen=True)
class Run:
    """One log of a PersonaMem task: what was run, and the scored questions."""

    location: str
    eval_id: str
    """Inspect's id of the eval that made the replies (`eval.eval_id`): unique to each
    run, kept by `inspect score`, so that logs sharing it hold the same replies (graded
    again: `report/agreement.py`)."""
    task: str
    version: str
    """The task version (`Task(version=...)`) the log was made with."""
    benchmark: str
    """Its dataset version's key in the registry (`entry`)."""
    split: str
    """Which questions it asked, as its version says (`DatasetVersion.selection`: a
    split, `128k`; a subset and length, `benchmark 32k`)."""
    selected: dict[str, str]
    """Its version's selectors (`split`; `subset`, `length`) -> their values, from the
    log's task arguments and metadata; a selector neither records is left out."""
    model: str
    model_args: dict[str, str]
    """The model's arguments (`-M`, the log's `model_args`) as text, less
    `ANSWER_NEUTRAL_MODEL_ARGS`."""
    base_url: str | None
    """The model's base URL where one was given (`--model-base-url`): another server
    may serve another model under the same name."""
    generate_config: dict[str, str]
    """How the model generated (`GenerateConfig`: temperature, max_tokens, ...) where
    set, as text, less `REPLY_NEUTRAL_SETTINGS`, as a grader's `settings` are kept."""
    settings: dict[str, str]
    created: datetime
    status: str
    epochs: int
    reducer: str
    planned: int
    """Questions in the run's dataset (after any `--limit`)."""
    dataset_size: int
    """Questions in the task's dataset (the split's file), before any `--limit`."""
    samples: tuple[SampleResult, ...]
    errors: int
    """Sample epochs that ended in an error (they have no score)."""
    unanswered: int
    """Sample epochs stopped by an Inspect limit before the model answered: their score
    is Inspect's unscored sentinel (NaN), which Inspect's metrics skip, and so does the
    report."""
    limits: dict[str, int]
    """The limit that stopped each unanswered sample epoch (`message`, `time`, ...; the
    sample summary's `limit`) -> how many it stopped."""
    stored_metrics: dict[str, float] | None
    """The metrics Inspect stored for the scorer; None for an unfinished run."""
    stored_ids: frozenset[str] | None
    """The questions those metrics are over (the log's epoch reductions), None where the
    log does not say: an interrupted run's metrics cover the samples finished before
    the stop, which can be fewer than the scored samples the log holds."""
    data_release: str | None
    """The task's `data_release` metadata: `RELEASED`, why the question file is not
    the released one (`NOT_RELEASED`...), or what generated it (`SYNTHETIC`...); None for
    a log made before the task recorded it (unknown)."""
    data_checked: str | None
    """The task's `data_checked` metadata: which files were verified against the release,
    and how; None where the log does not say."""
    data_source: str | None
    """The task's `data_source` metadata: `local folder ...`, or `hf://datasets/{repo}@
    {revision}` (with the former name given, where one was); None where the log does
    not say."""
    grader: Grader | None = None
    """The model that graded open answers (`answer=open`; `identity.graded_by`); None for other
    answers."""
    batched: bool = False
    """Whether its model's requests went through the provider's batch API (`--batch`,
    the log's generation config)."""
    logged_facts: Mapping[str, Any] | None = None
    """What the task wrote into the log of how it ran (`run/facts.py`); None for a log
    made before tasks wrote it."""
    unscored: Mapping[str, int] = field(default_factory=dict)
    """Sample epochs its scorer left unscored for a reason of its own (its `Score.reason`:
    a judge not built, a judgement that could not be read) -> how many; left out of
    every score, never counted as 0. Those stopped by a limit are `unanswered`."""
    questions_scored: int | None = None
    """Questions with a score; None: as many as `samples` (each question a row of its
    own). Fewer rows than questions where its version counts several questions as one
    row (`SampleResult.part`)."""
    license: str | None = None
    """The data's licence as the task recorded it (its `license` metadata, with its
    terms); None where it did not (`license_terms` falls back to the release's)."""
    parts_left: tuple[str, ...] = ()
    """The ids of the questions scored as part of a row whose other parts were not:
    counted nowhere."""
    tool_use: tuple[ToolUse, ...] = ()
    """What each sample epoch that recorded it did with its tools (`read.tool_use`),
    scored or not (an agent out of budget is left unscored); empty for a run without
    tools."""

    @property
    def license_terms(self) -> str:
        """The data's licence, as every card and report states it: as the log recorded
        it, else its version's release's (`Release.license`)."""
        return self.license or self.entry.release.license

    @property
    def unscored_total(self) -> int:
        """Sample epochs its scorer left unscored (`unscored`)."""
        return sum(self.unscored.values())

    @property
    def scored_questions(self) -> int:
        """Questions with a score (before any are joined into rows)."""
        return len(self.samples) if self.questions_scored is None else self.questions_scored

    @cached_property
    def facts(self) -> Mapping[str, Any]:
        """How it ran (`run.facts.run_facts`): its prompts' digests, how its answers were
        scored, whether it is an upper bound, the scoring defaults in force and its
        evidence rule. The log's own (`logged_facts`); for a log that predates them,
        what the installed package says of a run with its settings (`described_by`)."""
        if self.logged_facts is not None:
            return self.logged_facts
        point = Point.of(self.settings, self.entry.histories, self.entry.answers)
        return run_facts(self.entry, point, self.settings)

    @property
    def described_by(self) -> str:
        """Empty where its facts are its log's; else that they are the installed
        package's, in words, for the report's notes and the card."""
        if self.logged_facts is not None:
            return ""
        return (
            f"described by {PACKAGE}: the log predates the facts tasks write into it "
            "(prompts' digests, how answers are scored, whether it is an upper bound, the "
            "scoring defaults, the evidence rule)"
        )

    @property
    def prompts(self) -> dict[str, str]:
        """The sha256 of each fixed text the run sent a model, by where it is defined."""
        return dict(self.facts["prompts"])

    @property
    def evidence_located_by(self) -> str:
        """How its version located a question's evidence, in words (`facts`)."""
        return str(self.facts["evidence_rule"])

    @property
    def model_id(self) -> ModelId:
        """The model: its name, arguments and base URL. Two `hf/local` runs with another
        `model_path`, two `personamem/oracle` runs with another `decay`, or two
        `openai/x` runs against two servers, are two models."""
        return model_identity(self.model, self.model_args, self.base_url)

    @property
    def upper_bound(self) -> bool:
        """Whether it saw only what no method is given (`history=evidence`: each
        question's evidence): a ceiling for the methods, never set beside published
        numbers (`AxisValue.upper_bound`; `facts`)."""
        return bool(self.facts["upper_bound"])

    @property
    def entry(self) -> DatasetVersion[Any]:
        """Its dataset version's entry in the registry."""
        return VERSIONS[self.benchmark]

    @property
    def defaults(self) -> dict[str, str]:
        """The task's defaults of the settings, as the log records them (`facts`); the
        installed package's of a setting it does not (`setting_defaults`)."""
        return setting_defaults(self.benchmark) | dict(self.facts["scoring_defaults"])

    @property
    def changed_settings(self) -> list[str]:
        """Its settings that differ from the task's defaults, as `key=value`."""
        return [f"{k}={v}" for k, v in self.settings.items() if v != self.defaults[k]]

    @property
    def self_graded(self) -> bool:
        """Whether the model under test graded its own open answers: its grader is the
        same model (name, arguments and base URL; how it generated aside), whether by
        `grader=self` or bound to the grader role."""
        return self.grader is not None and self.grader.model == self.model_id

    @property
    def scored_as(self) -> str:
        """How its answers were scored: its answer's way (`chosen`, `graded`), unless its
        version scores them otherwise (`DatasetVersion.scored_as`; `facts`)."""
        return str(self.facts["scored_as"])

    @property
    def judged(self) -> bool:
        """Whether a judge scored its answers against the label (`scored_as` `JUDGED`,
        v2's `judge=preference`), a score from 0 to 1, not a choice (`facts`). A version
        that scores them otherwise by its own rules (v3's `rules`) is not judged so."""
        return bool(self.facts["judged"]) and self.scored_as == JUDGED

    @property
    def key(self) -> RunKey:
        """Model x split x setting x grader: runs with equal keys differ only in time.

        The split, not the task name: `personamem_128k` and `personamem -T split=128k`
        are the same task.
        """
        return self.key_with(self.settings)

    def key_with(self, settings: Mapping[str, str]) -> RunKey:
        """The key of a run of this model, split and grader with `settings`."""
        return (self.model_id, self.split, tuple(sorted(settings.items())), self.grader)

    @property
    def shortfalls(self) -> list[str]:
        """Why the run is incomplete, a few words each: a status other than success, or
        questions unscored, errored or stopped by a limit. None for a complete run, also
        one over a subset or other data: complete, but not comparable with published
        numbers (`glance.caveats`)."""
        words = [f"status {self.status}"] if self.status != "success" else []
        if self.scored_questions < self.planned:
            words.append(f"{self.scored_questions} of {self.planned} scored")
        if self.errors:
            words.append(f"{self.errors} errored")
        if self.unscored:
            words.append(f"{self.unscored_total} unscored ({', '.join(sorted(self.unscored))})")
        if self.unanswered:
            words.append(f"{self.unanswered} not answered: stopped by an Inspect limit")
        return words

    @property
    def complete(self) -> bool:
        """Whether the run succeeded with every question it planned scored."""
        return not self.shortfalls

    @property
    def subset(self) -> str:
        """`subset 10/2727` for a run over part of its split (`--limit`, `--sample-id`),
        else empty."""
        return (
            f"subset {self.planned}/{self.dataset_size}" if self.planned < self.dataset_size else ""
        )

    @property
    def synthetic(self) -> str:
        """What generated the run's data (`data_release` after `SYNTHETIC`); empty for
        real data, or where the log does not say."""
        if self.data_release is None or not self.data_release.startswith(SYNTHETIC):
            return ""
        return self.data_release.removeprefix(SYNTHETIC).strip() or "a generator not named"

    @property
    def unreleased(self) -> str:
        """Why the run's question file is not the released one; empty where it is, where
        the data are synthetic (`synthetic`), or where the log does not say."""
        if self.data_release in (None, RELEASED) or self.synthetic:
            return ""
        return self.data_release.removeprefix(NOT_RELEASED) or self.data_release

    @property
    def marks(self) -> list[str]:
        """What every label of the run says about its data: `subset 10/2727`, `not
        released data`, `synthetic data`."""
        data = (self.unreleased and UNRELEASED_MARK) or (self.synthetic and SYNTHETIC_MARK)
        return [mark for mark in (self.subset, data) if mark]
