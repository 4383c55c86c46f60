"""A campaign's split, made once with its seed and stored, item by item.

`ensure_split` makes the ``Alignment`` row and puts every transcript not yet in the split into
one part (`annotation.alignment.split.calibration_items`); transcripts already split never move.
Items imported after the split are split among themselves with the same seed and share.
"""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from annotation.alignment.split import calibration_items
from annotation.models import Alignment, Campaign, SplitItem


def alignment_of(campaign: Campaign) -> Alignment:
    alignment, _ = Alignment.objects.get_or_create(campaign=campaign)
    return alignment


def ensure_split(campaign: Campaign) -> Alignment:
    """The campaign's alignment, with every transcript in one part of its split."""
    with transaction.atomic():
        alignment = alignment_of(campaign)
        Alignment.objects.select_for_update().filter(pk=alignment.pk).first()
        new = list(
            campaign.transcripts.filter(split_item__isnull=True).values_list("pk", flat=True)
        )
        if new:
            calibration = calibration_items(
                new, seed=alignment.split_seed, calibration_share=alignment.calibration_share
            )
            SplitItem.objects.bulk_create(
                SplitItem(alignment=alignment, transcript_id=pk, held_out=pk not in calibration)
                for pk in new
            )
            alignment.split_at = alignment.split_at or timezone.now()
            alignment.save(update_fields=["split_at"])
    return alignment


def held_out_ids(campaign: Campaign) -> frozenset[int]:
    """The held-out transcripts' ids (the split is made first if it is not yet)."""
    ensure_split(campaign)
    return frozenset(
        SplitItem.objects.filter(transcript__campaign=campaign, held_out=True).values_list(
            "transcript_id", flat=True
        )
    )
