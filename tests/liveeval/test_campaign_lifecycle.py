"""Live campaigns copied, archived and restored, and each task card's dialogue language in a
bilingual campaign."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from evalsite import archive
from liveeval import campaigns, chat
from liveeval.campaigns import next_pending_session
from liveeval.models import Campaign, ChatSession, DialogueSystem, TaskCard
from tests.conftest import logged_in
from tests.liveeval.conftest import TODAY, make_system, make_task

pytestmark = pytest.mark.django_db


def english(client: Client) -> Client:
    client.cookies["django_language"] = "en"
    return client


@pytest.fixture
def system() -> DialogueSystem:
    return make_system("reference", "ref-x", "System X")


def draft(system: DialogueSystem, judges: list[User], **fields: object) -> Campaign:
    campaign = Campaign.objects.create(
        name="Round one", today=TODAY, judgements_per_pair=1, **fields
    )
    campaign.systems.set([system])
    campaign.tasks.set([make_task("flight-x")])
    campaign.judges.set(judges)
    return campaign


def test_a_copy_is_a_draft_with_the_same_design_and_no_conversation(
    coordinator_client: Client, system: DialogueSystem, judge: User
) -> None:
    original = draft(system, [judge], lang="bi", max_turns=12, reply_timeout=5, seed=7)
    original.task_languages = {str(original.tasks.get().pk): "en"}
    original.save()
    campaigns.open_campaign(original)
    url = reverse("liveeval:campaign_clone", args=[original.pk])
    assert 'value="Round one (copy)"' in english(coordinator_client).get(url).content.decode()
    response = coordinator_client.post(url, {"name": "Round two"})
    copy = Campaign.objects.get(name="Round two")
    assert response.status_code == 302
    assert copy.status == Campaign.Status.DRAFT
    assert (copy.lang, copy.max_turns, copy.reply_timeout, copy.seed) == ("bi", 12, 5, 7)
    assert copy.task_languages == original.task_languages
    assert list(copy.systems.all()) == [system] and list(copy.judges.all()) == [judge]
    assert list(copy.tasks.all()) == list(original.tasks.all())
    assert not copy.sessions.exists() and original.sessions.count() == 1


def test_an_archived_campaign_is_hidden_from_its_judges_refuses_work_and_can_be_restored(
    coordinator_client: Client, system: DialogueSystem, judge: User
) -> None:
    campaign = draft(system, [judge])
    campaigns.open_campaign(campaign)
    session = campaign.sessions.get()
    session.status = ChatSession.Status.OPEN
    session.save(update_fields=["status"])
    judge_client = english(logged_in(judge))
    archive = reverse("liveeval:campaign_archive", args=[campaign.pk])
    assert coordinator_client.post(archive).status_code == 302
    campaign.refresh_from_db()
    assert campaign.is_archived
    assert next_pending_session(judge) is None
    session.refresh_from_db()
    assert not chat.may_chat(judge, session)
    refused = judge_client.get(reverse("liveeval:chat", args=[session.pk]))
    assert refused.status_code == 403 and "This campaign is archived" in refused.content.decode()
    listed = coordinator_client.get(reverse("liveeval:campaign_list")).content.decode()
    assert "Round one" in listed and "status-archived" in listed
    detail = coordinator_client.get(reverse("liveeval:campaign_detail", args=[campaign.pk]))
    assert detail.status_code == 200 and 'id="archived-notice"' in detail.content.decode()
    assert (
        coordinator_client.get(reverse("liveeval:leaderboard", args=[campaign.pk])).status_code
        == 200
    )
    restore = reverse("liveeval:campaign_restore", args=[campaign.pk])
    assert coordinator_client.post(restore).status_code == 302
    campaign.refresh_from_db()
    assert not campaign.is_archived
    assert next_pending_session(judge) == session
    assert judge_client.get(reverse("liveeval:chat", args=[session.pk])).status_code == 200


def test_a_bilingual_draft_sets_each_cards_dialogue_language_on_its_page(
    coordinator_client: Client, system: DialogueSystem, judge: User
) -> None:
    campaign = draft(system, [judge], lang="bi")
    task = campaign.tasks.get()
    assert task.lang == "zh"
    page = english(coordinator_client).get(reverse("liveeval:campaign_detail", args=[campaign.pk]))
    assert f'name="lang_{task.pk}"' in page.content.decode()
    url = reverse("liveeval:campaign_task_languages", args=[campaign.pk])
    assert coordinator_client.post(url, {f"lang_{task.pk}": "en"}).status_code == 302
    campaign.refresh_from_db()
    assert campaign.task_languages == {str(task.pk): "en"}
    assert TaskCard.objects.get(pk=task.pk).lang == "zh"
    campaigns.open_campaign(campaign)
    assert campaign.sessions.get().lang == "en"
    frozen = coordinator_client.post(url, {f"lang_{task.pk}": "zh"}, follow=True)
    assert "dialogue languages are fixed" in frozen.content.decode()
    campaign.refresh_from_db()
    assert campaign.task_languages == {str(task.pk): "en"}


def test_the_campaign_page_shows_each_task_cards_title_and_preview(
    coordinator_client: Client, system: DialogueSystem
) -> None:
    campaign = draft(system, [])
    page = english(coordinator_client).get(reverse("liveeval:campaign_detail", args=[campaign.pk]))
    text = page.content.decode()
    assert "<strong>A flight from Beijing to Shanghai</strong>" in text
    assert "Book a flight from Beijing to Shanghai tomorrow." in text


def test_an_archived_campaign_is_offered_to_no_invitation(system: DialogueSystem) -> None:
    from liveeval import teams

    campaign = draft(system, [])
    assert (campaign.pk, campaign.name) in teams.open_campaigns()
    archive.archive(campaign)
    assert (campaign.pk, campaign.name) not in teams.open_campaigns()


def test_a_copy_is_proposed_a_free_name_in_the_readers_language(
    coordinator_client: Client, system: DialogueSystem
) -> None:
    original = draft(system, [])
    Campaign.objects.create(name="Round one (copy)", today=TODAY)
    url = reverse("liveeval:campaign_clone", args=[original.pk])
    assert 'value="Round one (copy 2)"' in english(coordinator_client).get(url).content.decode()
    coordinator_client.cookies["django_language"] = "zh-hans"
    assert 'value="Round one（副本）"' in coordinator_client.get(url).content.decode()


def test_a_campaign_in_one_language_keeps_no_language_per_card(
    coordinator_client: Client, system: DialogueSystem
) -> None:
    campaign = draft(system, [], lang="zh")
    task = campaign.tasks.get()
    page = english(coordinator_client).get(reverse("liveeval:campaign_detail", args=[campaign.pk]))
    assert 'id="task-languages"' not in page.content.decode()
    url = reverse("liveeval:campaign_task_languages", args=[campaign.pk])
    refused = coordinator_client.post(url, {f"lang_{task.pk}": "en"}, follow=True)
    assert "Only a bilingual campaign" in refused.content.decode()
    campaign.refresh_from_db()
    assert campaign.task_languages == {}
    assert campaign.dialogue_lang(task) == "zh"
