"""PersonaMem-v2 as a dataset version: its entry in `datasets.registry`.

Question files by `subset` (benchmark, train, val), each row linking one history file
per persona and `length` (32k, 128k); a question is asked after its persona's whole
history. Chosen answers are read by the authors' answer rule; open ones graded over the
candidates, or scored 0 to 1 by the authors' judge (`judge=preference`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from inspect_ai.dataset import Dataset
from inspect_ai.scorer import Metric, Scorer

from inspect_personamem.answer.table import OpenSettings
from inspect_personamem.data.contexts import Contexts, sample_history
from inspect_personamem.data.evidence import Evidence
from inspect_personamem.data.release import ReleasedFile
from inspect_personamem.datasets.base import (
    DatasetVersion,
    Group,
    Loaded,
    one_of,
)
from inspect_personamem.datasets.declared import (
    BesideLayout,
    Estimate,
    Offline,
    Published,
    Reported,
    Try,
)
from inspect_personamem.datasets.v2 import judge, prompt
from inspect_personamem.datasets.v2.cost import question_requests
from inspect_personamem.datasets.v2.evidence import snippet_evidence
from inspect_personamem.datasets.v2.files import load_questions
from inspect_personamem.datasets.v2.histories import HistoryStore, PersonaContexts
from inspect_personamem.datasets.v2.judged import judge_figures, preference_scorer
from inspect_personamem.datasets.v2.oracle import V2Questions, choice_prompt
from inspect_personamem.datasets.v2.published import PAPER_RANGE, published_v2
from inspect_personamem.datasets.v2.samples import V2Question, build_v2_dataset, questions_at
from inspect_personamem.datasets.v2.scorer import v2_choice_scorer
from inspect_personamem.datasets.v2.spec import (
    DATA_DIR_ENV,
    LENGTHS,
    PERSONAMEM_V2,
    SUBSETS,
    Length,
    Subset,
    V2Source,
    check_subset,
)
from inspect_personamem.datasets.v2.trial import trial
from inspect_personamem.errors import PersonaMemArgumentError
from inspect_personamem.parameters import (
    Parameter,
    Point,
    Settings,
    Source,
    TaskSettings,
    settings_of,
)
from inspect_personamem.scoring.scorer import personamem_scorer

TASK: Final = "personamem_v2"
"""PersonaMem-v2's task name."""
SEEDED: Final = "options in a seeded order (the authors' cannot be repeated)"
"""How every run differs from the authors' protocol, whatever its settings."""
JUDGED: Final = "judged"
"""How answers scored by the authors' judge are scored: 0 to 1, not right or wrong."""


@dataclass(frozen=True)
class V2Settings:
    """PersonaMem-v2's selectors and own parameters (`DatasetVersion.settings`)."""

    subset: Subset
    length: Length
    options_role: str
    shuffle: int
    judge: str


