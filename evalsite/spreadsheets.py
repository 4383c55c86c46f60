"""Workbook and CSV writers whose text always stays text, and whose files are data.

Exports mix numbers with free text from annotators, simulated users and dialogue systems. A
cell such as ``=HYPERLINK(...)``, ``+1 great`` or ``@user`` must reach the reader as the words
that were written, never run as a formula in Excel or LibreOffice, and numbers must stay numbers
so that the sheet can be sorted and charted.

The same export downloaded in any interface language holds the same cells: codes, keys and
enumerations, times in ISO 8601 with the site's offset (`export_time`). Only columns whose key
ends in ``_label`` (`LABEL_SUFFIX`) hold text for people in the downloader's language. A
workbook opens on an "About" sheet (what, when, by whom, which version, and the meaning of every
column); its data sheets have a styled, frozen, filtered header row, widths that fit, and
number formats that round what they show while the cell keeps the exact value.
"""

from __future__ import annotations

import copy
import csv
import itertools
import math
import re
import unicodedata
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from decimal import Decimal
from importlib import metadata
from pathlib import Path
from typing import IO, Any

from django.utils import timezone
from django.utils.translation import gettext as _
from openpyxl import Workbook
from openpyxl.cell import Cell, WriteOnlyCell
from openpyxl.cell.cell import ERROR_CODES, ILLEGAL_CHARACTERS_RE
from openpyxl.chart import BarChart, Reference, ScatterChart, Series
from openpyxl.styles import Alignment, Font, PatternFill
from openpyxl.utils import get_column_letter

from evalsite.glossary import meaning

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


# A column of text for people, in the downloader's language; every other column is the same in
# every language.
LABEL_SUFFIX = "_label"
ABOUT_TITLE = "About"
# Formats that round what a cell shows, never what it holds.
STATISTIC_FORMAT = "0.000"
PERCENT_FORMAT = "0.0%"
# Shares of a whole: completion, agreement and winning rates, chance levels, answer shares.
_PERCENT_KEY = re.compile(
    r"(^|_)(rate|share|accuracy|agreement|within_one|completion_ci|chance)(_|$)"
)
_NOT_PERCENT_KEY = re.compile(r"(_p|_n|p_value|p_adjusted)$|(^|_)alpha(_|$)")
_HEADER_FONT = Font(bold=True)
_HEADER_FILL = PatternFill("solid", start_color="DDE4EE")
_NOTE_FONT = Font(italic=True, color="555555")
# Rows read to size the columns; the rest stream through unread.
_WIDTH_SAMPLE = 200
_MIN_WIDTH, _MAX_WIDTH = 8, 60


@dataclass(frozen=True)
class Sheet:
    """One worksheet: a header, rows of values (streamed), and charts drawn from its columns.

    ``empty`` says, in the reader's language, why the sheet may have no rows; the workbook
    writes it under the header when it has none. ``glossary`` gives the meaning of columns that
    the shared glossary (`evalsite.glossary`) does not name, such as one column per class.
    """

    title: str
    header: Sequence[str]
    rows: Iterable[Sequence[CellValue]]
    charts: Sequence[ChartSpec] = ()
    empty: str = ""
    glossary: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class About:
    """What a workbook's first sheet says of it: its subject (a campaign, track or study, named
    as people read it), who exported it, and what the codes in its cells stand for, as
    (column, code, label) rows."""

    subject: str
    exported_by: str
    codes: Sequence[tuple[str, str, str]] = ()


def export_time(moment: datetime | None) -> str:
    """``moment`` in ISO 8601 at the site's offset (TIME_ZONE), to the second; "" for None."""
    if moment is None:
        return ""
    return timezone.localtime(moment).isoformat(timespec="seconds")


def software_version() -> str:
    try:
        return metadata.version("evalsite")
    except metadata.PackageNotFoundError:
        return "unknown"


def number_format(key: str) -> str:
    """How a column's fractional numbers are shown: as percentages for shares of a whole,
    else to three decimals."""
    if _PERCENT_KEY.search(key) and not _NOT_PERCENT_KEY.search(key):
        return PERCENT_FORMAT
    return STATISTIC_FORMAT


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


def _text_width(value: CellValue) -> int:
    text = (
        value if isinstance(value, str) else ("0.000" if isinstance(value, float) else str(value))
    )
    first_line = text.split("\n", 1)[0]
    # Chinese characters take two columns' width.
    return sum(2 if unicodedata.east_asian_width(char) in "WF" else 1 for char in first_line)


def _widths(header: Sequence[str], sample: Sequence[Sequence[CellValue]]) -> list[int]:
    widths = []
    for index, name in enumerate(header):
        seen = [_text_width(name) + 3]  # room for the filter's arrow
        seen += [_text_width(row[index]) for row in sample if index < len(row)]
        widths.append(min(max(max(seen) + 1, _MIN_WIDTH), _MAX_WIDTH))
    return widths


def _header_cell(worksheet: Any, value: str) -> Cell:
    cell = WriteOnlyCell(worksheet, value=value)
    cell.data_type = "s"
    cell.font = _HEADER_FONT
    cell.fill = _HEADER_FILL
    return cell


