"""Finished live or simulated conversations become annotation transcripts.

The one place where annotation reads live judging: a live campaign's ended dialogues (the
simulated judges', and the human judges' when asked) are imported into an annotation campaign,
made with the default rubric if it is new. Sending again updates the same transcripts. The
transcript's ``system`` is the system's slug, which only coordinators see in annotation; the
alias, task, persona, feelings, rating and goal check travel with it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.db.models import Prefetch
from django.utils import translation

from annotation.imports.result import ImportResult
from annotation.imports.rows import import_rows
from liveeval import aliases
from liveeval.booking.goals import goal_met
from liveeval.models import Campaign, ChatSession, Message


def annotation_rows(
    campaign: Campaign, kinds: Sequence[str] = (ChatSession.Kind.SIMULATED,)
) -> list[dict[str, Any]]:
    """The campaign's ended dialogues of ``kinds`` as transcripts in the import shape.

    ``system`` holds the system's slug, which only coordinators see in annotation; the
    campaign's alias of the system (as the English interface names it), task, persona, rating
    and goal check travel in the metadata.
    """
    utterances = Prefetch(
        "messages",
        queryset=Message.objects.filter(role__in=[Message.Role.USER, Message.Role.SYSTEM]).order_by(
            "position"
        ),
        to_attr="utterances",
    )
    sessions = (
        campaign.sessions.filter(kind__in=kinds, status=ChatSession.Status.ENDED)
        .exclude(end_reason=ChatSession.EndReason.ABANDONED)
        .select_related("system", "task", "rating")
        .prefetch_related(utterances, "bookings")
        .order_by("pk")
    )
    # The name the campaign's judges knew each system by, stored in one language as data.
    with translation.override("en"):
        campaign_aliases = aliases.campaign_names(campaign)
    rows = []
    for session in sessions:
        turns = [
            {"role": message.role, "text": message.text}
            | ({"feelings": message.feelings} if message.feelings else {})
            for message in session.utterances
        ]
        if not turns:
            continue
        rating = getattr(session, "rating", None)
        row: dict[str, Any] = {
            "id": f"live-{campaign.pk}-{session.pk}",
            "system": session.system.slug,
            "dataset": f"live: {campaign.name}"[:100],
            "lang": session.lang,
            "turns": turns,
            "metadata": {
                "live_campaign": campaign.name,
                "session": session.pk,
                "kind": session.kind,
                "task": session.task.key if session.task else None,
                "alias": campaign_aliases[session.system_id],
                "end_reason": session.end_reason,
                "goal_met": goal_met(session.task.goal, list(session.bookings.all()), session.today)
                if session.task
                else None,
                "rating": {
                    "completed": rating.completed,
                    "satisfaction": rating.satisfaction,
                    "fluency": rating.fluency,
                    "guidance": rating.guidance,
                    "reasons": rating.reasons,
                }
                if rating
                else None,
            },
        }
        if session.kind == ChatSession.Kind.SIMULATED and session.persona:
            row["persona"] = {
                key: session.persona[key]
                for key in ("emotion", "age_group", "text")
                if key in session.persona
            }
            row["metadata"]["simulator"] = session.persona.get("simulator")
        rows.append(row)
    return rows


def send_to_annotation(
    campaign: Campaign,
    annotation_campaign: str,
    kinds: Sequence[str] = (ChatSession.Kind.SIMULATED,),
) -> ImportResult:
    """Import the campaign's ended dialogues into an annotation campaign (made if new).

    Sending again updates the same transcripts. Raises ``annotation.imports.problems.ImportFailed``
    when there is nothing to send.
    """
    return import_rows(
        annotation_campaign,
        annotation_rows(campaign, kinds),
        source=f"live campaign {campaign.name}",
    )
