"""The annotation campaign pages that follow their campaign as it runs (``evalsite.live_changes``).

A coordinator's dashboard watches the topic ``annotation.campaign``. An assignment held,
submitted, skipped or taken up again tells the campaign's watchers, who fetch the roster again.
"""

from __future__ import annotations

from typing import Any

from django.db.models.signals import post_save

from annotation.models import Assignment, Campaign
from evalsite import live_changes, roles

TOPIC = "annotation.campaign"


def _may_watch(user: Any, campaign_id: int) -> bool:
    return (
        roles.has_role(user, roles.COORDINATORS)
        and Campaign.objects.filter(pk=campaign_id).exists()
    )


def _assignment_saved(sender: Any, instance: Assignment, **kwargs: Any) -> None:
    live_changes.changed(TOPIC, instance.campaign_id)


def register_live_changes() -> None:
    live_changes.register(TOPIC, _may_watch)
    post_save.connect(_assignment_saved, sender=Assignment, dispatch_uid="annotation_live_changes")
