"""A grader bound for every v3 test, as `--model-role grader=...` binds one before the task
is made (v3 refuses a run without one): its verdicts are unread, so judged rows are
unscored. A module that reads judged scores binds its own grader under the same name."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from inspect_ai.model._model import init_model_roles
from support.helpers import mock_model


@pytest.fixture(autouse=True)
def grader_bound() -> Iterator[None]:
    init_model_roles({"grader": mock_model(lambda messages: "{}", "mockllm/grader")})
    yield
    init_model_roles({})
