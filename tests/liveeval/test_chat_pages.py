"""What the chat, rating and review pages show around the dialogue itself."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from liveeval.models import ChatSession, DialogueSystem, Message
from tests.liveeval.conftest import TODAY, judged_session, make_campaign, make_system, make_task

pytestmark = pytest.mark.django_db

CHINESE = {"Accept-Language": "zh-hans"}


@pytest.fixture
def system() -> DialogueSystem:
    return make_system("reference", "ref-x", "System A")


def talked_session(judge: User, system: DialogueSystem) -> ChatSession:
    session = judged_session(judge, system, make_campaign(), task=make_task())
    Message.objects.create(session=session, position=0, role="user", text="你好")
    Message.objects.create(session=session, position=1, role="system", text="您好")
    return session


class TestFlashMessages:
    def test_the_chat_page_lists_no_message_ids(
        self, judge: User, judge_client: Client, system: DialogueSystem
    ) -> None:
        session = talked_session(judge, system)
        page = judge_client.get(reverse("liveeval:chat", args=[session.pk]))
        assert page.status_code == 200
        text = page.content.decode()
        assert f"{session.pk}#0 user" not in text
        assert 'class="messages"' not in text
        assert text.count('class="bubble') == 2

    def test_the_review_page_lists_no_message_ids_and_shows_flash_messages(
        self, judge: User, coordinator_client: Client, system: DialogueSystem
    ) -> None:
        session = talked_session(judge, system)
        campaign = session.campaign
        assert campaign is not None
        closing = coordinator_client.post(reverse("liveeval:campaign_close", args=[campaign.pk]))
        assert closing.status_code == 302
        page = coordinator_client.get(reverse("liveeval:session_review", args=[session.pk]))
        text = page.content.decode()
        assert f"{session.pk}#0 user" not in text
        assert '<li class="message success">Campaign closed.</li>' in text

    def test_a_rating_sent_without_javascript_is_confirmed_on_the_chat_page(
        self, judge: User, judge_client: Client, system: DialogueSystem
    ) -> None:
        session = talked_session(judge, system)
        session.end(ChatSession.EndReason.USER)
        rating = {"completed": "True", "satisfaction": "1", "fluency": "0", "guidance": "1"}
        page = judge_client.post(
            reverse("liveeval:rate_session", args=[session.pk]), rating, follow=True
        )
        text = page.content.decode()
        assert '<li class="message success">Your rating is saved.</li>' in text
        assert f"{session.pk}#1 system" not in text


class TestDateInputs:
    def test_the_sandbox_date_is_iso_in_the_chinese_interface(
        self, coordinator_client: Client
    ) -> None:
        page = coordinator_client.get(reverse("liveeval:sandbox"), headers=CHINESE)
        assert page.status_code == 200
        assert page.content.decode().count('type="date"') == 1
        assert 'value="20' in page.content.decode()
        assert "/" not in page.content.decode().split('type="date"')[1].split(">")[0]

    def test_the_campaign_date_is_iso_in_the_chinese_interface(
        self, coordinator_client: Client
    ) -> None:
        campaign = make_campaign()
        page = coordinator_client.get(
            reverse("liveeval:campaign_edit", args=[campaign.pk]), headers=CHINESE
        )
        assert page.status_code == 200
        assert f'value="{TODAY.isoformat()}"' in page.content.decode()
