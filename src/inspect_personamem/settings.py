"""Every task parameter, in tables: the common ones, and the two axes that compose.

A run is a point of a cross product: what the model sees of the past (`history`:
`HISTORIES`) times how it answers (`answer`: `ANSWERS`). Each value of an axis is one
`AxisValue`: the parameters only it reads (each a `Parameter`: name, default,
choices or bound, whether it changes what is scored, help), the module and function
that build it, the question order that suits it, its label in reports, and what it
refuses to be combined with. The task's signature, `scoring_defaults()`, `tasks.yaml`,
the README's parameter table and the report's labels come from here (or are held
equal to it by tests).

Adding a source of history or a way to answer is one module (its builder) and one
entry here. Builders are named by import path and imported only when a task is
built, so this module, and the report that reads it, import no solver.

A history builder takes the split's context store and its own parameters, and
returns an async function from a sample's state to `history.seen.Seen`. An answer
builder takes that function, `system_messages`, `keep_history_in_log` and its own
parameters, and returns the Inspect solver.
"""

from __future__ import annotations

import difflib
import importlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from inspect_personamem.data.order import INTERLEAVE_BLOCK
from inspect_personamem.datasets.v1.spec import PERSONAMEM
from inspect_personamem.datasets.v2.spec import LENGTHS as V2_LENGTHS
from inspect_personamem.datasets.v2.spec import PERSONAMEM_V2
from inspect_personamem.datasets.v2.spec import SUBSETS as V2_SUBSETS
from inspect_personamem.errors import PersonaMemArgumentError
from inspect_personamem.types import SampleOrder

OFFICIAL_SCORER: Final = ".scoring.scorer:personamem_scorer"
"""The official scorer (the letter read from the reply), for answers without their own."""

DEFAULT_EMBEDDER: Final = "BAAI/bge-m3"
"""The paper's dense model (the authors ran it through FlagEmbedding in fp16)."""

Kind = type[bool] | type[int] | type[str]
Settings = Mapping[str, Any]


@dataclass(frozen=True)
class Parameter:
    """One task parameter."""

    name: str
    default: Any
    kind: Kind
    help: str
    choices: tuple[Any, ...] = ()
    table: Mapping[str, AxisValue] | None = None
    """For an axis (`history`, `answer`): its table, whose names are the choices."""
    minimum: int | None = None
    scoring: bool = True
    """Whether a value other than the default changes what is scored (a report keys
    runs by these); False for where files are, what a log keeps, order and speed."""
    for_scorer: bool = False
    """Read by its axis value's own scorer (`AxisValue.scorer`), not by its builder."""

    @property
    def allowed(self) -> tuple[Any, ...]:
        """The values it takes, where they are a list (empty: any of its kind)."""
        return tuple(self.table) if self.table is not None else self.choices

    def check(self, value: Any) -> None:
        """Raise a one-line error naming the parameter if `value` is not one of its."""
        if value is None and self.default is None:  # None is a value where it is the default
            return
        if self.allowed and value not in self.allowed:
            raise PersonaMemArgumentError(
                f"PersonaMem task parameter {self.name}={value!r}: choose one of "
                f"{', '.join(map(str, self.allowed))}"
            )
        if type(value) is not self.kind:
            raise PersonaMemArgumentError(
                f"PersonaMem task parameter {self.name}={value!r}: {_KIND_NAMES[self.kind]} needed"
            )
        if self.minimum is not None and int(value) < self.minimum:
            raise PersonaMemArgumentError(
                f"PersonaMem task parameter {self.name}={value!r}: must be at least "
                f"{self.minimum}"
                + (" (leave it out for the default)" if self.default is None else "")
            )


_KIND_NAMES: dict[Kind, str] = {bool: "true or false", int: "an integer", str: "a string"}


def _always(settings: Settings) -> str | None:
    return None


@dataclass(frozen=True)
class AxisValue:
    """One value of an axis: what it does, its own parameters, how it is built."""

    name: str
    summary: str
    builder: str
    """`module:function` (module relative to this package) that builds it."""
    parameters: tuple[Parameter, ...] = ()
    label: Callable[[Settings], str] = lambda settings: ""
    """Its words in a report's run label, from a run's settings (empty: none)."""
    order: SampleOrder | None = None
    """The question order that suits it, where it has one (an answer's wins)."""
    refuses: Callable[[Settings], str | None] = field(default=_always)
    """Why it cannot run with these settings (the other axis's, the model roles bound),
    or None."""
    scorer: str | None = None
    """An answer's own scorer, where it has one: `module:function`, called with the
    run's question ids and the parameters marked `for_scorer`; None: the official
    scorer."""
    reads_history: bool = True
    """A history source's: whether it reads the history files (a run without them
    needs none)."""

    def build(self, *args: Any, **kwargs: Any) -> Any:
        """Import the builder and call it."""
        return _imported(self.builder)(*args, **kwargs)


