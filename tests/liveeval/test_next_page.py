from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from liveeval.models import ChatSession, DialogueSystem
from tests.liveeval.conftest import make_system
from tests.liveeval.test_views import make_open_campaign

pytestmark = pytest.mark.django_db


@pytest.fixture
def systems() -> list[DialogueSystem]:
    return [
        make_system("reference", "ref-n", "System Q"),
        make_system("baseline", "base-n", "System W"),
    ]


def test_get_shows_the_button_instead_of_a_blank_405(
    judge: User, judge_client: Client, systems: list[DialogueSystem]
) -> None:
    make_open_campaign(systems, [judge], k=1)
    response = judge_client.get(reverse("liveeval:next_session"), HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == 200
    html = response.content.decode()
    assert 'class="topbar"' in html
    assert f'action="{reverse("liveeval:next_session")}"' in html
    assert 'id="start-next"' in html
    # Showing the page opens nothing: only the button's POST does.
    assert not ChatSession.objects.filter(status=ChatSession.Status.OPEN).exists()


def test_get_with_nothing_waiting_says_so(judge_client: Client) -> None:
    response = judge_client.get(reverse("liveeval:next_session"), HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == 200
    assert "No conversation is waiting for you." in response.content.decode()
    assert 'id="start-next"' not in response.content.decode()


def test_it_is_still_for_judges_only(annotator_client: Client) -> None:
    assert annotator_client.get(reverse("liveeval:next_session")).status_code == 403
