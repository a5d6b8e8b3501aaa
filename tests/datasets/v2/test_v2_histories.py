"""PersonaMem-v2 histories: read once per persona, the first list value, the messages byte
for byte; a missing or malformed file is one line naming the persona and the path."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.helpers import V2_HISTORY_EXCERPT, V2_ROW

from inspect_personamem.datasets.v2.files import load_questions
from inspect_personamem.datasets.v2.generator import system_message
from inspect_personamem.datasets.v2.histories import HistoryStore, read_history
from inspect_personamem.datasets.v2.records import V2Record
from inspect_personamem.datasets.v2.spec import Length, V2Source
from inspect_personamem.errors import PersonaMemDataError


def excerpt_as_file(tmp_path: Path) -> Path:
    """The excerpt of persona 521's 32k history, cut after its last whole message and
    closed, as a history file."""
    text = V2_HISTORY_EXCERPT.read_text(encoding="utf-8")
    path = tmp_path / "chat_history_250913_163134_persona521.json"
    path.write_text(text[: text.rindex("\n    },")] + "\n    }\n  ]\n}\n", encoding="utf-8")
    return path


def test_the_real_history_opens_with_the_system_persona_card(tmp_path: Path) -> None:
    messages = read_history(excerpt_as_file(tmp_path), "persona 521")
    row = json.loads(V2_ROW.read_text(encoding="utf-8"))["row"]
    assert messages[0].role == "system"
    # the card is the row's expanded persona, byte for byte, as the generator writes it
    assert messages[0].text == system_message(row["expanded_persona"])
    assert [m.role for m in messages[1:]] == ["user", "assistant"] * 3 + ["user"]
    assert messages[1].text == (
        "Could you help me improve the flow and tone of this message so it reads more smoothly?"
    )


def store_and_records(folder: Path, length: Length = "32k") -> tuple[HistoryStore, list[V2Record]]:
    source = V2Source(data_dir=folder)
    return HistoryStore(source, length), load_questions(source).records


def test_a_history_is_read_once_and_shared_by_its_personas_questions(small_v2: Path) -> None:
    store, records = store_and_records(small_v2)
    first, second = records[0], records[1]
    assert first.persona_id == second.persona_id
    messages = store.messages(first)
    (small_v2 / first.chat_history_32k_link).unlink()  # not read again
    assert store.messages(second) is messages


def test_histories_are_found_when_first_asked_for(small_v2: Path) -> None:
    store, records = store_and_records(small_v2, "128k")
    other = next(r for r in records if r.persona_id != records[0].persona_id)
    (small_v2 / other.chat_history_128k_link).unlink()
    assert store.messages(records[0])[0].role == "system"  # the missing file is not needed
    with pytest.raises(PersonaMemDataError) as info:
        store.messages(other)
    assert str(info.value) == (
        f"{small_v2} (given by -T data_dir) lacks {other.chat_history_128k_link} for persona "
        f"{other.persona_id}'s 128k history. Put the files of bowen-upenn/PersonaMem-v2 there, "
        "or point -T data_dir elsewhere."
    )


def test_messages_are_kept_byte_for_byte(tmp_path: Path) -> None:
    path = tmp_path / "h.json"
    texts = ["  persona card\n", "cafe\u0301 ", "\u00e9\t", "Please forget that I ..."]
    messages = [
        {"role": role, "content": text}
        for role, text in zip(["system", "user", "assistant", "user"], texts, strict=True)
    ]
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps({"chat_history": messages}).encode())
    assert [m.text for m in read_history(path, "here")] == texts


def test_the_first_list_value_is_the_history(tmp_path: Path) -> None:
    """As the authors read it: whatever its key, the first value that is a list."""
    path = tmp_path / "h.json"
    history = {
        "metadata": {"persona_id": 1, "notes": ["not a list of the top level"]},
        "turns": [{"role": "user", "content": "first"}],
        "chat_history": [{"role": "user", "content": "second"}],
    }
    path.write_text(json.dumps(history), encoding="utf-8")
    assert [m.text for m in read_history(path, "here")] == ["first"]


WHERE = "{path} (persona 7's 32k history)"


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b'{"metadata": {}, "chat_history": [{"role": "user", "con', "not valid JSON, the file"),
        (b"[]", 'expected a JSON object {"metadata": ..., "chat_history": [messages]}'),
        (b'{"metadata": {"a": 1}, "n": 3}', "no list of messages among the top-level values "
         "(keys: 'metadata', 'n')"),
        (b'{"chat_history": [{"role": "robot", "content": "hi"}]}',
         "'chat_history', message 0, field 'role': 'robot'"),
        (b'{"chat_history": [{"role": "user"}]}',
         "'chat_history', message 0, field 'content': expected a string"),
        (b'{"chat_history": ["hello"]}', "'chat_history', message 0, field 'role': None"),
        (b'{"chat_history": [{"role": "user", "content": "caf\xe9"}]}',
         "'chat_history', message 0, field 'content': byte 0xe9 at character 4 is not UTF-8"),
    ],
)  # fmt: skip
def test_a_malformed_history_is_one_line_naming_persona_and_path(
    tmp_path: Path, content: bytes, message: str
) -> None:
    path = tmp_path / "chat_history_persona7.json"
    path.write_bytes(content)
    where = WHERE.format(path=path)
    with pytest.raises(PersonaMemDataError) as info:
        read_history(path, where)
    text = str(info.value)
    assert text.startswith(where) and message in text, text
    assert "\n" not in text


def test_a_malformed_file_in_the_store_names_persona_and_path(small_v2: Path) -> None:
    store, records = store_and_records(small_v2)
    path = (small_v2 / records[0].chat_history_32k_link).resolve()
    path.write_text('{"metadata": {}}', encoding="utf-8")
    with pytest.raises(PersonaMemDataError) as info:
        store.messages(records[0])
    assert str(info.value) == (
        f"{path} (persona {records[0].persona_id}'s 32k history): no list of messages among "
        "the top-level values (keys: 'metadata')"
    )


def test_an_unreadable_file_names_persona_and_path(tmp_path: Path) -> None:
    where = f"{tmp_path} (persona 7's 32k history)"
    with pytest.raises(PersonaMemDataError, match=r"\(persona 7's 32k history\): not readable"):
        read_history(tmp_path, where)  # a folder