def _imported(path: str) -> Any:
    """The function a `module:function` path (module relative to this package) names."""
    module, _, function = path.partition(":")
    return getattr(importlib.import_module(module, __package__), function)


def _changed(settings: Settings, *names: str) -> list[str]:
    """The values of `names` in a run's settings that differ from their defaults."""
    declared = parameters()
    return [str(settings[n]) for n in names if str(settings[n]) != str(declared[n].default)]


# Parameters that two values share are one object each.
TOP_K = Parameter("top_k", 5, int, "Items retrieved per question.", minimum=1)
MEMORY_PROMPT = Parameter(
    "memory_prompt",
    "official",
    str,
    "official (the retrieved items as the history, then the official question, scored as "
    "every other run) or paper (the authors' RAG prompt, one letter answered; with "
    "answer=choice only).",
    choices=("official", "paper"),
)


def _retrieval_words(settings: Settings, words: list[str]) -> str:
    if str(settings["memory_prompt"]) != MEMORY_PROMPT.default:
        words.append(f"{settings['memory_prompt']} prompt")
    return ", ".join(words)


def _rag_label(settings: Settings) -> str:
    dense = str(settings["retriever"]) == "dense"
    words = [str(settings["retriever"]), *(_changed(settings, "embedder") if dense else [])]
    words.append(f"top {settings['top_k']}")
    return f"rag ({_retrieval_words(settings, words)})"


def _memory_label(settings: Settings) -> str:
    words = [str(settings["memory"]), *_changed(settings, "memory_config")]
    words += [f"top {k}" for k in _changed(settings, "top_k")]
    return f"memory ({_retrieval_words(settings, words)})"


HISTORIES: Final[dict[str, AxisValue]] = {
    "full": AxisValue(
        "full",
        "the whole history before the question, `context[:end_index]`, as in the paper",
        ".history.context:full_history",
        label=lambda settings: "full history",
    ),
    "none": AxisValue(
        "none",
        "nothing, the question alone: the no-history baseline",
        ".history.context:no_history",
        label=lambda settings: "no history",
        reads_history=False,
    ),
    "rag": AxisValue(
        "rag",
        "the top_k history messages most similar to the question, as in the paper's §4.4",
        ".history.retrieved:rag_history",
        parameters=(
            Parameter(
                "retriever",
                "dense",
                str,
                "dense (embeddings of each message's role and content, the paper's) or "
                "bm25 (no model).",
                choices=("dense", "bm25"),
            ),
            Parameter(
                "embedder",
                DEFAULT_EMBEDDER,
                str,
                "retriever=dense: a sentence-transformers hub id or local folder, "
                "openai/<model>, or openai-api/<service>/<model> (any OpenAI-compatible "
                "/v1/embeddings at <SERVICE>_BASE_URL).",
            ),
            TOP_K,
            MEMORY_PROMPT,
            Parameter(
                "embedding_cache",
                None,
                str,
                "Folder of the on-disk embedding cache (default PERSONAMEM_EMBEDDING_CACHE, "
                "else the user cache folder); none turns it off.",
                scoring=False,
            ),
        ),
        label=_rag_label,
    ),
    "memory": AxisValue(
        "memory",
        "the items a memory system, Mem0 or any plug-in, fed the history as it grows, "
        "returns for the question",
        ".history.retrieved:memory_history",
        parameters=(
            Parameter(
                "memory",
                None,
                str,
                "mem0 (the memory extra) or package.module:Factory (a memory system "
                "implementing inspect_personamem.history.memory.interface).",
            ),
            Parameter(
                "memory_config",
                None,
                str,
                "A YAML or JSON file whose mapping is given to the memory system (for "
                "mem0, its Memory.from_config settings).",
            ),
            TOP_K,
            MEMORY_PROMPT,
        ),
        label=_memory_label,
    ),
}
"""`-T history=...`: what the model sees of the past."""


