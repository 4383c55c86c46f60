"""Workbook and CSV writers whose text always stays text.

Exports mix numbers with free text from annotators, simulated users and dialogue systems. A
cell such as ``=HYPERLINK(...)``, ``+1 great`` or ``@user`` must reach the reader as the words
that were written, never run as a formula in Excel or LibreOffice, and numbers must stay numbers
so that the sheet can be sorted and charted.
"""

from __future__ import annotations

import csv
import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal
from pathlib import Path
from typing import IO, Any

from openpyxl import Workbook
from openpyxl.cell import WriteOnlyCell
from openpyxl.cell.cell import ERROR_CODES, ILLEGAL_CHARACTERS_RE
from openpyxl.chart import BarChart, Reference, ScatterChart, Series
from openpyxl.utils import get_column_letter

CellValue = str | int | float | Decimal | bool | date | datetime | None

# Spreadsheet programs start a formula at any of these; tab and carriage return can hide one.
FORMULA_TRIGGERS = ("=", "+", "-", "@", "\t", "\r")
# Excel's limits on sheet names.
_TITLE_LENGTH = 31
_TITLE_FORBIDDEN = re.compile(r"[\\/*?:\[\]]")


@dataclass(frozen=True)
class BarChartSpec:
    """A native bar chart of some columns, one bar group per row, labelled by another column."""

    title: str
    categories: str
    values: Sequence[str]
    y_title: str = ""
    anchor: str | None = None
    # Stacked bars show one row's columns as parts of a whole, such as a confusion matrix row.
    stacked: bool = False


@dataclass(frozen=True)
class ScatterChartSpec:
    """A native scatter chart of one column against another, such as LLM score vs human mean."""

    title: str
    x: str
    y: str
    x_title: str = ""
    y_title: str = ""
    anchor: str | None = None


ChartSpec = BarChartSpec | ScatterChartSpec


@dataclass(frozen=True)
class Sheet:
    """One worksheet: a header, rows of values (streamed), and charts drawn from its columns."""

    title: str
    header: Sequence[str]
    rows: Iterable[Sequence[CellValue]]
    charts: Sequence[ChartSpec] = ()


def _needs_text_cell(text: str) -> bool:
    return text.startswith(FORMULA_TRIGGERS) or text in ERROR_CODES


def _workbook_value(worksheet: Any, value: CellValue) -> Any:
    if isinstance(value, str):
        if ILLEGAL_CHARACTERS_RE.search(value):
            # XML cannot carry these control characters; a visible mark beats losing the row.
            value = ILLEGAL_CHARACTERS_RE.sub("\ufffd", value)
        if _needs_text_cell(value):
            cell = WriteOnlyCell(worksheet, value=value)
            cell.data_type = "s"
            return cell
        return value
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _sheet_title(name: str, taken: set[str]) -> str:
    """A valid, unique Excel sheet name close to ``name``."""
    base = _TITLE_FORBIDDEN.sub("_", name).strip("'").strip() or "Sheet"
    base = base[:_TITLE_LENGTH]
    title = base
    number = 2
    # Excel compares sheet names without regard to case.
    while title.casefold() in taken:
        suffix = f" ({number})"
        title = base[: _TITLE_LENGTH - len(suffix)] + suffix
        number += 1
    taken.add(title.casefold())
    return title


def _column(header: Sequence[str], name: str, chart_title: str) -> int:
    try:
        return list(header).index(name) + 1
    except ValueError:
        raise ValueError(f"chart {chart_title!r}: the sheet has no column {name!r}") from None


def _native_chart(
    worksheet: Any, header: Sequence[str], spec: ChartSpec, n_rows: int
) -> BarChart | ScatterChart:
    last = n_rows + 1
    if isinstance(spec, BarChartSpec):
        bar = BarChart()
        bar.title = spec.title
        bar.y_axis.title = spec.y_title
        if spec.stacked:
            bar.grouping = "stacked"
            bar.overlap = 100
        for name in spec.values:
            column = _column(header, name, spec.title)
            data = Reference(worksheet, min_col=column, min_row=1, max_row=last)
            bar.add_data(data, titles_from_data=True)
        labels = _column(header, spec.categories, spec.title)
        bar.set_categories(Reference(worksheet, min_col=labels, min_row=2, max_row=last))
        return bar
    scatter = ScatterChart()
    scatter.title = spec.title
    scatter.style = 13
    scatter.x_axis.title = spec.x_title
    scatter.y_axis.title = spec.y_title
    x = Reference(worksheet, min_col=_column(header, spec.x, spec.title), min_row=2, max_row=last)
    y = Reference(worksheet, min_col=_column(header, spec.y, spec.title), min_row=1, max_row=last)
    series = Series(y, x, title_from_data=True)
    series.marker.symbol = "circle"
    # Points only: a line through unordered points is noise.
    series.graphicalProperties.line.noFill = True
    scatter.series.append(series)
    return scatter


def write_workbook(target: str | Path | IO[bytes], sheets: Iterable[Sheet]) -> None:
    """Write an .xlsx workbook of named sheets in openpyxl's streaming (write-only) mode.

    Rows are consumed once, so they can come from a generator. Text that a spreadsheet would
    read as a formula or an error code is stored as text; numbers, booleans and dates keep
    their type; NaN and infinities become empty cells. Sheet titles are made valid and unique.
    """
    sheets = list(sheets)
    # A wrong column name must fail before any streaming starts, not leave a half-written file.
    for sheet in sheets:
        for spec in sheet.charts:
            names = (
                [spec.categories, *spec.values]
                if isinstance(spec, BarChartSpec)
                else [spec.x, spec.y]
            )
            for name in names:
                _column(sheet.header, name, spec.title)
    workbook = Workbook(write_only=True)
    taken: set[str] = set()
    for sheet in sheets:
        worksheet = workbook.create_sheet(title=_sheet_title(sheet.title, taken))
        worksheet.append([_workbook_value(worksheet, name) for name in sheet.header])
        n_rows = 0
        for row in sheet.rows:
            worksheet.append([_workbook_value(worksheet, value) for value in row])
            n_rows += 1
        for spec in sheet.charts:
            anchor = spec.anchor or f"{get_column_letter(len(sheet.header) + 2)}2"
            worksheet.add_chart(_native_chart(worksheet, sheet.header, spec, n_rows), anchor)
    workbook.save(target)


def _csv_value(value: CellValue) -> CellValue:
    if isinstance(value, str) and value.startswith(FORMULA_TRIGGERS):
        # The apostrophe is the spreadsheet convention for "this is text".
        return "'" + value
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def write_csv(stream: IO[str], header: Sequence[str], rows: Iterable[Sequence[CellValue]]) -> None:
    """Write CSV where text that a spreadsheet would run as a formula is prefixed with ``'``.

    Numbers are written as numbers (so -1 stays -1), NaN and None as empty fields. Open the
    stream with ``newline=""``, and with ``encoding="utf-8-sig"`` for Excel to read non-ASCII
    text correctly.
    """
    writer = csv.writer(stream)
    writer.writerow([_csv_value(name) for name in header])
    writer.writerows([_csv_value(value) for value in row] for row in rows)
