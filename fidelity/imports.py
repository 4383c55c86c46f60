"""A study's items (CSV) and requests (JSONL), checked whole, then written all or nothing.

Items: a CSV file with the header ``item_id,title,avg_rating,n_ratings``. Requests: a JSONL file
of ``{"id", "request", "answer_items": [...], "answer_text"}``. Every problem names the file,
the line and the field; when there is any, nothing is written and the study keeps what it had.
Files are read from disk a row or line at a time, with the annotation imports' limits and
checks (`annotation.imports`): a JSONL line is at most IMPORT_MAX_TRANSCRIPT_BYTES, a CSV cell
at most the CSV cell limit, JSON nested too deeply is refused, and no text may hold what a
database cannot store (NUL, lone surrogates).
"""

from __future__ import annotations

import csv
import json
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from django.db import transaction

from annotation.imports.csv_rows import csv_records
from annotation.imports.fields import check_storable
from annotation.imports.limits import read_lines
from annotation.imports.problems import FieldError, Problems
from fidelity.models import Study, StudyItem, StudyRequest

ITEM_COLUMNS = ("item_id", "title", "avg_rating", "n_ratings")
_ID_LENGTH = 255
_TITLE_LENGTH = 500
T = TypeVar("T")


@dataclass(frozen=True)
class ItemRow:
    item_id: str
    title: str
    avg_rating: float
    n_ratings: int


@dataclass(frozen=True)
class RequestRow:
    external_id: str
    request: str
    answer_items: tuple[str, ...]
    answer_text: str


def _text(value: Any, name: str, line: int, field: str, problems: Problems, limit: int) -> str:
    text = str(value if value is not None else "").strip()
    if not text:
        problems.note(name, f"field {field}: is empty", line)
    elif len(text) > limit:
        problems.note(name, f"field {field}: is longer than {limit} characters", line)
    return text


def _number(text: str | None, kind: Callable[[str], T], default: T) -> T:
    try:
        return kind((text or "").strip())
    except ValueError:
        return default


def _item_row(fields: dict[str, str], name: str, line: int, problems: Problems) -> ItemRow | None:
    before = problems.total
    item_id = _text(fields.get("item_id"), name, line, "item_id", problems, _ID_LENGTH)
    title = _text(fields.get("title"), name, line, "title", problems, _TITLE_LENGTH)
    rating = _number(fields.get("avg_rating"), float, math.nan)
    if not math.isfinite(rating):
        problems.note(name, f"field avg_rating: {fields.get('avg_rating')!r} is not a number", line)
    count = _number(fields.get("n_ratings"), int, -1)
    if count < 0:
        problems.note(
            name, f"field n_ratings: {fields.get('n_ratings')!r} is not a whole number ≥ 0", line
        )
    return ItemRow(item_id, title, rating, count) if problems.total == before else None


def _checked_cells(values: list[str], header: list[str]) -> dict[str, str]:
    fields = dict(zip(header, values, strict=False))
    check_storable(fields)
    return fields


Progress = Callable[[int], None]


def _no_progress(line: int) -> None:
    """Reading without anyone to tell (the tests, the demo)."""


def read_items(path: Path, progress: Progress = _no_progress) -> list[ItemRow]:
    """Every row of an items CSV; raises ImportFailed naming each problem's line and field.

    The file is read row by row from disk; a row that cannot be read (a cell beyond the CSV
    cell limit, broken quoting, a line that is not UTF-8) stops the reading there. ``progress``
    is told the number of each line read."""
    name = path.name
    problems = Problems()
    rows: list[ItemRow] = []
    seen: dict[str, int] = {}
    with path.open(encoding="utf-8-sig", newline="") as handle:
        reader = csv.reader(handle)
        records = csv_records(reader, path, problems)
        header = [column.strip() for column in next(records, [])]
        missing = [column for column in ITEM_COLUMNS if column not in header]
        if missing and not problems.total:
            problems.note(name, f"the header lacks {', '.join(missing)}", 1)
        problems.raise_if_any()
        line = reader.line_num + 1
        for values in records:
            row_line, line = line, reader.line_num + 1
            progress(row_line)
            if not any(value.strip() for value in values):
                continue
            try:
                fields = _checked_cells(values, header)
            except FieldError as error:
                problems.note(name, f"field {error.path}: {error.message}", row_line)
                continue
            row = _item_row(fields, name, row_line, problems)
            if row is None:
                continue
            if row.item_id in seen:
                first = seen[row.item_id]
                problems.note(
                    name, f"field item_id: {row.item_id!r} is already on line {first}", row_line
                )
                continue
            seen[row.item_id] = row_line
            rows.append(row)
    if not rows and not problems.total:
        problems.note(name, "the file has no items")
    problems.raise_if_any()
    return rows