CACHE_BREAKPOINTS = Parameter(
    "cache_breakpoints",
    True,
    bool,
    "On Anthropic models with history=full, mark the history end (and earlier "
    "siblings' history ends) as explicit prompt-cache breakpoints; no effect on "
    "other providers or with system_messages=merge.",
    scoring=False,
)


def _paper_prompt_refused(settings: Settings, why: str) -> str | None:
    if settings.get("memory_prompt") == "paper":
        return (
            "memory_prompt='paper' is the authors' multiple-choice prompt (the model names "
            f"a letter); {why}: leave memory_prompt out"
        )
    return None


def _open_label(settings: Settings) -> str:
    # not `self-graded`: whether the grader is the model under test, the report's labels
    # say from who graded (`-T grader=self`, or the same model bound to the grader role)
    judged = ["preference judge"] if settings.get("judge") == "preference" else []  # v2's
    seeds = [f"grader seed {s}" for s in _changed(settings, "grader_seed")]
    return ", ".join(["open", *judged, *seeds])


def _open_refuses(settings: Settings) -> str | None:
    from inspect_ai.model import model_roles  # the roles of the eval creating the task

    bound = "grader" in model_roles()
    if settings["grader"] == "role" and not bound:
        return (
            "no grader is bound: add --model-role grader=<model> (e.g. "
            "grader=openai/gpt-4.1-mini; in Python, eval the task by name or function with "
            "model_roles={'grader': ...}), or pass -T grader=self to let the model under "
            "test grade its own replies (reports mark it self-graded)"
        )
    if settings["grader"] == "self" and bound:
        return (
            "-T grader=self grades with the model under test, but a grader is bound "
            "(--model-role grader=...): leave out one of the two"
        )
    return _paper_prompt_refused(settings, "with answer='open' the model never sees the options")


def _logprob_label(settings: Settings) -> str:
    return ", ".join(["logprob", *_changed(settings, "normalization", "context_window")])


def _logprob_refuses(settings: Settings) -> str | None:
    return _paper_prompt_refused(settings, "with answer='logprob' the model never sees the options")


ANSWERS: Final[dict[str, AxisValue]] = {
    "choice": AxisValue(
        "choice",
        "the official prompt: history, question, instruction and the four options; the "
        "model writes its answer",
        ".answer.choice:choice_solver",
        parameters=(CACHE_BREAKPOINTS,),
        order="interleaved",
    ),
    "logprob": AxisValue(
        "logprob",
        "the paper's log-likelihood setting for local models on hf/ or vllm/: the "
        "options never shown, each scored as the assistant's reply",
        ".answer.logprob.solver:logprob_solver",
        parameters=(
            Parameter(
                "normalization",
                "tokens",
                str,
                "An option's score: its summed log-probability per token (the paper's), "
                "per character, or unnormalised.",
                choices=("tokens", "chars", "sum"),
            ),
            Parameter(
                "context_window",
                None,
                int,
                "Prompt tokens allowed (the oldest history messages are cut to fit, "
                "recorded per sample); none takes the model's own limit.",
                minimum=1,
            ),
            Parameter(
                "option_batch_size",
                4,
                int,
                "hf/ models: options scored in one pass on the shared prefix's attention cache.",
                minimum=1,
                scoring=False,
            ),
            Parameter(
                "prefill_chunk",
                None,
                int,
                "hf/ models: the most prefix tokens run in one pass (bounds activation "
                "memory on long histories); none runs it at once.",
                minimum=1,
                scoring=False,
            ),
        ),
        label=_logprob_label,
        order="grouped",
        refuses=_logprob_refuses,
    ),
    "open": AxisValue(
        "open",
        "the user's message alone, no options, as a deployed chatbot gets it; a grader "
        "(--model-role grader=...) names the candidate reply whose assumptions about "
        "the user the reply shares",
        ".answer.open:open_solver",
        parameters=(
            CACHE_BREAKPOINTS,
            Parameter(
                "grader",
                "role",
                str,
                "role (the model bound with --model-role grader=...) or self (the model "
                "under test grades its own replies; reports mark it).",
                choices=("role", "self"),
                for_scorer=True,
            ),
            Parameter(
                "grader_calibration",
                50,
                int,
                "Questions on which the grader is also shown each candidate as the reply, "
                "under two orders (identity accuracy, position bias); 0 skips it.",
                minimum=0,
                scoring=False,
                for_scorer=True,
            ),
            Parameter(
                "grader_seed",
                0,
                int,
                "Seed of the order the grader sees the candidates in, and of the "
                "calibration questions.",
                for_scorer=True,
            ),
        ),
        label=_open_label,
        order="interleaved",
        refuses=_open_refuses,
        scorer=".scoring.grader.scorer:open_scorer",
    ),
}
"""`-T answer=...`: how the model answers."""


