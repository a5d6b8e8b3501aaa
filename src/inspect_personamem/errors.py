"""The one exception type for bad or missing PersonaMem data.

Every message names the file and, where there is one, the question id (or line)
and the field, so that a user can find the faulty spot without a debugger.
"""

from __future__ import annotations

from pathlib import Path


class PersonaMemDataError(ValueError):
    """PersonaMem files are missing, unreadable or inconsistent."""

    @classmethod
    def at(
        cls,
        file: Path | str,
        message: str,
        *,
        question_id: str | None = None,
        field: str | None = None,
        line: int | None = None,
    ) -> PersonaMemDataError:
        """Build an error whose text locates the problem in the file."""
        where = [str(file)]
        if line is not None:
            where.append(f"line {line}")
        if question_id is not None:
            where.append(f"question_id {question_id}")
        if field is not None:
            where.append(f"field '{field}'")
        return cls(f"{', '.join(where)}: {message}")
