"""Write the package's entry for inspect_evals' register (`register/<name>/eval.yaml`):
its title and description, the repository and the commit the register pins, its
maintainers, and every registered task (`run.tasks.TASKS`) with the path Inspect runs
it by.

    python scripts/register_entry.py --repository-url https://github.com/OWNER/REPO \\
        --commit SHA --maintainer GITHUB_USER [--maintainer ...] [--out eval.yaml]

The repository and commit are arguments, not a file kept here: they are known only
where the package is published, and the register's schema (`register_entry.schema.json`,
written from its documented fields) takes no placeholder for a 40-character commit.
`task_path` is the task's registry name (`inspect_personamem/personamem_32k`): the tasks
are built from the registry of dataset versions, so Inspect finds them by that name
once the package is installed, not by a file and function name.
tests/test_register_entry.py holds the output valid against the schema.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import jsonschema
import yaml

from inspect_personamem.run.tasks import TASKS

SCHEMA = Path(__file__).with_name("register_entry.schema.json")
PACKAGE = "inspect_personamem"
TITLE = "PersonaMem: Know Me, Respond to Me"
DESCRIPTION = (
    "Whether a chatbot remembers a user's evolving preferences over long conversation "
    "histories (32k, 128k and 1M tokens) and answers in line with them: PersonaMem "
    "(COLM 2025) and PersonaMem-v2, with the official prompt and answer extraction, "
    "accuracy per question type, topic and distance, clustered standard errors, "
    "retrieval and memory settings, and open answers graded by a calibrated grader."
)


def entry(repository_url: str, commit: str, maintainers: list[str]) -> dict[str, Any]:
    """The register entry, checked against the schema (an error names the field)."""
    written = {
        "title": TITLE,
        "description": DESCRIPTION,
        "source": {
            "repository_url": repository_url,
            "repository_commit": commit,
            "maintainers": maintainers,
        },
        "tasks": [{"name": name, "task_path": f"{PACKAGE}/{name}"} for name in TASKS],
    }
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    try:
        jsonschema.validate(written, schema)
    except jsonschema.ValidationError as error:
        where = ".".join(str(part) for part in error.absolute_path)
        raise SystemExit(f"register entry: {where}: {error.message}") from None
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repository-url", required=True, help="https://github.com/OWNER/REPO")
    parser.add_argument("--commit", required=True, help="the 40-character commit to pin")
    parser.add_argument(
        "--maintainer", action="append", required=True, help="a maintainer (repeat for more)"
    )
    parser.add_argument("--out", type=Path, help="file to write (default: standard output)")
    args = parser.parse_args(argv)
    text = yaml.safe_dump(
        entry(args.repository_url, args.commit, args.maintainer), sort_keys=False, width=88
    )
    if args.out is None:
        sys.stdout.write(text)
    else:
        args.out.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
