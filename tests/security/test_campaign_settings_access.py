"""Who may use the campaign settings pages of both kinds: coordinators only.

Every page and form is tried by every role: anonymous people go to the sign-in page, a
judge, an annotator, a participant and someone with no role are refused, and nothing they
send changes a campaign.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from annotation.imports.rows import import_rows
from annotation.models import Campaign as AnnotationCampaign
from annotation.rubrics import default_rubric
from evalsite import roles
from liveeval.models import Campaign as LiveCampaign
from tests.annotation.conftest import dialogue
from tests.conftest import logged_in, make_user
from tests.liveeval.conftest import TODAY, make_system, make_task

pytestmark = pytest.mark.django_db


@pytest.fixture
def annotation_campaign() -> AnnotationCampaign:
    campaign = AnnotationCampaign.objects.create(name="Study", rubric=default_rubric())
    import_rows(campaign, [dialogue("t001")])
    return campaign


@pytest.fixture
def live_campaign() -> LiveCampaign:
    campaign = LiveCampaign.objects.create(name="Live", today=TODAY, lang="bi")
    campaign.systems.set([make_system("reference", "ref-x", "System X")])
    campaign.tasks.set([make_task("flight-x")])
    return campaign


def urls(
    annotation: AnnotationCampaign, live: LiveCampaign
) -> list[tuple[str, str, dict[str, str]]]:
    transcript = annotation.transcripts.get()
    task = live.tasks.get()
    return [
        ("get", reverse("annotation:campaign_new"), {}),
        ("post", reverse("annotation:campaign_new"), {"name": "Sneaky"}),
        ("get", reverse("annotation:settings", args=[annotation.pk]), {}),
        ("post", reverse("annotation:settings", args=[annotation.pk]), {"name": "Renamed"}),
        ("get", reverse("annotation:gold_items", args=[annotation.pk]), {}),
        ("get", reverse("annotation:gold_item", args=[annotation.pk, transcript.pk]), {}),
        (
            "post",
            reverse("annotation:gold_item", args=[annotation.pk, transcript.pk]),
            {"is_gold": "on"},
        ),
        ("get", reverse("annotation:clone", args=[annotation.pk]), {}),
        ("post", reverse("annotation:clone", args=[annotation.pk]), {"name": "Sneaky copy"}),
        ("post", reverse("annotation:archive", args=[annotation.pk]), {}),
        ("post", reverse("annotation:restore", args=[annotation.pk]), {}),
        ("get", reverse("liveeval:campaign_clone", args=[live.pk]), {}),
        ("post", reverse("liveeval:campaign_clone", args=[live.pk]), {"name": "Sneaky copy"}),
        ("post", reverse("liveeval:campaign_archive", args=[live.pk]), {}),
        ("post", reverse("liveeval:campaign_restore", args=[live.pk]), {}),
        (
            "post",
            reverse("liveeval:campaign_task_languages", args=[live.pk]),
            {f"lang_{task.pk}": "en"},
        ),
    ]


ROLES: dict[str, Callable[[], User]] = {
    "judge": lambda: make_user("jade", roles.JUDGES),
    "annotator": lambda: make_user("anna", roles.ANNOTATORS),
    "participant": lambda: make_user("pia", roles.PARTICIPANTS),
    "outsider": lambda: make_user("otto"),
}


def snapshot(annotation: AnnotationCampaign, live: LiveCampaign) -> tuple[object, ...]:
    annotation.refresh_from_db()
    live.refresh_from_db()
    return (
        AnnotationCampaign.objects.count(),
        LiveCampaign.objects.count(),
        annotation.name,
        annotation.archived_at,
        live.archived_at,
        live.task_languages,
        annotation.transcripts.get().gold,
    )


def test_anonymous_people_are_sent_to_sign_in(
    annotation_campaign: AnnotationCampaign, live_campaign: LiveCampaign
) -> None:
    before = snapshot(annotation_campaign, live_campaign)
    for method, url, data in urls(annotation_campaign, live_campaign):
        response = getattr(Client(), method)(url, data)
        assert response.status_code == 302, url
        assert response["Location"].startswith(reverse("login")), url
    assert snapshot(annotation_campaign, live_campaign) == before


@pytest.mark.parametrize("role", sorted(ROLES))
def test_every_role_but_coordinators_is_refused(
    role: str, annotation_campaign: AnnotationCampaign, live_campaign: LiveCampaign
) -> None:
    client = logged_in(ROLES[role]())
    before = snapshot(annotation_campaign, live_campaign)
    for method, url, data in urls(annotation_campaign, live_campaign):
        assert getattr(client, method)(url, data).status_code == 403, (role, url)
    assert snapshot(annotation_campaign, live_campaign) == before


def test_coordinators_reach_every_page_and_form(
    coordinator: User, annotation_campaign: AnnotationCampaign, live_campaign: LiveCampaign
) -> None:
    client = logged_in(coordinator)
    for method, url, data in urls(annotation_campaign, live_campaign):
        status = getattr(client, method)(url, data).status_code
        expected = {200} if method == "get" else {302, 400}
        assert status in expected, (url, status)
