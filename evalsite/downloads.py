"""File downloads: the one place that names a download and sets its ``Content-Disposition``.

CSV goes out as UTF-8 with a byte-order mark, so that Excel reads Chinese text; a workbook as
Office Open XML; names are ASCII slugs of what the file holds, with a fallback for a name that
has no Latin letters (a Chinese campaign name slugs to nothing).
"""

from __future__ import annotations

from django.http import HttpResponse
from django.utils.http import content_disposition_header
from django.utils.text import slugify

CSV = "text/csv; charset=utf-8"
XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
JSON = "application/json; charset=utf-8"
BOM = "\ufeff"


def file_stem(name: str, fallback: str) -> str:
    """``name`` as a file name's stem: its slug, or ``fallback`` when it has none."""
    return slugify(name) or fallback


def download(body: bytes, filename: str, content_type: str) -> HttpResponse:
    """A response that the browser saves as ``filename``."""
    response = HttpResponse(body, content_type=content_type)
    disposition = content_disposition_header(as_attachment=True, filename=filename)
    if disposition is not None:
        response["Content-Disposition"] = disposition
    return response


def csv_download(text: str | bytes, filename: str) -> HttpResponse:
    """CSV text (given as text, or as bytes that already carry their mark) to save."""
    body = text if isinstance(text, bytes) else (BOM + text.removeprefix(BOM)).encode("utf-8")
    return download(body, filename, CSV)


def xlsx_download(workbook: bytes, filename: str) -> HttpResponse:
    return download(workbook, filename, XLSX)


def json_download(text: str, filename: str) -> HttpResponse:
    return download(text.encode("utf-8"), filename, JSON)
