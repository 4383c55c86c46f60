"""Time a 100,000-row workbook through evalsite.spreadsheets against raw openpyxl write-only.

Both write the same rows (item id, rater, dimension, score, human mean, free text, one row in
ten of which starts like a formula) to a temporary file in the same run. Run from the repository
root: ``python bench/export.py``.
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from openpyxl import Workbook

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from evalsite.spreadsheets import CellValue, Sheet, write_workbook

ROWS = 100_000
HEADER = ["item", "rater", "dimension", "score", "human_mean", "comment"]
DIMENSIONS = ("fluency", "coherence", "informativeness", "engagement")


def rows() -> Iterator[list[CellValue]]:
    for number in range(ROWS):
        comment = "=too short" if number % 10 == 0 else f"clear answer, turn {number % 7}"
        yield [
            f"t{number // 4:05d}",
            f"annotator{number % 3 + 1}",
            DIMENSIONS[number % 4],
            number % 5 + 1,
            (number % 13) / 3 + 1,
            comment,
        ]


def write_raw(path: Path) -> None:
    workbook = Workbook(write_only=True)
    sheet = workbook.create_sheet("scores")
    sheet.append(HEADER)
    for row in rows():
        sheet.append(row)
    workbook.save(path)


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        started = time.perf_counter()
        write_workbook(Path(folder) / "safe.xlsx", [Sheet("scores", HEADER, rows())])
        seconds = time.perf_counter() - started
        print(f"evalsite.spreadsheets: {ROWS:,} rows in {seconds:.2f} s")

        started = time.perf_counter()
        write_raw(Path(folder) / "raw.xlsx")
        raw_seconds = time.perf_counter() - started
        print(f"raw openpyxl write-only: {ROWS:,} rows in {raw_seconds:.2f} s")
    print(
        json.dumps(
            {
                "rows": ROWS,
                "seconds": round(seconds, 3),
                "raw_seconds": round(raw_seconds, 3),
                "ratio": round(seconds / raw_seconds, 3),
            }
        )
    )


if __name__ == "__main__":
    main()
