"""Uploads kept on disk and never beyond the upload limit.

Django spools an upload larger than ``FILE_UPLOAD_MAX_MEMORY_SIZE`` to a temporary file.
:class:`LimitedUploadHandler` does the same but stops writing once the upload passes
``IMPORT_MAX_UPLOAD_BYTES``: the rest is read from the connection and dropped, and the
file reports the size that was sent, so the form says how large it was and what the
limit is, and neither memory nor disk grows with what a client sends.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.files.uploadedfile import UploadedFile
from django.core.files.uploadhandler import TemporaryFileUploadHandler


class LimitedUploadHandler(TemporaryFileUploadHandler):
    def receive_data_chunk(self, raw_data: bytes, start: int) -> Any:
        if start + len(raw_data) <= settings.IMPORT_MAX_UPLOAD_BYTES:
            self.file.write(raw_data)
        return None

    def file_complete(self, file_size: int) -> UploadedFile:
        self.file.seek(0)
        self.file.size = file_size
        return self.file
