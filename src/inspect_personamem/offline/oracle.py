"""`personamem/oracle`: an offline model that knows the answers and errs on purpose.

For trying the package, the report's example and tests, where no real model can be
reached: it reads a question file, finds the question the prompt asks, and answers
correctly with a chosen probability, else with another option. Asked the user's
message alone (`answer=open`), it replies with the text of the correct candidate
(with the same probability; else another candidate's). Bound as the grader
(`--model-role grader=personamem/oracle`, no question file needed), it gives the right
verdict, read off the candidates (`offline/grading.py`): the candidate whose text the
reply is, or whose own sentences it alone holds, else none; with `-M grading=first`, a
grader all position, it names the first candidate shown. It also judges the prompts of a
version's own judges (`Offline.judge`: PersonaMem-v3's judged types), as the version
declares, knowing the gold from its question file or, given none, from the task's
samples (`Offline.gold`, read as the task is built). It answers a version's own memory
writer's prompt as that version's offline writer (`Offline.write`: PersonaMem-v3's
Markdown memory), under evaluation or bound to the `memory` role.

As each task is built it checks its role there (`datasets.offline_model.OfflineModel`,
`check_task`): under evaluation it needs the task's own question file, and says which
(`Offline.question_file`) in one line where it has none or another version's. Inspect
finds it by its provider name, `personamem` (registered in `_registry.py`):

    inspect eval inspect_personamem/personamem_32k --model personamem/oracle \\
        -M questions=$PWD/data/questions_32k.csv -M accuracy=0.8 -T data_dir=data

(`questions` absolute: Inspect logs model arguments as given, and a retry of the log
from another folder must find the file.)

It answers every dataset version of the registry (`datasets.registry`): the question
file is the version's whose file it is named as (`Offline.named_selection`:
`questions_32k.csv` a split's, `benchmark.csv` a subset's), or, of any name, the
version whose `files_named_by` selector is given (`-M split=32k`, `-M subset=benchmark`);
a version's other selectors are model arguments too (`-M length=128k`), their defaults
the tasks'. The version reads its prompts and its file, as it declares for the offline
models (`DatasetVersion.offline`: `declared.Offline`).

Its chance of being right is `accuracy` with a history before the question and
`accuracy_without_history` without one, less `decay` for each step the fact asked
about lies back, past the first (each version's own steps, `Offline.steps`: sessions
elapsed, bins of a distance in tokens).

Offered the tools of `history=tools` (and free to call them), it calls them as a model
that uses them would: it searches with the question (the first paragraph of the
message asking it), reads the messages the search showed (first to last, one call),
then answers, with its chance with a history where a call returned any (tool errors
do not count). Offered a version's own tools (PersonaMem-v3's apps), it acts as that
version declares (`Offline.act`: reads what the query needs, writes what its reply
implies) before it answers, a call a turn, then replies without one, as an agent that
ends when its model stops calling tools (`react(submit=False)`) reads it.

Each draw is a hash of (seed, model name, history or not, the question's messages),
so a rerun gives the same answers. It works with every prompt the tasks send
(shuffled options too): it finds the correct option by its text, not by its letter.
Its usage is an estimate (four characters a token), set so that Inspect never
reaches for a downloadable tokenizer. It says nothing about any real model.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from inspect_ai.dataset import Sample
from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageTool,
    GenerateConfig,
    ModelAPI,
    ModelOutput,
)
from inspect_ai.tool import ToolChoice, ToolInfo

from inspect_personamem.data.known import Known, KnownQuestions
from inspect_personamem.datasets.base import DatasetVersion
from inspect_personamem.datasets.declared import Agentic, Offline
from inspect_personamem.datasets.offline_model import OfflineModel
from inspect_personamem.datasets.registry import VERSIONS
from inspect_personamem.errors import PersonaMemArgumentError
from inspect_personamem.history.tools import READ, SEARCH, shown_positions
from inspect_personamem.offline.grading import GRADINGS, verdict_answer
from inspect_personamem.offline.reply import offline_output, offline_tool_call
from inspect_personamem.parameters import Parameter, TaskSettings
from inspect_personamem.scoring.grader.prompt import read_grader_prompt

NAME = "personamem/oracle"


def selector_arguments() -> dict[str, DatasetVersion[Any]]:
    """Every version's selectors, the oracle's model arguments, by name -> the first
    version taking each."""
    found: dict[str, DatasetVersion[Any]] = {}
    for version in VERSIONS.values():
        for selector in version.selectors:
            found.setdefault(selector.name, version)
    return found


def _questions(source: Path, given: dict[str, str]) -> tuple[Offline, KnownQuestions]:
    """The question file, read as the version whose `files_named_by` selector is given,
    else as the version whose question file it is named as, with what that version
    declares for the offline models (its judge); `given` the selectors given
    (`-M split`, `-M subset`, ...). Versions that declare nothing for the offline models
    (`DatasetVersion.offline`) are not read."""
    readers = [(v, v.offline) for v in VERSIONS.values() if v.offline is not None]
    named = [(v, o) for v, o in readers if o.files_named_by in given]
    if len(named) > 1:
        says = ", ".join(
            f"-M {o.files_named_by} names a {v.name} {o.files_named_by}" for v, o in named
        )
        raise PersonaMemArgumentError(f"{NAME}: {says}: pass one")
    by_name = {v.key: o.named_selection(source) for v, o in readers}
    by_file = ((v, o) for v, o in readers if by_name[v.key] is not None)
    found = named[0] if named else next(by_file, None)
    if found is None:
        ways = "; ".join(
            f"-M {o.files_named_by}={'|'.join(_selector(v, o.files_named_by).choices)} for a "
            f"{v.name} file"
            for v, o in readers
        )
        raise PersonaMemArgumentError(
            f"{NAME}: cannot tell from its name whose question file {source} is; pass {ways}"
        )
    chosen, offline = found
    taken = {p.name for p in chosen.selectors}
    for name in given:
        if name not in taken:
            owner = selector_arguments()[name]
            owns = owner.offline.files_named_by if owner.offline is not None else name
            default = _selector(owner, owns).default
            raise PersonaMemArgumentError(
                f"{NAME}: -M {name} is {owner.name}'s, and {source} is read as "
                f"{chosen.name}'s; pass -M {owns}={default} for a "
                f"{owner.name} question file of another name"
            )
    selected = {}
    for selector in chosen.selectors:
        value = given.get(selector.name)
        if value is None and selector.name == offline.files_named_by:
            value = by_name[chosen.key]
        value = str(selector.default) if value is None else value
        if value not in selector.choices:
            raise PersonaMemArgumentError(
                f"{NAME}: {selector.name}={value!r}: choose one of {', '.join(selector.choices)}"
            )
        selected[selector.name] = value
    return offline, offline.questions(source, selected)


def _selector(version: DatasetVersion[Any], name: str) -> Parameter:
    return next(p for p in version.selectors if p.name == name)


def _question_file(questions: str) -> Path:
    """The question file `-M questions` names, which must exist where the model is made.

    Inspect logs model arguments as given, so a relative path fails from another folder
    (`inspect eval-retry` of the log): the error says so."""
    path = Path(questions)
    if path.is_file():
        return path
    where = "" if path.is_absolute() else f" (relative to the current folder {Path.cwd()})"
    raise PersonaMemArgumentError(
        f"{NAME}: -M questions={questions}: no such file{where}. Pass the question "
        "file the task reads as an absolute path: a log keeps model arguments as given, so "
        "a relative one names nothing when the log is retried from another folder."
    )


def _probability(name: str, value: Any) -> float:
    number = float(value)
    if not 0.0 <= number <= 1.0:
        raise PersonaMemArgumentError(f"{NAME}: {name} must be within [0, 1], not {value}")
    return number


def written(input: Sequence[ChatMessage]) -> str | None:
    """The reply of a version's offline memory writer where `input` is its writer's
    prompt (`Offline.write`); None where it is none."""
    for version in VERSIONS.values():
        write = version.offline.write if version.offline is not None else None
        reply = write(input[-1].text) if write is not None and input else None
        if reply is not None:
            return reply
    return None


def question_file_named(offline: Offline, settings: TaskSettings, samples: Sequence[Sample]) -> str:
    """The question file an oracle under evaluation is to be given for a task, as the
    argument to pass: absolute in the task's data folder where `-T data_dir` names one."""
    named = "the task's question file"
    if offline.question_file is not None:
        named = offline.question_file(settings.arguments, samples)
    folder = settings.source.data_dir
    return str(Path(folder).absolute() / named) if folder else f"DATA_FOLDER/{named}"


