"""The coordinator sets each task card's dialogue language on the campaign form."""

from __future__ import annotations

import datetime as dt

import pytest
from django.test import Client
from django.urls import reverse

from liveeval.card_languages import field_name
from liveeval.models import Campaign, TaskCard
from tests.liveeval.conftest import make_system, make_task

pytestmark = pytest.mark.django_db


def bilingual_data(card: TaskCard, lang: str, name: str = "Both ways") -> dict[str, object]:
    system = make_system("reference", f"ref-{name[:4].lower()}", f"System {name}")
    return {
        "name": name,
        "systems": [system.pk],
        "tasks": [card.pk],
        "judgements_per_pair": 1,
        "max_turns": 20,
        "today": "2026-12-01",
        "lang": Campaign.Lang.BILINGUAL,
        "reply_timeout": 10,
        "seed": 1,
        field_name(card): lang,
    }


def test_the_form_offers_each_cards_language_set_to_its_own(coordinator_client: Client) -> None:
    card = make_task(key="flight-x")
    coordinator_client.cookies["django_language"] = "en"
    form = coordinator_client.get(reverse("liveeval:campaign_new")).context["form"]
    field = form[field_name(card)]
    assert field.initial == "zh"
    assert "(flight-x)" in field.label
    assert f'name="{field_name(card)}"' in str(field)


def test_a_bilingual_campaign_stores_the_language_the_coordinator_chose(
    coordinator_client: Client,
) -> None:
    card = make_task(key="flight-x")
    response = coordinator_client.post(reverse("liveeval:campaign_new"), bilingual_data(card, "en"))
    assert response.status_code == 302
    campaign = Campaign.objects.get(name="Both ways")
    assert campaign.dialogue_lang(card) == "en"
    assert campaign.task_languages == {str(card.pk): "en"}
    card.refresh_from_db()
    assert card.lang == "zh"  # the card itself, shared with other campaigns, keeps its own
    edit = coordinator_client.get(reverse("liveeval:campaign_edit", args=[campaign.pk]))
    assert edit.context["form"][field_name(card)].initial == "en"


def test_a_single_language_campaign_leaves_the_cards_alone(coordinator_client: Client) -> None:
    card = make_task(key="flight-x")
    data = {**bilingual_data(card, "en"), "lang": Campaign.Lang.ZH}
    assert coordinator_client.post(reverse("liveeval:campaign_new"), data).status_code == 302
    card.refresh_from_db()
    assert card.lang == "zh"
    assert Campaign.objects.get(name="Both ways").task_languages == {}


def test_another_campaign_using_the_card_keeps_its_language(
    coordinator_client: Client,
) -> None:
    card = make_task(key="flight-x")
    running = Campaign.objects.create(
        name="Running",
        today=dt.date(2026, 12, 1),
        lang=Campaign.Lang.BILINGUAL,
        status=Campaign.Status.OPEN,
    )
    running.tasks.add(card)
    response = coordinator_client.post(reverse("liveeval:campaign_new"), bilingual_data(card, "en"))
    assert response.status_code == 302
    assert Campaign.objects.get(name="Both ways").dialogue_lang(card) == "en"
    running.refresh_from_db()
    assert running.dialogue_lang(card) == "zh"


def test_an_open_campaigns_card_languages_are_frozen(coordinator_client: Client) -> None:
    card = make_task(key="flight-x")
    campaign = Campaign.objects.create(
        name="Open one", today=dt.date(2026, 12, 1), lang="bi", status=Campaign.Status.OPEN
    )
    campaign.tasks.add(card)
    form = coordinator_client.get(reverse("liveeval:campaign_edit", args=[campaign.pk])).context[
        "form"
    ]
    assert form.fields[field_name(card)].disabled
