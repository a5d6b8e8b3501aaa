"""PersonaMem (COLM 2025, "Know Me, Respond to Me") as Inspect AI tasks."""

from .tasks import personamem, personamem_1M, personamem_32k, personamem_128k

__all__ = ["personamem", "personamem_32k", "personamem_128k", "personamem_1M"]
