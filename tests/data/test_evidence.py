from __future__ import annotations

from inspect_ai.model import ChatMessageUser

from inspect_personamem.data.evidence import Evidence, spans_of


def test_positions_become_maximal_spans() -> None:
    assert spans_of([9, 3, 5, 4, 4]) == ((3, 6), (9, 10))
    assert spans_of([]) == ()


def test_evidence_holds_its_spans_and_records_them() -> None:
    evidence = Evidence(((3, 6), (9, 10)), (ChatMessageUser(content="x"),), "somewhere")
    assert [p for p in range(12) if evidence.holds(p)] == [3, 4, 5, 9]
    assert evidence.located and evidence.size == 4
    assert evidence.record() == {
        "located": True,
        "spans": [[3, 6], [9, 10]],
        "messages": 4,
        "where": "somewhere",
    }
    assert not Evidence((), (), "not located").located
