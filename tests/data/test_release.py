"""What is known of a release (`data/release.py`): a repository's former name resolved,
and which runs a known defect touches."""

from __future__ import annotations

from inspect_personamem.data.release import Erratum
from inspect_personamem.datasets.v1.spec import PERSONAMEM, DataSource


def test_a_former_name_of_the_repository_resolves_to_its_current_one() -> None:
    assert PERSONAMEM.resolved("bowen-upenn/PersonaMem") == "bowen-upenn/PersonaMem-v1"
    assert PERSONAMEM.resolved("someone/mirror") == "someone/mirror"
    given = DataSource("32k", repo_id="bowen-upenn/PersonaMem")
    assert (given.repo, given.renamed, given.is_release) == (
        PERSONAMEM.repo_id,
        given.repo_id,
        True,
    )
    mirror = DataSource("32k", repo_id="someone/mirror")
    assert (mirror.repo, mirror.renamed, mirror.is_release) == ("someone/mirror", None, False)
    assert DataSource("32k").renamed is None


def test_a_defect_touches_the_runs_of_its_selections_and_settings() -> None:
    context_file = Erratum("x", "#1", ("128k", "benchmark"), lambda s: s["history"] != "none")
    assert context_file.applies("128k", {"history": "full"})
    assert context_file.applies("benchmark 32k", {"history": "full"})
    assert not context_file.applies("128k", {"history": "none"})
    assert not context_file.applies("32k", {"history": "full"})
    assert not context_file.applies("1280k", {"history": "full"})  # a word, not a substring
    assert Erratum("y", "#2").applies("anything", {})
