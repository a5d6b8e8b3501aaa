"""PersonaMem-v2 question rows: every one of the 27 columns, each cell parsed by its kind.

A row becomes a V2Record; a cell that is not of its column's kind raises a one-line
PersonaMemDataError naming the file, the row's first line and the column. The kinds:

- integers (`persona_id`, the token and distance counts): decimal digits, an optional
  minus, nothing else;
- text, kept byte for byte (`short_persona` is sometimes a Python dict literal: it is
  kept as text, as released; `pref_type` is not checked against the benchmark's seven
  values, which the other subsets are not known to keep to); `prev_pref` empty reads as
  None;
- booleans (`updated`, `sensitive_info`): `True` or `False`, as a CSV writer (Python's,
  pandas') writes them; anything else is an error;
- `user_query`: a Python dict literal `{'role': 'user', 'content': '...'}` (not JSON),
  read with `ast.literal_eval`: a dict whose role is `user` and whose content is a
  non-empty string;
- JSON: `incorrect_answers` a list of strings (exactly as many as the spec knows for
  the subset: 3 in `benchmark`), `related_conversation_snippet` a list,
  `expanded_persona` an object;
- `who`: `self` or `others`;
- the history links: relative paths inside the release (no `..`), as the hub and a
  folder are read by them.

The file's shape and encoding (UTF-8, fields per row) are checked by
`data.csv_rows.read_rows`, as v1's are; columns are found by name (the header's order
does not matter, other columns are ignored) and kept in the released order (`COLUMNS`).
"""

from __future__ import annotations

import ast
import json
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from pathlib import Path, PurePosixPath
from typing import Any, Final, Literal

from inspect_personamem.data.csv_rows import parse_int, read_rows
from inspect_personamem.datasets.v2.spec import PERSONAMEM_V2, Length, Subset, V2Spec
from inspect_personamem.errors import PersonaMemDataError

Who = Literal["self", "others"]
_EXCERPT = 60
"""Characters of a bad cell shown in its error."""


def _text(cell: str) -> str:
    return cell


def _optional_text(cell: str) -> str | None:
    return cell or None


def _boolean(cell: str) -> bool:
    if cell not in ("True", "False"):
        raise ValueError(f"expected True or False, found {_shown(cell)}")
    return cell == "True"


def _who(cell: str) -> Who:
    if cell == "self":
        return "self"
    if cell == "others":
        return "others"
    raise ValueError(f"expected self or others, found {_shown(cell)}")


def _link(cell: str) -> str:
    path = PurePosixPath(cell)
    if not cell or path.is_absolute() or ".." in path.parts:
        raise ValueError(f"expected a relative path inside the dataset, found {_shown(cell)}")
    return cell


def _user_query(cell: str) -> dict[str, Any]:
    try:
        value = ast.literal_eval(cell)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        raise ValueError(f"not a Python literal: {_shown(cell)}") from None
    if not isinstance(value, dict) or value.get("role") != "user":
        raise ValueError(
            f"expected a dict {{'role': 'user', 'content': ...}}, found {_shown(cell)}"
        )
    content = value.get("content")
    if not isinstance(content, str):
        raise ValueError(f"expected the content to be a string, found {_shown(cell)}")
    if not content.strip():
        raise ValueError("empty question text")
    return value


def _json(cell: str) -> Any:
    try:
        return json.loads(cell)
    except (ValueError, RecursionError) as ex:  # JSONDecodeError is a ValueError
        raise ValueError(f"not JSON ({ex}): {_shown(cell)}") from None


def _json_texts(cell: str) -> tuple[str, ...]:
    value = _json(cell)
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ValueError(f"expected a JSON list of strings, found {_shown(cell)}")
    return tuple(value)


def _json_list(cell: str) -> tuple[Any, ...]:
    value = _json(cell)
    if not isinstance(value, list):
        raise ValueError(f"expected a JSON list, found {_shown(cell)}")
    return tuple(value)


def _json_object(cell: str) -> dict[str, Any]:
    value = _json(cell)
    if not isinstance(value, dict):
        raise ValueError(f"expected a JSON object, found {_shown(cell)}")
    return value


def _shown(cell: str) -> str:
    """The cell's start, on one line."""
    return repr(cell if len(cell) <= _EXCERPT else cell[:_EXCERPT] + "...")


