"""What the cost estimate reads of PersonaMem-v2: a subset's question file alone (no
history file), and a request per question at a history length."""

from __future__ import annotations

from collections.abc import Iterable

from inspect_personamem.data.requests import CHARS_PER_TOKEN, Request, text_tokens
from inspect_personamem.datasets.declared import QuestionRequests, Where
from inspect_personamem.datasets.v2.files import load_questions
from inspect_personamem.datasets.v2.prompt import asked, options_message
from inspect_personamem.datasets.v2.records import V2Record
from inspect_personamem.datasets.v2.spec import Length, Subset, V2Source


def question_requests(subset: Subset, length: Length, where: Where) -> QuestionRequests:
    """The subset's question file (located as the task locates it), how it compares
    with the release, and its requests at `length` in file order (`v2 benchmark 32k`)."""
    source = V2Source(
        subset, where.data_dir, where.repo_id, where.revision, data_dir_option=where.data_dir_option
    )
    questions = load_questions(source)
    return QuestionRequests(
        f"v2 {subset} {length}",
        questions.file.source,
        questions.data_release,
        requests_for(questions.records, length),
    )


def requests_for(records: Iterable[V2Record], length: Length) -> list[Request]:
    """Requests for PersonaMem-v2 rows at `length` (answer=choice, the task's default),
    in their order.

    Every question of a persona is sent after the persona's whole history, so the prefix
    is that history, shared whole by its questions: `V2Record.history_tokens`, the row's
    `total_tokens_in_chat_history_{length}` (no history file is read). The request's own
    part, the user message (`asked`) and the options message, is counted at
    `CHARS_PER_TOKEN`: the file holds no letter count to take a ratio from, as v1's does.
    The options are counted in the file's order: the task's shuffle moves them, not their
    length. Its history ends where the persona's does, for all its questions alike (at
    its token count: the message count is in the history file, which the estimate does
    not read), so a persona's questions keep their file order, as in the task.
    """
    requests = []
    for record in records:
        tokens = record.history_tokens(length)
        message = asked(record.query) + options_message(
            (record.correct_answer, *record.incorrect_answers)
        )
        own = text_tokens(message, CHARS_PER_TOKEN)
        requests.append(Request(record.history_link(length), tokens, tokens + own, tokens))
    return requests