def _axis(name: str, default: str, table: Mapping[str, AxisValue], what: str) -> Parameter:
    """The parameter that picks one value of an axis; its help lists the values."""
    values = "; ".join(f"{value.name}: {value.summary}" for value in table.values())
    return Parameter(name, default, str, f"{what}. {values}.", table=table)


SYSTEM_MESSAGES = Parameter(
    "system_messages",
    "keep",
    str,
    "System messages inside the history: keep (as sent to gpt-4.1), merge (the "
    "official o-series conversion), or drop.",
    choices=("keep", "merge", "drop"),
)
KEEP_HISTORY_IN_LOG = Parameter(
    "keep_history_in_log",
    False,
    bool,
    "Keep the history in the logged messages after generation (it is always in the "
    "logged model call).",
    scoring=False,
)
ORDER = Parameter(
    "order",
    None,
    str,
    "Order the questions are sent in: interleaved (round-robin across blocks of "
    "contexts: the most prompt-cache hits), grouped (a local model reuses the previous "
    "question's attention cache), file or random; none takes the answer's "
    "(interleaved for choice, grouped for logprob). `--limit N` asks the first N in "
    "this order: give two runs the same order to ask them the same questions.",
    choices=("interleaved", "grouped", "file", "random"),
    scoring=False,
)
INTERLEAVE = Parameter(
    "interleave_block",
    INTERLEAVE_BLOCK,
    int,
    "order=interleaved: contexts round-robined at a time, at least (about the "
    "requests in flight); 0 round-robins across all contexts.",
    minimum=0,
    scoring=False,
)
HISTORY = _axis("history", "full", HISTORIES, "What the model sees of the past")
ANSWER = _axis("answer", "choice", ANSWERS, "How the model answers")

COMMON: Final[tuple[Parameter, ...]] = (
    Parameter(
        "split",
        "32k",
        str,
        "Context length of the split (only `personamem` takes it).",
        choices=("32k", "128k", "1M"),
        scoring=False,  # recorded apart: a report keys runs by it
    ),
    Parameter(
        "data_dir",
        None,
        str,
        "Local folder holding the split's two files; else PERSONAMEM_DATA_DIR, else the "
        "hub. Logged absolute.",
        scoring=False,
    ),
    Parameter("repo_id", PERSONAMEM.repo_id, str, "Hugging Face dataset repository of the files."),
    Parameter("revision", PERSONAMEM.revision, str, "Revision of repo_id (pinned)."),
    HISTORY,
    ANSWER,
    SYSTEM_MESSAGES,
    Parameter(
        "shuffle",
        None,
        int,
        "Seed of a per-question reordering of the options; none keeps the official order.",
    ),
    Parameter(
        "negative_end_index",
        "official",
        str,
        "Rows whose end index is negative (about 44 in 128k): official (slice as Python "
        "does, warn with a count), skip, or error.",
        choices=("official", "skip", "error"),
    ),
    KEEP_HISTORY_IN_LOG,
    ORDER,
    INTERLEAVE,
)
"""The parameters every run takes, whatever its axes."""


V2_COMMON: Final[tuple[Parameter, ...]] = (
    Parameter(
        "subset",
        "benchmark",
        str,
        "PersonaMem-v2 question file: benchmark (the 5,000 questions), train or val.",
        choices=V2_SUBSETS,
        scoring=False,  # recorded apart, as a split is
    ),
    Parameter(
        "length",
        "32k",
        str,
        "History length (only `personamem_v2` takes it).",
        choices=V2_LENGTHS,
        scoring=False,
    ),
    Parameter(
        "data_dir",
        None,
        str,
        "Local folder in the released layout (benchmark/text/<subset>.csv, the history "
        "files at the paths the rows link); else PERSONAMEM_V2_DATA_DIR, else the hub. "
        "Logged absolute.",
        scoring=False,
    ),
    Parameter("repo_id", PERSONAMEM_V2.repo_id, str, "Hugging Face dataset repository."),
    Parameter("revision", PERSONAMEM_V2.revision, str, "Revision of repo_id (pinned)."),
    HISTORY,
    ANSWER,
    SYSTEM_MESSAGES,
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
    ),
    KEEP_HISTORY_IN_LOG,
    ORDER,
    INTERLEAVE,
)
"""The parameters every PersonaMem-v2 run takes, whatever its axes."""


