"""Values kept by key for as long as they are among the last used: what a run keeps of
its personas (`datasets.v3.persona.streams.PersonaStreams`, a persona as read;
`histories.PersonaContexts`, a persona's whole blocks), where keeping every one would
hold them all for the run."""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class LastUsed(Generic[K, V]):
    """At most `size` values (None: every one), the one used longest ago let go first."""

    def __init__(self, size: int | None) -> None:
        if size is not None and size < 1:
            raise ValueError(f"keep at least 1 value, or None for all; found {size}")
        self.size = size
        self._kept: dict[K, V] = {}
        """The values kept, the last used last."""

    def get(self, key: K, make: Callable[[], V]) -> V:
        """`key`'s value, made by `make` where it is not kept. The oldest is let go before
        `make` runs, so no more than `size` are ever held at once."""
        value = self._kept.pop(key, None)
        if value is None:
            while self.size is not None and len(self._kept) >= self.size:
                del self._kept[next(iter(self._kept))]
            value = make()
        self._kept[key] = value
        return value
