"""The coordinator's upload page: each upload becomes a background job that shows its progress
and, when the file is bad, every problem with its line.

The jobs run inline here; the browser test runs them in the server's background thread.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse

from annotation.jobs import UPLOAD_ROOT
from annotation.models import Campaign, LLMScore, Transcript
from evalsite import jobs
from evalsite.models import Job
from tests.annotation.conftest import CONCEPT4CRS, CONCEPT4CRS_DUPLICATES, dialogue, person

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def jobs_inline(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(jobs, "start", jobs.run)


@pytest.fixture
def boss(db: None) -> User:
    return person("boss", "coordinators")


@pytest.fixture
def client_of(boss: User) -> Client:
    client = Client()
    client.force_login(boss)
    return client


def jsonl(name: str, rows: list[dict[str, object]]) -> SimpleUploadedFile:
    body = "\n".join(json.dumps(row) for row in rows).encode()
    return SimpleUploadedFile(name, body, content_type="application/x-ndjson")


def finished(response_location: str) -> Job:
    job = Job.objects.get(pk=int(response_location.rstrip("/").rsplit("/", 1)[1]))
    assert job.is_finished, job.message
    return job


def test_an_upload_runs_as_a_job_that_imports_the_file(client_of: Client, boss: User) -> None:
    response = client_of.post(
        reverse("annotation:import_transcripts"),
        {
            "new_campaign": "Uploaded",
            "format": "jsonl",
            "file": jsonl("transcripts.jsonl", [dialogue("u1"), dialogue("u2")]),
        },
    )
    assert response.status_code == 302
    job = finished(response["Location"])
    assert job.status == Job.Status.DONE, job.errors
    assert (job.kind, job.created_by, job.percent) == ("annotation.import_transcripts", boss, 100)
    assert job.result["created"] == 2 and job.result["campaign"] == "Uploaded"
    assert Campaign.objects.get(name="Uploaded").transcripts.count() == 2
    assert not Path(job.params["path"]).exists()
    assert Path(job.params["path"]).parent.parent == UPLOAD_ROOT


def test_a_bad_upload_lists_each_problem_with_its_line(client_of: Client) -> None:
    bad = dialogue("u2")
    bad["turns"][0]["role"] = "assistant"
    response = client_of.post(
        reverse("annotation:import_transcripts"),
        {
            "new_campaign": "Broken",
            "format": "jsonl",
            "file": jsonl("transcripts.jsonl", [dialogue("u1"), bad]),
        },
    )
    job = finished(response["Location"])
    assert job.status == Job.Status.FAILED
    assert job.errors == [
        "transcripts.jsonl line 2: turns[0].role must be 'user' or 'system'",
        "Problems found: 1; nothing was imported.",
    ]
    html = client_of.get(response["Location"]).content.decode()
    assert "transcripts.jsonl line 2: turns[0].role must be" in html
    assert not Transcript.objects.exists() and not Campaign.objects.exists()


def test_a_concept4crs_zip_with_personas_is_imported(client_of: Client, tmp_path: Path) -> None:
    archive = tmp_path / "sample.zip"
    with zipfile.ZipFile(archive, "w") as bundle:
        for file in CONCEPT4CRS.rglob("*.json"):
            bundle.write(file, file.relative_to(CONCEPT4CRS).as_posix())
    response = client_of.post(
        reverse("annotation:import_transcripts"),
        {
            "new_campaign": "C4",
            "format": "concept4crs",
            "file": SimpleUploadedFile("sample.zip", archive.read_bytes()),
            "personas": SimpleUploadedFile(
                "personas.csv", (CONCEPT4CRS / "personas.csv").read_bytes()
            ),
        },
    )
    job = finished(response["Location"])
    assert job.status == Job.Status.DONE, job.errors
    assert set(Transcript.objects.values_list("persona_emotion", flat=True)) == {
        "Curiosity",
        "Boredom",
        "Delight",
    }


def test_a_concept4crs_zip_can_skip_duplicated_cells(client_of: Client, tmp_path: Path) -> None:
    archive = tmp_path / "dupes.zip"
    with zipfile.ZipFile(archive, "w") as bundle:
        for file in CONCEPT4CRS_DUPLICATES.rglob("*.json"):
            bundle.write(file, file.relative_to(CONCEPT4CRS_DUPLICATES).as_posix())
    response = client_of.post(
        reverse("annotation:import_transcripts"),
        {
            "new_campaign": "Deduped",
            "format": "concept4crs",
            "file": SimpleUploadedFile("dupes.zip", archive.read_bytes()),
            "dedupe_cells": "on",
        },
    )
    job = finished(response["Location"])
    assert job.status == Job.Status.DONE, job.errors
    assert (job.result["transcripts"], job.result["duplicates_skipped"]) == (4, 2)
    page = client_of.get(response["Location"]).content.decode()
    assert "2 dialogues repeated a persona × attribute cell and were skipped." in page
    assert "duplicates_skipped" not in page


def test_llm_scores_are_uploaded_into_a_campaign(client_of: Client, campaign: Campaign) -> None:
    body = b"transcript_id,dimension,score,rationale\nt001,manner,4,clear\n"
    response = client_of.post(
        reverse("annotation:import_scores"),
        {
            "scores-campaign": campaign.pk,
            "scores-evaluator": "gpt-judge",
            "scores-file": SimpleUploadedFile("scores.csv", body),
        },
    )
    job = finished(response["Location"])
    assert job.status == Job.Status.DONE, job.errors
    assert list(LLMScore.objects.values_list("evaluator", "score")) == [("gpt-judge", 4.0)]


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"format": "jsonl"}, "Choose a campaign or name a new one (not both)."),
        ({"new_campaign": "Test campaign", "format": "jsonl"}, "A campaign with this name exists"),
        ({"new_campaign": "N", "format": "csv"}, "t.jsonl is a JSONL file, not CSV."),
        (
            {"new_campaign": "N", "format": "jsonl", "dedupe_cells": "on"},
            "Duplicated cells apply to Concept4CRS imports only.",
        ),
    ],
)
def test_the_form_explains_what_is_missing(
    client_of: Client, campaign: Campaign, data: dict[str, str], message: str
) -> None:
    response = client_of.post(
        reverse("annotation:import_transcripts"),
        {**data, "file": jsonl("t.jsonl", [dialogue("u1")])},
    )
    assert response.status_code == 400
    assert message in response.content.decode()
    assert not Job.objects.exists()