def _json_lines(path: Path, problems: Problems) -> Iterator[tuple[int, dict[str, Any]]]:
    """Each line's JSON object, read one line at a time (at most IMPORT_MAX_TRANSCRIPT_BYTES
    each); a line that cannot be read, decoded, parsed or stored is a problem of its own."""
    name = path.name
    for line in read_lines(path):
        if line.text is None:
            problems.note(name, f"the line {line.problem}", line.number)
            continue
        if not line.text.strip():
            continue
        try:
            value = json.loads(line.text)
        except json.JSONDecodeError as error:
            problems.note(name, f"not valid JSON ({error.msg})", line.number)
            continue
        except RecursionError:
            problems.note(name, "the JSON is nested too deeply to read", line.number)
            continue
        if not isinstance(value, dict):
            problems.note(name, "a JSON object is expected", line.number)
            continue
        try:
            check_storable(value)
        except FieldError as error:
            problems.note(name, f"field {error.path}: {error.message}", line.number)
            continue
        yield line.number, value


def _request_row(
    value: dict[str, Any], name: str, line: int, problems: Problems
) -> RequestRow | None:
    before = problems.total
    external_id = _text(value.get("id"), name, line, "id", problems, _ID_LENGTH)
    request = _text(value.get("request"), name, line, "request", problems, 100_000)
    items = value.get("answer_items")
    if not isinstance(items, list) or not items:
        problems.note(name, "field answer_items: must be a non-empty list of item ids", line)
        items = []
    elif not all(isinstance(item, str | int) and str(item).strip() for item in items):
        problems.note(name, "field answer_items: every item id must be a non-empty text", line)
    answer_text = value.get("answer_text", "")
    if not isinstance(answer_text, str):
        problems.note(name, "field answer_text: must be text", line)
    if problems.total != before:
        return None
    return RequestRow(external_id, request, tuple(str(i).strip() for i in items), answer_text)


def read_requests(path: Path, progress: Progress = _no_progress) -> list[RequestRow]:
    """Every line of a requests JSONL file; raises ImportFailed naming each problem.
    ``progress`` is told the number of each line read."""
    name = path.name
    problems = Problems()
    rows: list[RequestRow] = []
    seen: dict[str, int] = {}
    for line, value in _json_lines(path, problems):
        progress(line)
        row = _request_row(value, name, line, problems)
        if row is None:
            continue
        if row.external_id in seen:
            first = seen[row.external_id]
            problems.note(name, f"field id: {row.external_id!r} is already on line {first}", line)
            continue
        seen[row.external_id] = line
        rows.append(row)
    if not rows and not problems.total:
        problems.note(name, "the file has no requests")
    problems.raise_if_any()
    return rows


def store_items(study: Study, rows: list[ItemRow]) -> int:
    """Replace the study's items with ``rows``, in one transaction."""
    with transaction.atomic():
        study.items.all().delete()
        StudyItem.objects.bulk_create(
            StudyItem(
                study=study,
                item_id=row.item_id,
                title=row.title,
                avg_rating=row.avg_rating,
                n_ratings=row.n_ratings,
            )
            for row in rows
        )
    return len(rows)


def store_requests(study: Study, rows: list[RequestRow]) -> int:
    """Replace the study's requests with ``rows``, in one transaction."""
    with transaction.atomic():
        study.requests.all().delete()
        StudyRequest.objects.bulk_create(
            StudyRequest(
                study=study,
                external_id=row.external_id,
                request=row.request,
                answer_items=list(row.answer_items),
                answer_text=row.answer_text,
            )
            for row in rows
        )
    return len(rows)
