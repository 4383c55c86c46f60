"""The live evaluation's parts of the home page: a judge's waiting conversations, the campaigns."""

from __future__ import annotations

from typing import Any

from evalsite import roles
from evalsite.home import HomePart, register
from liveeval.models import Campaign, ChatSession


def judge_section(user: Any) -> HomePart:
    mine = ChatSession.objects.filter(
        user=user,
        kind=ChatSession.Kind.JUDGED,
        campaign__status=Campaign.Status.OPEN,
        campaign__archived_at__isnull=True,
    )
    planned = mine.filter(status=ChatSession.Status.PENDING)
    pending = planned.filter(system__enabled=True).count()
    # Conversations with a disabled system wait until it is enabled again.
    paused = planned.filter(system__enabled=False).count()
    unfinished = mine.filter(status=ChatSession.Status.OPEN).count()
    unrated = (
        mine.filter(status=ChatSession.Status.ENDED, rating__isnull=True)
        .exclude(end_reason=ChatSession.EndReason.ABANDONED)
        .count()
    )
    done = mine.filter(rating__isnull=False).count()
    return HomePart(
        "liveeval/_home_judge.html",
        {
            "pending": pending,
            "paused": paused,
            "unfinished": unfinished,
            "unrated": unrated,
            "done": done,
            "waiting": pending + unfinished + unrated,
        },
    )


def coordinator_campaigns(user: Any) -> dict[str, Any]:
    return {"live_campaigns": list(Campaign.objects.filter(archived_at__isnull=True)[:20])}


def coordinator_part(user: Any) -> HomePart:
    return HomePart("liveeval/_home_coordinator.html", coordinator_campaigns(user))


def register_home_parts() -> None:
    """The judge's section, and the live campaigns in the coordinator's."""
    register(roles.JUDGES, judge_section)
    register(roles.COORDINATORS, coordinator_part)
