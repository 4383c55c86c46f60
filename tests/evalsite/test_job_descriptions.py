"""Job pages say what a job did in words: no raw keys, kind names or server paths, counts a
reader recognises, a link to what the job filled, and Resume only where resuming works."""

from __future__ import annotations

import json
import re
from datetime import timedelta
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse
from django.utils import timezone, translation

from annotation.jobs import UPLOAD_ROOT
from annotation.models import Campaign
from evalsite import jobs
from evalsite.models import Job
from tests.annotation.conftest import dialogue

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def jobs_inline(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(jobs, "start", jobs.run)


def import_48(client: Client) -> tuple[Job, str]:
    rows = "\n".join(json.dumps(dialogue(f"sentence-{n}")) for n in range(48))
    response = client.post(
        reverse("annotation:import_transcripts"),
        {"new_campaign": "Sentences", "file": SimpleUploadedFile("chats.jsonl", rows.encode())},
    )
    job = Job.objects.get(pk=int(response["Location"].rstrip("/").rsplit("/", 1)[1]))
    with translation.override("en"):
        page = client.get(response["Location"]).content.decode()
    return job, page


def test_an_import_reads_as_a_sentence_with_a_link(coordinator_client: Client) -> None:
    job, page = import_48(coordinator_client)
    assert job.status == Job.Status.DONE
    assert "48 transcripts imported into campaign Sentences in " in page
    assert "The campaign was created for them." in page
    campaign = Campaign.objects.get(name="Sentences")
    assert f'href="{reverse("annotation:dashboard", args=[campaign.pk])}"' in page
    assert "Open campaign Sentences" in page
    for raw in ("validate_seconds", "campaign_created", "annotation.import_transcripts", "True"):
        assert raw not in page
    # Progress counted checking and writing (96 steps); the page counts no steps.
    # (In the page's main part, as a number of its own: the CSRF token may hold the digits.)
    main = page[page.index("<main") :]
    assert not re.search(r"(?<![\w-])96(?![\w-])", main) and str(UPLOAD_ROOT) not in page
    assert "<h1>Transcript import" in page
    # A finished import cannot resume.
    assert "Resume" not in page


def test_it_reads_in_chinese(coordinator_client: Client) -> None:
    job, _ = import_48(coordinator_client)
    with translation.override("zh-hans"):
        page = coordinator_client.get(
            reverse("job_detail", args=[job.pk]), HTTP_ACCEPT_LANGUAGE="zh-hans"
        ).content.decode()
    assert "48 份对话已导入活动 Sentences" in page


def test_a_failed_upload_names_no_server_path_and_offers_no_resume(
    coordinator_client: Client,
) -> None:
    response = coordinator_client.post(
        reverse("annotation:import_transcripts"),
        {"new_campaign": "Bad", "file": SimpleUploadedFile("bad.jsonl", b'{"id": 1}\n')},
    )
    job = Job.objects.get(pk=int(response["Location"].rstrip("/").rsplit("/", 1)[1]))
    assert job.status == Job.Status.FAILED and not job.can_resume
    with translation.override("en"):
        page = coordinator_client.get(response["Location"]).content.decode()
    assert "Nothing was imported: the file has problems, listed below." in page
    assert "bad.jsonl line 1" in page and str(UPLOAD_ROOT) not in page
    assert "Resume" not in page
    refused = coordinator_client.post(reverse("job_resume", args=[job.pk]))
    assert refused.status_code == 409
    job.refresh_from_db()
    assert job.status == Job.Status.FAILED


def test_an_interrupted_import_resumes_only_while_its_file_is_there(tmp_path: Path) -> None:
    source = tmp_path / "t.jsonl"
    source.write_text(json.dumps(dialogue("x1")))
    job = jobs.create(
        "annotation.import_transcripts",
        {"path": str(source), "campaign": "Later", "format": "jsonl"},
    )
    job.status = Job.Status.INTERRUPTED
    job.started_at = timezone.now() - timedelta(seconds=3)
    job.save()
    assert job.can_resume
    source.unlink()
    assert not job.can_resume
    with pytest.raises(jobs.JobError, match="cannot continue"):
        jobs.resume(job)


@jobs.job_kind("tests.wordless")
def wordless(context: jobs.JobContext) -> dict[str, object]:
    return {"secret_key_name": True}


def test_a_kind_without_words_is_only_a_background_job(coordinator_client: Client) -> None:
    job = jobs.run(jobs.create("tests.wordless"))
    with translation.override("en"):
        page = coordinator_client.get(reverse("job_detail", args=[job.pk])).content.decode()
        listing = coordinator_client.get(reverse("job_list")).content.decode()
    assert "Background job" in page and "tests.wordless" not in page
    assert "secret_key_name" not in page and "tests.wordless" not in listing


def test_the_counting_kind_says_its_sum() -> None:
    job = jobs.run(jobs.create("testing.count", {"total": 15}))
    assert job.description.sentence == "Counted 15 steps; their sum is 105."
    assert job.description.counted


def test_the_job_list_describes_each_job_once(coordinator_client: Client) -> None:
    """Ten more finished imports cost the list one query each (the campaign they name)."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    def imports(count: int) -> None:
        for _ in range(count):
            job = jobs.create("annotation.import_transcripts", {"campaign": "Listed"})
            Job.objects.filter(pk=job.pk).update(
                status=Job.Status.DONE, result={"campaign": "Listed", "transcripts": 3}
            )

    def queries() -> int:
        with CaptureQueriesContext(connection) as captured:
            assert coordinator_client.get(reverse("job_list")).status_code == 200
        return len(captured.captured_queries)

    imports(10)
    before = queries()
    imports(10)
    assert queries() - before <= 10
