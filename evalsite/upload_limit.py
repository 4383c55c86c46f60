"""Uploads kept on disk and never beyond the upload limit.

Django spools an upload larger than ``FILE_UPLOAD_MAX_MEMORY_SIZE`` to a temporary file.
:class:`LimitedUploadHandler` does the same but stops writing once the upload passes
``IMPORT_MAX_UPLOAD_BYTES``: the rest is read from the connection and dropped, and the
file reports the size that was sent, so the form says how large it was and what the
limit is, and neither memory nor disk grows with what a client sends.

Files a page reads whole (the people CSV, intent datasets and submissions) are also held to
``FORM_UPLOAD_MAX_BYTES``: :func:`read_whole` refuses a larger one unread, with its size and
the limit.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import UploadedFile
from django.core.files.uploadhandler import TemporaryFileUploadHandler
from django.utils.translation import gettext as _


class LimitedUploadHandler(TemporaryFileUploadHandler):
    def receive_data_chunk(self, raw_data: bytes, start: int) -> Any:
        if start + len(raw_data) <= settings.IMPORT_MAX_UPLOAD_BYTES:
            self.file.write(raw_data)
        return None

    def file_complete(self, file_size: int) -> UploadedFile:
        self.file.seek(0)
        self.file.size = file_size
        return self.file


def size_text(count: int) -> str:
    """A byte count in words, e.g. '2 MB' or '512 KB'."""
    if count >= 1024 * 1024:
        return f"{count / (1024 * 1024):g} MB"
    if count >= 1024:
        return f"{count / 1024:g} KB"
    return f"{count} bytes"


def whole_read_limit() -> int:
    """The most bytes a page reads whole: the smaller of the two configured limits."""
    return min(int(settings.FORM_UPLOAD_MAX_BYTES), int(settings.IMPORT_MAX_UPLOAD_BYTES))


def read_whole(upload: UploadedFile) -> bytes:
    """The upload's bytes, when it is within :func:`whole_read_limit`; ValidationError
    (code ``too_large``) otherwise, without reading it."""
    limit = whole_read_limit()
    declared = upload.size or 0
    data = b"" if declared > limit else upload.read(limit + 1)
    size = max(declared, len(data))
    if size > limit:
        raise ValidationError(
            _("This file is %(size)s; an upload may be at most %(limit)s."),
            code="too_large",
            params={"size": size_text(size), "limit": size_text(limit)},
        )
    return data