def _column(parse: Callable[[str], Any]) -> Any:
    """A record field read from the column of its name by `parse` (which raises
    ValueError with the message)."""
    return field(metadata={"parse": parse})


@dataclass(frozen=True)
class V2Record:
    """One validated question row: the 27 columns in the released order, each parsed."""

    persona_id: int = _column(parse_int)
    chat_history_32k_link: str = _column(_link)
    chat_history_128k_link: str = _column(_link)
    raw_persona_file: str = _column(_text)
    short_persona: str = _column(_text)
    expanded_persona: dict[str, Any] = _column(_json_object)
    user_query: dict[str, Any] = _column(_user_query)
    """`{'role': 'user', 'content': ...}`; the question is `query`."""
    correct_answer: str = _column(_text)
    incorrect_answers: tuple[str, ...] = _column(_json_texts)
    topic_query: str = _column(_text)
    preference: str = _column(_text)
    topic_preference: str = _column(_text)
    conversation_scenario: str = _column(_text)
    pref_type: str = _column(_text)
    related_conversation_snippet: tuple[Any, ...] = _column(_json_list)
    who: Who = _column(_who)
    updated: bool = _column(_boolean)
    prev_pref: str | None = _column(_optional_text)
    sensitive_info: bool = _column(_boolean)
    total_tokens_in_chat_history_32k: int = _column(parse_int)
    total_tokens_in_chat_history_128k: int = _column(parse_int)
    distance_from_related_snippet_to_query_32k: int = _column(parse_int)
    distance_from_related_snippet_to_query_128k: int = _column(parse_int)
    num_persona_relevant_tokens_32k: int = _column(parse_int)
    num_persona_irrelevant_tokens_32k: int = _column(parse_int)
    num_persona_relevant_tokens_128k: int = _column(parse_int)
    num_persona_irrelevant_tokens_128k: int = _column(parse_int)
    line: int | None = None
    """The row's first line in its file (for error messages); None if not read from one."""

    @property
    def query(self) -> str:
        """The user's question: the content of `user_query`."""
        return str(self.user_query["content"])

    def history_link(self, length: Length) -> str:
        """The path, inside the release, of this row's history of `length`."""
        return self.chat_history_32k_link if length == "32k" else self.chat_history_128k_link

    def history_tokens(self, length: Length) -> int:
        """Tokens of this row's whole history of `length`: the column
        `total_tokens_in_chat_history_{length}`, the history file's own
        `metadata.final_token_count` (both 31,842 for persona 521's 32k history, the one
        real row and file we hold; the tokenizer is not documented)."""
        if length == "32k":
            return self.total_tokens_in_chat_history_32k
        return self.total_tokens_in_chat_history_128k

    def distance_to_query(self, length: Length) -> int:
        """Tokens from the related snippet to the query in this row's history of
        `length`: the column `distance_from_related_snippet_to_query_{length}`."""
        if length == "32k":
            return self.distance_from_related_snippet_to_query_32k
        return self.distance_from_related_snippet_to_query_128k


_PARSERS: Final[dict[str, Callable[[str], Any]]] = {
    column.name: column.metadata["parse"] for column in fields(V2Record) if column.metadata
}
COLUMNS: Final = tuple(_PARSERS)
"""The columns of a released question file, in the released order."""


def read_questions(path: Path, subset: Subset, spec: V2Spec = PERSONAMEM_V2) -> list[V2Record]:
    """Read and validate every row of a v2 question CSV; raise on the first bad cell."""
    incorrect = spec.incorrect_answers.get(subset)
    return [_record(path, row, line, incorrect) for line, row in read_rows(path, COLUMNS)]


def _record(path: Path, row: dict[str, str], line: int, incorrect: int | None) -> V2Record:
    cells: dict[str, Any] = {}
    for name, parse in _PARSERS.items():
        try:
            cells[name] = parse(row[name])
        except ValueError as ex:
            raise PersonaMemDataError.at(path, str(ex), line=line, field=name) from None
    if incorrect is not None and len(cells["incorrect_answers"]) != incorrect:
        raise PersonaMemDataError.at(
            path,
            f"expected {incorrect} incorrect answers, found {len(cells['incorrect_answers'])}",
            line=line,
            field="incorrect_answers",
        )
    return V2Record(**cells, line=line)