class OracleModel(ModelAPI, OfflineModel):
    """Answers every version's questions right with probability `accuracy` (with a
    history) or `accuracy_without_history` (no history before the question), less
    `decay` for each step back of the fact the question needs (see the module
    docstring); wrong answers are another option, chosen by the same hash. As a grader
    it grades as `grading` names (`offline.grading.GRADINGS`)."""

    def __init__(
        self,
        model_name: str,
        base_url: str | None = None,
        api_key: str | None = None,
        config: GenerateConfig | None = None,
        *,
        questions: str | None = None,
        accuracy: float = 0.8,
        accuracy_without_history: float = 0.4,
        decay: float = 0.0,
        seed: int = 0,
        grading: str = "right",
        **model_args: Any,
    ) -> None:
        super().__init__(model_name, base_url, api_key, [], config or GenerateConfig())
        selectors = selector_arguments()
        unknown = sorted(name for name in model_args if name not in selectors)
        if unknown:
            takes = [
                "questions", *selectors, "accuracy", "accuracy_without_history", "decay", "seed",
            ]  # fmt: skip
            raise PersonaMemArgumentError(
                f"{NAME}: unknown model argument(s) {', '.join(unknown)}; "
                f"it takes {', '.join(takes)} and grading"
            )
        if grading not in GRADINGS:
            raise PersonaMemArgumentError(
                f"{NAME}: grading={grading!r}: choose one of {', '.join(GRADINGS)}"
            )
        self.grading = GRADINGS[grading]
        self.accuracy = _probability("accuracy", accuracy)
        self.accuracy_without_history = _probability(
            "accuracy_without_history", accuracy_without_history
        )
        self.decay = _probability("decay", decay)
        self.seed = int(seed)
        self.source = None if questions is None else _question_file(questions)
        given = {name: str(value) for name, value in model_args.items() if value is not None}
        read = None if self.source is None else _questions(self.source, given)
        self.offline = None if read is None else read[0]
        self.judge = None if read is None else read[0].judge
        self.act = None if read is None else read[0].act
        self.questions = None if read is None else read[1]
        self.gold: KnownQuestions | None = None
        """What it knows, as the grader, of the judged replies of the tasks it grades
        (`Offline.gold`), where its question file is none of theirs."""
        self._graded: list[Sample] = []

    def check_task(
        self,
        role: str | None,
        version: DatasetVersion[Any],
        settings: TaskSettings,
        samples: Sequence[Sample],
    ) -> None:
        """Under evaluation: the task's own question file, else a one-line error naming
        it. As the grader of a version whose judges need the gold (`Offline.gold`) and no
        question file of that version: the gold, read from the task's samples."""
        offline = version.offline
        if role is None:
            if offline is None:
                raise PersonaMemArgumentError(
                    f"{NAME} answers no {version.name} task: that version declares nothing "
                    "for the offline models"
                )
            if self.offline is not offline:
                given = "no -M questions" if self.source is None else f"-M questions={self.source}"
                whose = "" if self.offline is None else " (another version's question file)"
                raise PersonaMemArgumentError(
                    f"{NAME} answers from the question file the task reads, and was given "
                    f"{given}{whose}: add -M questions="
                    f"{question_file_named(offline, settings, samples)} (an absolute path)"
                )
        elif role == "grader" and offline is not None and offline.gold is not None:
            if self.offline is offline:
                return  # its question file is the task's: it knows the gold
            self._graded.extend(samples)
            self.gold, self.judge = offline.gold(self._graded), offline.judge

    async def generate(
        self,
        input: list[ChatMessage],
        tools: list[ToolInfo],
        tool_choice: ToolChoice,
        config: GenerateConfig,
    ) -> ModelOutput:
        memory = written(input)
        if memory is not None:
            return offline_output(self.model_name, memory, input)
        graded = read_grader_prompt(input[-1].text)
        if graded is not None:
            return offline_output(self.model_name, verdict_answer(self.grading(graded)), input)
        known = self.gold or self.questions
        if self.judge is not None and known is not None:
            judgement = self.judge(input[-1].text, known)
            if judgement is not None:
                return offline_output(self.model_name, judgement, input)
        if self.questions is None:  # only where a task was built outside an eval
            raise PersonaMemArgumentError(
                f"{NAME} answers from the question file the task reads: add "
                "-M questions=PATH (absolute); as the grader it needs none"
            )
        prompt, exchange = split_exchange(input)
        asked = self.questions.find_after(prompt, exchange)
        question = asked.question or "\n\n".join(m.text for m in prompt[-asked.messages :])
        read = any(isinstance(m, ChatMessageTool) and m.error is None for m in exchange)
        right = self._right(asked.known, len(prompt) > asked.messages or read, question)
        reply = asked.replies[right]
        call = None
        if self.act is not None and tool_choice != "none":
            call = self.act(self.questions, Agentic(prompt, exchange, tools, reply))
        if call is None:
            call = next_call(prompt[-asked.messages].text, exchange, tools, tool_choice)
        if call is not None:
            return offline_tool_call(self.model_name, *call, input)
        return offline_output(self.model_name, reply, input)

    def _right(self, known: Known, with_history: bool, question: str) -> int:
        """The option it answers: the correct one with its chance, else another."""
        chance = self.accuracy if with_history else self.accuracy_without_history
        chance -= self.decay * known.decay_steps
        draw = hashlib.sha256(
            f"{self.seed}|{self.model_name}|{with_history}|{question}".encode()
        ).digest()
        others = [i for i in range(len(known.options)) if i != known.correct]
        return known.correct if draw[0] / 256 < chance else others[draw[1] % len(others)]


