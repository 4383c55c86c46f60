"""Deactivating someone: they lose access at once and what they held goes back to others."""

from __future__ import annotations

import datetime as dt

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from annotation import queue
from annotation.imports.rows import import_rows
from annotation.models import Assignment, Campaign
from annotation.rubrics import default_rubric
from evalsite import roles
from liveeval.models import Campaign as LiveCampaign
from tests.annotation.conftest import dialogue, person
from tests.conftest import logged_in

pytestmark = pytest.mark.django_db


@pytest.fixture
def one_item() -> Campaign:
    campaign = Campaign.objects.create(
        name="One item", rubric=default_rubric(), annotations_per_item=1
    )
    import_rows(campaign, [dialogue("t001")])
    return campaign


def test_deactivating_an_annotator_releases_their_held_item_to_others(
    coordinator_client: Client, one_item: Campaign
) -> None:
    anna, bert = person("anna", roles.ANNOTATORS), person("bert", roles.ANNOTATORS)
    held = queue.next_for(anna, one_item)
    assert held is not None and queue.next_for(bert, one_item) is None

    dashboard = reverse("annotation:dashboard", args=[one_item.pk])
    page = coordinator_client.get(dashboard).content.decode()
    assert reverse("deactivate_person", args=[anna.pk]) in page
    response = coordinator_client.post(
        reverse("deactivate_person", args=[anna.pk]), {"next": dashboard}
    )
    assert response.status_code == 302 and response["Location"] == dashboard

    anna.refresh_from_db()
    held.refresh_from_db()
    assert not anna.is_active and not roles.has_role(anna, roles.ANNOTATORS)
    assert held.status == Assignment.Status.EXPIRED
    given = queue.next_for(bert, one_item)
    assert given is not None and given.transcript_id == held.transcript_id


def test_deactivating_a_judge_takes_them_out_of_live_campaigns(coordinator_client: Client) -> None:
    judge = person("jade", roles.JUDGES)
    campaign = LiveCampaign.objects.create(name="Round", today=dt.date(2026, 12, 1))
    campaign.judges.add(judge)
    coordinator_client.post(reverse("deactivate_person", args=[judge.pk]))
    assert not campaign.judges.exists()
    judge.refresh_from_db()
    assert not judge.is_active


def test_nobody_deactivates_themselves_or_a_superuser(coordinator: User) -> None:
    client = logged_in(coordinator)
    root = User.objects.create_superuser("root", "root@example.org", "pw-root-123")
    for target in (coordinator, root):
        client.post(reverse("deactivate_person", args=[target.pk]))
        target.refresh_from_db()
        assert target.is_active


def test_the_roster_part_refreshes_by_itself_and_is_for_coordinators(
    coordinator_client: Client, one_item: Campaign
) -> None:
    anna = person("anna", roles.ANNOTATORS)
    part = reverse("annotation:roster", args=[one_item.pk])
    page = coordinator_client.get(reverse("annotation:dashboard", args=[one_item.pk]))
    assert f'hx-get="{part}"' in page.content.decode()
    queue.next_for(anna, one_item)
    rows = coordinator_client.get(part).context["annotators"]
    assert [(row.username, row.held) for row in rows] == [("anna", 1)]
    assert logged_in(anna).get(part).status_code == 403
