"""Uploads kept on disk and never beyond the upload limit.

Django spools an upload larger than ``FILE_UPLOAD_MAX_MEMORY_SIZE`` to a temporary file.
:class:`LimitedUploadHandler` does the same but stops writing once the upload passes
``IMPORT_MAX_UPLOAD_BYTES``: the rest is read from the connection and dropped, and the
file reports the size that was sent, so the form says how large it was and what the
limit is, and neither memory nor disk grows with what a client sends.

When the disk that holds uploads (the system's temporary directory) has no room left, the
handler stops writing, frees what it wrote, and hands the form a :class:`NoRoomUpload` that
holds no bytes: the form's validators refuse it with :func:`no_room_error`, so a file cut short
is never read as if it were whole, and the next upload finds the room it left.

Files a page reads whole (the people CSV, intent datasets and submissions) are also held to
``FORM_UPLOAD_MAX_BYTES``: :func:`read_whole` refuses a larger one unread, with its size and
the limit.
"""

from __future__ import annotations

import contextlib
import errno
import io
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import UploadedFile
from django.core.files.uploadhandler import TemporaryFileUploadHandler
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

# The errors of a full disk: no space, or the user's quota spent.
DISK_FULL = frozenset({errno.ENOSPC, errno.EDQUOT})

NO_ROOM = gettext_lazy(
    "The server has no room to store this upload right now, and nothing of it was kept. "
    "Try again later, or ask the administrator to free disk space."
)


def is_disk_full(error: OSError) -> bool:
    return error.errno in DISK_FULL


def no_room_error() -> ValidationError:
    return ValidationError(NO_ROOM, code="no_room")


class NoRoomUpload(UploadedFile):
    """An upload the disk had no room for: no bytes, and the size that was sent."""

    no_room = True

    def __init__(self, name: str | None, size: int) -> None:
        super().__init__(io.BytesIO(b""), name=name, size=size)


class LimitedUploadHandler(TemporaryFileUploadHandler):
    no_room = False

    def receive_data_chunk(self, raw_data: bytes, start: int) -> Any:
        if self.no_room or start + len(raw_data) > settings.IMPORT_MAX_UPLOAD_BYTES:
            return None
        try:
            self.file.write(raw_data)
        except OSError as error:
            self._give_up(error)
        return None

    def file_complete(self, file_size: int) -> UploadedFile:
        if not self.no_room:
            try:
                self.file.seek(0)  # flushes what is buffered, which may find the disk full
            except OSError as error:
                self._give_up(error)
        if self.no_room:
            return NoRoomUpload(self.file_name, file_size)
        self.file.size = file_size
        return self.file

    def _give_up(self, error: OSError) -> None:
        """Drop the file (closing deletes it, giving its room back); other errors are raised."""
        if not is_disk_full(error):
            raise error
        self.no_room = True
        with contextlib.suppress(OSError):
            self.file.close()


def refuse_incomplete(upload: UploadedFile) -> None:
    """A form validator: the upload was kept whole (the disk had room for it)."""
    if getattr(upload, "no_room", False):
        raise no_room_error()


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
    refuse_incomplete(upload)
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
