"""An annotator who is also an adjudicator never sees LLM scores while annotating: the queue
gives adjudicators no new items, and adjudication is refused while they hold one."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse
from django.utils import translation

from annotation import queue
from annotation.alignment.stored_split import alignment_of
from annotation.imports.rows import import_rows
from annotation.models import Assignment, Campaign, LLMScore
from tests.annotation.conftest import dialogue, person

pytestmark = pytest.mark.django_db

MARKER = "LLM-SCORE-RATIONALE-7f3a"


@pytest.fixture
def campaign(db: None) -> Campaign:
    import_rows("Blind", [dialogue("b1"), dialogue("b2"), dialogue("b3")])
    campaign = Campaign.objects.get(name="Blind")
    for transcript in campaign.transcripts.all():
        LLMScore.objects.create(
            transcript=transcript,
            dimension=campaign.rubric.dimensions.get(key="relevance"),
            evaluator="judge@v1",
            score=4,
            rationale=MARKER,
        )
    return campaign


def client_for(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_an_adjudicator_holding_an_item_is_refused_and_told_why(campaign: Campaign) -> None:
    both = person("both", "annotators")
    held = queue.next_for(both, campaign)
    assert held is not None
    alignment_of(campaign).adjudicators.add(both)
    urls = [
        reverse("annotation_alignment:queue", args=[campaign.pk]),
        reverse(
            "annotation_alignment:adjudicate",
            args=[campaign.pk, held.transcript.pk, "relevance"],
        ),
    ]
    with translation.override("en"):
        for url in urls:
            page = client_for(both).get(url, HTTP_ACCEPT_LANGUAGE="en")
            html = page.content.decode()
            assert page.status_code == 403 and MARKER not in html
            assert "You still hold an item to annotate in this campaign" in html
    held.status = Assignment.Status.SUBMITTED
    held.save()
    assert queue.next_for(both, campaign) is None, "an adjudicator gets no new items"
    page = client_for(both).get(urls[1])
    assert page.status_code == 200 and MARKER in page.content.decode()


def test_an_adjudicator_gets_no_new_items_but_may_finish_the_one_held(
    campaign: Campaign,
) -> None:
    both = person("both", "annotators")
    held = queue.next_for(both, campaign)
    assert held is not None
    alignment_of(campaign).adjudicators.add(both)
    again = queue.next_for(both, campaign)
    assert again is not None and again.pk == held.pk
    queue.skip(both, held.transcript)
    assert queue.next_for(both, campaign) is None
    others = person("other", "annotators")
    assert queue.next_for(others, campaign) is not None


def test_the_alignment_page_explains_the_rule(campaign: Campaign) -> None:
    boss = person("boss", "coordinators")
    with translation.override("en"):
        page = client_for(boss).get(
            reverse("annotation_alignment:page", args=[campaign.pk]), HTTP_ACCEPT_LANGUAGE="en"
        )
    assert "an adjudicator gets no new items of this campaign" in page.content.decode()


def test_the_annotation_page_tells_an_adjudicator_why_nothing_is_given(
    campaign: Campaign,
) -> None:
    both = person("both", "annotators")
    alignment_of(campaign).adjudicators.add(both)
    with translation.override("en"):
        page = client_for(both).get(
            reverse("annotation:work", args=[campaign.pk]), HTTP_ACCEPT_LANGUAGE="en"
        )
    html = page.content.decode()
    assert page.status_code == 200 and MARKER not in html
    assert "You adjudicate this campaign" in html
    assert not Assignment.objects.filter(annotator=both).exists()


def test_an_adjudicator_cannot_revise_what_they_submitted(campaign: Campaign) -> None:
    both = person("both", "annotators")
    held = queue.next_for(both, campaign)
    assert held is not None
    relevance = campaign.rubric.dimensions.get(key="relevance")
    queue.submit(both, held.transcript, [queue.Answer(relevance, 3)], 500)
    alignment_of(campaign).adjudicators.add(both)
    with translation.override("en"), pytest.raises(queue.ItemUnavailable, match="revise"):
        queue.submit(both, held.transcript, [queue.Answer(relevance, 5)], 500)
    assert held.transcript.responses.get(dimension=relevance).value == 3


def test_an_adjudicator_cannot_take_up_a_skipped_item(campaign: Campaign) -> None:
    both = person("both", "annotators")
    held = queue.next_for(both, campaign)
    assert held is not None
    queue.skip(both, held.transcript)
    alignment_of(campaign).adjudicators.add(both)
    # The probe's path: skip, open the adjudication queue (now allowed), then take it up.
    assert (
        client_for(both).get(reverse("annotation_alignment:queue", args=[campaign.pk])).status_code
        == 200
    )
    response = client_for(both).post(
        reverse("annotation:take_up", args=[campaign.pk, held.transcript.pk]),
        HTTP_ACCEPT_LANGUAGE="en",
        follow=True,
    )
    assert "you can no longer revise your answers or take up a skipped item" in (
        response.content.decode()
    )
    held.refresh_from_db()
    assert held.status == Assignment.Status.SKIPPED
