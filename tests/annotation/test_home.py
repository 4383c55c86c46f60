from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from annotation.home import annotator_section, coordinator_campaigns
from annotation.models import Campaign
from tests.annotation.conftest import person

pytestmark = pytest.mark.django_db


def test_an_annotator_sees_the_open_campaigns_they_may_work_on(campaign: Campaign) -> None:
    ann = person("ann", "annotators")
    mine = Campaign.objects.create(name="Mine", rubric=campaign.rubric)
    mine.annotators.add(ann)
    theirs = Campaign.objects.create(name="Theirs", rubric=campaign.rubric)
    theirs.annotators.add(person("bob", "annotators"))
    Campaign.objects.create(name="Closed", rubric=campaign.rubric, status="closed")
    section = annotator_section(ann)
    assert [q["campaign"].name for q in section.context["queues"]] == ["Mine", "Test campaign"]
    client = Client()
    client.force_login(ann)
    html = client.get(reverse("home")).content.decode()
    assert f'href="{reverse("annotation:work", args=[campaign.pk])}"' in html
    assert "Theirs" not in html and "Closed" not in html


def test_a_coordinator_sees_every_campaign_linked_to_its_dashboard(campaign: Campaign) -> None:
    boss = person("boss", "coordinators")
    campaigns = coordinator_campaigns(boss)["annotation_campaigns"]
    assert campaigns == [campaign]
    client = Client()
    client.force_login(boss)
    html = client.get(reverse("home")).content.decode()
    assert f'<a href="{campaign.get_absolute_url()}">Test campaign</a>' in html
