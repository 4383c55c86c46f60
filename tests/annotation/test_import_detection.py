"""The import form tells a file's format from its extension and its content, and names the
file when they disagree; a Concept4CRS zip brings its item catalogs with it."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse
from django.utils import translation

from annotation.imports.formats import FormatError, detect_format
from annotation.models import Campaign, Catalog, Transcript
from evalsite import jobs
from evalsite.models import Job
from tests.annotation.conftest import concept4crs_zip, dialogue, person, redial_catalog

pytestmark = pytest.mark.django_db

ZIP_HEAD = b"PK\x03\x04\x14\x00"


@pytest.fixture(autouse=True)
def jobs_inline(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(jobs, "start", jobs.run)


@pytest.fixture
def boss_client(db: None) -> Client:
    client = Client()
    client.force_login(person("boss", "coordinators"))
    return client


@pytest.mark.parametrize(
    ("name", "head", "expected"),
    [
        ("t.jsonl", b'{"id": "a"}\n', "jsonl"),
        ("t.NDJSON", b'\xef\xbb\xbf {"id": "a"}', "jsonl"),
        ("turns.csv", b"id,role,text\n", "csv"),
        ("dialogues.zip", ZIP_HEAD, "concept4crs"),
    ],
)
def test_the_extension_and_the_content_agree(name: str, head: bytes, expected: str) -> None:
    assert detect_format(name, head) == expected


@pytest.mark.parametrize(
    ("name", "head", "message"),
    [
        ("notes.txt", b"hello", "notes.txt: unknown file type"),
        ("t.csv", ZIP_HEAD, "t.csv: the name says CSV but the content looks like a zip archive"),
        (
            "t.zip",
            b'{"id": 1}',
            "t.zip: the name says a zip archive but the content looks like JSONL",
        ),
        ("t.jsonl", b"plain words", "t.jsonl: the name says JSONL but the content looks like none"),
    ],
)
def test_an_unknown_or_mismatched_file_is_refused_by_name(
    name: str, head: bytes, message: str
) -> None:
    with pytest.raises(FormatError, match=message.replace("(", r"\(")):
        detect_format(name, head)


def upload(boss_client: Client, file: SimpleUploadedFile, **fields: str) -> str:
    with translation.override("en"):
        response = boss_client.post(
            reverse("annotation:import_transcripts"),
            {"new_campaign": "Detected", "file": file, **fields},
        )
    return response.content.decode() if response.status_code == 400 else response["Location"]


def test_the_format_is_detected_when_none_is_chosen(boss_client: Client) -> None:
    body = json.dumps(dialogue("d1")).encode()
    location = upload(boss_client, SimpleUploadedFile("chats.jsonl", body))
    job = Job.objects.get(pk=int(location.rstrip("/").rsplit("/", 1)[1]))
    assert job.params["format"] == "jsonl" and job.status == Job.Status.DONE
    assert Transcript.objects.filter(campaign__name="Detected").count() == 1


def test_a_zip_named_csv_is_refused_naming_the_file(boss_client: Client, tmp_path: Path) -> None:
    archive = concept4crs_zip(tmp_path / "x.zip")
    page = upload(boss_client, SimpleUploadedFile("export.csv", archive.read_bytes()))
    assert "export.csv: the name says CSV, but the content looks like Concept4CRS zip." in page
    assert not Job.objects.exists()


def test_an_unknown_extension_is_refused_naming_the_file(boss_client: Client) -> None:
    page = upload(boss_client, SimpleUploadedFile("notes.txt", b"hello"))
    assert "notes.txt: unknown file type" in page
    assert not Job.objects.exists()


def test_a_declared_format_that_the_file_contradicts_is_refused(boss_client: Client) -> None:
    body = json.dumps(dialogue("d1")).encode()
    page = upload(boss_client, SimpleUploadedFile("t.jsonl", body), format="csv")
    assert "t.jsonl is a JSONL file, not CSV." in page


def test_r_of_a_new_campaign_is_set_at_import(boss_client: Client) -> None:
    body = json.dumps(dialogue("d1")).encode()
    upload(boss_client, SimpleUploadedFile("t.jsonl", body), annotations_per_item="2")
    assert Campaign.objects.get(name="Detected").annotations_per_item == 2


def test_r_is_refused_for_an_existing_campaign(boss_client: Client, campaign: Campaign) -> None:
    body = json.dumps(dialogue("d1")).encode()
    with translation.override("en"):
        response = boss_client.post(
            reverse("annotation:import_transcripts"),
            {
                "campaign": campaign.pk,
                "file": SimpleUploadedFile("t.jsonl", body),
                "annotations_per_item": "2",
            },
        )
    assert response.status_code == 400
    assert "R is set here for a new campaign only." in response.content.decode()


def test_catalogs_in_the_zip_are_imported_with_it(boss_client: Client, tmp_path: Path) -> None:
    catalogs = {**redial_catalog(), "items.json": b'{"Moon (2009)": 2}', "broken.csv": b"id\n"}
    archive = concept4crs_zip(tmp_path / "c.zip", catalogs=catalogs)
    location = upload(boss_client, SimpleUploadedFile("c.zip", archive.read_bytes()))
    job = Job.objects.get(pk=int(location.rstrip("/").rsplit("/", 1)[1]))
    assert job.status == Job.Status.DONE, job.errors
    # The catalogs folder is neither a dialogue nor an ignored file.
    assert (job.result["transcripts"], job.result["ignored_files"]) == (3, 0)
    stored = Catalog.objects.get()
    assert stored.name == "redial" and stored.datasets == ["redial", "redial_eval"]
    assert stored.entries.filter(kind="item").count() == 3
    with translation.override("en"):
        page = boss_client.get(location).content.decode()
    assert "3 transcripts imported into campaign Detected in" in page
    assert (
        "Catalog redial imported from redial_entity2id.json, redial_id2info.json: 3 items" in page
    )
    assert "Catalog file items.json skipped: not a catalog file" in page
    assert "Catalog file broken.csv skipped: broken.csv" in page and "name" in page


def test_a_catalog_whose_dataset_is_served_already_is_skipped(
    boss_client: Client, tmp_path: Path
) -> None:
    Catalog.objects.create(name="films", datasets=["redial_eval"])
    archive = concept4crs_zip(tmp_path / "c.zip")
    location = upload(boss_client, SimpleUploadedFile("c.zip", archive.read_bytes()))
    outcome = Job.objects.get(pk=int(location.rstrip("/").rsplit("/", 1)[1])).result["catalogs"]
    assert outcome[0]["name"] == "redial" and outcome[0]["items"] == 0
    assert "already served by catalog 'films'" in outcome[0]["skipped"]
    assert Catalog.objects.count() == 1


def test_no_catalog_is_stored_when_the_transcripts_fail(
    boss_client: Client, tmp_path: Path
) -> None:
    archive = concept4crs_zip(tmp_path / "c.zip")
    with zipfile.ZipFile(archive, "a") as bundle:
        bundle.writestr("kbrd/redial_eval/999_1_profile0_attribute0.json", "{")
    location = upload(boss_client, SimpleUploadedFile("c.zip", archive.read_bytes()))
    job = Job.objects.get(pk=int(location.rstrip("/").rsplit("/", 1)[1]))
    assert job.status == Job.Status.FAILED
    assert not Catalog.objects.exists() and not Transcript.objects.exists()
