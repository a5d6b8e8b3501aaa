"""What every task function must declare, so that its explicit signature and the
parameter tables cannot drift apart (`assert_declares`)."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from inspect_personamem.datasets.base import DatasetVersion
from inspect_personamem.run.arguments import owners, parameters
from inspect_personamem.run.build import UNKNOWN


def assert_declares(
    function: Callable[..., Any], version: DatasetVersion[Any], fixed: str | None = None
) -> None:
    """`function`, a task of `version` (fixing `version.fixed` to `fixed`, where given),
    takes every parameter the tables declare but the fixed one, in their order, by name
    or position, typed as their kind (or None where that is the default), with their
    defaults, then only `**unknown`; its docstring opens with the version's summary; and
    each parameter that some axis value reads sits under a comment naming those values
    (`# history=rag, history=tools`), the others under none."""
    declared = [p for p in parameters(version).values() if fixed is None or p.name != version.fixed]
    *named, rest = inspect.signature(function, eval_str=True).parameters.values()
    assert (rest.name, rest.kind) == (UNKNOWN, inspect.Parameter.VAR_KEYWORD)
    assert [p.name for p in named] == [p.name for p in declared]
    for taken, parameter in zip(named, declared, strict=True):
        kind = parameter.kind if parameter.default is not None else parameter.kind | None
        assert taken.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD, taken.name
        assert (taken.annotation, taken.default) == (kind, parameter.default), taken.name
    assert " ".join((function.__doc__ or "").split("\n\n")[0].split()) == version.summary
    assert _grouped_under(function) == {
        p.name: ", ".join(owners(p.name, version)) for p in declared
    }


def _grouped_under(function: Callable[..., Any]) -> dict[str, str]:
    """Each parameter of `function`'s source -> the comment above it (`history=rag`), or
    empty before the first."""
    source = inspect.getsource(inspect.unwrap(function))
    signature = source.partition("(\n")[2].partition("\n) -> ")[0]
    comment, found = "", {}
    for line in (line.strip() for line in signature.splitlines()):
        if line.startswith("# "):
            comment = line.removeprefix("# ")
        elif not line.startswith("**"):
            found[line.partition(":")[0]] = comment
    return found
