"""A live campaign's copies and archiving, and the dialogue language chosen per task card.

A copy is a new draft with the same design and judges (systems, task cards, K, turn limit,
date, languages, timeout, seed); it takes no conversation, rating or alias, so its systems get
fresh aliases. Archiving hides a campaign from judges and stops new conversations; the
coordinator's pages and exports keep reading it, and restoring undoes it.
"""

from __future__ import annotations

from django.db import transaction

from liveeval.models import Campaign, TaskCard

# The settings a copy takes over; everything else is data or people's work.
COPIED_FIELDS = (
    "judgements_per_pair",
    "max_turns",
    "today",
    "lang",
    "reply_timeout",
    "seed",
    "late_rating",
    "task_languages",
)


class CampaignFrozen(Exception):
    """The design of a campaign that is no longer a draft cannot change."""


def clone(campaign: Campaign, name: str, created_by: object) -> Campaign:
    """A new draft with ``campaign``'s design and judges under ``name``."""
    fields = {field: getattr(campaign, field) for field in COPIED_FIELDS}
    with transaction.atomic():
        copy = Campaign.objects.create(
            name=name, created_by_id=getattr(created_by, "pk", None), **fields
        )
        copy.systems.set(campaign.systems.all())
        copy.tasks.set(campaign.tasks.all())
        copy.judges.set(campaign.judges.all())
    return copy


def set_task_languages(campaign: Campaign, chosen: dict[TaskCard, str]) -> None:
    """Store the dialogue language of each task card of a bilingual draft campaign.

    Only choices that differ from the card's own language are kept. Once the campaign is
    open its conversations carry their language, so the choice is frozen.
    """
    if campaign.status != Campaign.Status.DRAFT:
        raise CampaignFrozen(campaign.name)
    campaign.task_languages = {
        str(task.pk): lang for task, lang in chosen.items() if lang != task.lang
    }
    campaign.save(update_fields=["task_languages"])
