"""The live campaigns an invitation link can name, and how a newcomer joins one as a judge."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext_lazy as _

from evalsite import roles
from evalsite.invitations import Team, register_team
from liveeval import campaigns
from liveeval.models import Campaign


def open_campaigns() -> list[tuple[int, str]]:
    return list(
        Campaign.objects.exclude(status=Campaign.Status.CLOSED)
        .filter(archived_at__isnull=True)
        .order_by("name")
        .values_list("pk", "name")
    )


def join(user: Any, campaign_id: int) -> None:
    """Add the judge; an open campaign hands them their share of the pending conversations."""
    campaign = Campaign.objects.filter(pk=campaign_id).first()
    if campaign is not None and campaign.status != Campaign.Status.CLOSED:
        campaigns.add_judge(campaign, user)


def release(user: Any) -> None:
    """Take the judge out of every campaign not closed; their pending work, and the
    conversations they leave unfinished or unrated, go to the others."""
    for campaign in Campaign.objects.filter(judges=user).exclude(status=Campaign.Status.CLOSED):
        campaigns.release_judge(campaign, user)


def register_teams() -> None:
    register_team(Team("live", roles.JUDGES, _("Live campaign"), open_campaigns, join, release))