def _number_styles(worksheet: Any, header: Sequence[str]) -> list[Any]:
    """Each column's style for fractional numbers, made once: setting a format cell by cell
    would look it up again for every number."""
    styles = []
    for name in header:
        template: Any = WriteOnlyCell(worksheet)
        template.number_format = number_format(name)
        styles.append(template._style)
    return styles


def _data_row(worksheet: Any, row: Sequence[CellValue], styles: Sequence[Any]) -> list[Any]:
    cells = []
    for index, value in enumerate(row):
        if isinstance(value, float) and math.isfinite(value) and index < len(styles):
            cell: Any = WriteOnlyCell(worksheet, value=value)
            cell._style = copy.copy(styles[index])
            cells.append(cell)
        else:
            cells.append(_workbook_value(worksheet, value))
    return cells


def _note_cell(worksheet: Any, text: str) -> Cell:
    cell = WriteOnlyCell(worksheet, value=text)
    cell.data_type = "s"
    cell.font = _NOTE_FONT
    return cell


def _write_sheet(workbook: Workbook, sheet: Sheet, title: str) -> None:
    worksheet = workbook.create_sheet(title=title)
    rows = iter(sheet.rows)
    sample = list(itertools.islice(rows, _WIDTH_SAMPLE))
    # Column widths go before the rows in the file, so they come from the first rows.
    for index, width in enumerate(_widths(sheet.header, sample), start=1):
        worksheet.column_dimensions[get_column_letter(index)].width = width
    worksheet.freeze_panes = "A2"
    worksheet.append([_header_cell(worksheet, name) for name in sheet.header])
    styles = _number_styles(worksheet, sheet.header)
    n_rows = 0
    for row in itertools.chain(sample, rows):
        worksheet.append(_data_row(worksheet, row, styles))
        n_rows += 1
    last_column = get_column_letter(max(len(sheet.header), 1))
    worksheet.auto_filter.ref = f"A1:{last_column}{n_rows + 1}"
    if n_rows == 0:
        worksheet.append([_note_cell(worksheet, sheet.empty or _("Nothing to export yet."))])
        return
    for spec in sheet.charts:
        anchor = spec.anchor or f"{get_column_letter(len(sheet.header) + 2)}2"
        worksheet.add_chart(_native_chart(worksheet, sheet.header, spec, n_rows), anchor)


def glossary_rows(sheets: Sequence[Sheet], titles: Sequence[str]) -> Iterator[list[str]]:
    """(sheet, column, meaning) of every column of every sheet, in the reader's language."""
    for sheet, title in zip(sheets, titles, strict=True):
        for name in sheet.header:
            yield [title, name, sheet.glossary.get(name) or meaning(name)]


def _write_about(
    workbook: Workbook, about: About, sheets: Sequence[Sheet], titles: list[str]
) -> None:
    worksheet = workbook.create_sheet(title=ABOUT_TITLE)
    for letter, width in zip("ABC", (24, 34, 90), strict=True):
        worksheet.column_dimensions[letter].width = width
    wrap = Alignment(wrap_text=True, vertical="top")

    def line(*values: str) -> None:
        cells = []
        for value in values:
            cell = WriteOnlyCell(worksheet, value=value)
            cell.data_type = "s"
            cell.alignment = wrap
            cells.append(cell)
        worksheet.append(cells)

    def heading(*values: str) -> None:
        worksheet.append([_header_cell(worksheet, value) for value in values])

    heading(_("About this file"), "")
    line(_("Subject"), about.subject)
    line(_("Exported at"), export_time(timezone.now()))
    line(_("Exported by"), about.exported_by)
    line(_("Software"), f"EvalSite {software_version()}")
    line(
        _("Reading it"),
        _(
            "Every sheet after this one holds the same cells in every interface language: "
            "codes, keys and numbers, and times in ISO 8601 with the site's offset. Columns "
            "whose key ends in _label hold text for people in the language of whoever exported "
            "the file. Numbers are stored exactly; the cell formats only round what is shown."
        ),
    )
    worksheet.append([])
    heading(_("Sheet"), _("Column"), _("Meaning"))
    for row in glossary_rows(sheets, titles):
        line(*row)
    if about.codes:
        worksheet.append([])
        heading(_("Column"), _("Code"), _("What people call it"))
        for column, code, label in about.codes:
            line(column, code, label)


def write_workbook(
    target: str | Path | IO[bytes], sheets: Iterable[Sheet], about: About | None = None
) -> None:
    """Write an .xlsx workbook of named sheets in openpyxl's streaming (write-only) mode.

    Rows are consumed once, so they can come from a generator. Text that a spreadsheet would
    read as a formula or an error code is stored as text; numbers, booleans and dates keep
    their type; NaN and infinities become empty cells. Sheet titles are made valid and unique.
    With ``about``, the workbook opens on an "About" sheet with a glossary of every column.
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
    taken: set[str] = {ABOUT_TITLE.casefold()} if about is not None else set()
    titles = [_sheet_title(sheet.title, taken) for sheet in sheets]
    if about is not None:
        _write_about(workbook, about, sheets, titles)
    for sheet, title in zip(sheets, titles, strict=True):
        _write_sheet(workbook, sheet, title)
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
