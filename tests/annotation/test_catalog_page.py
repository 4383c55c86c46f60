"""The coordinator's item catalogs page: the list, and uploads checked before anything is kept."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse
from django.utils import translation

from annotation.models import Catalog
from tests.annotation.conftest import redial_catalog

pytestmark = pytest.mark.django_db

URL = "annotation:catalogs"


def test_a_csv_catalog_is_uploaded_and_listed(coordinator_client: Client) -> None:
    body = b"id,name,year,attributes\nm1,Airplane!,1980,comedy|parody\nm2,Heat,1995,crime\n"
    response = coordinator_client.post(
        reverse(URL),
        {"name": "films", "csv_file": SimpleUploadedFile("films.csv", body), "serves": "a,b"},
    )
    assert response.status_code == 302
    stored = Catalog.objects.get(name="films")
    assert stored.datasets == ["a", "b"] and stored.entries.count() == 2
    page = coordinator_client.get(reverse(URL)).content.decode()
    assert 'data-catalog="films"' in page and '<td class="items">2</td>' in page


def test_a_concept4crs_pair_serves_its_eval_folder(coordinator_client: Client) -> None:
    files = redial_catalog()
    response = coordinator_client.post(
        reverse(URL),
        {
            "name": "redial",
            "entity2id": SimpleUploadedFile(
                "redial_entity2id.json", files["redial_entity2id.json"]
            ),
            "id2info": SimpleUploadedFile("redial_id2info.json", files["redial_id2info.json"]),
        },
    )
    assert response.status_code == 302
    stored = Catalog.objects.get(name="redial")
    assert stored.datasets == ["redial", "redial_eval"]
    assert stored.entries.filter(kind="item").count() == 3


def test_a_bad_line_keeps_everything_as_it_was(coordinator_client: Client) -> None:
    body = b"id,name,year\nm1,Airplane!,80\n"
    with translation.override("en"):
        response = coordinator_client.post(
            reverse(URL), {"name": "films", "csv_file": SimpleUploadedFile("films.csv", body)}
        )
    assert response.status_code == 400
    assert "films.csv line 2: year &#x27;80&#x27; is not a four-digit year" in (
        response.content.decode()
    )
    assert not Catalog.objects.exists()


def test_the_form_asks_for_one_kind_of_source(coordinator_client: Client) -> None:
    with translation.override("en"):
        response = coordinator_client.post(reverse(URL), {"name": "films"})
    assert response.status_code == 400
    assert "Upload either a CSV catalog or a Concept4CRS pair of files." in (
        response.content.decode()
    )
