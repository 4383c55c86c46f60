"""The formats an import reads, and the entry point that picks the reader for a file.

Transcripts come as JSONL, CSV or a Concept4CRS folder or zip (`FORMATS`); LLM scores as
JSONL or CSV (`SCORE_FORMATS`). `guess_format` names the format from the path.
"""

from __future__ import annotations

from pathlib import Path

from annotation.imports.concept4crs import import_concept4crs
from annotation.imports.csv_rows import import_csv
from annotation.imports.jsonl import import_jsonl
from annotation.imports.limits import file_too_large
from annotation.imports.problems import ImportFailed, Problem
from annotation.imports.progress import Progress
from annotation.imports.result import ImportResult
from annotation.imports.writer import ON_ANNOTATED, REFUSE

FORMATS = ("jsonl", "csv", "concept4crs")
SCORE_FORMATS = ("jsonl", "csv")


def import_transcripts(
    path: str | Path,
    campaign: str,
    *,
    format: str,
    personas: str | Path | None = None,
    dedupe_cells: bool = False,
    on_annotated: str = REFUSE,
    progress: Progress | None = None,
) -> ImportResult:
    """Import a transcript file in ``format`` into the campaign named ``campaign``.

    The campaign is created with the default rubric when it does not exist yet (in the same
    transaction as the transcripts, so a failed import leaves no empty campaign behind).
    ``on_annotated`` is ``refuse`` (rows of annotated transcripts fail the import, named) or
    ``version`` (they become new versions; the annotated text keeps its scores).
    """
    if format not in FORMATS:
        raise ImportFailed([Problem(str(path), f"unknown format {format!r}")])
    if not Path(path).exists():
        raise ImportFailed([Problem(str(path), "does not exist")])
    if (too_large := file_too_large(Path(path))) is not None:
        raise ImportFailed([Problem(str(path), too_large)])
    if personas is not None and format != "concept4crs":
        raise ImportFailed([Problem(str(personas), "personas apply to concept4crs imports only")])
    if dedupe_cells and format != "concept4crs":
        raise ImportFailed(
            [Problem(str(path), "deduplicating cells applies to concept4crs imports only")]
        )
    if on_annotated not in ON_ANNOTATED:
        raise ImportFailed([Problem(str(path), f"unknown choice {on_annotated!r} for annotated")])
    if format == "jsonl":
        return import_jsonl(path, campaign, on_annotated=on_annotated, progress=progress)
    if format == "csv":
        return import_csv(path, campaign, on_annotated=on_annotated, progress=progress)
    return import_concept4crs(
        path,
        campaign,
        personas=personas,
        dedupe_cells=dedupe_cells,
        on_annotated=on_annotated,
        progress=progress,
    )


def guess_format(path: str | Path) -> str | None:
    path = Path(path)
    if path.is_dir() or path.suffix.lower() == ".zip":
        return "concept4crs"
    return {".jsonl": "jsonl", ".ndjson": "jsonl", ".csv": "csv"}.get(path.suffix.lower())
