"""A full disk while an upload is written: the form is told, and nothing cut short is kept."""

from __future__ import annotations

import errno
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import SimpleUploadedFile

from annotation import jobs
from annotation.imports.limits import within_upload_limit
from evalsite.upload_limit import LimitedUploadHandler, NoRoomUpload, read_whole


class FullDisk:
    """A spooled file on a disk that fills after ``room`` bytes."""

    def __init__(self, room: int) -> None:
        self.room = room
        self.closed = False

    def write(self, data: bytes) -> None:
        if len(data) > self.room:
            raise OSError(errno.ENOSPC, "No space left on device")
        self.room -= len(data)

    def close(self) -> None:
        self.closed = True


def test_an_upload_the_disk_has_no_room_for_is_refused_by_the_form_validators() -> None:
    handler = LimitedUploadHandler()
    handler.file_name = "big.jsonl"
    disk = FullDisk(room=10)
    handler.file = disk  # type: ignore[assignment]
    handler.receive_data_chunk(b"x" * 8, 0)
    handler.receive_data_chunk(b"x" * 8, 8)  # no room: dropped, and so is what was written
    handler.receive_data_chunk(b"x" * 8, 16)
    upload = handler.file_complete(24)
    assert isinstance(upload, NoRoomUpload) and disk.closed
    assert (upload.size, upload.read()) == (24, b"")  # nothing cut short is ever read
    for validator in (within_upload_limit, read_whole):
        with pytest.raises(ValidationError) as refused:
            validator(upload)
        assert refused.value.code == "no_room"


class ChunksUntilFull(SimpleUploadedFile):
    def chunks(self, chunk_size: int | None = None) -> Iterator[bytes]:
        yield b"a first piece"
        raise OSError(errno.ENOSPC, "No space left on device")


def test_a_stored_copy_the_disk_has_no_room_for_is_removed_with_its_folder(
    tmp_path: Path, monkeypatch: Any
) -> None:
    monkeypatch.setattr(jobs, "UPLOAD_ROOT", tmp_path)
    kept = SimpleUploadedFile("personas.csv", b"id,emotion\n")
    with pytest.raises(ValidationError) as refused:
        jobs.store_uploads(kept, ChunksUntilFull("t.jsonl", b""))
    assert refused.value.code == "no_room"
    assert list(tmp_path.iterdir()) == []  # neither the cut copy nor the one stored before it
