"""Reading labelled datasets and predictions, with every problem located by file, line and field.

Datasets come in the released JSON format, an object keyed by id
(``{"0": {"query": "…", "label": "weather"}, …}``), or as CSV with the header ``id,query,label``.
Predictions come as CSV ``id,label`` or as the endpoint protocol's answer
(``{"resultsList": [{"id": …, "result": …}]}``). JSON is walked entry by entry rather than loaded
whole, so that each entry keeps its line and a repeated id is caught instead of silently replaced.

Reading is all-or-nothing: every problem of the file is collected (the first `MAX_PROBLEMS` are
kept) and `IntentFileError` is raised with them; nothing is returned from a file with a problem.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext as _

MAX_PROBLEMS = 20


@dataclass(frozen=True)
class FileProblem:
    source: str
    line: int | None
    field: str
    message: str

    def __str__(self) -> str:
        where = self.source if self.line is None else f"{self.source}:{self.line}"
        return (
            f"{where}: {self.field}: {self.message}" if self.field else f"{where}: {self.message}"
        )


class IntentFileError(ValueError):
    """The file holds problems; ``problems`` are the first ones, ``total`` counts them all."""

    def __init__(self, problems: list[FileProblem], total: int) -> None:
        self.problems = problems
        self.total = total
        super().__init__(str(problems[0]) if problems else "")

    @property
    def summary(self) -> str:
        more = self.total - len(self.problems)
        lines = [str(problem) for problem in self.problems]
        if more > 0:
            lines.append(_("… and %(count)d more problems") % {"count": more})
        return "\n".join(lines)


@dataclass(frozen=True)
class LabelledUtterance:
    id: str
    query: str
    label: str
    line: int


@dataclass(frozen=True)
class Prediction:
    id: str
    label: str
    line: int


class _Collector:
    def __init__(self, source: str) -> None:
        self.source = source
        self.kept: list[FileProblem] = []
        self.total = 0

    def add(self, line: int | None, field: str, message: str) -> None:
        self.total += 1
        if len(self.kept) < MAX_PROBLEMS:
            self.kept.append(FileProblem(self.source, line, field, message))

    def raise_if_any(self) -> None:
        if self.total:
            raise IntentFileError(self.kept, self.total)


def _line_of(text: str, position: int) -> int:
    return text.count("\n", 0, position) + 1


def _skip(text: str, position: int) -> int:
    while position < len(text) and text[position] in " \t\r\n":
        position += 1
    return position


def _json_members(text: str, problems: _Collector) -> Iterator[tuple[int, str, Any]]:
    """(line, key, value) of each member of the top-level JSON object, in order."""
    decoder = json.JSONDecoder()
    position = _skip(text, 0)
    if not text.startswith("{", position):
        problems.add(_line_of(text, position), "", _("the file must hold one JSON object"))
        return
    position = _skip(text, position + 1)
    if text.startswith("}", position):
        return
    while True:
        line = _line_of(text, position)
        try:
            key, position = json.decoder.scanstring(text, position + 1)  # type: ignore[attr-defined]
            position = _skip(text, position)
            if not text.startswith(":", position):
                raise ValueError(_("a ':' is missing after the key"))
            value, position = decoder.raw_decode(text, _skip(text, position + 1))
        except RecursionError:
            problems.add(line, "", _("the JSON is nested too deeply to read"))
            return
        except ValueError as error:
            problems.add(line, "", _("not valid JSON (%(error)s)") % {"error": error})
            return
        yield line, str(key), value
        position = _skip(text, position)
        if text.startswith(",", position):
            position = _skip(text, position + 1)
            continue
        if not text.startswith("}", position):
            problems.add(_line_of(text, position), "", _("a ',' or '}' is missing"))
        return


def _json_items(text: str, problems: _Collector) -> Iterator[tuple[int, Any]]:
    """(line, value) of each element of the ``resultsList`` array."""
    decoder = json.JSONDecoder()
    start = text.find('"resultsList"')
    colon = text.find(":", start) if start >= 0 else -1
    position = _skip(text, colon + 1) if colon >= 0 else -1
    if position < 0 or not text.startswith("[", position):
        problems.add(None, "resultsList", _("the file must hold a resultsList array"))
        return
    position = _skip(text, position + 1)
    if text.startswith("]", position):
        return
    while True:
        line = _line_of(text, position)
        try:
            value, position = decoder.raw_decode(text, position)
        except RecursionError:
            problems.add(line, "", _("the JSON is nested too deeply to read"))
            return
        except ValueError as error:
            problems.add(line, "", _("not valid JSON (%(error)s)") % {"error": error})
            return
        yield line, value
        position = _skip(text, position)
        if text.startswith(",", position):
            position = _skip(text, position + 1)
            continue
        if not text.startswith("]", position):
            problems.add(_line_of(text, position), "", _("a ',' or ']' is missing"))
        return


def _csv_rows(
    text: str, header: tuple[str, ...], problems: _Collector
) -> Iterator[tuple[int, dict[str, str]]]:
    reader = csv.reader(io.StringIO(text))
    first = next(reader, None)
    if first is None or tuple(cell.strip().lstrip("\ufeff") for cell in first) != header:
        problems.add(1, "", _("the header must be %(header)s") % {"header": ",".join(header)})
        return
    for row in reader:
        if not any(cell.strip() for cell in row):
            continue
        if len(row) != len(header):
            problems.add(
                reader.line_num,
                "",
                _("expected %(expected)d columns, found %(found)d")
                % {"expected": len(header), "found": len(row)},
            )
            continue
        yield reader.line_num, dict(zip(header, (cell.strip() for cell in row), strict=True))


def _is_json(text: str) -> bool:
    return text.lstrip("\ufeff \t\r\n").startswith("{")


def _text_of(value: Any) -> str | None:
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return None


def read_dataset(text: str, source: str, labels: tuple[str, ...] | None) -> list[LabelledUtterance]:
    """Every labelled utterance of ``text``, or `IntentFileError` naming each problem.

    A label outside ``labels`` (when given), a repeated id, an empty query, id or label is a
    problem.
    """
    problems = _Collector(source)
    rows: list[tuple[int, str, Any, Any]] = []
    if _is_json(text.lstrip("\ufeff")):
        for line, key, value in _json_members(text.lstrip("\ufeff"), problems):
            if not isinstance(value, dict):
                problems.add(line, key, _("must be an object with query and label"))
                continue
            rows.append((line, key, value.get("query"), value.get("label")))
    else:
        for line, row in _csv_rows(text, ("id", "query", "label"), problems):
            rows.append((line, row["id"], row["query"], row["label"]))
    seen: dict[str, int] = {}
    utterances = []
    for line, key, raw_query, raw_label in rows:
        query, label = _text_of(raw_query), _text_of(raw_label)
        if not key.strip():
            problems.add(line, "id", _("is empty"))
        elif key in seen:
            problems.add(
                line, "id", _("%(id)s repeats line %(line)d") % {"id": key, "line": seen[key]}
            )
        if not query:
            problems.add(line, "query", _("is empty"))
        if not label:
            problems.add(line, "label", _("is empty"))
        elif labels is not None and label not in labels:
            problems.add(line, "label", _("%(label)s is not in the label set") % {"label": label})
        seen.setdefault(key, line)
        if query and label:
            utterances.append(LabelledUtterance(key, query, label, line))
    if not rows and not problems.total:
        problems.add(None, "", _("the file holds no utterances"))
    problems.raise_if_any()
    return utterances


def read_predictions(text: str, source: str) -> list[Prediction]:
    """Every (id, label) of a prediction file, or `IntentFileError` naming each problem."""
    problems = _Collector(source)
    body = text.lstrip("\ufeff")
    predictions: list[Prediction] = []
    if _is_json(body):
        for line, item in _json_items(body, problems):
            key = _text_of(item.get("id")) if isinstance(item, dict) else None
            label = _text_of(item.get("result")) if isinstance(item, dict) else None
            if not key:
                problems.add(line, "id", _("is missing or empty"))
            elif not label:
                problems.add(line, "result", _("is missing or empty"))
            else:
                predictions.append(Prediction(key, label, line))
    else:
        for line, row in _csv_rows(body, ("id", "label"), problems):
            if not row["id"]:
                problems.add(line, "id", _("is empty"))
            elif not row["label"]:
                problems.add(line, "label", _("is empty"))
            else:
                predictions.append(Prediction(row["id"], row["label"], line))
    problems.raise_if_any()
    return predictions
