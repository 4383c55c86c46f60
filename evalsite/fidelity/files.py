"""The response files' rows, each with its line number, and the problems found in them.

A file is read whole before anything is measured: every problem is collected with its line and
field, and `Problems.raise_if_any` raises one `InputError` whose message names the first and
counts the rest, so that a bad file gives one line a person can act on.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from evalsite.agreement.common import InputError

# A row of a response file: its fields by name (JSON values, or CSV text).
Record = dict[str, object]


@dataclass(frozen=True)
class Row:
    line: int
    fields: Record


@dataclass
class Problems:
    """Problems found so far, in file order."""

    found: list[str] = field(default_factory=list)

    def add(self, line: int, name: str, message: str) -> None:
        self.found.append(f"line {line}, field {name}: {message}")

    def raise_if_any(self) -> None:
        if not self.found:
            return
        more = len(self.found) - 1
        suffix = f" (and {more} more problem{'s' if more > 1 else ''})" if more else ""
        raise InputError(self.found[0] + suffix)


def _opened_text(path: Path) -> Iterator[str]:
    try:
        with open(path, encoding="utf-8-sig", newline="") as handle:
            yield from handle
    except UnicodeDecodeError as error:
        raise InputError(f"the file is not UTF-8 text (byte {error.start})") from error
    except OSError as error:
        raise InputError(f"the file cannot be read ({error.strerror})") from error


def jsonl_rows(path: Path) -> list[Row]:
    """Every non-blank line of a JSONL file as an object; anything else is an `InputError`."""
    rows: list[Row] = []
    for line, text in enumerate(_opened_text(path), start=1):
        if not text.strip():
            continue
        try:
            value = json.loads(text)
        except json.JSONDecodeError as error:
            raise InputError(f"line {line}: not valid JSON ({error.msg})") from error
        if not isinstance(value, dict):
            raise InputError(f"line {line}: a JSON object is expected")
        rows.append(Row(line, value))
    if not rows:
        raise InputError("the file has no responses")
    return rows


def csv_rows(path: Path, required: Sequence[str]) -> list[Row]:
    """Every non-empty row of a CSV file whose header holds the ``required`` columns."""
    rows: list[Row] = []
    reader = csv.reader(_opened_text(path), strict=True)
    try:
        header = [name.strip() for name in next(reader, [])]
        missing = [name for name in required if name not in header]
        if missing:
            raise InputError(
                f"line 1: the header lacks the column(s) {', '.join(missing)} "
                f"(expected {','.join(required)})"
            )
        for values in reader:
            if not values:
                continue
            if len(values) != len(header):
                raise InputError(
                    f"line {reader.line_num}: {len(values)} field(s), but the header has "
                    f"{len(header)}"
                )
            rows.append(Row(reader.line_num, dict(zip(header, values, strict=True))))
    except csv.Error as error:
        raise InputError(f"line {reader.line_num}: not valid CSV ({error})") from error
    if not rows:
        raise InputError("the file has a header but no responses")
    return rows


def text_field(row: Row, name: str, problems: Problems, *, required: bool = True) -> str:
    """A non-empty text (a JSON number counts as its text); "" after noting a problem."""
    value = row.fields.get(name)
    if value is None:
        if required:
            problems.add(row.line, name, "is missing")
        return ""
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        problems.add(row.line, name, "must be text")
        return ""
    text = str(value).strip()
    if not text and required:
        problems.add(row.line, name, "is empty")
    return text


def choice_field(row: Row, name: str, choices: Sequence[str], problems: Problems) -> str:
    """One of ``choices`` (case and spaces ignored); "" after noting a problem."""
    text = text_field(row, name, problems).lower()
    if text and text not in choices:
        problems.add(row.line, name, f"{text!r} is not {' or '.join(choices)}")
        return ""
    return text


def number_field(row: Row, name: str, problems: Problems) -> float | None:
    """A finite number; None after noting a problem."""
    text = text_field(row, name, problems)
    if not text:
        return None
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if value != value or value in (float("inf"), float("-inf")):
        problems.add(row.line, name, f"{text!r} is not a number")
        return None
    return value


def id_list_field(row: Row, name: str, problems: Problems) -> tuple[str, ...] | None:
    """A JSON list of item ids (text or integers); None after noting a problem."""
    value = row.fields.get(name)
    if value is None:
        problems.add(row.line, name, "is missing")
        return None
    if not isinstance(value, list) or not all(
        isinstance(item, str | int) and not isinstance(item, bool) for item in value
    ):
        problems.add(row.line, name, "must be a list of item ids")
        return None
    ids = tuple(str(item).strip() for item in value)
    if any(not item for item in ids):
        problems.add(row.line, name, "holds an empty item id")
        return None
    return ids
