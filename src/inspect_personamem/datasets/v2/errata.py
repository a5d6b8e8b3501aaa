"""PersonaMem-v2's known defects (`Release.errata`); docs/data.md lists them and the
report notes those that touch a run."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from inspect_personamem.data.release import Erratum


def _shown_options(settings: Mapping[str, Any]) -> bool:
    return settings.get("answer") == "choice"


ERRATA: Final = (
    Erratum(
        "the answer is predictable from the options' lengths: the correct option is "
        "uniquely the longest in 44.7% of 501 rows (chance 25%), and with `who=others` "
        "the shortest in 51 or 52 of 52 (the issue's two counts); with no history a "
        "third party scored 31.1% [27.1, 35.2]",
        "authors' issue #42 (PersonaMem-v2)",
        ("benchmark",),
        _shown_options,
    ),
)
"""PersonaMem-v2's known defects (PERSONAMEM_V2.md, "Known artifacts")."""
