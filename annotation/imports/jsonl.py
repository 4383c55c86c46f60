"""The JSONL transcript reader: one transcript per line, in the shape of ``docs/import-formats.md``.

Blank lines are allowed; a line that is not UTF-8, not JSON, nested too deeply, larger than
a transcript may be, or not a valid transcript, is a problem named by its line number.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from annotation.imports.limits import read_lines
from annotation.imports.problems import FieldError, Problem, Problems
from annotation.imports.progress import Progress, count_lines, report_line
from annotation.imports.result import ImportResult
from annotation.imports.writer import (
    REFUSE,
    TranscriptBatchWriter,
    import_validated,
    resolve_campaign,
)


def import_jsonl(
    path: str | Path,
    campaign: str,
    *,
    on_annotated: str = REFUSE,
    progress: Progress | None = None,
) -> ImportResult:
    """One transcript per line; blank lines are allowed."""
    path = Path(path)
    _, rubric = resolve_campaign(campaign)
    writer = TranscriptBatchWriter(rubric, on_annotated=on_annotated)
    problems = Problems()
    started = time.perf_counter()
    estimate = count_lines(path)
    line_no = 0
    for line in read_lines(path):
        line_no = line.number
        report_line(progress, line_no, 2 * estimate, line_no)
        if line.text is None:
            problems.add(Problem(path.name, f"the line {line.problem}", line_no))
            continue
        if not line.text.strip():
            continue
        try:
            value = json.loads(line.text)
        except json.JSONDecodeError as exc:
            problems.add(
                Problem(path.name, f"not valid JSON ({exc.msg}, column {exc.colno})", line_no)
            )
            continue
        except RecursionError:
            problems.add(Problem(path.name, "the JSON is nested too deeply to read", line_no))
            continue
        try:
            writer.add(value, f"line {line_no}")
        except FieldError as exc:
            problems.add(Problem(path.name, str(exc), line_no))
    return import_validated(
        campaign, rubric, writer, problems, ImportResult(), progress, line_no, started
    )
