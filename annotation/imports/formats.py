"""The formats an import reads, and the entry point that picks the reader for a file.

Transcripts come as JSONL, CSV or a Concept4CRS folder or zip (`FORMATS`); LLM scores as
JSONL or CSV (`SCORE_FORMATS`). `guess_format` names the format from the path;
`detect_format` from the name *and* the first bytes, and refuses a file whose name and
content disagree, naming the file.
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
        raise ImportFailed([Problem(Path(path).name, f"unknown format {format!r}")])
    if not Path(path).exists():
        raise ImportFailed([Problem(Path(path).name, "does not exist")])
    if (too_large := file_too_large(Path(path))) is not None:
        raise ImportFailed([Problem(Path(path).name, too_large)])
    if personas is not None and format != "concept4crs":
        raise ImportFailed(
            [Problem(Path(personas).name, "personas apply to concept4crs imports only")]
        )
    if dedupe_cells and format != "concept4crs":
        raise ImportFailed(
            [Problem(Path(path).name, "deduplicating cells applies to concept4crs imports only")]
        )
    if on_annotated not in ON_ANNOTATED:
        raise ImportFailed(
            [Problem(Path(path).name, f"unknown choice {on_annotated!r} for annotated")]
        )
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


# What each format's files are called, and how their first bytes read.
SUFFIXES = {".jsonl": "jsonl", ".ndjson": "jsonl", ".csv": "csv", ".zip": "concept4crs"}
_ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")
HEAD_BYTES = 4096


class FormatError(ValueError):
    """A file whose format cannot be told, or whose name and content disagree."""

    def __init__(
        self, name: str, reason: str, *, named: str | None = None, looks: str | None = None
    ) -> None:
        super().__init__(f"{name}: {reason}")
        self.name = name
        # The format the name says (None: an unknown extension) and the one the content shows.
        self.named = named
        self.looks = looks


def content_format(head: bytes) -> str | None:
    """The format the first bytes of a file look like: a zip archive, JSON lines (the first
    thing written is an object), or CSV (a first line with commas); None if none of these."""
    if head.startswith(_ZIP_MAGIC):
        return "concept4crs"
    text = head.decode("utf-8-sig", errors="replace").lstrip()
    if text.startswith("{"):
        return "jsonl"
    first_line = text.split("\n", 1)[0]
    if "," in first_line and not first_line.startswith(("[", "<")):
        return "csv"
    return None


def detect_format(name: str, head: bytes) -> str:
    """The format of the file called ``name`` whose first bytes are ``head``, told by its
    extension and confirmed by its content; raises `FormatError` naming the file."""
    by_name = SUFFIXES.get(Path(name).suffix.lower())
    if by_name is None:
        raise FormatError(name, "unknown file type; upload a .jsonl, .csv or Concept4CRS .zip file")
    by_content = content_format(head)
    if by_content != by_name:
        looks = FORMAT_NAMES.get(by_content or "", "none of JSONL, CSV or a zip archive")
        raise FormatError(
            name,
            f"the name says {FORMAT_NAMES[by_name]} but the content looks like {looks}",
            named=by_name,
            looks=by_content,
        )
    return by_name


FORMAT_NAMES = {"jsonl": "JSONL", "csv": "CSV", "concept4crs": "a zip archive"}
