"""Entry point for Inspect: importing this module registers the tasks."""

from .tasks import personamem, personamem_1M, personamem_32k, personamem_128k

__all__ = ["personamem", "personamem_32k", "personamem_128k", "personamem_1M"]
