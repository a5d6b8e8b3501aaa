"""The fixture every report test module uses (imported by name, so that pytest finds
it: `from released import synthetic_data_stands_for_the_release`)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from inspect_personamem.data.release import RELEASED
from inspect_personamem.datasets.v1 import files


@pytest.fixture(autouse=True, scope="module")
def synthetic_data_stands_for_the_release() -> Iterator[None]:
    """The synthetic splits these runs ask stand in for the released files: their runs
    are recorded as on the released data (the mark of other data is tested by grafting
    it into a log, and the check itself in test_files.py)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(files, "data_release", lambda *args: RELEASED)
        yield
