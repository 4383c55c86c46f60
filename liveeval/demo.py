"""Demo data of live evaluation: a booking world from today, the task cards, a campaign."""

from __future__ import annotations

import datetime as dt
from typing import TextIO

from django.contrib.auth import get_user_model
from django.utils import timezone

from liveeval.booking.store import build_world
from liveeval.booking.timetable import world_dates
from liveeval.booking.world import world_covers
from liveeval.campaigns import open_campaign
from liveeval.models import Campaign, DialogueSystem, TaskCard
from liveeval.tasks import load_task_cards

DEMO_CAMPAIGN = "SMP2018-style demo"
DEMO_JUDGES = ("judge1", "judge2", "both")
DEMO_DAYS = 30


def seed(stdout: TextIO) -> None:
    today = timezone.localdate()
    if not world_covers(today) or not world_covers(today + dt.timedelta(days=20)):
        summary = build_world(world_dates(today, DEMO_DAYS), force=True)
        stdout.write(f"Booking world built from {today}: {summary}\n")
    created, updated = load_task_cards()
    stdout.write(f"Task cards: {created} created, {updated} updated.\n")
    if Campaign.objects.filter(name=DEMO_CAMPAIGN).exists():
        return
    judges = list(get_user_model().objects.filter(username__in=DEMO_JUDGES))
    if len(judges) < 2:
        return
    campaign = Campaign.objects.create(
        name=DEMO_CAMPAIGN,
        today=today,
        lang=Campaign.Lang.ZH,
        judgements_per_pair=2,
        max_turns=20,
    )
    campaign.systems.set(DialogueSystem.objects.filter(slug__in=["reference", "baseline"]))
    campaign.tasks.set(
        TaskCard.objects.filter(key__in=["flight-01", "train-01", "hotel-01", "multi-01"])
    )
    campaign.judges.set(judges)
    planned = open_campaign(campaign)
    stdout.write(f"Opened the demo campaign {DEMO_CAMPAIGN!r}: {planned} conversations.\n")
