"""Every annotation page checks its role: anonymous people go to the login page, people
without the role get 403."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from annotation.models import Campaign
from annotation.urls import campaign_patterns as urlpatterns
from evalsite import roles
from tests.annotation.conftest import person

pytestmark = pytest.mark.django_db

# (url name, what the url names: "site", "campaign" or "item", method, the role allowed,
# the status an allowed person gets)
PAGES: list[tuple[str, str, str, str, int]] = [
    ("annotation:work", "campaign", "get", roles.ANNOTATORS, 302),
    ("annotation:mine", "campaign", "get", roles.ANNOTATORS, 200),
    ("annotation:item", "item", "get", roles.ANNOTATORS, 302),
    ("annotation:item", "item", "post", roles.ANNOTATORS, 302),
    ("annotation:skip", "item", "post", roles.ANNOTATORS, 302),
    ("annotation:take_up", "item", "post", roles.ANNOTATORS, 302),
    ("annotation:campaigns", "site", "get", roles.COORDINATORS, 200),
    ("annotation:import_transcripts", "site", "get", roles.COORDINATORS, 200),
    ("annotation:import_scores", "site", "get", roles.COORDINATORS, 200),
    ("annotation:catalogs", "site", "get", roles.COORDINATORS, 200),
    ("annotation:catalogs", "site", "post", roles.COORDINATORS, 400),
    ("annotation:dashboard", "campaign", "get", roles.COORDINATORS, 200),
    ("annotation:roster", "campaign", "get", roles.COORDINATORS, 200),
    ("annotation:transcript_scores", "item", "get", roles.COORDINATORS, 200),
    ("annotation:campaign_new", "site", "get", roles.COORDINATORS, 200),
    ("annotation:settings", "campaign", "get", roles.COORDINATORS, 200),
    ("annotation:gold_items", "campaign", "get", roles.COORDINATORS, 200),
    ("annotation:gold_item", "item", "get", roles.COORDINATORS, 200),
    ("annotation:clone", "campaign", "get", roles.COORDINATORS, 200),
    ("annotation:archive", "campaign", "post", roles.COORDINATORS, 302),
    ("annotation:restore", "campaign", "post", roles.COORDINATORS, 302),
]


@pytest.fixture
def cast(db: None) -> dict[str, User]:
    return {
        roles.JUDGES: person("j", roles.JUDGES),
        roles.ANNOTATORS: person("a", roles.ANNOTATORS),
        roles.COORDINATORS: person("c", roles.COORDINATORS),
        "outsider": person("o"),
    }


def url_of(name: str, names: str, campaign: Campaign) -> str:
    if names == "site":
        return reverse(name)
    if names == "campaign":
        return reverse(name, args=[campaign.pk])
    transcript = campaign.transcripts.order_by("pk").first()
    assert transcript is not None
    return reverse(name, args=[campaign.pk, transcript.pk])


def logged_in(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_the_table_covers_every_annotation_url() -> None:
    assert {f"annotation:{p.name}" for p in urlpatterns} == {name for name, *_ in PAGES}


@pytest.mark.parametrize(("name", "names", "method", "allowed", "ok"), PAGES)
def test_every_page_enforces_its_role(
    name: str,
    names: str,
    method: str,
    allowed: str,
    ok: int,
    cast: dict[str, User],
    campaign: Campaign,
) -> None:
    url = url_of(name, names, campaign)
    anonymous = getattr(Client(), method)(url)
    assert anonymous.status_code == 302
    assert anonymous["Location"].startswith(reverse("login"))
    for role, user in cast.items():
        status = getattr(logged_in(user), method)(url).status_code
        assert status == (ok if role == allowed else 403), (role, method, url, status)


def test_skipping_takes_only_posts(cast: dict[str, User], campaign: Campaign) -> None:
    url = url_of("annotation:skip", "item", campaign)
    assert logged_in(cast[roles.ANNOTATORS]).get(url).status_code == 405
