"""Write the table of a released question file's rows (`data/released_rows.py`) from a
byte-exact copy of it, which the release check must first accept as released.

    python scripts/released_rows.py ../shared/data/questions_32k.csv

tests/datasets/v1/test_v1_released_rows.py holds the shipped table equal to what this writes.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from inspect_personamem.datasets.v1.released_rows import table_path, write_table
from inspect_personamem.datasets.v1.spec import PERSONAMEM


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("questions", type=Path, help="a byte-exact released question file")
    path = parser.parse_args().questions
    split = PERSONAMEM.split_of_questions(path)
    if split is None:
        raise SystemExit(f"{path}: not named as a question file of {PERSONAMEM.name}")
    released = PERSONAMEM.released[split]
    records = PERSONAMEM.read_questions(path, split)
    difference = released.difference(path.name, path, len(records))
    if difference is not None or released.sha256 is None:
        raise SystemExit(f"{path}: not checked byte for byte as the released file ({difference})")
    target = table_path(path.name)
    target.parent.mkdir(exist_ok=True)
    write_table(target, records)
    print(f"{target}: {len(records)} rows")


if __name__ == "__main__":
    main()
