"""Transcripts other apps produce themselves, already parsed into the JSONL shape.

`import_rows` validates them with the same rules as a file and writes them the same way, all
or nothing; problems read ``<source> row N: <field> ...``.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping
from typing import Any

from annotation.imports.problems import FieldError, Problem, Problems
from annotation.imports.progress import Progress
from annotation.imports.result import ImportResult
from annotation.imports.writer import TranscriptBatchWriter, import_validated, resolve_campaign
from annotation.models import Campaign


def import_rows(
    campaign: Campaign | str,
    rows: Iterable[Mapping[str, Any]],
    *,
    source: str = "rows",
    progress: Progress | None = None,
) -> ImportResult:
    """Import already-parsed transcripts (the JSONL shape) into ``campaign``, all or nothing.

    The entry point for other apps that produce transcripts themselves; problems are
    reported as ``<source> row N: <field> ...``.
    """
    name = campaign.name if isinstance(campaign, Campaign) else campaign
    _, rubric = resolve_campaign(name)
    writer = TranscriptBatchWriter(rubric)
    problems = Problems()
    started = time.perf_counter()
    count = 0
    for count, row in enumerate(rows, start=1):
        try:
            writer.add(dict(row), f"row {count}")
        except FieldError as exc:
            problems.add(Problem(source, str(exc), count, unit="row"))
    return import_validated(
        name, rubric, writer, problems, ImportResult(), progress, count, started
    )
