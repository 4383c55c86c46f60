"""How much of a file an import holds in memory at once, and reading within those bounds.

A transcript is at most ``IMPORT_MAX_TRANSCRIPT_BYTES`` (one JSONL line, one Concept4CRS
dialogue file); an upload is at most ``IMPORT_MAX_UPLOAD_BYTES``. Files are read in
pieces: a line or zip member beyond the limit is skipped unread and reported, so the
server that also serves live chats never holds more than one transcript of an import.
"""

from __future__ import annotations

import codecs
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import UploadedFile
from django.utils.translation import gettext as _

from evalsite.upload_limit import refuse_incomplete, size_text

CHUNK = 64 * 1024
BOM = codecs.BOM_UTF8


class TooLarge(ValueError):
    """More bytes than the limit allows; the message says how many are allowed."""


def transcript_limit() -> int:
    return int(settings.IMPORT_MAX_TRANSCRIPT_BYTES)


def too_large(limit: int) -> TooLarge:
    return TooLarge(
        f"is larger than {size_text(limit)}, the most one transcript may take "
        "(IMPORT_MAX_TRANSCRIPT_BYTES)"
    )


def read_bounded(stream: IO[bytes], limit: int) -> bytes:
    """All of ``stream`` when it holds at most ``limit`` bytes; TooLarge otherwise."""
    data = bytearray()
    while chunk := stream.read(min(CHUNK, limit + 1 - len(data))):
        data.extend(chunk)
        if len(data) > limit:
            raise too_large(limit)
    return bytes(data)


@dataclass(frozen=True)
class Line:
    """One line of a text file: its text, or the reason it cannot be read."""

    number: int
    text: str | None
    problem: str | None = None


def read_lines(path: Path, limit: int | None = None) -> Iterator[Line]:
    """The lines of a UTF-8 file, each decoded alone: a line that is too long or not UTF-8 is
    reported with its number, and reading goes on with the next line."""
    limit = transcript_limit() if limit is None else limit
    with path.open("rb") as handle:
        number = 0
        while True:
            raw = handle.readline(limit + 1)
            if not raw:
                return
            number += 1
            if number == 1 and raw.startswith(BOM):
                raw = raw[len(BOM) :]
            if len(raw) > limit and not raw.endswith(b"\n"):
                while (rest := handle.readline(CHUNK)) and not rest.endswith(b"\n"):
                    pass
                yield Line(number, None, str(too_large(limit)))
                continue
            try:
                yield Line(number, raw.decode("utf-8").rstrip("\r\n"))
            except UnicodeDecodeError as error:
                yield Line(
                    number,
                    None,
                    f"is not valid UTF-8 (byte {error.start + 1} of the line cannot be read)",
                )


def upload_limit() -> int:
    return int(settings.IMPORT_MAX_UPLOAD_BYTES)


def file_too_large(path: Path) -> str | None:
    """Why the file at ``path`` is over the upload limit, or None; folders are not counted."""
    limit = upload_limit()
    size = path.stat().st_size if path.is_file() else 0
    if size <= limit:
        return None
    return (
        f"is {size_text(size)}; an import may be at most {size_text(limit)} "
        "(EVALSITE_IMPORT_MAX_UPLOAD_MB)"
    )


def within_upload_limit(upload: UploadedFile) -> None:
    """A form validator: the upload is at most ``IMPORT_MAX_UPLOAD_BYTES``, and the disk had
    room to keep it whole."""
    refuse_incomplete(upload)
    limit = upload_limit()
    if upload.size is not None and upload.size > limit:
        raise ValidationError(
            _("This file is %(size)s; an upload may be at most %(limit)s."),
            code="too_large",
            params={"size": size_text(upload.size), "limit": size_text(limit)},
        )
