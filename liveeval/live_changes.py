"""The live campaign page that follows its campaign as it runs (``evalsite.live_changes``).

A coordinator's campaign page watches the topic ``liveeval.campaign``. A conversation started
or ended, or a rating stored, tells the campaign's watchers, who fetch its progress again.
"""

from __future__ import annotations

from typing import Any

from django.db.models.signals import post_save

from evalsite import live_changes, roles
from liveeval.models import Campaign, ChatSession, Rating

TOPIC = "liveeval.campaign"


def _may_watch(user: Any, campaign_id: int) -> bool:
    return (
        roles.has_role(user, roles.COORDINATORS)
        and Campaign.objects.filter(pk=campaign_id).exists()
    )


def _session_saved(sender: Any, instance: ChatSession, **kwargs: Any) -> None:
    live_changes.changed(TOPIC, instance.campaign_id)


def _rating_saved(sender: Any, instance: Rating, **kwargs: Any) -> None:
    live_changes.changed(TOPIC, instance.session.campaign_id)


def register_live_changes() -> None:
    live_changes.register(TOPIC, _may_watch)
    post_save.connect(_session_saved, sender=ChatSession, dispatch_uid="liveeval_session_changes")
    post_save.connect(_rating_saved, sender=Rating, dispatch_uid="liveeval_rating_changes")
