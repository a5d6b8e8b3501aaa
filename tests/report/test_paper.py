"""The part of the report that follows PersonaMem's paper (`report/paper.py`): which
runs are set next to the authors' published numbers and the notes that say why the
others are not, and the tables of those comparisons; on hand-built runs."""

from __future__ import annotations

from support.reports import a_summary, results

from inspect_personamem.datasets.declared import PaperLayout
from inspect_personamem.datasets.registry import VERSIONS
from inspect_personamem.report.paper import (
    published_matches,
    published_method_matches,
    published_methods_table,
    published_table,
)
from inspect_personamem.report.sections import Inclusion


def paper_layout() -> PaperLayout:
    layout = VERSIONS["v1"].reported.layout
    assert isinstance(layout, PaperLayout)
    return layout


LAYOUT = paper_layout()
NAMES = {"mockllm/model-a": "GPT-4o"}
SCORED = results([1.0, 0.0], [1.0, 1.0])


def test_only_full_history_chosen_runs_of_the_split_are_compared_and_notes_say_why() -> None:
    full = a_summary("full", SCORED)
    partial = a_summary("partial", SCORED[:3], planned=4, dataset_size=4, eval_id="p")
    none = a_summary("none", SCORED, settings={"history": "none"})
    short = a_summary("32k", SCORED, split="32k")
    subset = a_summary("subset", SCORED, dataset_size=589)
    unmapped = a_summary("b", SCORED, model="mockllm/model-b")
    notes: list[str] = []
    runs = [full, partial, none, short, subset, unmapped]
    matches = published_matches(LAYOUT, runs, NAMES, notes, Inclusion())
    gpt_4o = LAYOUT.models()["GPT-4o"]
    assert matches == [(full, gpt_4o), (partial, gpt_4o)]
    assert notes[:3] == [
        "partial: compared with GPT-4o on the 3 of 4 questions it scored (a partial run)",
        "none: history=none, answer=choice; the published numbers are full-history runs of "
        "the official prompt, so it is not compared with GPT-4o",
        "32k: ran on the 32k split; the published numbers are for 128k, so it is not "
        "compared with GPT-4o",
    ]
    assert notes[3].startswith("no published name for mockllm/model-b: add --published-name")
    assert len(notes) == 4  # the subset is left out as `Inclusion` says, the summary says why
    included = published_matches(LAYOUT, [subset], NAMES, [], Inclusion(subsets=True))
    assert included == [(subset, gpt_4o)]
    # an empty name turns the default mapping off
    assert published_matches(LAYOUT, [full], {"mockllm/model-a": ""}, [], Inclusion()) == []


def test_the_published_table_sets_each_measure_beside_its_published_number() -> None:
    full = a_summary("full", SCORED)
    gpt_4o = LAYOUT.models()["GPT-4o"]
    category = VERSIONS["v1"].groups[0]
    table = published_table([(full, gpt_4o)], category, "128k")
    assert len(table.rows) == 1 + len(category.values)
    overall = table.rows[0]
    assert overall == ("full", "GPT-4o", "overall", 0.75, gpt_4o.overall, 0.75 - gpt_4o.overall)


def test_runs_are_set_beside_the_published_number_of_their_method() -> None:
    """GPT-4o at 128k: full history 0.45 and RAG 0.60 as the authors give them; a
    no-history run has none."""
    full = a_summary("full", SCORED)
    rag_settings = {"history": "rag", "retriever": "bm25", "top_k": "4"}
    rag = a_summary("rag", SCORED, settings=rag_settings)
    none = a_summary("none", SCORED, settings={"history": "none"})
    matches = published_method_matches(LAYOUT, [full, rag, none], NAMES, Inclusion())
    assert [(s.label, p.accuracy) for s, p in matches] == [("full", 0.45), ("rag", 0.60)]
    table = published_methods_table(matches)
    rows = [dict(zip(table.columns, row, strict=True)) for row in table.rows]
    assert [row["method"] for row in rows] == ["full history", "rag (bm25, top 4)"]
    assert [row["this run"] for row in rows] == [0.75, 0.75]
    assert rows[1]["difference"] == 0.75 - 0.60 and rows[1]["measure"] == "overall"
