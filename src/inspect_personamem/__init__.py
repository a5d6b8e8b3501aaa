"""PersonaMem (COLM 2025, "Know Me, Respond to Me") as Inspect AI tasks.

The tasks are in `run.tasks` (Inspect finds them through `_registry`); importing the
package imports nothing else, so the report and the command-line tools load only
what they use.
"""
