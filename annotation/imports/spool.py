"""Validated rows spooled to a temporary file, in batches, until the write.

Readers validate the whole input before anything is written; holding every row in memory
until then would cost memory in proportion to the file. A `Spool` keeps one batch of
`BATCH_SIZE` rows in memory and pickles the full ones to a temporary file, and gives them back
batch by batch to the writer.
"""

from __future__ import annotations

import pickle
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import IO, Any

BATCH_SIZE = 1000


@dataclass
class Spool:
    """Validated rows, pickled in batches to a temporary file until the write."""

    file: IO[bytes] = field(default_factory=lambda: tempfile.TemporaryFile())  # noqa: SIM115
    batch: list[Any] = field(default_factory=list)
    count: int = 0

    def add(self, row: Any) -> None:
        self.batch.append(row)
        self.count += 1
        if len(self.batch) >= BATCH_SIZE:
            self.flush()

    def flush(self) -> None:
        if self.batch:
            pickle.dump(self.batch, self.file, protocol=pickle.HIGHEST_PROTOCOL)
            self.batch = []

    def batches(self) -> Iterator[list[Any]]:
        self.flush()
        self.file.seek(0)
        while True:
            try:
                yield pickle.load(self.file)
            except EOFError:
                return

    def close(self) -> None:
        self.file.close()
