"""The study page's uploads and catalog: limits, refusals, and ids that must match."""

from __future__ import annotations

from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse
from django.utils import translation
from pytest_django.fixtures import Settings

from annotation.models import Catalog, CatalogItem
from fidelity.models import Study
from fidelity.prompts import make_prompts

ITEMS = b"item_id,title,avg_rating,n_ratings\nm1,Heat,4.5,9000\nm2,Up,3,10\n"


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


def test_an_upload_problem_names_file_line_and_field(coordinator_client: Client, db: None) -> None:
    study = Study.objects.create(name="Fresh")
    bad = ITEMS + b"m3,Bad\x00Title,2,1\n"
    url = reverse("fidelity:upload_items", args=[study.pk])
    with translation.override("en"):
        response = coordinator_client.post(url, {"items": SimpleUploadedFile("films.csv", bad)})
    assert response.status_code == 400
    assert "films.csv line 4: field title: cannot be stored" in response.content.decode()
    assert not study.items.exists()


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
    coordinator_client: Client, db: None
) -> None:
    study = Study.objects.create(name="Fresh", catalog=_catalog("films", "m1"))
    url = reverse("fidelity:upload_items", args=[study.pk])
    with translation.override("en"):
        page = coordinator_client.post(
            url, {"items": SimpleUploadedFile("i.csv", ITEMS)}, follow=True
        )
    text = page.content.decode()
    assert "2 rows imported." in text
    assert "1 of the study&#x27;s 2 item ids are not in catalog films (for example m2)" in text
