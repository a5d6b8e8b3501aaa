"""The report's one error, raised by every layer of it."""

from __future__ import annotations

from inspect_personamem.errors import PersonaMemError


class ReportError(PersonaMemError):
    """The report cannot be made: a missing path, an unusable log or option, no matplotlib."""
