"""A disabled system: no new conversations with it, open ones go on, its campaigns stay editable."""

from __future__ import annotations

import pytest
from asgiref.sync import async_to_sync
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from liveeval import campaigns, conversation
from liveeval.models import Campaign, ChatSession, DialogueSystem, Rating
from tests.conftest import logged_in
from tests.liveeval.conftest import TODAY, make_system, make_task

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fake_systems")]


def english(client: Client) -> Client:
    client.cookies["django_language"] = "en"
    return client


@pytest.fixture
def pair() -> tuple[DialogueSystem, DialogueSystem]:
    return (
        make_system("test-in-process", "echo-a", "Echo 1", "Echo A"),
        make_system("test-in-process", "echo-b", "Echo 2", "Echo B"),
    )


def opened(judge: User, systems: tuple[DialogueSystem, ...]) -> Campaign:
    """An open campaign of one task in which ``judge`` holds one conversation per system."""
    campaign = Campaign.objects.create(name="Round one", today=TODAY, judgements_per_pair=1)
    campaign.systems.set(systems)
    campaign.tasks.set([make_task("flight-x")])
    campaign.judges.set([judge])
    campaigns.open_campaign(campaign)
    return campaign


def disable(system: DialogueSystem) -> None:
    system.enabled = False
    system.save(update_fields=["enabled"])


def first_planned(campaign: Campaign) -> ChatSession:
    return campaign.sessions.order_by("position").first()  # type: ignore[return-value]


def test_an_open_campaign_holding_a_disabled_system_can_still_be_renamed(
    coordinator_client: Client, judge: User, pair: tuple[DialogueSystem, DialogueSystem]
) -> None:
    campaign = opened(judge, pair)
    disable(pair[0])
    url = reverse("liveeval:campaign_edit", args=[campaign.pk])
    form = english(coordinator_client).get(url).context["form"]
    data = {
        "name": "Round one, renamed",
        "judges": [judge.pk],
        "reply_timeout": campaign.reply_timeout,
        "seed": campaign.seed,
    }
    response = coordinator_client.post(url, data)
    assert response.status_code == 302, response.context["form"].errors
    campaign.refresh_from_db()
    assert campaign.name == "Round one, renamed"
    assert set(campaign.systems.all()) == set(pair)
    labels = [str(label) for _value, label in form.fields["systems"].choices]
    assert "Echo A (echo-a) (disabled)" in labels and "Echo B (echo-b)" in labels


def test_a_new_campaign_cannot_take_a_disabled_system(
    coordinator_client: Client, pair: tuple[DialogueSystem, DialogueSystem]
) -> None:
    disable(pair[0])
    form = coordinator_client.get(reverse("liveeval:campaign_new")).context["form"]
    offered = set(form.fields["systems"].queryset)
    assert pair[1] in offered and pair[0] not in offered


def test_a_judge_gets_the_next_system_of_their_plan_while_one_is_disabled(
    judge: User, pair: tuple[DialogueSystem, DialogueSystem]
) -> None:
    campaign = opened(judge, pair)
    first = first_planned(campaign)
    other = campaign.sessions.exclude(pk=first.pk).get()
    disable(first.system)

    client = english(logged_in(judge))
    response = client.post(reverse("liveeval:next_session"))
    assert response["Location"] == reverse("liveeval:chat", args=[other.pk])
    other.refresh_from_db()
    first.refresh_from_db()
    assert other.status == ChatSession.Status.OPEN
    assert first.status == ChatSession.Status.PENDING

    other.end(ChatSession.EndReason.USER)
    Rating.objects.create(session=other, completed=True, satisfaction=1, fluency=1, guidance=1)
    assert campaigns.next_pending_session(judge) is None
    home = client.get(reverse("home")).content.decode()
    assert "1 more conversation waits for a system that is disabled for now." in home

    first.system.enabled = True
    first.system.save(update_fields=["enabled"])
    assert campaigns.next_pending_session(judge) == first


def test_a_conversation_already_open_goes_on_after_its_system_is_disabled(
    judge: User, pair: tuple[DialogueSystem, DialogueSystem]
) -> None:
    campaign = opened(judge, pair)
    session = campaigns.next_pending_session(judge)
    assert session is not None
    session.status = ChatSession.Status.OPEN
    session.save(update_fields=["status"])
    disable(session.system)

    assert campaigns.next_pending_session(judge) == session
    assert logged_in(judge).get(reverse("liveeval:chat", args=[session.pk])).status_code == 200
    exchange = async_to_sync(conversation.exchange)(session.pk, "hello")
    assert exchange.reply is not None and exchange.reply.text == "echo: hello"
    assert campaign.sessions.get(pk=session.pk).status == ChatSession.Status.OPEN


def test_the_campaign_and_systems_pages_say_what_disabling_does(
    coordinator_client: Client, judge: User, pair: tuple[DialogueSystem, DialogueSystem]
) -> None:
    campaign = opened(judge, pair)
    client = english(coordinator_client)
    detail = reverse("liveeval:campaign_detail", args=[campaign.pk])
    assert 'id="disabled-systems"' not in client.get(detail).content.decode()
    disable(pair[0])
    page = client.get(detail).content.decode()
    assert 'id="disabled-systems"' in page
    assert "will not reach K = 1 judge each until they are enabled again" in page
    assert "Echo A (Echo 1)" in page
    systems = client.get(reverse("liveeval:system_list")).content.decode()
    assert "Disabling a system stops new conversations with it in every campaign" in systems
    edit = reverse("liveeval:system_edit", args=[pair[0].pk])
    assert 'id="system-disabled"' in client.get(edit).content.decode()
    other = reverse("liveeval:system_edit", args=[pair[1].pk])
    assert 'id="system-disabled"' not in client.get(other).content.decode()
