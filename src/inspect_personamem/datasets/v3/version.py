"""PersonaMem-v3 as a dataset version: its entry in `datasets.registry`.

Per persona its queries (`backend/{uid}/test.json` on the hub, `spec.HUB`, read by
`testjson`; `benchmark/{uid}/queries.csv` in a checkout of the authors' GitHub
repository, `spec.CHECKOUT`, read by `records`) and the persona's app streams; a query
at time T (its `ts`: `testjson` says why that is the authors' time) is asked after the
events strictly before T (`histories.PersonaContexts`), its input the authors' task
prompt without the history (`samples`), its reply scored by `scorers.v3_scorer`, 0-1
(the authors' 0-100 over 100: the six rule-scored task types by rule, the judged ones
through the `grader` model role, `judged.py`, which a run must bind; their prompts'
digests are in the log's facts), its headline `accuracy` the authors' micro mean. Its
queries are read by `loading`; without a folder the hub's files are downloaded
(`hub.download`). The report and cards read it through `reported`: the runs beside the
published numbers (`published.v3_published`), the errors clustered by persona, a card's
rows per family and task type; its answers are `scored_as` `rules_and_judges`, its
families on the report's first screen (`at_a_glance`). The tools read the rest it
declares: the estimate's requests (`cost`), what `try` writes and runs, and what the
oracle and the floor read (`offline`).

What is not here yet, and why:
- a verified hub revision: the default is the commit a third-party catalog pins
  (`spec.HUB_REVISION`), not checked against the hub by this package
  (`spec.HUB_REVISION_VERIFIED`); a branch given (`-T revision=main`) is resolved at
  download to the commit the hub serves and recorded in `data_release` (`hub.download`);
- checks of the hub's files: no size, digest or row count of any is known, so none is
  checked (`data_release` and `data_checked` say so); of a checkout only persona 105's
  `queries.csv` rows at the GitHub commit read are known;
- a task per family: `family` selects within the one task (`personamem_v3`), so
  `fixed_values` is empty;
- evidence: only generated folders say where a query's evidence lies (the generator's
  `_generated_evidence`); for the release it is "not located", and `history=evidence`,
  which would send an empty history, is refused in one line.

Its memory settings: `history=rag`, `history=tools` and `history=memory` with any
memory system (Mem0, an MCP server, a plug-in) read the persona's timeline, one message
per event (`histories.PersonaContexts`), through the memory pool: fed in time order,
searched with the row's `query_text` (its prompt where it has none), never past the
query's time. Its apps agent, `history=apps` (a history source it adds to the shared
ones, `histories`), in process or `apps_transport=mcp`, gives the persona's apps at the
query's time to Inspect's `react()` within the authors' budgets (`agent/setting.py`: its
prompts' digests in the run's facts, its metrics `v3_actions`). It answers by choosing
only (`answers`); `answer=logprob` and `answer=open` are refused in one line (`refused`).
The authors' own memory setting is `-T memory=` `MARKDOWN_MEMORY` (`memory_writer`), its
prompt's digest in the run's facts; its `memory_config` is checked before data are read.
`tests/datasets/v3/test_v3_time_mask.py` runs every setting over marked events.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any, Final

from inspect_ai.dataset import Dataset, MemoryDataset, Sample
from inspect_ai.model import model_roles
from inspect_ai.scorer import Metric, Scorer

from inspect_personamem.answer.table import ANSWERS
from inspect_personamem.data.asked import KEY as ASKED_KEY
from inspect_personamem.data.contexts import Contexts
from inspect_personamem.data.evidence import Evidence, spans_of
from inspect_personamem.data.order import prefix_ends
from inspect_personamem.data.release import ReleasedFile
from inspect_personamem.datasets.base import DatasetVersion, Group, Loaded
from inspect_personamem.datasets.declared import Estimate, Offline, Published, Reported, Try
from inspect_personamem.datasets.v3.agent.setting import APPS, AgentSetting, check_first
from inspect_personamem.datasets.v3.cost import OPTIONS, question_requests
from inspect_personamem.datasets.v3.judges.texts import JUDGE_TEXTS
from inspect_personamem.datasets.v3.loading import (
    ALL,
    FAMILY_CHOICES,
    V3Question,
    V3Settings,
    load,
)
from inspect_personamem.datasets.v3.memory_writer import PROMPTS as WRITER_PROMPTS
from inspect_personamem.datasets.v3.memory_writer import WriterConfig
from inspect_personamem.datasets.v3.offline.agent import act
from inspect_personamem.datasets.v3.offline.answers import (
    TRY_OPTIONS,
    JudgedGold,
    choice_prompt,
    is_queries_file,
    judge_reply,
    question_file,
    questions,
    trial,
)
from inspect_personamem.datasets.v3.offline.writer import written_reply
from inspect_personamem.datasets.v3.persona.histories import LAYOUTS, PersonaContexts
from inspect_personamem.datasets.v3.prompts.shown import SCORER_KEY
from inspect_personamem.datasets.v3.published import v3_published
from inspect_personamem.datasets.v3.release.families import FAMILIES
from inspect_personamem.datasets.v3.release.spec import (
    DATA_DIR_ENV,
    PERSONAMEM_V3,
    V3Source,
)
from inspect_personamem.datasets.v3.scoring.by_rule import missing_field
from inspect_personamem.datasets.v3.scoring.judged import DEFAULT_JUDGE
from inspect_personamem.datasets.v3.scoring.metrics import v3_by_metadata, v3_metrics
from inspect_personamem.datasets.v3.scoring.scorers import SCORED_AS, v3_scorer
from inspect_personamem.datasets.v3.task_types.base import JUDGE_CHOICES
from inspect_personamem.datasets.v3.task_types.registry import TASK_TYPES
from inspect_personamem.datasets.v3.task_types.samples import query_to_sample
from inspect_personamem.errors import PersonaMemArgumentError, PersonaMemDataError
from inspect_personamem.history.memory.prompts import OFFICIAL
from inspect_personamem.history.retrieved import read_memory_config
from inspect_personamem.history.table import HISTORIES, MemorySettings, Prompted, ToolsSettings
from inspect_personamem.parameters import (
    Parameter,
    Point,
    Settings,
    Source,
    TaskSettings,
    settings_of,
)

TASK: Final = "personamem_v3"
"""PersonaMem-v3's task name."""
MARKDOWN_MEMORY: Final = "inspect_personamem.datasets.v3.memory_writer:MarkdownMemory"
"""`-T memory=` for the authors' own memory setting (`memory_writer`)."""
EVERY_RUN: Final = (
    "this task's harness and scorer, not the authors': its own personas and one run, "
    "the judged task types through the grader bound (the authors judge with gpt-5.5), "
    "the unified judge's rubric v3 texts and the preference-shift judge's prompt from a "
    "third party's transcription, the two repetition types unscored (a sample is not a "
    "cluster)"
)
"""How every v3 run differs from the published numbers' protocol, whatever its settings."""
NOT_LOCATED: Final = (
    "not located: the release does not say which events a query's answer rests on "
    "(only generated folders do)"
)


