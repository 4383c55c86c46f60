"""A live campaign's roster: each judge's conversations, pace and last activity.

A judge is listed while they are in the campaign or hold any conversation of it. Done counts
rated conversations; assigned counts every conversation planned for them that still counts
(abandoned ones are counted apart). The time per conversation runs from its first message to
its rating, so it includes reading the task card's result and rating it.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime

from django.contrib.auth import get_user_model
from django.db.models import Count, Max, Q

from liveeval.models import Campaign, ChatSession, Message, Rating


@dataclass(frozen=True)
class JudgeRow:
    user_id: int
    username: str
    active: bool
    done: int
    assigned: int
    abandoned: int
    median_seconds: float | None
    last_activity: datetime | None


def judge_rows(campaign: Campaign) -> list[JudgeRow]:
    """Every judge of ``campaign`` with their figures, by username."""
    judged = ChatSession.objects.filter(campaign=campaign, kind=ChatSession.Kind.JUDGED)
    abandoned_q = Q(end_reason=ChatSession.EndReason.ABANDONED)
    counts = {
        row["user_id"]: row
        for row in judged.values("user_id").annotate(
            assigned=Count("pk", filter=~abandoned_q),
            abandoned=Count("pk", filter=abandoned_q),
            done=Count("pk", filter=~abandoned_q & Q(rating__isnull=False)),
        )
    }
    durations: dict[int, list[float]] = defaultdict(list)
    rated = Rating.objects.filter(session__in=judged.exclude(abandoned_q))
    for user_id, started, rated_at in rated.values_list(
        "session__user_id", "session__started_at", "created_at"
    ):
        if started is not None:
            durations[user_id].append((rated_at - started).total_seconds())
    last: dict[int, datetime] = {}
    for moments in (
        Message.objects.filter(session__in=judged)
        .values("session__user_id")
        .annotate(last=Max("created_at"))
        .values_list("session__user_id", "last"),
        rated.values("session__user_id")
        .annotate(last=Max("created_at"))
        .values_list("session__user_id", "last"),
    ):
        for user_id, moment in moments:
            if moment is not None and (user_id not in last or moment > last[user_id]):
                last[user_id] = moment
    people = (
        get_user_model()
        .objects.filter(Q(live_campaigns=campaign) | Q(pk__in=list(counts)))
        .distinct()
    )
    rows = []
    for user_id, username, active in people.values_list("pk", "username", "is_active"):
        figures = counts.get(user_id, {})
        times = durations[user_id]
        rows.append(
            JudgeRow(
                user_id=user_id,
                username=username,
                active=active,
                done=figures.get("done", 0),
                assigned=figures.get("assigned", 0),
                abandoned=figures.get("abandoned", 0),
                median_seconds=statistics.median(times) if times else None,
                last_activity=last.get(user_id),
            )
        )
    return sorted(rows, key=lambda row: row.username)
