"""An annotation campaign's settings that depend on its work, its copies and its archiving.

R cannot go below the places already taken on some item (held or submitted): those
annotations exist, and the queue would never hand the item out again. A copy takes the
settings and the team, never the transcripts, gold answers or anyone's answers. Archiving
hides a campaign from annotators and stops new work; the coordinator's pages and reports
keep reading it, and restoring undoes it.
"""

from __future__ import annotations

from django.db import transaction
from django.db.models import Max

from annotation.models import Campaign

# The settings a copy takes over; everything else is data or people's work.
COPIED_FIELDS = (
    "rubric",
    "instructions",
    "annotations_per_item",
    "show_feelings",
    "item_order",
    "hold_minutes",
    "alt_test_epsilon",
)


def lowest_r(campaign: Campaign) -> int:
    """The smallest R the campaign can take: the most places taken on any one item (≥ 1)."""
    if campaign.pk is None:
        return 1
    taken = campaign.transcripts.aggregate(most=Max("active_count"))["most"] or 0
    return max(1, int(taken))


def clone(campaign: Campaign, name: str) -> Campaign:
    """A new, open, empty campaign with ``campaign``'s settings and team under ``name``."""
    with transaction.atomic():
        copy = Campaign(name=name, **{field: getattr(campaign, field) for field in COPIED_FIELDS})
        copy.save()
        copy.annotators.set(campaign.annotators.all())
    return copy
