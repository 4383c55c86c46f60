"""Upload limits: an upload over ``IMPORT_MAX_UPLOAD_BYTES`` is refused with a clear error and
nothing is written, on the page and by the command; a transcript over
``IMPORT_MAX_TRANSCRIPT_BYTES`` is refused, named, in every format."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from django.test import Client
from django.urls import reverse
from django.utils import translation
from pytest_django.fixtures import Settings

from annotation.imports.formats import import_transcripts
from annotation.imports.problems import ImportFailed
from annotation.jobs import UPLOAD_ROOT
from annotation.models import Campaign, Transcript
from evalsite.models import Job
from evalsite.upload_limit import LimitedUploadHandler

pytestmark = pytest.mark.django_db

ROW = {"id": "t1", "turns": [{"role": "user", "text": "hi"}, {"role": "system", "text": "hello"}]}


def stored_uploads() -> set[Path]:
    return set(UPLOAD_ROOT.iterdir()) if UPLOAD_ROOT.exists() else set()


def test_the_page_refuses_an_upload_over_the_limit_and_writes_nothing(
    coordinator_client: Client, settings: Settings
) -> None:
    settings.IMPORT_MAX_UPLOAD_BYTES = 1024
    before = stored_uploads()
    body = (json.dumps(ROW) + "\n") * 40
    upload = io.BytesIO(body.encode())
    upload.name = "big.jsonl"
    with translation.override("en"):
        response = coordinator_client.post(
            reverse("annotation:import_transcripts"),
            {"new_campaign": "Too big", "format": "jsonl", "file": upload},
            HTTP_ACCEPT_LANGUAGE="en",
        )
    assert response.status_code == 400
    size = f"{len(body.encode()) / 1024:g} KB"
    assert f"This file is {size}; an upload may be at most 1 KB." in response.content.decode()
    assert not Job.objects.exists()
    assert not Campaign.objects.exists() and not Transcript.objects.exists()
    assert stored_uploads() == before


def test_the_upload_handler_stops_writing_at_the_limit(settings: Settings) -> None:
    settings.IMPORT_MAX_UPLOAD_BYTES = 100
    handler = LimitedUploadHandler()
    handler.new_file("file", "big.jsonl", "application/x-ndjson", 1000)
    for start in range(0, 1000, 64):
        handler.receive_data_chunk(b"x" * 64, start)
    uploaded = handler.file_complete(1024)
    assert uploaded.size == 1024
    assert len(uploaded.read()) <= 100
    uploaded.close()


def test_the_command_refuses_a_file_over_the_limit_and_writes_nothing(
    tmp_path: Path, settings: Settings
) -> None:
    settings.IMPORT_MAX_UPLOAD_BYTES = 1024
    path = tmp_path / "big.jsonl"
    path.write_text((json.dumps(ROW) + "\n") * 40)
    with pytest.raises(CommandError) as raised:
        call_command("import_transcripts", str(path), "--campaign", "Too big")
    size = f"{path.stat().st_size / 1024:g} KB"
    assert f"big.jsonl: is {size}; an import may be at most 1 KB" in str(raised.value)
    assert not Campaign.objects.exists() and not Transcript.objects.exists()


def test_a_zip_member_over_the_transcript_limit_is_named_and_nothing_is_written(
    tmp_path: Path, settings: Settings
) -> None:
    settings.IMPORT_MAX_TRANSCRIPT_BYTES = 1024
    source = Path(__file__).parents[1] / "annotation" / "data" / "concept4crs"
    archive = tmp_path / "bundle.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as bundle:
        for file in sorted(source.rglob("*_profile*.json")):
            bundle.write(file, file.relative_to(source).as_posix())
        # Compresses to a few hundred bytes: the limit applies to what is read, not stored.
        bundle.writestr("kbrd/redial_eval/900_1_profile1_attribute1.json", "[" + " " * 50_000)
    with pytest.raises(ImportFailed) as raised:
        import_transcripts(archive, "Zip", format="concept4crs")
    assert (
        "kbrd/redial_eval/900_1_profile1_attribute1.json: the file is larger than 1 KB"
        in raised.value.summary
    )
    assert not Campaign.objects.exists() and not Transcript.objects.exists()


def test_a_csv_transcript_over_the_limit_is_named(tmp_path: Path, settings: Settings) -> None:
    settings.IMPORT_MAX_TRANSCRIPT_BYTES = 1024
    path = tmp_path / "long.csv"
    turns = "".join(f"t1,{n},user,{'x' * 100}\n" for n in range(1, 30))
    path.write_text("id,turn,role,text\n" + turns)
    with pytest.raises(ImportFailed) as raised:
        import_transcripts(path, "Csv", format="csv")
    assert "long.csv line 11: id 't1' is larger than 1 KB" in raised.value.summary
    assert not Transcript.objects.exists()
