"""The live campaign pages: readable task cards, field errors, progress without a reload."""

from __future__ import annotations

import datetime as dt

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from liveeval.models import Campaign, ChatSession
from tests.conftest import logged_in
from tests.liveeval.conftest import make_system, make_task


def campaign_data(**fields: object) -> dict[str, object]:
    system = make_system("reference", "ref-x", "System X")
    task = make_task(penalty=30)
    data: dict[str, object] = {
        "name": "Round one",
        "systems": [system.pk],
        "tasks": [task.pk],
        "judgements_per_pair": 3,
        "max_turns": 20,
        "today": "2026-12-01",
        "lang": "zh",
        "reply_timeout": 10,
        "seed": 1,
    }
    data.update(fields)
    return data


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("judgements_per_pair", 0, "K must be 1 or more"),
        ("max_turns", 1, "at least two turns"),
    ],
)
def test_an_invalid_k_or_turn_limit_is_an_error_on_its_field(
    coordinator_client: Client, field: str, value: int, message: str
) -> None:
    coordinator_client.cookies["django_language"] = "en"
    response = coordinator_client.post(
        reverse("liveeval:campaign_new"), campaign_data(**{field: value})
    )
    assert response.status_code == 200
    errors = response.context["form"].errors
    assert list(errors) == [field]
    assert message in errors[field][0]
    assert "Constraint" not in response.content.decode()
    assert not Campaign.objects.exists()


@pytest.mark.django_db
def test_the_form_lists_each_task_card_by_its_title_and_a_preview(
    coordinator_client: Client,
) -> None:
    make_task(key="flight-x")
    coordinator_client.cookies["django_language"] = "en"
    page = coordinator_client.get(reverse("liveeval:campaign_new")).content.decode()
    assert "A flight from Beijing to Shanghai — Book a flight from Beijing to Shanghai" in page
    coordinator_client.cookies["django_language"] = "zh-hans"
    page = coordinator_client.get(reverse("liveeval:campaign_new")).content.decode()
    assert "北京到上海的机票 — 预定明天从北京去上海的机票。 (flight-x)" in page


@pytest.mark.django_db
def test_an_open_campaign_page_refreshes_its_progress_part_by_itself(
    coordinator_client: Client, judge: User
) -> None:
    campaign = Campaign.objects.create(
        name="Running", today=dt.date(2026, 12, 1), status=Campaign.Status.OPEN
    )
    part = reverse("liveeval:campaign_progress", args=[campaign.pk])
    page = coordinator_client.get(reverse("liveeval:campaign_detail", args=[campaign.pk]))
    assert f'hx-get="{part}"' in page.content.decode()
    system = make_system("reference", "ref-y", "System Y")
    ChatSession.objects.create(
        system=system,
        campaign=campaign,
        kind=ChatSession.Kind.JUDGED,
        user=judge,
        today=campaign.today,
        status=ChatSession.Status.OPEN,
    )
    fresh = coordinator_client.get(part)
    assert fresh.status_code == 200
    assert fresh.context["progress"]["overall"].in_progress == 1
    assert "jade" in fresh.content.decode()
    assert logged_in(judge).get(part).status_code == 403
