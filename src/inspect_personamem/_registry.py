"""Entry point for Inspect: importing this module registers the tasks and the
offline `personamem/oracle` model."""

from inspect_ai.model import ModelAPI, modelapi

from .tasks import personamem, personamem_1M, personamem_32k, personamem_128k


@modelapi(name="personamem")
def personamem_oracle() -> type[ModelAPI]:
    """`--model personamem/oracle`: see `oracle.py` (imported only when used)."""
    from .offline.oracle import OracleModel

    return OracleModel


__all__ = [
    "personamem",
    "personamem_32k",
    "personamem_128k",
    "personamem_1M",
    "personamem_oracle",
]
