"""The study page's uploads and catalog: limits, refusals, and ids that must match."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse
from django.utils import translation
from pytest_django.fixtures import Settings

from annotation.jobs import UPLOAD_ROOT
from annotation.models import Catalog, CatalogItem
from evalsite import jobs
from evalsite.models import Job
from fidelity.models import Study
from fidelity.prompts import make_prompts
from fidelity.upload_job import UPLOAD_JOB

ITEMS = b"item_id,title,avg_rating,n_ratings\nm1,Heat,4.5,9000\nm2,Up,3,10\n"


@pytest.fixture
def jobs_inline(monkeypatch: pytest.MonkeyPatch) -> None:
    """Started jobs run at once, in the test's thread, as a worker would run them."""
    monkeypatch.setattr(jobs, "start", jobs.run)


def job_of(location: str) -> Job:
    return Job.objects.get(pk=int(location.rstrip("/").rsplit("/", 1)[1]))


def _catalog(name: str, *ids: str) -> Catalog:
    catalog = Catalog.objects.create(name=name)
    CatalogItem.objects.bulk_create(
        CatalogItem(catalog=catalog, item_id=item_id, name=f"Film {item_id}") for item_id in ids
    )
    return catalog


def test_items_and_requests_are_refused_once_the_prompts_are_drawn(
    coordinator_client: Client, study: Study
) -> None:
    make_prompts(study)
    url = reverse("fidelity:upload_items", args=[study.pk])
    with translation.override("en"):
        response = coordinator_client.post(url, {"items": SimpleUploadedFile("i.csv", ITEMS)})
    assert response.status_code == 400
    assert "The prompts were drawn from this study" in response.content.decode()
    study.refresh_from_db()
    assert study.items.count() == 5
    requests = SimpleUploadedFile("r.jsonl", b'{"id": "r9", "request": "x", "answer_items": [1]}')
    url = reverse("fidelity:upload_requests", args=[study.pk])
    assert coordinator_client.post(url, {"requests": requests}).status_code == 400
    assert not study.requests.filter(external_id="r9").exists()


def test_an_upload_over_the_configured_limit_is_refused_unread(
    coordinator_client: Client, study: Study, settings: Settings
) -> None:
    settings.IMPORT_MAX_UPLOAD_BYTES = 20
    url = reverse("fidelity:upload_items", args=[study.pk])
    with translation.override("en"):
        response = coordinator_client.post(url, {"items": SimpleUploadedFile("i.csv", ITEMS)})
    assert response.status_code == 400
    assert "an upload may be at most 20 bytes" in response.content.decode()
    assert study.items.count() == 5


def test_an_upload_is_read_by_a_job_and_not_by_the_request(
    coordinator_client: Client, coordinator: User, monkeypatch: pytest.MonkeyPatch, db: None
) -> None:
    queued: list[Job] = []
    monkeypatch.setattr(jobs, "start", queued.append)
    study = Study.objects.create(name="Fresh")
    url = reverse("fidelity:upload_items", args=[study.pk])
    response = coordinator_client.post(url, {"items": SimpleUploadedFile("films.csv", ITEMS)})
    # The request only saved the file and queued its job: nothing is read or stored yet.
    assert response.status_code == 302
    job = job_of(response["Location"])
    assert queued == [job] and (job.kind, job.created_by) == (UPLOAD_JOB, coordinator)
    path = Path(job.params["path"])
    assert path.parent.parent == UPLOAD_ROOT and path.read_bytes() == ITEMS
    assert not study.items.exists()
    job = jobs.run(job)
    assert job.status == Job.Status.DONE, job.errors
    assert (job.done, job.total, job.percent, job.result["rows"]) == (3, 3, 100, 2)
    assert sorted(study.items.values_list("item_id", flat=True)) == ["m1", "m2"]
    assert not path.exists()


@pytest.mark.parametrize(
    ("language", "said"),
    [
        ("en", "Nothing was imported: the file has problems, listed below."),
        ("zh-hans", "没有导入任何内容：文件有问题，见下方列表。"),
    ],
)
def test_an_upload_problem_names_file_line_and_field(
    coordinator_client: Client, db: None, jobs_inline: None, language: str, said: str
) -> None:
    study = Study.objects.create(name="Fresh")
    bad = ITEMS + b"m3,Bad\x00Title,2,1\n"
    url = reverse("fidelity:upload_items", args=[study.pk])
    response = coordinator_client.post(url, {"items": SimpleUploadedFile("films.csv", bad)})
    job = job_of(response["Location"])
    assert job.status == Job.Status.FAILED
    assert job.errors[0].startswith("films.csv line 4: field title: cannot be stored")
    coordinator_client.cookies["django_language"] = language
    page = coordinator_client.get(response["Location"]).content.decode()
    assert "films.csv line 4: field title: cannot be stored" in page and said in page
    assert not study.items.exists() and not Path(job.params["path"]).exists()


def test_prompts_drawn_while_the_job_waits_refuse_its_file(
    coordinator_client: Client, study: Study, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(jobs, "start", lambda job: None)
    url = reverse("fidelity:upload_items", args=[study.pk])
    response = coordinator_client.post(url, {"items": SimpleUploadedFile("i.csv", ITEMS)})
    make_prompts(study)
    with translation.override("en"):
        job = jobs.run(job_of(response["Location"]))
    assert job.status == Job.Status.FAILED
    assert "The prompts were drawn from this study" in job.message
    assert study.items.count() == 5


def test_a_catalog_with_none_of_the_study_ids_is_refused_naming_some(
    coordinator_client: Client, study: Study
) -> None:
    other = _catalog("other-ids", "tt1", "tt2")
    url = reverse("fidelity:catalog", args=[study.pk])
    with translation.override("en"):
        page = coordinator_client.post(url, {"catalog": other.pk}, follow=True)
    text = page.content.decode()
    assert "None of the study&#x27;s item ids is in catalog other-ids" in text
    assert "m1, m2, m3, m4, m5" in text
    study.refresh_from_db()
    assert study.catalog is None


def test_a_catalog_lacking_some_ids_is_saved_with_a_warning(
    coordinator_client: Client, study: Study
) -> None:
    partial = _catalog("partial", "m1", "m2", "m3")
    with translation.override("en"):
        page = coordinator_client.post(
            reverse("fidelity:catalog", args=[study.pk]), {"catalog": partial.pk}, follow=True
        )
    text = page.content.decode()
    assert "The catalog is saved." in text
    assert "2 of the study&#x27;s 5 item ids are not in catalog partial" in text
    assert "(for example m4, m5)" in text
    study.refresh_from_db()
    assert study.catalog == partial


def test_items_uploaded_under_a_catalog_that_lacks_their_ids_are_warned_of(
    coordinator_client: Client, db: None, jobs_inline: None
) -> None:
    study = Study.objects.create(name="Fresh", catalog=_catalog("films", "m1"))
    url = reverse("fidelity:upload_items", args=[study.pk])
    with translation.override("en"):
        page = coordinator_client.post(
            url, {"items": SimpleUploadedFile("i.csv", ITEMS)}, follow=True
        )
    text = page.content.decode()
    assert "2 rows imported into study Fresh" in text
    assert "1 of the study&#x27;s 2 item ids are not in catalog films (for example m2)" in text