class PersonaMemV2(DatasetVersion[V2Question]):
    """PersonaMem-v2 (Jiang et al., arXiv 2512.06688), text questions."""

    key = "v2"
    release = PERSONAMEM_V2
    task = TASK
    summary = (
        "PersonaMem-v2: answer a user whose preferences the history revealed implicitly "
        "(the persona's whole history, then the query with the authors' appended sentence)."
    )
    data_dir_help = (
        "the release's layout (benchmark/text/<subset>.csv, the history files at the paths "
        "the rows link)"
    )
    data_dir_env = DATA_DIR_ENV
    selectors = (
        Parameter(
            "subset",
            "benchmark",
            str,
            "PersonaMem-v2 question file: benchmark (the 5,000 questions), train or val.",
            choices=SUBSETS,
            scoring=False,  # recorded apart, as a split is
        ),
        Parameter(
            "length",
            "32k",
            str,
            "History length (only `personamem_v2` takes it).",
            choices=LENGTHS,
            scoring=False,
        ),
    )
    fixed = "length"
    settings = V2Settings
    own = (
        Parameter(
            "options_role",
            "system",
            str,
            "answer=choice: the options message as the authors send it, a final system "
            "message; user for providers that refuse a system message there.",
            choices=("system", "user"),
        ),
        Parameter(
            "shuffle",
            0,
            int,
            "Seed of the options' order (per persona and query; the authors' order cannot "
            "be reproduced, see docs/personamem-v2.md).",
        ),
        Parameter(
            "judge",
            "options",
            str,
            "answer=open: options (the grader names the candidate the reply agrees with: "
            "accuracy) or preference (the authors' judge prompts, through the grader role: a "
            "score from 0 to 1 against the preference label).",
            choices=("options", "preference"),
            says_how=True,
        ),
    )
    groups = (
        Group("pref_type", "pref_type", "preference type"),
        Group("conversation_scenario", "conversation_scenario", "conversation scenario"),
        Group("topic_query", "topic_query", "topic of the query"),
        Group("who", "who", "whose preference"),
        Group("updated", "updated", "updated preference"),
        Group("sensitive_info", "sensitive_info", "sensitive information"),
        Group("distance_bin", "distance_bin", "distance to the evidence (tokens)"),
    )
    reported = Reported(
        BesideLayout(by="pref_type"),
        Published(
            published_v2,
            "Set beside, not equated: the authors' harness is not public and their option "
            "order cannot be repeated; `self-reported` numbers come from the vendors' own "
            "harnesses, which differ from the authors' protocol and from each other (the "
            "last column: what is known of how). The paper gives frontier LLMs a range, "
            "{range} (`low`, `high`), without naming the length or setting; a run's "
            "`low` and `high` are its 95% interval. An upper bound (`history=evidence`: shown "
            "only each question's evidence) is no method's result and is not listed.",
            range_system=PAPER_RANGE,
            every_run_deviates=SEEDED,
            unchanged=f"none but the order: the authors' messages and answer rule, {SEEDED}",
        ),
        cluster_words=(
            "persona (a persona's questions share its history; Inspect's `cluster='persona_id'`)"
        ),
        evidence_groups=("pref_type", "distance_bin"),
        judged_note=(
            " A run judged against the preference label (`-T judge=preference`, the authors' "
            "judge) has a score from 0 to 1 per question, not right or wrong: its `accuracy` "
            "is the mean score, its interval Wilson's as for a share (an approximation), and "
            "its `unparsed share` the replies that were empty or whose score the judge's "
            "answer did not give."
        ),
    )
    """Its runs beside the published numbers (`datasets/v2/published.py`), a figure of
    them and accuracy per preference type, its judged runs and its label groups
    (`report/beside.py`); errors clustered by persona; retrieval's evidence split by
    preference type and distance; what a judged run's accuracy means."""
    cluster = "persona_id"  # a persona's questions share its history

    estimate = Estimate(
        lambda selected, where: question_requests(
            one_of("subset", selected["subset"], SUBSETS),
            one_of("length", selected["length"], LENGTHS),
            where,
        )
    )
    """The subset's question file alone (no history file), its rows' token counts of the
    history at `length`."""
    trying = Try(
        "a synthetic PersonaMem-v2 subset",
        lambda options, count, seed: trial(count=count, seed=seed, task=TASK),
    )
    """A synthetic benchmark subset of about `count` questions, run at 32k."""
    offline = Offline(
        files_named_by="subset",
        steps="bins of the snippet-to-query distance in tokens (<1k, 1k-4k, 4k-8k, ...)",
        named_selection=PERSONAMEM_V2.subset_of_questions,
        questions=lambda path, selected: V2Questions(
            path,
            one_of("subset", selected["subset"], SUBSETS),
            one_of("length", selected["length"], LENGTHS),
        ),
        choice_prompt=choice_prompt,
        question_file=lambda arguments, _: PERSONAMEM_V2.questions_file(
            one_of("subset", str(arguments["subset"]), SUBSETS)
        ),
    )
    """The query and the options message after it; the subset's questions, their
    distances at `length`."""

    def released_questions(self, selected: Mapping[str, str]) -> ReleasedFile:
        return PERSONAMEM_V2.released[check_subset(selected["subset"])]

    def released_files(self, selected: Mapping[str, str]) -> dict[str, ReleasedFile]:
        """The subset's question file (nothing is known of the history files)."""
        subset = check_subset(selected["subset"])
        return {PERSONAMEM_V2.questions_file(subset): PERSONAMEM_V2.released[subset]}

    def check(self, settings: TaskSettings) -> None:
        """What PersonaMem-v2 refuses beyond the axes' own refusals, in one line each."""
        own, answer = settings.typed(V2Settings), settings.point.answer.name
        judge = own.judge
        if judge != "options" and answer != "open":
            raise PersonaMemArgumentError(
                f"PersonaMem-v2 task parameter judge={judge!r} judges open "
                "answers: pass answer=open, or leave judge out"
            )
        merged = settings.shared.system_messages == "merge" and answer == "choice"
        if merged and own.options_role == "system":
            raise PersonaMemArgumentError(
                "PersonaMem-v2 task parameters system_messages='merge', options_role='system': "
                "merging folds a system message into the message after it, and the options "
                "message has none after it; pass options_role=user with merge"
            )

    def load(self, arguments: Settings, reads_history: bool) -> Loaded[V2Question]:
        """The subset's questions at `length`, every history read (each sample records
        its history's length, with or without a history shown)."""
        own: V2Settings = self.own_settings(arguments)
        subset, length, where = own.subset, own.length, settings_of(Source, arguments)
        source = V2Source(subset, where.data_dir, where.repo_id, where.revision)
        questions = load_questions(source)
        contexts = PersonaContexts(HistoryStore(source, length), questions.records)
        return Loaded(
            questions=questions_at(questions.records, length, contexts),
            contexts=contexts,
            metadata={
                "subset": subset,
                "length": length,
                "data_source": questions.file.source,
                "data_release": questions.data_release,
            },
        )

    def dataset(
        self,
        questions: Sequence[V2Question],
        loaded: Loaded[V2Question],
        settings: TaskSettings,
    ) -> Dataset:
        """Samples with the options message only where the model chooses."""
        own, point = settings.typed(V2Settings), settings.point
        with_options = own.options_role if point.answer.name == "choice" else None
        name = f"{self.task}_{own.subset}_{own.length}"
        evidence = point.history.reads_evidence
        return build_v2_dataset(questions, name, own.shuffle, with_options, evidence)

    def evidence(self, metadata: Mapping[str, Any], contexts: Contexts) -> Evidence:
        """The history messages equal to the row's snippet (`datasets/v2/evidence.py`)."""
        return snippet_evidence(sample_history(contexts, metadata), metadata)

    def scorer(self, settings: TaskSettings) -> Scorer:
        """The authors' answer rule for chosen answers, the authors' judge
        (`judge=preference`) or the grader for open ones, the official letter otherwise
        (`logprob`'s)."""
        if settings.point.answer.name == "choice":
            return v2_choice_scorer()
        if settings.typed(V2Settings).judge == "preference":
            return preference_scorer(settings.typed(OpenSettings).grader)
        own: Scorer | None = settings.answer_scorer()
        return own if own is not None else personamem_scorer()

    def prompts(self, point: Point, settings: Settings) -> dict[str, str]:
        """The sentence appended to every query; the options message's texts where the
        options are shown; the history source's and answer's texts, but where the
        authors' judge scores open answers, its two prompts in place of the answer's (a
        grader's), as its scorer replaces the answer's."""
        where = "datasets/v2/prompt.py"
        texts = {f"{where}:APPENDED_SENTENCE": prompt.APPENDED_SENTENCE}
        if point.answer.name == "choice":
            texts[f"{where}:OPTIONS_INTRODUCTION"] = prompt.OPTIONS_INTRODUCTION
            texts[f"{where}:OPTIONS_INSTRUCTION"] = prompt.OPTIONS_INSTRUCTION
        if self.own_settings(settings).judge != "preference":
            return {**point.prompts(settings), **texts}
        where = "datasets/v2/judge.py"
        return {
            **point.history.prompts(point.history.own(settings)),
            **texts,
            f"{where}:JUDGE_PROMPT_NARROW_POSITIVE": judge.JUDGE_PROMPT_NARROW_POSITIVE,
            f"{where}:JUDGE_PROMPT_NARROW_NEGATIVE": judge.JUDGE_PROMPT_NARROW_NEGATIVE,
        }

    def scored_as(self, answer_scored_as: str, settings: Settings) -> str:
        return JUDGED if self.own_settings(settings).judge == "preference" else answer_scored_as

    def metrics(self, scored_as: str) -> list[Metric | dict[str, list[Metric]]]:
        """As every version's; a judged run reports the judge's figures."""
        if scored_as != JUDGED:
            return super().metrics(scored_as)
        return [*self.headline(), judge_figures(), *self.group_metrics()]

    def label_words(self, settings: Settings) -> list[str]:
        return ["preference judge"] if self.own_settings(settings).judge == "preference" else []


VERSION: Final = PersonaMemV2()
"""PersonaMem-v2's entry in the registry."""
