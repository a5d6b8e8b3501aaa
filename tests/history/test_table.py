"""`history/table.py`: each source of history's words in a report's run label, its
refusals before any data are read (a memory not named, a model that cannot call tools),
the texts it records, and what the table says each source reads."""

from __future__ import annotations

from typing import Any

import pytest

from inspect_personamem.datasets.registry import VERSIONS
from inspect_personamem.history.memory.prompts import FACTS_HEADER
from inspect_personamem.history.table import HISTORIES, WITHOUT_TOOL_CALLING
from inspect_personamem.run.arguments import parameters

DEFAULTS: dict[str, Any] = {n: p.default for n, p in parameters(VERSIONS["v1"]).items()}
"""Every argument at its default (history=full, the dense embedder, top 5)."""


def label(history: str, **given: Any) -> str:
    value = HISTORIES[history]
    return value.label(value.own({**DEFAULTS, "history": history, **given}))


def refuses(history: str, settings: dict[str, Any]) -> str | None:
    value = HISTORIES[history]
    return value.refuses(value.own(settings))


@pytest.mark.parametrize(
    ("history", "given", "words"),
    [
        ("full", {}, "full history"),
        ("none", {}, "no history"),
        ("evidence", {}, "evidence only (upper bound)"),
        ("rag", {}, "rag (dense, top 5)"),  # the default embedder is not named
        ("rag", {"embedder": "openai/x", "top_k": 3}, "rag (dense, openai/x, top 3)"),
        ("rag", {"retriever": "bm25", "embedder": "openai/x"}, "rag (bm25, top 5)"),
        ("rag", {"retriever": "bm25", "memory_prompt": "paper"}, "rag (bm25, top 5, paper prompt)"),
        ("memory", {"memory": "mem0"}, "memory (mem0)"),
        (
            "memory",
            {"memory": "mem0", "memory_config": "m.yaml", "top_k": 3},
            "memory (mem0, m.yaml, top 3)",
        ),
        ("tools", {}, "tools (bm25, budget 6)"),
        ("tools", {"search": "dense", "embedder": "e5"}, "tools (dense, e5, budget 6)"),
        (
            "tools",
            {
                "search": "memory",
                "memory": "mem0",
                "top_k": 2,
                "tool_budget": 4,
                "tool_result_chars": 900,
            },
            "tools (memory mem0, top 2, budget 4, 900 characters a result)",
        ),  # fmt: skip
    ],
)
def test_each_source_s_words_in_a_run_label(
    history: str, given: dict[str, Any], words: str
) -> None:
    assert label(history, **given) == words


def test_a_label_reads_settings_as_text_from_a_log() -> None:
    """A log gives its settings back as text: `5` is the default top_k, not a change."""
    assert label("memory", memory="mem0", top_k="5") == "memory (mem0)"
    assert label("tools", top_k="5", tool_budget="6") == "tools (bm25, budget 6)"


def test_a_memory_source_without_a_memory_system_is_refused() -> None:
    assert refuses("memory", {**DEFAULTS, "history": "memory"}) == (
        "memory: history='memory' needs one: -T memory=mem0, -T memory=mcp or "
        "-T memory=package.module:Factory"
    )
    assert refuses("memory", {**DEFAULTS, "memory": "support.memories:SpyMemory"}) is None


def test_a_retriever_without_a_model_refuses_nothing() -> None:
    """bm25 needs no embedder, so the embedder is not looked for."""
    settings = {**DEFAULTS, "retriever": "bm25", "embedder": "no/such-model"}
    assert refuses("rag", settings) is None
    assert refuses("tools", {**DEFAULTS, "embedder": "no/such-model"}) is None


def test_tools_refuse_a_model_whose_provider_drops_them(monkeypatch: pytest.MonkeyPatch) -> None:
    """The offline floor picks an option by rule: offered tools, it would never call them."""
    model = "personamem/floor"
    assert model.startswith(WITHOUT_TOOL_CALLING)
    monkeypatch.setenv("INSPECT_EVAL_MODEL", model)
    assert refuses("tools", DEFAULTS) == (
        f"the model {model} cannot call tools (its provider drops them), and history='tools' "
        "offers the history only through tools: choose another model or history"
    )
    monkeypatch.setenv("INSPECT_EVAL_MODEL", "mockllm/model")
    assert refuses("tools", DEFAULTS) is None


def test_only_a_memory_records_the_facts_header_among_its_prompts() -> None:
    assert HISTORIES["memory"].prompts(DEFAULTS) == {
        "history/memory/prompts.py:FACTS_HEADER": FACTS_HEADER
    }
    assert all(HISTORIES[name].prompts(DEFAULTS) == {} for name in HISTORIES if name != "memory")


def test_what_each_source_reads() -> None:
    """Only `none` reads no history; every source but full and none reads where the
    evidence lies; only `tools` is read through tool calls; only `evidence` is a
    ceiling, not a method."""
    assert [n for n, v in HISTORIES.items() if not v.reads_history] == ["none"]
    assert [n for n, v in HISTORIES.items() if v.reads_evidence] == [
        "evidence", "rag", "memory", "tools",
    ]  # fmt: skip
    assert [n for n, v in HISTORIES.items() if v.calls_tools] == ["tools"]
    assert [n for n, v in HISTORIES.items() if v.upper_bound] == ["evidence"]


def test_a_parameter_two_sources_read_is_one_object() -> None:
    """So that its help, default and bound cannot differ between them."""
    by_name = {
        p.name: [q for v in HISTORIES.values() for q in v.parameters if q.name == p.name]
        for v in HISTORIES.values()
        for p in v.parameters
    }
    for name, found in by_name.items():
        assert all(p is found[0] for p in found), name
    assert len(by_name["top_k"]) == 3
