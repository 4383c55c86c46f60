"""The annotation campaigns an invitation link can name, and how a newcomer joins one's team."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext_lazy as _

from annotation import queue
from annotation.models import Campaign
from evalsite import roles
from evalsite.invitations import Team, register_team


def open_campaigns() -> list[tuple[int, str]]:
    return list(
        Campaign.objects.filter(status=Campaign.Status.OPEN, archived_at__isnull=True)
        .order_by("name")
        .values_list("pk", "name")
    )


def join(user: Any, campaign_id: int) -> None:
    """Add the annotator to a campaign's team; a campaign listing nobody is open to all already.

    Adding them to an empty team would shut every other annotator out of it.
    """
    campaign = Campaign.objects.filter(pk=campaign_id).first()
    if campaign is not None and campaign.annotators.exists():
        campaign.annotators.add(user)


def release(user: Any) -> None:
    queue.release_held(user)


def register_teams() -> None:
    register_team(
        Team(
            "annotation",
            roles.ANNOTATORS,
            _("Annotation campaign"),
            open_campaigns,
            join,
            release,
        )
    )
