"""`personamem/floor`: model-free baselines, the floor under every score.

Answer artifacts give answers away: on the real 32k question file the longest option
is the correct one on 304 of 589 questions. A floor is a model provider, so that its
runs are ordinary logs (scored, reported, compared like any run, in seconds and
without an API). It reads only what a model would be sent, the official prompt, and
picks an option by one rule (`-M rule=...`):

- `longest`: the option with the most characters;
- `question`: the option most similar to the question, by BM25 with the four options
  as the documents and the question as the query;
- `history`: the option most similar to the history the model would see (whatever
  `-T history` gives), by the best BM25 score of any history message with the
  option as the query;
- `random`: an option drawn at random (seeded per question: `-M seed=...`), whose
  expected accuracy is 0.25.

Ties go to the earlier letter. It answers the `answer=choice` prompts of every dataset
version of the registry, each read by the version (`DatasetVersion.offline.choice_prompt`:
PersonaMem's official final user message, for one), and answers in the version's form;
not the authors' RAG prompt (`memory_prompt=paper`), and not `answer=logprob`, where no
model writes an answer. It answers a version's own memory writer's prompt as that
version's offline writer (`Offline.write`: PersonaMem-v3's Markdown memory). As each task
is built it checks its role there (`check_task`): it grades nothing, and answers by
choosing with the official prompt, each refused otherwise in one line naming the fix.

    inspect eval inspect_personamem/personamem_32k --model personamem/floor -M rule=longest
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

from inspect_ai.dataset import Sample
from inspect_ai.model import ChatMessage, GenerateConfig, ModelAPI, ModelOutput
from inspect_ai.tool import ToolChoice, ToolInfo

from inspect_personamem.data.known import ChoicePrompt
from inspect_personamem.datasets.base import DatasetVersion
from inspect_personamem.datasets.offline_model import OfflineModel
from inspect_personamem.datasets.registry import VERSIONS
from inspect_personamem.errors import PersonaMemArgumentError
from inspect_personamem.history.memory.interface import HistoryMessage
from inspect_personamem.history.memory.prompts import OFFICIAL
from inspect_personamem.history.memory.retrievers import BM25Retriever
from inspect_personamem.history.table import Prompted
from inspect_personamem.offline.oracle import written
from inspect_personamem.offline.reply import offline_output
from inspect_personamem.parameters import TaskSettings

RULES = ("longest", "question", "history", "random")


class FloorModel(ModelAPI, OfflineModel):
    """Picks an option by a rule that needs no model (see the module docstring)."""

    def __init__(
        self,
        model_name: str,
        base_url: str | None = None,
        api_key: str | None = None,
        config: GenerateConfig | None = None,
        *,
        rule: str = "longest",
        seed: int = 0,
        **model_args: Any,
    ) -> None:
        super().__init__(model_name, base_url, api_key, [], config or GenerateConfig())
        if model_args:
            raise PersonaMemArgumentError(
                f"personamem/floor: unknown model argument(s) {', '.join(sorted(model_args))}; "
                "it takes rule and seed"
            )
        if rule not in RULES:
            raise PersonaMemArgumentError(
                f"personamem/floor: rule={rule!r}: choose one of {', '.join(RULES)}"
            )
        self.rule = rule
        self.seed = int(seed)

    def check_task(
        self,
        role: str | None,
        version: DatasetVersion[Any],
        settings: TaskSettings,
        samples: Sequence[Sample],
    ) -> None:
        """It grades nothing, and answers only by choosing with the official prompt of a
        version that declares what the offline models read (module docstring)."""
        if role == "grader":
            raise PersonaMemArgumentError(
                "personamem/floor picks an option by a rule and grades nothing: bind a "
                "grader that grades, e.g. --model-role grader=personamem/oracle"
            )
        if role is not None:  # the memory role: it writes as the offline writer
            return
        answer = settings.point.answer.name
        history = settings.history
        prompt = history.memory_prompt if isinstance(history, Prompted) else OFFICIAL
        if version.offline is None:
            raise PersonaMemArgumentError(
                f"personamem/floor answers no {version.name} task: that version declares "
                "nothing for the offline models"
            )
        wrong = [f"answer={answer}"] if answer != "choice" else []
        wrong += [f"memory_prompt={prompt}"] if prompt != OFFICIAL else []
        if wrong:
            fixes = ["-T answer=choice"] if answer != "choice" else []
            fixes += ["no -T memory_prompt"] if prompt != OFFICIAL else []
            raise PersonaMemArgumentError(
                f"personamem/floor answers by choosing, from the official prompt, and this "
                f"task has {' and '.join(wrong)}: run it with {' and '.join(fixes)}"
            )

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
        asked = _choice_prompt(input)
        history = input[: -asked.messages]
        index = await choose(self.rule, asked.question, asked.options, history, self.seed)
        return offline_output(self.model_name, asked.replies[index], input)


def _choice_prompt(input: Sequence[ChatMessage]) -> ChoicePrompt:
    """The question and options of the prompt, read by the version whose prompt it is."""
    for version in VERSIONS.values():
        if version.offline is None:
            continue
        try:
            asked = version.offline.choice_prompt(input)
        except PersonaMemArgumentError as ex:
            raise PersonaMemArgumentError(f"personamem/floor: {ex}") from None
        if asked is not None:
            return asked
    raise PersonaMemArgumentError(
        "personamem/floor reads the official prompt of answer=choice (a question and its "
        "options, as a task sends them); this one is none: run it with answer=choice and "
        "memory_prompt=official"
    )


async def choose(
    rule: str,
    question: str,
    options: Sequence[str],
    history: Sequence[ChatMessage],
    seed: int = 0,
) -> int:
    """The index of the option `rule` picks (ties: the earliest)."""
    if rule == "longest":
        scores = [float(len(option)) for option in options]
    elif rule == "question":
        scores = await _bm25_scores([question], options, by_document=True)
    elif rule == "history":
        scores = await _bm25_scores([m.text for m in history], options, by_document=False)
    else:
        draw = hashlib.sha256(f"{seed}|{question}|{'|'.join(options)}".encode()).digest()
        return draw[0] % len(options)
    return max(range(len(options)), key=lambda i: (scores[i], -i))


async def _bm25_scores(
    texts: Sequence[str], options: Sequence[str], by_document: bool
) -> list[float]:
    """BM25 of each option: as a document against the one text as the query
    (`by_document`), or as a query against the texts, its best score."""
    retriever = BM25Retriever()
    documents = options if by_document else texts
    await retriever.add([HistoryMessage(i, "user", text) for i, text in enumerate(documents)])
    if by_document:
        found = await retriever.search(texts[0], len(options))
        by_position = {item.position: item.score or 0.0 for item in found}
        return [by_position.get(i, 0.0) for i in range(len(options))]
    scores = []
    for option in options:
        best = await retriever.search(option, 1)
        scores.append(best[0].score or 0.0 if best else 0.0)
    return scores
