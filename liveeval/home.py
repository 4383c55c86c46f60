from __future__ import annotations

from typing import Any

from evalsite import roles
from evalsite.home import HomeSection
from liveeval.models import Campaign, ChatSession


def judge_section(user: Any) -> HomeSection:
    mine = ChatSession.objects.filter(
        user=user, kind=ChatSession.Kind.JUDGED, campaign__status=Campaign.Status.OPEN
    )
    pending = mine.filter(status=ChatSession.Status.PENDING).count()
    unfinished = mine.filter(status=ChatSession.Status.OPEN).count()
    unrated = (
        mine.filter(status=ChatSession.Status.ENDED, rating__isnull=True)
        .exclude(end_reason=ChatSession.EndReason.ABANDONED)
        .count()
    )
    done = mine.filter(rating__isnull=False).count()
    return HomeSection(
        roles.JUDGES,
        "liveeval/_home_judge.html",
        {
            "pending": pending,
            "unfinished": unfinished,
            "unrated": unrated,
            "done": done,
            "waiting": pending + unfinished + unrated,
        },
    )


def coordinator_campaigns(user: Any) -> dict[str, Any]:
    return {"live_campaigns": list(Campaign.objects.all()[:20])}
