"""Ratings: one per conversation under a double click, none after a close unless allowed."""

from __future__ import annotations

import threading

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.test import Client
from django.urls import reverse

from liveeval.campaigns import close_campaign
from liveeval.models import Rating
from tests.conftest import logged_in
from tests.liveeval.conftest import make_system
from tests.liveeval.test_views import VALID_RATING, ended_session


@pytest.mark.django_db(transaction=True)
def test_a_double_clicked_rating_is_stored_once(judge: User) -> None:
    session = ended_session(judge, make_system("reference", "ref-r", "System RR"))
    url = reverse("liveeval:rate_session", args=[session.pk])
    clients = [logged_in(judge) for _ in range(8)]
    start = threading.Barrier(len(clients))
    answers: list[tuple[int, str]] = []

    def click(client: Client) -> None:
        start.wait()
        try:
            response = client.post(url, VALID_RATING, HTTP_HX_REQUEST="true")
            answers.append((response.status_code, response.content.decode()))
        finally:
            connection.close()

    threads = [threading.Thread(target=click, args=(client,)) for client in clients]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)

    assert Rating.objects.filter(session=session).count() == 1
    statuses = sorted(status for status, _ in answers)
    assert statuses == [200] + [409] * 7, statuses
    assert all("already rated" in text for status, text in answers if status == 409)


@pytest.mark.django_db
@pytest.mark.parametrize(("late", "status"), [(False, 409), (True, 302)])
def test_a_closed_campaign_takes_ratings_only_when_late_rating_is_allowed(
    judge: User, late: bool, status: int
) -> None:
    session = ended_session(judge, make_system("reference", "ref-l", "System LL"))
    campaign = session.campaign
    assert campaign is not None
    campaign.late_rating = late
    campaign.save(update_fields=["late_rating"])
    close_campaign(campaign)
    client = logged_in(judge)
    page = client.get(reverse("liveeval:chat", args=[session.pk])).content.decode()
    assert ('id="rating-form"' in page) is late
    response = client.post(reverse("liveeval:rate_session", args=[session.pk]), VALID_RATING)
    assert response.status_code == status
    assert Rating.objects.filter(session=session).exists() is late
    if not late:
        assert "closed and takes no more ratings" in response.content.decode()


@pytest.mark.django_db
def test_the_rating_address_opened_as_a_page_leads_to_the_own_chat_only(
    judge: User, other_judge: User
) -> None:
    session = ended_session(judge, make_system("reference", "ref-r", "System RR"))
    url = reverse("liveeval:rate_session", args=[session.pk])
    answer = logged_in(judge).get(url)
    assert answer.status_code == 302
    assert answer["Location"] == reverse("liveeval:chat", args=[session.pk])
    assert logged_in(other_judge).get(url).status_code == 403