class PersonaMemV3(DatasetVersion[V3Question]):
    """PersonaMem-v3 (Jiang et al., 2026), text queries from a checkout's layout."""

    key = "v3"
    release = PERSONAMEM_V3
    task = TASK
    summary = (
        "PersonaMem-v3: act for a user across five apps' event streams, each query asked "
        "after the events before its time (the authors' task prompt; CC-BY-NC-4.0 data)."
    )
    data_dir_help = (
        "a snapshot of the hub dataset bowen-upenn/PersonaMem-v3 (backend/<uid>/ with "
        "test.json, the profile and app files) or a checkout of its GitHub repository "
        "(benchmark/<uid>/queries.csv beside backend/<uid>/)"
    )
    revision_help = (
        "Revision of repo_id (pinned to the commit a third-party catalog downloads, not "
        "verified against the hub by this package); a branch (main) is resolved to the "
        "commit it serves, recorded in data_release."
    )
    data_dir_env = DATA_DIR_ENV
    selectors = (
        Parameter(
            "family",
            ALL,
            str,
            "PersonaMem-v3 task family: all, or one of the paper's five.",
            choices=FAMILY_CHOICES,
            scoring=False,  # recorded apart, as a split is
        ),
    )
    fixed = "family"
    settings = V3Settings
    histories = MappingProxyType({**HISTORIES, APPS.name: APPS})
    """The shared history sources, and the apps agent (`agent/setting.py`)."""
    answers = MappingProxyType({"choice": ANSWERS["choice"]})
    """Choosing is all: its queries have no options to score by likelihood, and no
    candidate replies for `answer=open`'s grader."""
    refused = MappingProxyType(
        {
            "answer=logprob": "PersonaMem-v3 takes no answer='logprob': its queries have no "
            "options to score (a reply is ranked, judged or read by rules); leave answer out",
            "answer=open": "PersonaMem-v3 takes no answer='open': its grader picks one of four "
            "candidate replies, which v3's queries do not have (the task prompt is sent as is "
            "and scored by v3's rules); leave answer out",
        }
    )
    own = (
        Parameter(
            "history_layout",
            "authors",
            str,
            "history=full: authors (their long-context text at the query's time, one "
            "message) or events (the events in time order, in blocks of consecutive events "
            "a message, which a prompt cache shares across a persona's queries).",
            choices=LAYOUTS,
        ),
        Parameter(
            "judge",
            DEFAULT_JUDGE,
            str,
            "The rubric types' judge: unified (one 0-10 judge call a row, the published "
            "rows' rubric v3: 0.8 x the task's target dim + 0.2 x the rest, penalty checks, "
            "hard rules that zero the row) or per_dimension (the older 0-3 judge, one call "
            "per dim, personalization_rubric.py@8fd0dd9b).",
            choices=JUDGE_CHOICES,
            says_how=True,
        ),
        Parameter(
            "skip_bad_personas",
            False,
            bool,
            "A persona whose files cannot be read (a query file missing, empty, unreadable, "
            "not UTF-8 or malformed; a persona file missing or malformed): false stops the "
            "load in one line naming it; true leaves it out, named in the log's metadata "
            "(skipped_personas), a warning and the report.",
        ),
    )
    groups = (
        Group("family", "family", "task family (the paper's)", values={f: f for f in FAMILIES}),
        Group(
            "task_type",
            "type",
            "task type",
            mean_of_values="macro",  # the authors' earlier headline (`v3_accuracy`)
            values={t: t for t in TASK_TYPES},
        ),
        Group("task_family", "pipeline_family", "task family (the pipeline's)"),
        Group("app_context", "app", "app context"),
    )
    cluster = "user_id"  # a persona's queries share its streams
    estimate = Estimate(
        lambda selected, where: question_requests(
            selected, where, lambda arguments: VERSION.load(arguments, reads_history=True)
        ),
        OPTIONS,
    )
    """A request per query, counted in the folder given, else the authors' figures
    (`cost`): the long-context prompt, its shared prefix per layout, or a memory's."""
    trying = Try(
        "generated PersonaMem-v3 personas (every file, each task type twice a persona, three "
        "personas at least; --queries-per-type and --history-tokens for the release's size)",
        lambda options, count, seed: trial(
            count=count,
            seed=seed,
            task=TASK,
            queries_per_type=options["queries_per_type"],
            history_tokens=options["history_tokens"],
        ),
        TRY_OPTIONS,
    )
    """Generated personas, run by the oracle (with and without the history, always right,
    and as an agent over the apps, in process and over MCP) and the floor
    (`offline.TRIAL_RUNS`)."""
    offline = Offline(
        files_named_by="family",
        steps="none: a v3 query's chance does not fall with the age of its evidence",
        named_selection=is_queries_file,
        questions=questions,
        choice_prompt=choice_prompt,
        judge=judge_reply,
        act=act,
        question_file=question_file,
        gold=JudgedGold,
        write=written_reply,
    )
    """A persona's `queries.csv` with its folder's others, each query's top and low
    replies (`offline.known_replies`); the floor's reading of a v3 prompt; the oracle's
    judgement of v3's judge prompts (`offline.judge_reply`); the oracle as an agent over
    the apps (`oracle_agent.act`); the question file to name (`offline.question_file`);
    the gold of the judged replies from the task's samples, for the oracle grading
    without a question file (`offline.JudgedGold`); the offline Markdown memory writer
    (`offline.writer`)."""
    reported = Reported(
        published=Published(
            v3_published,
            "Set beside, not equated. The authors' numbers (Figure 3, 0-100 there, over 100 "
            "here) are each over the 10 matched personas (ids 1-3, 5, 6, 8-10, 13, 14), one "
            "run, through their "
            "harness (their long-context text, their memory writer, Mem0, Codex, Claude "
            "Code), every judged task type judged by gpt-5.5. A run here is over the "
            "personas of its data (their number in `contexts`), through this task, its "
            "judged task types scored only where their judges are built (the notes count "
            "those left unscored): its personas, their number and the task types it scores "
            "may differ. A run's `accuracy` is the micro mean over its rows, as the authors' "
            "Overall is; the other published measures are one part of their benchmark each, "
            "listed for reference only.",
            every_run_deviates=EVERY_RUN,
            unchanged=f"none of the settings (history=full: the authors' long-context text); "
            f"{EVERY_RUN}",
        ),
        cluster_words=(
            "persona (a persona's queries share its event streams; Inspect's `cluster='user_id'`)"
        ),
        card_groups=("family", "task_type"),
        at_a_glance="family",
    )

    @property
    def fixed_values(self) -> tuple[str, ...]:
        """None: `family` selects within `personamem_v3`; no task per family yet."""
        return ()

    def released_questions(self, selected: Mapping[str, str]) -> ReleasedFile:
        """A question file per persona; the only one whose rows are known is persona
        105's `queries.csv` at the GitHub commit read (not the hub's revision)."""
        return PERSONAMEM_V3.released["benchmark/105/queries.csv"]

    def released_files(self, selected: Mapping[str, str]) -> dict[str, ReleasedFile]:
        """What is known of any released file: persona 105's queries at the GitHub commit
        read (nothing of the hub's files, nor of the app files)."""
        return dict(PERSONAMEM_V3.released)

    def check(self, settings: TaskSettings) -> None:
        """What PersonaMem-v3 has no meaning for, in one line each."""
        history = settings.history
        if isinstance(history, Prompted) and history.memory_prompt != OFFICIAL:
            raise PersonaMemArgumentError(
                f"PersonaMem-v3 takes no memory_prompt={history.memory_prompt!r}: "
                "it has only the official prompt; leave memory_prompt out"
            )
        if "grader" not in model_roles():  # the roles of the eval creating the task
            raise PersonaMemArgumentError(
                "PersonaMem-v3 scores most of its task types by the authors' judge prompts: "
                "bind a judge with --model-role grader=<model> (the authors judge with "
                "gpt-5.5; in Python, model_roles={'grader': ...})"
            )
        memory = _markdown_memory(settings.history)
        if memory is not None:
            WriterConfig.of(read_memory_config(memory.memory_config))

    def prompts(self, point: Point, settings: Settings) -> dict[str, str]:
        """The history source's and answer's texts (the apps agent's framing), the judge's
        (`judge.JUDGE_TEXTS`), and the memory writer's where it writes."""
        where = "datasets/v3/judge.py"
        judges = {f"{where}:{name}": text for name, text in JUDGE_TEXTS.items()}
        memory = _markdown_memory(point.history.own(settings))
        writer = WRITER_PROMPTS if memory is not None else {}
        return {**point.prompts(settings), **judges, **writer}

    def load(self, arguments: Settings, reads_history: bool) -> Loaded[V3Question]:
        """Every persona's queries of the folder (of `family`, unless all), each with its
        point in its persona's history (`loading.load`)."""
        own: V3Settings = self.own_settings(arguments)
        history = arguments.get("history")
        return load(self._source(arguments), own, reads_history, history, history == APPS.name)

    def _source(self, arguments: Settings) -> V3Source:
        """Where the files are (a seam: a test serves a stand-in hub through it)."""
        where = settings_of(Source, arguments)
        return V3Source(where.data_dir, where.repo_id, where.revision)

    def dataset(
        self,
        questions: Sequence[V3Question],
        loaded: Loaded[V3Question],
        settings: TaskSettings,
    ) -> Dataset:
        """The queries' samples in the order given, each with the history ends a prompt
        cache shares with its persona's earlier queries.

        The order given is `order`'s (default `interleaved`: personas round-robined, each
        persona's queries by ascending end index, so in time order; `grouped`: persona
        after persona, each in time order): a query's history (`history_layout=events`)
        then extends its persona's previous one, and a memory fed in time order takes
        each event once. Inspect's `--sample-shuffle` reorders the samples after this:
        a persona's queries run out of time order, so a prompt cache shares less, and a
        memory holding events past a query's time is dropped and rebuilt from the
        persona's start (the Markdown memory writes it again: more calls), never read
        ahead."""
        contexts = loaded.contexts
        assert isinstance(contexts, PersonaContexts)
        ends = prefix_ends(questions)
        built: dict[int, Sample] = {}
        # persona by persona: the loader keeps one persona as read at a time (`load`)
        for at in sorted(range(len(questions)), key=lambda i: questions[i].query.user_id):
            question = questions[at]
            sample = query_to_sample(question.query, contexts, question.path)
            metadata = dict(sample.metadata or {})
            missing = missing_field(question.query.task_type, metadata[SCORER_KEY])
            if missing:
                raise PersonaMemDataError(
                    f"{question.path}: query {question.question_id} "
                    f"({question.query.task_type}): {missing}, which its scorer reads"
                )
            marks = contexts.cache_ends(
                question.query.user_id, question.end_index, ends[question.question_id]
            )
            metadata[ASKED_KEY] = {**metadata[ASKED_KEY], "cache_prefix_ends": marks}
            sample.metadata = metadata
            built[at] = sample
        samples = [built[at] for at in range(len(questions))]
        if settings.point.history is APPS:
            check_first(contexts, samples, settings.typed(AgentSetting))
        name = f"{self.task}_{settings.typed(V3Settings).family}"
        return MemoryDataset(samples, name=name, shuffled=False)

    def evidence(self, metadata: Mapping[str, Any], contexts: Contexts) -> Evidence:
        """The events a generated folder says a query's answer rests on (its instance's
        `_generated_evidence`, each before the query's time); for the release, none
        (`NOT_LOCATED`). Calendar changes are in no history message and are left out."""
        refs = (metadata.get(SCORER_KEY) or {}).get("_generated_evidence")
        if not refs or not isinstance(contexts, PersonaContexts):
            return Evidence((), (), NOT_LOCATED)
        user = str(metadata["user_id"])
        end = int(metadata[ASKED_KEY]["end_index"])
        timeline = contexts.timeline(user)
        at = {pair: 1 + i for i, pair in enumerate(zip(timeline.apps, timeline.ids, strict=True))}
        positions = [p for ref in refs if (p := at.get((ref["app"], ref["id"]), end)) < end]
        if not positions:
            return Evidence((), (), "generated evidence: none of its events is in the history")
        messages = contexts.messages(user)
        spans = spans_of(positions)
        shown = tuple(messages[p] for p in sorted(set(positions)))
        where = f"generated: {len(shown)} of the {len(refs)} events named, {len(spans)} span(s)"
        return Evidence(spans, shown, where)

    def scorer(self, settings: TaskSettings) -> Scorer:
        """The task types' headlines (`scorers.v3_scorer`): by rule, or by the grader
        with the rubric judge `-T judge=` names."""
        return v3_scorer(judge=settings.typed(V3Settings).judge)

    def scored_as(self, answer_scored_as: str, settings: Settings) -> str:
        """`rules_and_judges` (`scorers.SCORED_AS`): v3's own scorer, whatever the answer's way."""
        return SCORED_AS

    def metrics(self, scored_as: str) -> list[Metric | dict[str, list[Metric]]]:
        """v3's own (`scorers.v3_metrics`: micro and macro, per family and type, the gated
        replies, the warn/foil paired F1), and per pipeline family and app context."""
        headline, *others = v3_metrics()
        return [
            headline,
            *others,
            v3_by_metadata(headline, "task_family", "pipeline_family"),
            v3_by_metadata(headline, "app_context", "app"),
        ]


def _markdown_memory(history: object) -> MemorySettings | ToolsSettings | None:
    """The settings of the run's memory where it is the authors' Markdown memory
    (`history=memory`, or `history=tools` searching it), from its history source's
    settings; else None."""
    if isinstance(history, ToolsSettings) and history.search != "memory":
        return None
    if isinstance(history, MemorySettings | ToolsSettings) and history.memory == MARKDOWN_MEMORY:
        return history
    return None


VERSION: Final[PersonaMemV3] = PersonaMemV3()
"""PersonaMem-v3's entry in the registry."""
