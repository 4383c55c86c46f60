"""Skipping with an undo, the skipped list, and progress bars that keep up with submissions."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from annotation import queue
from annotation.models import Assignment, Campaign, Transcript
from tests.annotation.conftest import person
from tests.annotation.test_workspace import HTMX, answers, item_url, start

pytestmark = pytest.mark.django_db


@pytest.fixture
def ann(db: None) -> User:
    return person("ann", "annotators")


@pytest.fixture
def client_of(ann: User) -> Client:
    client = Client()
    client.force_login(ann)
    return client


def take_up_url(campaign: Campaign, external_id: str) -> str:
    transcript = campaign.transcripts.get(external_id=external_id)
    return reverse("annotation:take_up", args=[campaign.pk, transcript.pk])


class TestUndoSkip:
    def test_the_next_item_offers_to_undo_the_skip(
        self, client_of: Client, campaign: Campaign
    ) -> None:
        start(client_of, campaign)
        skip = reverse(
            "annotation:skip", args=[campaign.pk, Transcript.objects.get(external_id="t001").pk]
        )
        html = client_of.post(skip, headers=HTMX).content.decode()
        assert 'class="undo-skip message"' in html
        assert f'action="{take_up_url(campaign, "t001")}"' in html

    def test_undo_holds_the_skipped_item_again_and_opens_it(
        self, ann: User, client_of: Client, campaign: Campaign
    ) -> None:
        start(client_of, campaign)
        t001 = Transcript.objects.get(external_id="t001")
        client_of.post(reverse("annotation:skip", args=[campaign.pk, t001.pk]), headers=HTMX)
        response = client_of.post(take_up_url(campaign, "t001"))
        assert response.status_code == 302
        assert response["Location"] == item_url(campaign, "t001")
        assignment = Assignment.objects.get(annotator=ann, transcript=t001)
        assert assignment.status == Assignment.Status.HELD
        t001.refresh_from_db()
        assert t001.active_count == 1
        # Taken up, it can be submitted like any held item.
        submitted = client_of.post(item_url(campaign, "t001"), answers())
        assert submitted.status_code == 302
        assignment.refresh_from_db()
        assert assignment.status == Assignment.Status.SUBMITTED

    def test_an_item_others_completed_meanwhile_cannot_be_taken_up(
        self, ann: User, client_of: Client, campaign_factory: Callable[..., Campaign]
    ) -> None:
        campaign = campaign_factory(items=1, annotations_per_item=1)
        start(client_of, campaign)
        transcript = Transcript.objects.get()
        queue.skip(ann, transcript)
        other = person("bo", "annotators")
        assert queue.next_for(other, campaign) is not None
        response = client_of.post(take_up_url(campaign, "t001"), follow=True)
        assert "Others have completed this item since you skipped it." in response.content.decode()
        assert Assignment.objects.get(annotator=ann).status == Assignment.Status.SKIPPED
        transcript.refresh_from_db()
        assert transcript.active_count == 1

    def test_only_a_skipped_item_can_be_taken_up(
        self, client_of: Client, campaign: Campaign
    ) -> None:
        start(client_of, campaign)
        response = client_of.post(take_up_url(campaign, "t001"), follow=True)
        assert "You have not skipped this item." in response.content.decode()
        assert Transcript.objects.get(external_id="t001").active_count == 1

    def test_the_skipped_list_offers_each_item_again(
        self, ann: User, client_of: Client, campaign: Campaign
    ) -> None:
        for _ in range(2):
            held = queue.next_for(ann, campaign)
            assert held is not None
            queue.skip(ann, held.transcript)
        html = client_of.get(reverse("annotation:mine", args=[campaign.pk])).content.decode()
        assert 'id="skipped"' in html
        assert f'action="{take_up_url(campaign, "t001")}"' in html
        assert f'action="{take_up_url(campaign, "t002")}"' in html
        assert f'action="{take_up_url(campaign, "t003")}"' not in html


class TestBars:
    def test_both_bars_count_the_submission_just_made(
        self, client_of: Client, campaign: Campaign
    ) -> None:
        # The first page fills the figures' cache before anything is submitted.
        client_of.get(start(client_of, campaign))
        html = client_of.post(item_url(campaign, "t001"), answers(), headers=HTMX).content.decode()
        assert 'You: <span class="bar-done">1</span>' in html
        assert "Campaign: 1 / 9" in html

    def test_the_bar_says_done_when_nothing_is_left(
        self, ann: User, client_of: Client, campaign_factory: Callable[..., Campaign]
    ) -> None:
        campaign = campaign_factory(items=8, annotations_per_item=1)
        campaign.annotators.set([ann, person("bo", "annotators")])
        other = campaign.annotators.get(username="bo")
        # The other annotator takes 1 of the 8 items; ann's share was 4, she does the other 7.
        held = queue.next_for(other, campaign)
        assert held is not None
        for _ in range(7):
            url = start(client_of, campaign)
            last = client_of.post(url, answers(), headers=HTMX).content.decode()
        assert (
            'You: <span class="bar-done">7</span> · <span class="bar-finished">done</span>' in last
        )
        assert "/ 4" not in last.split('data-bar="campaign"')[0]
