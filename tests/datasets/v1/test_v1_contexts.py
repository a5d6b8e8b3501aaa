from __future__ import annotations

import json
from pathlib import Path

import pytest

from inspect_personamem.datasets.v1.contexts import ContextStore
from inspect_personamem.errors import PersonaMemDataError


def write_lines(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def context_line(context_id: str, size: int) -> str:
    messages = [{"role": "system", "content": "Current user persona: Name: Ana"}] + [
        {"role": "user" if i % 2 else "assistant", "content": f"  message {i} cafe\u0301 "}
        for i in range(1, size)
    ]
    return json.dumps({context_id: messages})


def test_history_is_a_slice_of_one_shared_message_list(tmp_path: Path) -> None:
    store = ContextStore(
        write_lines(tmp_path / "c.jsonl", [context_line("x", 10), context_line("y", 5)])
    )
    assert "x" in store and "y" in store and "z" not in store
    full = store.messages("x")
    assert len(full) == 10 and full[0].role == "system"
    first, second = store.history("x", 4), store.history("x", 7)
    assert [m.text for m in first] == [m.text for m in full[:4]]
    assert all(a is b for a, b in zip(first, second[:4], strict=True))  # same objects, not copies
    assert store.messages("x") is full  # parsed once
    assert full[1].text == "  message 1 cafe\u0301 "  # byte for byte, not normalised
    assert list(store.history("x", -2)) == list(full[:8])  # Python slicing, as the official script


def test_only_requested_contexts_are_parsed(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "c.jsonl", [context_line("x", 3), '{"broken": [{"role": '])
    store = ContextStore(path)
    assert len(store.messages("x")) == 3


def test_truncated_line_names_file_line_and_context(tmp_path: Path) -> None:
    line = context_line("y", 6)
    path = write_lines(tmp_path / "c.jsonl", [context_line("x", 3), line[: len(line) // 2]])
    store = ContextStore(path)
    with pytest.raises(
        PersonaMemDataError, match=r"c\.jsonl, line 2 \(context y\): not valid JSON"
    ):
        store.messages("y")


def test_unknown_context_id(tmp_path: Path) -> None:
    store = ContextStore(write_lines(tmp_path / "c.jsonl", [context_line("x", 3)]))
    with pytest.raises(PersonaMemDataError, match="no context with id 'nope'"):
        store.messages("nope")


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('{"x": [{"role": "robot", "content": "hi"}]}', "message 0, field 'role': 'robot'"),
        ('{"x": [{"role": "user", "content": 3}]}', "message 0, field 'content'"),
        ('{"x": {"role": "user"}}', "not a list of messages"),
        ('{"x": [], "y": []}', "single-key object"),
    ],
)
def test_malformed_messages(tmp_path: Path, line: str, message: str) -> None:
    store = ContextStore(write_lines(tmp_path / "c.jsonl", [line]))
    with pytest.raises(PersonaMemDataError, match=message):
        store.messages("x")


def test_line_without_a_key_and_duplicate_ids(tmp_path: Path) -> None:
    with pytest.raises(PersonaMemDataError, match="line 2: does not begin with a JSON object key"):
        ContextStore(write_lines(tmp_path / "a.jsonl", [context_line("x", 2), "[1, 2]"]))
    with pytest.raises(PersonaMemDataError, match="line 2: context 'x' also on line 1"):
        ContextStore(
            write_lines(tmp_path / "b.jsonl", [context_line("x", 2), context_line("x", 2)])
        )


def test_a_byte_order_mark_at_the_start_is_skipped(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + (context_line("x", 3) + "\n").encode())
    store = ContextStore(path)
    assert "x" in store and len(store.messages("x")) == 3


def test_a_byte_that_is_not_utf8_names_line_context_message_and_field(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "c.jsonl", [context_line("x", 3), context_line("y", 4)])
    path.write_bytes(path.read_bytes().replace(b"message 3 cafe", b"message 3 caf\xe9"))
    store = ContextStore(path)
    assert len(store.messages("x")) == 3
    with pytest.raises(PersonaMemDataError) as info:
        store.messages("y")
    assert str(info.value) == (
        f"{path}, line 2 (context y), message 3, field 'content': byte 0xe9 at character 16 "
        "is not UTF-8 (the file must be UTF-8)"
    )


def test_a_byte_that_is_not_utf8_in_a_context_id(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    path.write_bytes(b'{"ab\xff": []}\n')
    with pytest.raises(PersonaMemDataError) as info:
        ContextStore(path)
    assert str(info.value) == (
        f"{path}, line 1: the context id holds byte 0xff, which is not UTF-8 "
        "(the file must be UTF-8)"
    )


def test_a_context_id_that_is_not_the_first_key_is_found_for_the_message(
    tmp_path: Path,
) -> None:
    line = '{"meta": {"v": 1}, "y": ' + context_line("y", 3)[len('{"y": ') :]
    store = ContextStore(write_lines(tmp_path / "c.jsonl", [context_line("x", 3), line]))
    assert "y" not in store and "meta" in store
    assert store.line_with_key("y") == (2, "meta")
    assert store.line_with_key("z") is None
    with pytest.raises(PersonaMemDataError, match=r"found keys 'meta', 'y'"):
        store.messages("meta")


def test_a_byte_that_is_not_utf8_is_counted_in_characters_after_other_non_ascii(
    tmp_path: Path,
) -> None:
    path = write_lines(tmp_path / "c.jsonl", [context_line("x", 2)])
    text = "  message 1 ca\u0301f\u00e9 \U0001f600 ".encode() + b"\xff"
    path.write_bytes(path.read_bytes().replace(b"  message 1 cafe", text))
    with pytest.raises(PersonaMemDataError, match="byte 0xff at character 21 is not UTF-8"):
        ContextStore(path).messages("x")