def split_exchange(
    input: Sequence[ChatMessage],
) -> tuple[Sequence[ChatMessage], Sequence[ChatMessage]]:
    """The prompt a task sent, and the tool exchange after it (the model's tool calls
    and their results, `history=tools`): the trailing run of both."""
    start = len(input)
    while start > 0 and _in_exchange(input[start - 1]):
        start -= 1
    return input[:start], input[start:]


def _in_exchange(message: ChatMessage) -> bool:
    """A tool's result, or a model's message calling tools."""
    if isinstance(message, ChatMessageAssistant):
        return bool(message.tool_calls)
    return isinstance(message, ChatMessageTool)


def next_call(
    asking: str,
    exchange: Sequence[ChatMessage],
    tools: Sequence[ToolInfo],
    tool_choice: ToolChoice,
) -> tuple[str, dict[str, Any]] | None:
    """The oracle's next tool call where it is offered the history's tools: search with
    the question (the first paragraph of the message `asking` it), then read what the
    search showed (its positions, first to last); None once it has, or where no tool
    may be called."""
    offered = {tool.name for tool in tools}
    if tool_choice == "none" or not {SEARCH, READ} <= offered:
        return None
    results = [m for m in exchange if isinstance(m, ChatMessageTool)]
    searched = [m.text for m in results if m.function == SEARCH]
    if not searched:
        return SEARCH, {"query": asking.split("\n\n", 1)[0]}
    found = shown_positions(searched[-1])
    if found and not any(m.function == READ for m in results):
        return READ, {"first": min(found), "last": max(found)}
    return None
