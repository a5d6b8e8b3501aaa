"""PersonaMem-v3's task types and families (`datasets/v3/tasks.py`): 31 in 5, in the
order of the paper's Figure 4 (`FIG4` of the authors' export script)."""

from __future__ import annotations

from inspect_personamem.datasets.v3.tasks import FAMILY_CODES, FAMILY_NAMES, TASK_TYPES, tasks_of


def test_the_tasks_are_31_in_5_families() -> None:
    assert len(TASK_TYPES) == 31
    counts = {family: len(tasks_of(family)) for family in FAMILY_NAMES}
    assert counts == {
        "personalization": 5,
        "recommendation": 5,
        "over_personalization": 6,
        "agentic_tasks": 9,
        "agentic_proactiveness": 6,
    }
    assert tasks_of("recommendation")[0] == "personalized_recommendation"


def test_the_pipeline_codes_are_not_the_paper_families() -> None:
    """A row's `task_family` is the pipeline's code: `e_followup` holds recommendation
    rows (persona 105's seq 3), so it is not read as the paper's family."""
    assert "e_followup" in FAMILY_CODES and "e_followup" not in FAMILY_NAMES
    assert set(FAMILY_NAMES) == set(TASK_TYPES.values())
