"""A running campaign's pages listen for changes on a socket; when pushes may not reach every
server (no Redis) they also keep polling, more slowly, while it is open."""

from __future__ import annotations

import pytest
from django.test import Client, override_settings
from django.urls import reverse

from annotation.imports.rows import import_rows
from annotation.models import Campaign as AnnotationCampaign
from evalsite import live_changes
from tests.annotation.conftest import dialogue
from tests.liveeval.conftest import make_campaign

pytestmark = pytest.mark.django_db


@pytest.fixture
def annotation_campaign() -> AnnotationCampaign:
    import_rows("Followed", [dialogue("f1")])
    return AnnotationCampaign.objects.get(name="Followed")


@pytest.mark.parametrize("shared", [True, False])
def test_the_dashboard_listens_and_polls_slowly_unless_pushes_are_shared(
    shared: bool,
    coordinator_client: Client,
    annotation_campaign: AnnotationCampaign,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(live_changes, "pushes_are_shared", lambda: shared)
    page = coordinator_client.get(
        reverse("annotation:dashboard", args=[annotation_campaign.pk])
    ).content.decode()
    assert f'ws-connect="/ws/changes/annotation.campaign/{annotation_campaign.pk}/"' in page
    assert ('data-poll-while-open="20"' in page) is not shared
    # Either way the roster polls while no socket is open, and refetches on a pushed change.
    assert 'hx-trigger="every 4s, live-change"' in page and "data-poll-unless-socket" in page
    assert "data-refresh-on-change" in page


@pytest.mark.parametrize("shared", [True, False])
def test_the_live_campaign_page_listens_and_polls_slowly_unless_pushes_are_shared(
    shared: bool, coordinator_client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(live_changes, "pushes_are_shared", lambda: shared)
    campaign = make_campaign()
    page = coordinator_client.get(
        reverse("liveeval:campaign_detail", args=[campaign.pk])
    ).content.decode()
    assert f'ws-connect="/ws/changes/liveeval.campaign/{campaign.pk}/"' in page
    assert ('data-poll-while-open="20"' in page) is not shared
    assert 'id="campaign-progress"' in page and "data-refresh-on-change" in page


def test_the_roster_part_carries_the_progress_bar(
    coordinator_client: Client, annotation_campaign: AnnotationCampaign
) -> None:
    part = coordinator_client.get(
        reverse("annotation:roster", args=[annotation_campaign.pk])
    ).content.decode()
    assert 'id="campaign-bar"' in part and 'id="annotators"' in part


IN_MEMORY = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
REDIS = {
    "default": {
        "BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer",
        "CONFIG": {"hosts": ["redis://127.0.0.1:6379/0"]},
    }
}


def test_pushes_are_shared_by_redis_only() -> None:
    with override_settings(CHANNEL_LAYERS=IN_MEMORY):
        assert live_changes.pushes_are_shared() is False
    with override_settings(CHANNEL_LAYERS=REDIS):
        assert live_changes.pushes_are_shared() is True
