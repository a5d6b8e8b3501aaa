"""Entry point for Inspect: importing this module registers every dataset version's
tasks (`run.tasks`) and the offline models of the `personamem` provider:
`personamem/oracle` and `personamem/floor`."""

from typing import Any, cast

from inspect_ai.model import ModelAPI, modelapi

from inspect_personamem.errors import PersonaMemArgumentError
from inspect_personamem.run.tasks import (
    personamem,
    personamem_1M,
    personamem_32k,
    personamem_128k,
    personamem_v2,
    personamem_v2_32k,
    personamem_v2_128k,
    personamem_v3,
)


def _offline_model(model_name: str, *args: Any, **kwargs: Any) -> ModelAPI:
    """The offline model `personamem/<model_name>` names (imported only when used)."""
    from inspect_personamem.offline.floor import FloorModel
    from inspect_personamem.offline.oracle import OracleModel

    models: dict[str, type[ModelAPI]] = {"oracle": OracleModel, "floor": FloorModel}
    if model_name not in models:
        raise PersonaMemArgumentError(
            f"personamem/{model_name}: no such model; choose personamem/oracle (knows the "
            "answers) or personamem/floor (a model-free baseline)"
        )
    return models[model_name](model_name, *args, **kwargs)


@modelapi(name="personamem")
def personamem_models() -> type[ModelAPI]:
    """`--model personamem/oracle` (`offline/oracle.py`), `personamem/floor`
    (`offline/floor.py`)."""
    return cast(type[ModelAPI], _offline_model)


__all__ = [
    "personamem",
    "personamem_32k",
    "personamem_128k",
    "personamem_1M",
    "personamem_v2",
    "personamem_v2_32k",
    "personamem_v2_128k",
    "personamem_v3",
    "personamem_models",
]
