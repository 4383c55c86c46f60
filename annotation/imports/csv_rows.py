"""The CSV transcript reader: one row per turn, the rows of a transcript contiguous.

The columns ``id, turn, role, text`` are required; the transcript's own columns (system,
persona, outcome, ...) may sit on any of its rows but must agree where repeated. Lists are
separated by ``|``. A problem names the CSV column and the line it came from, not the field
of the JSON shape the row becomes.
"""

from __future__ import annotations

import csv
import json
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from annotation.imports.limits import read_lines, too_large, transcript_limit
from annotation.imports.problems import FieldError, ImportFailed, Problem, Problems
from annotation.imports.progress import Progress, count_lines, report_line
from annotation.imports.result import ImportResult
from annotation.imports.shape import TURN_ROLES
from annotation.imports.writer import (
    REFUSE,
    TranscriptBatchWriter,
    import_validated,
    resolve_campaign,
)
from evalsite.storable_text import unstorable

_CSV_REQUIRED = ("id", "turn", "role", "text")
_CSV_TRANSCRIPT_COLUMNS = (
    "system",
    "dataset",
    "lang",
    "persona_emotion",
    "persona_age_group",
    "persona_text",
    "preferences",
    "accepted",
    "accepted_items",
    "accepted_turn",
    "metadata",
)
_CSV_TURN_COLUMNS = ("items", "success", "feelings")
_CSV_COLUMNS = {*_CSV_REQUIRED, *_CSV_TRANSCRIPT_COLUMNS, *_CSV_TURN_COLUMNS}
# Where a field of the JSON shape comes from in the CSV, for messages.
_CSV_FIELD_COLUMNS = {
    "id": "id",
    "system": "system",
    "dataset": "dataset",
    "lang": "lang",
    "persona.emotion": "persona_emotion",
    "persona.age_group": "persona_age_group",
    "persona.text": "persona_text",
    "preferences": "preferences",
    "outcome.accepted": "accepted",
    "outcome.accepted_items": "accepted_items",
    "outcome.turn": "accepted_turn",
    "metadata": "metadata",
}
_TRUE = {"true", "yes", "1"}
_FALSE = {"false", "no", "0"}


def _csv_list(text: str) -> list[str]:
    return [part.strip() for part in text.split("|") if part.strip()]


def _csv_bool(text: str, column: str) -> bool | None:
    value = text.strip().lower()
    if not value:
        return None
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise FieldError(column, "must be true or false (or empty)")


@dataclass
class _CsvTranscript:
    external_id: str
    first_line: int
    values: dict[str, str] = field(default_factory=dict)
    value_lines: dict[str, int] = field(default_factory=dict)
    turns: list[dict[str, Any]] = field(default_factory=list)
    size: int = 0

    def as_json_shape(self) -> dict[str, Any]:
        values = self.values
        shape: dict[str, Any] = {"id": self.external_id, "turns": self.turns}
        for name in ("system", "dataset", "lang"):
            if name in values:
                shape[name] = values[name]
        persona = {
            key: values[column]
            for key, column in (
                ("emotion", "persona_emotion"),
                ("age_group", "persona_age_group"),
                ("text", "persona_text"),
            )
            if column in values
        }
        if persona:
            shape["persona"] = persona
        if "preferences" in values:
            shape["preferences"] = _csv_list(values["preferences"])
        if "metadata" in values:
            try:
                shape["metadata"] = json.loads(values["metadata"])
            except json.JSONDecodeError as exc:
                raise FieldError("metadata", f"must be a JSON object ({exc.msg})") from None
        if {"accepted", "accepted_items", "accepted_turn"} & set(values):
            turn_text = values.get("accepted_turn", "").strip()
            if turn_text and not turn_text.isdigit():
                raise FieldError("outcome.turn", "must be a turn number or empty")
            shape["outcome"] = {
                "accepted": _csv_bool(values.get("accepted", ""), "outcome.accepted"),
                "accepted_items": _csv_list(values.get("accepted_items", "")),
                "turn": int(turn_text) if turn_text else None,
            }
        return shape


