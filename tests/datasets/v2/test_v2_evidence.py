from __future__ import annotations

import csv
import json
import re
from pathlib import Path

import pytest
from inspect_ai.model import ChatMessage, ChatMessageAssistant, ChatMessageSystem, ChatMessageUser

from inspect_personamem.datasets.v2.evidence import SNIPPET, snippet_evidence, snippet_record
from inspect_personamem.errors import PersonaMemDataError
from inspect_personamem.run.tasks import TASKS

ROW = Path(__file__).parents[2] / "fixtures" / "personamem_v2_benchmark_row0.json"


def real_snippet() -> list[dict[str, str]]:
    """Persona 521's row 0 snippet, the one real v2 row we hold."""
    row = json.loads(ROW.read_text(encoding="utf-8"))["row"]
    return list(json.loads(row[SNIPPET]))


def test_the_real_snippet_is_found_where_it_lies_in_a_history() -> None:
    snippet = snippet_record(real_snippet(), "row 0")
    assert len(snippet) >= 2 and {m["role"] for m in snippet} <= {"user", "assistant"}
    roles = {"user": ChatMessageUser, "assistant": ChatMessageAssistant}
    before: list[ChatMessage] = [
        ChatMessageSystem(content="You are an AI assistant helping a user with ..."),
        ChatMessageUser(content="Hello"),
        ChatMessageAssistant(content="Hi"),
    ]
    history = [*before, *(roles[m["role"]](content=m["content"]) for m in snippet)]
    history += [ChatMessageUser(content="later")]
    evidence = snippet_evidence(history, {SNIPPET: snippet})
    assert evidence.spans == ((3, 3 + len(snippet)),)
    assert [m.text for m in evidence.shown] == [history[0].text] + [m["content"] for m in snippet]
    assert evidence.shown[0].role == "system"


def test_a_snippet_message_must_equal_a_history_message_byte_for_byte() -> None:
    history: list[ChatMessage] = [
        ChatMessageSystem(content="card"),
        ChatMessageUser(content="I love hiking."),
        ChatMessageAssistant(content="Great!"),
    ]
    near = snippet_evidence(history, {SNIPPET: [{"role": "user", "content": "I love hiking. "}]})
    assert not near.located and "none found in the history" in near.where
    assert [m.text for m in near.shown] == ["card", "I love hiking. "]
    role = snippet_evidence(
        history, {SNIPPET: [{"role": "assistant", "content": "I love hiking."}]}
    )
    assert not role.located
    empty = snippet_evidence(history, {SNIPPET: []})
    assert not empty.located and [m.text for m in empty.shown] == ["card"]


def test_a_malformed_snippet_stops_an_evidence_run_naming_the_question(small_v2: Path) -> None:
    """Only a run that reads the evidence reads the snippet: there a malformed one is a
    one-line error naming the question, its line and the field, before any sample."""
    path = small_v2 / "benchmark" / "text" / "benchmark.csv"
    with path.open(newline="", encoding="utf-8") as file:
        rows = list(csv.DictReader(file))
    rows[1][SNIPPET] = json.dumps([{"role": "narrator", "content": "x"}])
    with path.open("w", newline="", encoding="utf-8") as file:
        writer = csv.DictWriter(file, list(rows[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    persona = rows[1]["persona_id"]
    TASKS["personamem_v2_32k"](data_dir=str(small_v2))  # the snippet is not read
    with pytest.raises(PersonaMemDataError) as raised:
        TASKS["personamem_v2_32k"](data_dir=str(small_v2), history="evidence")
    message = str(raised.value)
    assert re.match(rf"question {persona}:1 \(question file line \d+\)", message)
    assert "'related_conversation_snippet', message 0, field 'role': 'narrator'" in message