def check_v2(arguments: Settings) -> None:
    """What PersonaMem-v2 refuses beyond the axes' own refusals, in one line each."""
    if arguments["judge"] != "options" and arguments["answer"] != "open":
        raise PersonaMemArgumentError(
            f"PersonaMem-v2 task parameter judge={arguments['judge']!r} judges open answers: "
            "pass answer=open, or leave judge out"
        )
    if arguments["memory_prompt"] == "paper":
        raise PersonaMemArgumentError(
            "PersonaMem-v2 task parameter memory_prompt='paper' is the PersonaMem (v1) "
            "authors' RAG prompt, with v1's options: leave memory_prompt out"
        )
    merged = arguments["system_messages"] == "merge" and arguments["answer"] == "choice"
    if merged and arguments["options_role"] == "system":
        raise PersonaMemArgumentError(
            "PersonaMem-v2 task parameters system_messages='merge', options_role='system': "
            "merging folds a system message into the message after it, and the options "
            "message has none after it; pass options_role=user with merge"
        )


def parameters(common: Sequence[Parameter] = COMMON) -> dict[str, Parameter]:
    """Every task parameter by name, in the order the task takes them (read from the
    tables each time, so that an entry added to one counts at once): `common` (v1's,
    or `V2_COMMON`), then the axis values' own."""
    found: dict[str, Parameter] = {p.name: p for p in common}
    for value in (*HISTORIES.values(), *ANSWERS.values()):
        for parameter in value.parameters:
            if found.setdefault(parameter.name, parameter) is not parameter:
                raise RuntimeError(f"two parameters named {parameter.name}")  # pragma: no cover
    return found


def scoring_defaults(common: Sequence[Parameter] = COMMON) -> dict[str, Any]:
    """Task arguments that change what is scored -> their default (what a log that lacks
    one ran with), of the tasks taking `common` (v1's, or `V2_COMMON`)."""
    return {name: p.default for name, p in parameters(common).items() if p.scoring}


def owners(name: str) -> list[str]:
    """`history=rag`, `answer=logprob`, ...: the axis values that read a parameter."""
    return [
        f"{axis}={value.name}"
        for axis, table in (("history", HISTORIES), ("answer", ANSWERS))
        for value in table.values()
        if any(p.name == name for p in value.parameters)
    ]


@dataclass(frozen=True)
class Point:
    """The axis values a run's arguments chose."""

    history: AxisValue
    answer: AxisValue

    @property
    def order(self) -> SampleOrder:
        return self.answer.order or self.history.order or "interleaved"

    def own(self, value: AxisValue, arguments: Settings) -> dict[str, Any]:
        """The arguments of `value`'s own parameters that its builder reads."""
        return {p.name: arguments[p.name] for p in value.parameters if not p.for_scorer}

    def scorer(self, questions: Sequence[str], arguments: Settings) -> Any:
        """The run's scorer: the answer's own (given `questions`, the run's question
        ids, and its `for_scorer` parameters), else the official one."""
        if self.answer.scorer is None:
            return _imported(OFFICIAL_SCORER)()
        return _imported(self.answer.scorer)(questions, **self.scorer_arguments(arguments))

    def scorer_arguments(self, arguments: Settings) -> dict[str, Any]:
        """The arguments of the answer's parameters its scorer reads (`for_scorer`)."""
        return {p.name: arguments[p.name] for p in self.answer.parameters if p.for_scorer}


