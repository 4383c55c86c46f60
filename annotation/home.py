"""Annotation's parts of the home page: an annotator's open queues and adjudication queues,
the campaigns."""

from __future__ import annotations

from typing import Any

from django.db.models import Count, Q

from annotation.models import Assignment, Campaign
from evalsite import roles
from evalsite.home import HomePart, register


def campaigns_open_to(user: Any) -> list[Campaign]:
    """Open campaigns that list ``user`` as an annotator, or list nobody."""
    return list(
        Campaign.objects.filter(status=Campaign.Status.OPEN, archived_at__isnull=True)
        .filter(Q(annotators__isnull=True) | Q(annotators=user))
        .distinct()
        .order_by("name")
    )


def annotator_section(user: Any) -> HomePart:
    campaigns = campaigns_open_to(user)
    done = dict(
        Assignment.objects.filter(
            annotator=user, campaign__in=campaigns, status=Assignment.Status.SUBMITTED
        )
        .values("campaign")
        .annotate(n=Count("pk"))
        .values_list("campaign", "n")
    )
    queues = [{"campaign": campaign, "done": done.get(campaign.pk, 0)} for campaign in campaigns]
    adjudications = list(
        Campaign.objects.filter(alignment__adjudicators=user, archived_at__isnull=True).order_by(
            "name"
        )
    )
    return HomePart(
        "annotation/_home_annotator.html", {"queues": queues, "adjudications": adjudications}
    )


def coordinator_campaigns(user: Any) -> dict[str, Any]:
    return {"annotation_campaigns": list(Campaign.objects.filter(archived_at__isnull=True)[:20])}


def coordinator_part(user: Any) -> HomePart:
    return HomePart("annotation/_home_coordinator.html", coordinator_campaigns(user))


def register_home_parts() -> None:
    """The annotator's queues, and the annotation campaigns in the coordinator's section."""
    register(roles.ANNOTATORS, annotator_section)
    register(roles.COORDINATORS, coordinator_part)
