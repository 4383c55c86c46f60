"""What the chat, rating and review pages show around the dialogue itself."""

from __future__ import annotations

import csv
import io
import re

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from liveeval import aliases, campaigns
from liveeval.models import Campaign, ChatSession, DialogueSystem, Message, Rating, TaskCard
from liveeval.systems.reference import wording
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
        assert '<li class="message success">Campaign closed: ' in text

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

    def test_a_draft_campaigns_form_shows_its_own_design_not_the_defaults(
        self, coordinator_client: Client
    ) -> None:
        campaign = make_campaign(max_turns=7)
        campaign.status = Campaign.Status.DRAFT
        campaign.judgements_per_pair = 5
        campaign.save()
        text = coordinator_client.get(
            reverse("liveeval:campaign_edit", args=[campaign.pk])
        ).content.decode()
        assert re.search(r'name="today" value="2026-12-01"', text)
        assert re.search(r'name="max_turns" value="7"', text)
        assert re.search(r'name="judgements_per_pair" value="5"', text)


def open_campaign_of(
    judge: User, systems: list[DialogueSystem], tasks: list[TaskCard], lang: str
) -> Campaign:
    campaign = Campaign.objects.create(
        name=f"Languages {lang} {Campaign.objects.count()}",
        today=TODAY,
        judgements_per_pair=1,
        max_turns=20,
        lang=lang,
    )
    campaign.systems.set(systems)
    campaign.tasks.set(tasks)
    campaign.judges.set([judge])
    campaigns.open_campaign(campaign)
    return campaign


def english_card(key: str = "flight-en") -> TaskCard:
    task = make_task(key)
    task.lang = "en"
    task.save(update_fields=["lang"])
    return task


def rate(session: ChatSession) -> None:
    Message.objects.create(session=session, position=0, role="user", text="hi")
    session.status = ChatSession.Status.ENDED
    session.save(update_fields=["status"])
    Rating.objects.create(session=session, completed=True, satisfaction=1, fluency=1, guidance=1)


class TestDialogueLanguage:
    def test_an_english_interface_in_a_chinese_campaign_shows_the_chinese_card(
        self, judge: User, judge_client: Client, system: DialogueSystem
    ) -> None:
        campaign = open_campaign_of(judge, [system], [make_task()], "zh")
        judge_client.post(reverse("liveeval:next_session"))
        session = campaign.sessions.get(status=ChatSession.Status.OPEN)
        html = judge_client.get(reverse("liveeval:chat", args=[session.pk])).content.decode()
        assert session.lang == "zh"
        assert '<p class="task-description" lang="zh-hans">预定明天从北京去上海的机票。' in html
        assert '<html lang="en">' in html

    def test_a_chinese_interface_in_an_english_campaign_shows_the_english_card(
        self, judge: User, judge_client: Client, system: DialogueSystem
    ) -> None:
        campaign = open_campaign_of(judge, [system], [make_task()], "en")
        judge_client.post(reverse("liveeval:next_session"))
        session = campaign.sessions.get(status=ChatSession.Status.OPEN)
        url = reverse("liveeval:chat", args=[session.pk])
        html = judge_client.get(url, headers=CHINESE).content.decode()
        assert session.lang == "en"
        assert "Book a flight from Beijing to Shanghai tomorrow." in html
        assert "预定明天" not in html

    def test_a_bilingual_campaign_holds_each_card_in_its_own_language(
        self, judge: User, system: DialogueSystem
    ) -> None:
        campaign = open_campaign_of(judge, [system], [make_task("zh-card"), english_card()], "bi")
        langs = dict(campaign.sessions.values_list("task__key", "lang"))
        assert langs == {"zh-card": "zh", "flight-en": "en"}

    def test_the_exports_carry_the_language_and_the_leaderboard_splits_by_it(
        self, judge: User, coordinator_client: Client, system: DialogueSystem
    ) -> None:
        campaign = open_campaign_of(judge, [system], [make_task("zh-card"), english_card()], "bi")
        for session in campaign.sessions.all():
            rate(session)
        export = reverse("liveeval:campaign_export", args=[campaign.pk, "sessions", "csv"])
        rows = list(csv.DictReader(io.StringIO(coordinator_client.get(export).content.decode())))
        assert sorted((row["task"], row["lang"]) for row in rows) == [
            ("flight-en", "en"),
            ("zh-card", "zh"),
        ]
        english = coordinator_client.get(export, {"lang": "en"}).content.decode()
        assert [row["task"] for row in csv.DictReader(io.StringIO(english))] == ["flight-en"]
        board = reverse("liveeval:leaderboard", args=[campaign.pk])
        assert coordinator_client.get(board).context["n_rows"] == 2
        page = coordinator_client.get(board, {"lang": "zh"})
        assert page.context["n_rows"] == 1
        assert "?lang=zh" in page.content.decode()
        led = reverse("liveeval:campaign_export", args=[campaign.pk, "leaderboard", "csv"])
        table = coordinator_client.get(led, {"lang": "zh"}).content.decode("utf-8-sig")
        assert [row["lang"] for row in csv.DictReader(io.StringIO(table))] == ["zh"]


class TestAliases:
    def test_each_campaign_draws_its_own_alias_that_judges_see(
        self, judge: User, judge_client: Client, system: DialogueSystem
    ) -> None:
        seen = set()
        for _campaign in range(12):
            campaign = open_campaign_of(judge, [system], [make_task(f"t{_campaign}")], "zh")
            code = aliases.code_for(campaign, system)
            assert re.fullmatch(r"[1-9]\d\d", code)
            assert aliases.code_for(campaign, system) == code
            seen.add(code)
        # Twelve draws from 900 codes that all coincide would mean the alias is not drawn.
        assert len(seen) > 1
        session = campaign.sessions.get()
        session.status = ChatSession.Status.OPEN
        session.save(update_fields=["status"])
        html = judge_client.get(reverse("liveeval:chat", args=[session.pk])).content.decode()
        assert f"System {code}" in html
        assert system.alias not in html

    def test_two_systems_never_share_an_alias_in_a_campaign(
        self, judge: User, system: DialogueSystem
    ) -> None:
        others = [make_system("baseline", f"b-{n}", f"System Z{n}") for n in range(5)]
        campaign = open_campaign_of(judge, [system, *others], [make_task()], "zh")
        codes = aliases.campaign_codes(campaign)
        assert len(set(codes.values())) == len(codes) == 6


class TestPlaceNamesInEnglish:
    def test_the_reference_system_names_a_hotels_district_in_english(self) -> None:
        hotel = {
            "domain": "hotel",
            "option": "king",
            "name": "厦门海景酒店",
            "name_en": "Xiamen Seaview Hotel",
            "stars": 4,
            "rating": 4.6,
            "district": "思明区",
            "price": 500,
            "nights": 2,
        }
        english = wording.option_text(hotel, "en")
        assert "Siming District" in english
        assert not re.search(r"[\u4e00-\u9fff]", english)
        assert "思明区" in wording.option_text(hotel, "zh")

    def test_the_review_page_explains_the_goal_with_english_place_names(
        self, judge: User, coordinator_client: Client, system: DialogueSystem
    ) -> None:
        session = talked_session(judge, system)
        url = reverse("liveeval:session_review", args=[session.pk])
        english = coordinator_client.get(url).context["goal_explanation"]
        assert "Beijing→Shanghai" in english[0]
        chinese = coordinator_client.get(url, headers=CHINESE).context["goal_explanation"]
        assert "北京→上海" in chinese[0]
