"""What the cost estimate reads of PersonaMem (v1): a split's question file alone, and a
request per question from the file's own token counts."""

from __future__ import annotations

from collections.abc import Iterable

from inspect_personamem.data.requests import CHARS_PER_TOKEN, Request, text_tokens
from inspect_personamem.datasets.declared import QuestionRequests, Where
from inspect_personamem.datasets.v1.files import locate_split_files, release_files
from inspect_personamem.datasets.v1.prompt import final_user_message
from inspect_personamem.datasets.v1.records import QuestionRecord
from inspect_personamem.datasets.v1.spec import DataSource
from inspect_personamem.datasets.v1.splits import Split


def question_requests(split: Split, where: Where) -> QuestionRequests:
    """The split's question file (located as the task locates it; no context file is
    read), how it compares with the release, and its requests in file order."""
    source = DataSource(
        split,
        where.data_dir,
        where.repo_id,
        where.revision,
        data_dir_option=where.data_dir_option,
        with_contexts=False,
    )
    files = locate_split_files(source)
    records = source.spec.read_questions(files.questions, split)
    release, _ = release_files(source, files, records, contexts=0)
    return QuestionRequests(split, files.source, release, requests_for(records))


def requests_for(records: Iterable[QuestionRecord]) -> list[Request]:
    """Requests for PersonaMem question records, in their order.

    The prefix is the row's `context_length_in_tokens` (GPT-4o tokenizer). The final
    user message is counted with that row's own letters-per-token ratio, as the file
    gives no token count for it. The end index is the row's, so the requests are sent
    in the order the task sends its questions.
    """
    requests = []
    for record in records:
        tokens = record.count("context_length_in_tokens")
        letters = record.count("context_length_in_letters")
        per_token = letters / tokens if tokens > 0 and letters > 0 else CHARS_PER_TOKEN
        message = final_user_message(record.question, str(record.columns["all_options"]))
        own = text_tokens(message, per_token)
        requests.append(Request(record.context_id, tokens, tokens + own, record.end_index))
    return requests
