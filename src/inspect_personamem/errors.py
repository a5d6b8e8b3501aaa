"""The exceptions the package raises on purpose: bad data, bad arguments, missing files.

Every message names the file and, where there is one, the question id (or line)
and the field, so that a user can find the faulty spot without a debugger.

They are Inspect's `PrerequisiteError`s as well as `ValueError`s: the `inspect`
command prints such an error as its message alone, without a traceback (its
exception hook), and `inspect-personamem` does the same. They are raised while the
task is created, so a run stops before any sample starts. `PrerequisiteError` lives
in a private Inspect module; should it move, the errors stay plain `ValueError`s
(with tracebacks) rather than break the package. They are plain `ValueError`s too in
the process of the apps' MCP server (`datasets/v3/agent/server.py`), whose command
makes Inspect unimportable so that a start does not pay for Inspect's import: that
server prints its errors itself, as one line.
"""

from __future__ import annotations

from pathlib import Path

try:  # inspect-ai 0.3.x: the CLI's exception hook prints these without a traceback
    from inspect_ai._util.error import PrerequisiteError as _Quiet
except ImportError:  # pragma: no cover - a future Inspect without it; the apps' server

    class _Quiet(Exception):  # type: ignore[no-redef]
        def __init__(self, message: str) -> None:
            self.message = message


class PersonaMemError(ValueError, _Quiet):
    """An error the package raises on purpose, printed as its message alone."""

    def __init__(self, message: str) -> None:
        ValueError.__init__(self, message)
        # Inspect prints `message` through rich, which reads `[...]` as markup
        self.message = _escape_markup(message)


class PersonaMemDataError(PersonaMemError):
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


class PersonaMemArgumentError(PersonaMemError):
    """A task argument (or a command option) outside what it accepts."""


def _escape_markup(text: str) -> str:
    try:
        from rich.markup import escape
    except ImportError:  # pragma: no cover - rich comes with Inspect
        return text
    return escape(text)
