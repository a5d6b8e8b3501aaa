"""A search result of `memory=mcp` read into memory items, as the config's `search`
section says (`mcp_config.Reading`): its text blocks and structured content.

Pure: no MCP client.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from inspect_personamem.history.memory.interface import MemoryItem
from inspect_personamem.history.memory.mcp_config import Reading


def read_items(texts: Sequence[str], structured: Any, reading: Reading) -> list[MemoryItem]:
    """The items of a search result, from its text blocks and its structured content
    (None where the server sent none); a `ValueError` saying what is malformed."""
    if reading.results == "text":
        return [MemoryItem(text=text) for text in texts]
    value = structured
    if value is None:
        if not texts:
            return []
        if len(texts) > 1:
            raise ValueError(f"{len(texts)} text blocks and no structured content, not one JSON")
        try:
            value = json.loads(texts[0])
        except ValueError:
            raise ValueError(f"text that is not JSON: {texts[0][:80]!r}") from None
    for key in filter(None, reading.items.split(".")):
        if not isinstance(value, Mapping) or key not in value:
            raise ValueError(f"no key {reading.items!r} in {_shape(value)}")
        value = value[key]
    if not isinstance(value, list):
        raise ValueError(f"{_shape(value)} at {reading.items or 'the top level'!r}, not a list")
    return [_item(element, index, reading) for index, element in enumerate(value)]


def _item(element: Any, index: int, reading: Reading) -> MemoryItem:
    """One element of the result's list as an item."""
    if isinstance(element, str):
        return MemoryItem(text=element)
    if not isinstance(element, Mapping):
        raise ValueError(f"item {index} is {_shape(element)}, not a string or an object")
    text = element.get(reading.text)
    if isinstance(text, list) and all(isinstance(line, str) for line in text):
        text = "\n".join(text)
    if not isinstance(text, str):
        raise ValueError(f"item {index} has no text in field {reading.text!r}")
    score = element.get(reading.score) if reading.score else None
    if score is not None and (isinstance(score, bool) or not isinstance(score, int | float)):
        raise ValueError(f"item {index}'s {reading.score!r} is {score!r}, not a number")
    position = element.get(reading.position) if reading.position else None
    if isinstance(position, str) and position.isdecimal():
        position = int(position)
    if position is not None and (isinstance(position, bool) or not isinstance(position, int)):
        raise ValueError(f"item {index}'s {reading.position!r} is {position!r}, not an integer")
    return MemoryItem(text=text, score=score, position=position)


def _shape(value: Any) -> str:
    return f"an object with keys {sorted(value)[:8]}" if isinstance(value, Mapping) else (
        f"a {type(value).__name__}"
    )  # fmt: skip