def import_csv(
    path: str | Path,
    campaign: str,
    *,
    on_annotated: str = REFUSE,
    progress: Progress | None = None,
) -> ImportResult:
    """One row per turn; the rows of a transcript are contiguous and numbered from 1."""
    path = Path(path)
    _, rubric = resolve_campaign(campaign)
    writer = TranscriptBatchWriter(rubric, on_annotated=on_annotated)
    problems = Problems()
    started = time.perf_counter()
    estimate = count_lines(path)
    rows_read = 0
    limit = transcript_limit()
    with path.open(encoding="utf-8-sig", newline="") as handle:
        reader = csv.reader(handle)
        records = csv_records(reader, path, problems)
        header = next(records, None)
        if header is None:
            problems.raise_if_any()
            raise ImportFailed([Problem(path.name, "is empty")])
        columns = [name.strip() for name in header]
        missing = [name for name in _CSV_REQUIRED if name not in columns]
        unknown = [name for name in columns if name not in _CSV_COLUMNS]
        if missing or unknown:
            message = (
                f"missing column {missing[0]!r}" if missing else f"unknown column {unknown[0]!r}"
            )
            raise ImportFailed([Problem(path.name, message, 1)])
        current: _CsvTranscript | None = None
        broken = False
        finished: dict[str, int] = {}

        def close(transcript: _CsvTranscript | None, is_broken: bool) -> None:
            if transcript is None:
                return
            finished[transcript.external_id] = transcript.first_line
            if is_broken:
                return
            try:
                writer.add(transcript.as_json_shape(), f"line {transcript.first_line}")
            except FieldError as exc:
                column = _CSV_FIELD_COLUMNS.get(exc.path, exc.path)
                line = transcript.value_lines.get(column, transcript.first_line)
                problems.add(Problem(path.name, f"{column} {exc.message}", line))

        line_no = reader.line_num + 1
        for record in records:
            record_line, line_no = line_no, reader.line_num + 1
            rows_read += 1
            report_line(progress, rows_read, 2 * estimate, record_line)
            if not any(cell.strip() for cell in record):
                continue
            if len(record) != len(columns):
                problems.add(
                    Problem(
                        path.name,
                        f"has {len(record)} cells; the header has {len(columns)}",
                        record_line,
                    )
                )
                continue
            cells = dict(zip(columns, record, strict=True))
            external_id = cells["id"].strip()
            if current is None or external_id != current.external_id:
                close(current, broken)
                current, broken = None, False
                if not external_id:
                    problems.add(Problem(path.name, "id must not be empty", record_line))
                    broken = True
                    continue
                if external_id in finished:
                    problems.add(
                        Problem(
                            path.name,
                            f"id {external_id!r} continues after other rows; the rows of a "
                            f"transcript must be contiguous (it began on line "
                            f"{finished[external_id]})",
                            record_line,
                        )
                    )
                    broken = True
                    continue
                current = _CsvTranscript(external_id, record_line)
            if broken:
                continue
            if (bad := _unstorable_cell(cells)) is not None:
                problems.add(Problem(path.name, bad, record_line))
                broken = True
                continue
            current.size += sum(len(cell.encode()) for cell in record)
            if current.size > limit:
                problems.add(
                    Problem(path.name, f"id {external_id!r} {too_large(limit)}", record_line)
                )
                broken = True
                continue
            try:
                _csv_turn(current, cells, record_line)
            except FieldError as exc:
                problems.add(Problem(path.name, str(exc), record_line))
                broken = True
        close(current, broken)
    return import_validated(
        campaign, rubric, writer, problems, ImportResult(), progress, rows_read, started
    )


def csv_records(reader: Iterator[list[str]], path: Path, problems: Problems) -> Iterator[list[str]]:
    """The reader's records until one cannot be read; that one becomes a problem with its line
    (reading stops there, since the rest of the file can no longer be split into rows)."""
    line_num = getattr(reader, "line_num", 0)
    while True:
        try:
            record = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            line = getattr(reader, "line_num", line_num) or 1
            if "field larger than field limit" in str(exc):
                message = (
                    f"a cell is longer than {csv.field_size_limit():,} characters, "
                    "the most a CSV cell may hold; reading stopped here"
                )
            else:
                message = f"cannot be read as CSV ({exc}); reading stopped here"
            problems.add(Problem(path.name, message, line))
            return
        except UnicodeDecodeError:
            bad = next((line for line in read_lines(path, 2**62) if line.text is None), None)
            number = bad.number if bad is not None else None
            detail = bad.problem if bad is not None else "is not valid UTF-8"
            problems.add(Problem(path.name, f"the line {detail}", number))
            return
        yield record


def _unstorable_cell(cells: dict[str, str]) -> str | None:
    """The first cell no database can store (NUL, lone surrogate), named by its column."""
    for column, cell in cells.items():
        if (problem := unstorable(cell)) is not None:
            return f"{column} cannot be stored: {problem}"
    return None


def _csv_turn(transcript: _CsvTranscript, cells: dict[str, str], line: int) -> None:
    expected = len(transcript.turns) + 1
    if cells["turn"].strip() != str(expected):
        raise FieldError("turn", f"must be {expected} (turns are numbered from 1, in order)")
    role = cells["role"].strip()
    if role not in TURN_ROLES:
        raise FieldError("role", "must be 'user' or 'system'")
    turn: dict[str, Any] = {"role": role, "text": cells["text"]}
    if cells.get("items", "").strip():
        turn["items"] = _csv_list(cells["items"])
    success = _csv_bool(cells.get("success", ""), "success")
    if success is not None:
        turn["success"] = success
    if cells.get("feelings", "").strip():
        turn["feelings"] = cells["feelings"]
    for column in _CSV_TRANSCRIPT_COLUMNS:
        value = cells.get(column, "")
        if not value.strip():
            continue
        known = transcript.values.get(column)
        if known is None:
            transcript.values[column] = value
            transcript.value_lines[column] = line
        elif known != value:
            raise FieldError(
                column,
                f"is {value!r} here but {known!r} on line {transcript.value_lines[column]}; "
                f"a transcript's rows must agree",
            )
    transcript.turns.append(turn)
