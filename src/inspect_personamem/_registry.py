"""Entry point for Inspect: importing this module registers every dataset version's
tasks (`run.tasks.TASKS`) and the offline models of the `personamem` provider:
`personamem/oracle` and `personamem/floor`."""

from typing import Any, cast

from inspect_ai.model import ModelAPI, modelapi

from inspect_personamem.errors import PersonaMemArgumentError
from inspect_personamem.run.tasks import TASKS

globals().update(TASKS)  # `from inspect_personamem._registry import personamem_32k`


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


__all__ = [*TASKS, "personamem_models"]
