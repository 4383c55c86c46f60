"""A live campaign's roster: each judge's figures, refreshed by itself, and deactivating a judge."""

from __future__ import annotations

import datetime as dt

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from liveeval import aliases, campaigns, roster
from liveeval.models import Campaign, ChatSession, DialogueSystem, Message, Rating
from tests.conftest import logged_in
from tests.liveeval.conftest import TODAY, make_system, make_task

pytestmark = pytest.mark.django_db


def english(client: Client) -> Client:
    client.cookies["django_language"] = "en"
    return client


@pytest.fixture
def systems() -> list[DialogueSystem]:
    return [
        make_system("reference", "ref-x", "System X"),
        make_system("baseline", "base-y", "System Y"),
    ]


def opened(systems: list[DialogueSystem], judges: list[User], *, k: int = 1) -> Campaign:
    campaign = Campaign.objects.create(name="Round one", today=TODAY, judgements_per_pair=k)
    campaign.systems.set(systems)
    campaign.tasks.set([make_task("flight-x")])
    campaign.judges.set(judges)
    campaigns.open_campaign(campaign)
    return campaign


def rated(session: ChatSession, started: dt.datetime, seconds: int) -> None:
    """The session as if its first message came at ``started`` and its rating ``seconds`` later."""
    session.status = ChatSession.Status.ENDED
    session.started_at = started
    session.save(update_fields=["status", "started_at"])
    Message.objects.create(session=session, position=0, role="user", text="hi", created_at=started)
    Rating.objects.create(
        session=session,
        completed=True,
        satisfaction=1,
        fluency=1,
        guidance=1,
        created_at=started + dt.timedelta(seconds=seconds),
    )


def test_each_judge_has_rated_over_assigned_abandoned_median_time_and_last_activity(
    systems: list[DialogueSystem], judge: User, other_judge: User
) -> None:
    campaign = opened(systems, [judge, other_judge], k=2)
    first, second = campaign.sessions.filter(user=judge).order_by("position")
    start = timezone.now() - dt.timedelta(hours=1)
    rated(first, start, 60)
    rated(second, start + dt.timedelta(minutes=10), 180)
    left = campaign.sessions.filter(user=other_judge).first()
    assert left is not None
    left.end(ChatSession.EndReason.ABANDONED)

    rows = {row.username: row for row in roster.judge_rows(campaign)}
    jade, jules = rows["jade"], rows["jules"]
    assert (jade.done, jade.assigned, jade.abandoned) == (2, 2, 0)
    assert jade.median_seconds == 120  # the median of 60 s and 180 s
    # The later rating: 10 min + 180 s after the start.
    assert jade.last_activity == start + dt.timedelta(minutes=10, seconds=180)
    assert (jules.done, jules.assigned, jules.abandoned) == (0, 1, 1)
    assert jules.median_seconds is None and jules.last_activity is None
    assert jade.active and jade.user_id == judge.pk


def test_the_roster_part_refreshes_by_itself_and_is_for_coordinators(
    coordinator_client: Client, systems: list[DialogueSystem], judge: User
) -> None:
    campaign = opened(systems, [judge])
    part = reverse("liveeval:campaign_roster", args=[campaign.pk])
    page = english(coordinator_client).get(reverse("liveeval:campaign_detail", args=[campaign.pk]))
    html = page.content.decode()
    assert f'hx-get="{part}"' in html and 'id="judge-roster"' in html
    assert 'hx-trigger="every 4s, live-change"' in html
    deactivate = reverse("deactivate_person", args=[judge.pk])
    assert f'action="{deactivate}"' in html and "data-confirm=" in html
    session = campaign.sessions.order_by("position").first()
    assert session is not None
    rated(session, timezone.now() - dt.timedelta(minutes=5), 30)
    fresh = coordinator_client.get(part)
    assert [(row.username, row.done, row.assigned) for row in fresh.context["judge_rows"]] == [
        ("jade", 1, 2)
    ]
    assert logged_in(judge).get(part).status_code == 403


def test_deactivating_a_judge_hands_their_unfinished_conversations_to_the_others(
    coordinator_client: Client, systems: list[DialogueSystem], judge: User, other_judge: User
) -> None:
    campaign = opened(systems, [judge, other_judge])
    mine = list(campaign.sessions.filter(user=judge).order_by("position"))
    started = mine[0]
    started.status = ChatSession.Status.OPEN
    started.save(update_fields=["status"])
    Message.objects.create(session=started, position=0, role="user", text="hi")
    detail = reverse("liveeval:campaign_detail", args=[campaign.pk])

    response = coordinator_client.post(
        reverse("deactivate_person", args=[judge.pk]), {"next": detail}
    )
    assert response.status_code == 302 and response["Location"] == detail

    started.refresh_from_db()
    assert started.status == ChatSession.Status.ENDED
    assert started.end_reason == ChatSession.EndReason.ABANDONED
    assert started.messages.count() == 1  # the work stays, it just stops counting
    # Every (task, system) pair is K = 1 again, now all with the other judge.
    live = campaign.sessions.exclude(end_reason=ChatSession.EndReason.ABANDONED)
    assert sorted(live.values_list("system_id", flat=True)) == sorted(s.pk for s in systems)
    assert set(live.values_list("user_id", flat=True)) == {other_judge.pk}
    assert campaigns.flagged_pairs(campaign) == []
    rows = {row.username: row for row in roster.judge_rows(campaign)}
    assert not rows["jade"].active and rows["jade"].abandoned == 1
    page = english(coordinator_client).get(detail).content.decode()
    assert reverse("deactivate_person", args=[judge.pk]) not in page


@pytest.mark.django_db
def test_progress_names_each_system_by_its_alias_in_this_campaign(
    systems: list[DialogueSystem], judge: User
) -> None:
    campaign = opened(systems, [judge])
    names = aliases.campaign_names(campaign)
    labels = [bucket.label for bucket in campaigns.progress(campaign)["by_system"]]
    assert sorted(labels) == sorted(f"{s.name} ({names[s.pk]})" for s in systems)
    assert not any(s.alias in label for s in systems for label in labels)