def checked_point(arguments: Settings, common: Sequence[Parameter] = COMMON) -> Point:
    """The run's axis values, after checking every argument: its values (choices,
    type, bound), no parameter of an unchosen value set away from its default (it
    would silently change nothing), and a combination that means something. Every
    error is one line, raised before any data are read."""
    declared = parameters(common)
    for name, value in arguments.items():
        declared[name].check(value)
    point = Point(HISTORIES[arguments["history"]], ANSWERS[arguments["answer"]])
    chosen = {p.name for value in (point.history, point.answer) for p in value.parameters}
    ignored = sorted(
        name
        for value in (*HISTORIES.values(), *ANSWERS.values())
        for name in (p.name for p in value.parameters)
        if name not in chosen and arguments[name] != declared[name].default
    )
    if ignored:
        readers = "; ".join(f"{name}: {', '.join(owners(name))}" for name in dict.fromkeys(ignored))
        raise PersonaMemArgumentError(
            f"PersonaMem task parameter(s) {', '.join(dict.fromkeys(ignored))} have no effect "
            f"with history={point.history.name!r}, answer={point.answer.name!r} (read by "
            f"{readers}): leave them out"
        )
    for value in (point.answer, point.history):
        why = value.refuses(arguments)
        if why:
            raise PersonaMemArgumentError(
                f"PersonaMem task parameters history={point.history.name!r}, "
                f"answer={point.answer.name!r}: {why}"
            )
    return point


def axes_label(settings: Settings) -> str:
    """How a run saw the past and answered, in words: `full history`, `no history`,
    `rag (bm25, top 4)`, `memory (mem0)`, `full history, logprob`."""
    words = [
        HISTORIES[str(settings["history"])].label(settings),
        ANSWERS[str(settings["answer"])].label(settings),
    ]
    return ", ".join(word for word in words if word)


def all_arguments(
    named: Mapping[str, Any], unknown: Mapping[str, Any], common: Sequence[Parameter] = COMMON
) -> dict[str, Any]:
    """Every parameter's argument: the task's named ones, and those a table declares that
    the signature does not list (a new entry's, before the signature lists it), at their
    defaults where not given. A name no table declares is an error suggesting the one
    meant."""
    declared = parameters(common)
    check_unknown({k: v for k, v in unknown.items() if k not in declared}, common)
    given = {**named, **unknown}
    return {name: given.get(name, p.default) for name, p in declared.items()}


def check_unknown(unknown: Mapping[str, Any], common: Sequence[Parameter] = COMMON) -> None:
    """Raise on arguments no table declares, suggesting the name meant (for version 1's
    `method`, what it is now)."""
    if not unknown:
        return
    if "method" in unknown:
        now = {m: " ".join(f"-T {k}={v}" for k, v in a.items()) for m, a in LEGACY_METHODS.items()}
        raise PersonaMemArgumentError(
            "PersonaMem task parameter method is gone (task version 2): what the model sees "
            "of the past is -T history=..., how it answers -T answer=...; "
            + "; ".join(f"method={m} is {now[m] or 'the default'}" for m in LEGACY_METHODS)
        )
    known = list(parameters(common))
    problems = []
    for name, value in unknown.items():
        close = difflib.get_close_matches(name, known, n=1)
        hint = f" (did you mean {close[0]}?)" if close else ""
        problems.append(f"{name}={value!r}{hint}")
    raise PersonaMemArgumentError(
        f"PersonaMem task has no parameter {'; '.join(problems)}. "
        f"Its parameters: {', '.join(known)}"
    )


def axis_settings() -> frozenset[str]:
    """Settings that say how a run saw the past and answered (PersonaMem-v2's `judge`
    too: how its open answers were judged); the others say what it answered (data,
    prompt): a report groups runs that differ only in these."""
    values = (*HISTORIES.values(), *ANSWERS.values())
    named = {"history", "answer", "judge"}
    return frozenset(named | {p.name for v in values for p in v.parameters})


def no_history_settings(settings: Settings) -> dict[str, Any]:
    """The settings of the run a run's gain from the history is measured against: the
    same answer with `history=none` (every history source's parameter at its default)."""
    baseline = dict(settings, history="none")
    for value in HISTORIES.values():
        baseline.update({p.name: str(p.default) for p in value.parameters if p.name in settings})
    return baseline


LEGACY_METHODS: Final[dict[str, dict[str, str]]] = {
    "generate": {},
    "logprob": {"answer": "logprob"},
    "rag": {"history": "rag"},
    "memory": {"history": "memory"},
}
"""Task version 1's `method=` in the two axes (what `method=X` now is)."""


def current_arguments(task_args: Mapping[str, Any]) -> dict[str, Any]:
    """A log's task arguments in today's terms: version 1's `method` becomes the axes."""
    arguments = dict(task_args)
    method = arguments.pop("method", None)
    if method is not None:
        arguments.update(LEGACY_METHODS.get(str(method), {}))
    return arguments
