"""What the tools read of a version, declared as data (`datasets/declared.py`): a
version that declares nothing of a tool is refused or not offered by it, and the
declared numbers read as declared."""

from __future__ import annotations

import pytest
from support.toy_version import ToyVersion

from inspect_personamem.cost.estimate import estimate
from inspect_personamem.datasets.declared import (
    BesideLayout,
    PaperLayout,
    Published,
    PublishedNumber,
    Reported,
    ToolOption,
    Where,
    options_by_flag,
)
from inspect_personamem.datasets.registry import VERSIONS
from inspect_personamem.errors import PersonaMemArgumentError
from inspect_personamem.offline.try_it import tried

PAPER = PublishedNumber("paper", "frontier LLMs", "", 0.37, 0.48, "the paper", "")
VENDOR = PublishedNumber("self-reported", "a harness", "m", 0.5, 0.5, "a blog", "its own")


class Bare(ToyVersion):
    """The toy version with nothing declared for the estimate, `try` or the offline
    models: the core alone."""

    key = "bare"
    task = "personamem_bare"
    estimate = None
    trying = None
    offline = None
    reported = Reported()


def test_a_version_without_requests_is_refused_by_the_estimate() -> None:
    with pytest.raises(PersonaMemArgumentError, match="declares no requests to estimate"):
        estimate(Bare(), {"track": "short"}, Where())


def test_try_offers_only_versions_that_declare_what_it_writes_and_reads(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(VERSIONS, "bare", Bare())
    assert "bare" not in tried()
    assert set(tried()) == {
        key for key, v in VERSIONS.items() if v.trying is not None and v.offline is not None
    }
    assert "v3" in tried()  # PersonaMem-v3 declares both (`datasets/v3/offline/answers.py`)


def test_the_published_range_is_the_declared_system() -> None:
    numbers = Published(lambda: (PAPER, VENDOR), "note", range_system="frontier LLMs")
    assert numbers.range() is PAPER and PAPER.shown == "0.37-0.48" and VENDOR.shown == "0.500"
    assert Published(lambda: (PAPER, VENDOR), "note").range() is None


def test_a_beside_layout_needs_published_numbers() -> None:
    with pytest.raises(TypeError, match="declare them"):
        Reported(BesideLayout(by="pref_type"))


def test_published_names_are_the_paper_layouts_models_and_overrides_win() -> None:
    layout = VERSIONS["v1"].reported.layout
    assert isinstance(layout, PaperLayout)
    assert "GPT-4o" in VERSIONS["v1"].reported.published_names()
    assert VERSIONS["v2"].reported.published_names() == ()
    assert layout.published_name("openai/gpt-4o", {}) == "GPT-4o"
    assert layout.published_name("openai/gpt-4o", {"openai/gpt-4o": ""}) is None
    assert layout.published_name("x/y", {"x/y": "o1"}) == "o1"
    assert layout.published_name("x/y", {}) is None


def test_options_by_flag_groups_the_versions_taking_each_in_order() -> None:
    layout = ToolOption("--history-layout", "the layout", choices=("authors", "events"))
    questions = ToolOption("--questions", "a question file")
    by_flag = options_by_flag([("v1", [questions]), ("v3", [layout, questions]), ("v2", [])])
    assert list(by_flag) == ["--questions", "--history-layout"]
    assert by_flag["--questions"] == (questions, ["v1", "v3"])
    assert by_flag["--history-layout"] == (layout, ["v3"])
