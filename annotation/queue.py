"""Who annotates which transcript next: exactly R annotations per item, none twice by anyone.

``Transcript.active_count`` counts the places taken on an item (assignments held or
submitted). Every change to it happens in a transaction that has locked the item:

- on PostgreSQL, ``SELECT ... FOR UPDATE SKIP LOCKED`` picks the next item, so concurrent
  annotators take different items instead of waiting for each other;
- on SQLite, every transaction begins ``IMMEDIATE`` (see the settings), so a transaction
  that reads the queue and then writes to it runs alone;
- the unique (transcript, annotator) constraint on ``Assignment`` is the last guard.
"""

from __future__ import annotations

import hashlib
import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, TypeVar

from django.db import connection, transaction
from django.db.models import (
    BigIntegerField,
    Exists,
    Expression,
    ExpressionWrapper,
    F,
    Model,
    OuterRef,
    QuerySet,
    Value,
)
from django.db.models.functions import Cast
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from annotation.models import Alignment, Assignment, Campaign, Dimension, Response, Transcript

# A longer time on task is a tab left open, not work; it is stored as this cap.
MAX_TIME_ON_TASK_MS = 2 * 60 * 60 * 1000

_M = TypeVar("_M", bound=Model)


class ItemUnavailable(Exception):
    """The annotator cannot submit or skip this item; the message says why."""


@dataclass(frozen=True)
class Answer:
    dimension: Dimension
    value: int
    rationale: str = ""
    text: str = ""


def _skip_locked(queryset: QuerySet[_M]) -> QuerySet[_M]:
    if connection.features.has_select_for_update_skip_locked:
        return queryset.select_for_update(skip_locked=True)
    return queryset


def _locked(queryset: QuerySet[_M]) -> QuerySet[_M]:
    if connection.features.has_select_for_update:
        return queryset.select_for_update()
    return queryset


def _release(transcript_ids: Sequence[int]) -> None:
    """Give back one place per occurrence of each transcript id."""
    by_count: dict[int, list[int]] = {}
    for transcript_id, count in Counter(transcript_ids).items():
        by_count.setdefault(count, []).append(transcript_id)
    for count, ids in by_count.items():
        Transcript.objects.filter(pk__in=ids).update(active_count=F("active_count") - count)


def reclaim_expired(campaign: Campaign, *, now: datetime | None = None) -> int:
    """Put items held longer than the campaign's hold time back in the pool; return how many.

    Must run inside a transaction. Holds another transaction is reclaiming are skipped.
    """
    cutoff = (now or timezone.now()) - timedelta(minutes=campaign.hold_minutes)
    expired = list(
        _skip_locked(
            Assignment.objects.filter(
                campaign=campaign, status=Assignment.Status.HELD, held_at__lt=cutoff
            )
        ).values_list("pk", "transcript_id")
    )
    return _expire(expired)


def _expire(held: list[tuple[int, int]]) -> int:
    """Mark these (assignment, transcript) holds expired and give their places back; how many."""
    if not held:
        return 0
    Assignment.objects.filter(pk__in=[pk for pk, _ in held]).update(
        status=Assignment.Status.EXPIRED
    )
    _release([transcript_id for _, transcript_id in held])
    return len(held)


# A prime above every shuffle key (keys are drawn below 2**31 at import): k -> (a*k + b) mod P
# is then a bijection of the keys, a different one for each annotator.
_SHUFFLE_PRIME = 2**31 - 1


def shuffle_multipliers(campaign: Campaign, user: Any) -> tuple[int, int]:
    """The (a, b) of the annotator's own order in ``campaign``, seeded by both ids.

    The same person gets the same order on every request and in every process; two people
    get unrelated orders, so the first items of a campaign are not the same for everyone.
    """
    seed = hashlib.sha256(f"{campaign.pk}:{user.pk}".encode()).digest()
    a = 1 + int.from_bytes(seed[:8], "big") % (_SHUFFLE_PRIME - 1)
    b = int.from_bytes(seed[8:16], "big") % _SHUFFLE_PRIME
    return a, b


def tie_break(campaign: Campaign, user: Any) -> F | Expression:
    """What orders items equally near completion: import order, or the annotator's shuffle."""
    if campaign.item_order == Campaign.ItemOrder.IMPORT:
        return F("position")
    a, b = shuffle_multipliers(campaign, user)
    key = Cast(F("shuffle_key"), BigIntegerField())
    big: BigIntegerField[int, int] = BigIntegerField()
    return ExpressionWrapper(
        (key * Value(a, output_field=big) + Value(b, output_field=big))
        % Value(_SHUFFLE_PRIME, output_field=big),
        output_field=big,
    )


def next_for(
    user: Any,
    campaign: Campaign,
    *,
    now: datetime | None = None,
    chance: random.Random | None = None,
) -> Assignment | None:
    """The item ``user`` should annotate next in ``campaign``, held for them; None when done.

    An item the user already holds comes back first. Otherwise the item is one the user has
    never been given, with fewer than R places taken, nearest to completion; ties go to the
    annotator's own seeded shuffle (`tie_break`), or to import order when the campaign asks.
    """
    if not campaign.is_open:
        return None
    now = now or timezone.now()
    with transaction.atomic():
        reclaim_expired(campaign, now=now)
        held = (
            Assignment.objects.filter(
                campaign=campaign, annotator=user, status=Assignment.Status.HELD
            )
            .select_related("transcript")
            .order_by("held_at", "pk")
            .first()
        )
        if held is not None:
            return held
        if _adjudicates(user, campaign):
            # Adjudicators see LLM scores: they annotate no new items of the campaign.
            return None
        candidates = (
            Transcript.objects.filter(
                campaign=campaign,
                active_count__lt=campaign.annotations_per_item,
                superseded_at__isnull=True,
            )
            .filter(~Exists(Assignment.objects.filter(transcript=OuterRef("pk"), annotator=user)))
            .order_by("-active_count", tie_break(campaign, user), "pk")
        )
        transcript = _skip_locked(candidates).first()
        if transcript is None:
            return None
        swapped = transcript.is_pairwise and (chance or random).random() < 0.5
        assignment = Assignment.objects.create(
            campaign=campaign,
            transcript=transcript,
            annotator=user,
            swapped=swapped,
            held_at=now,
        )
        Transcript.objects.filter(pk=transcript.pk).update(active_count=F("active_count") + 1)
        return assignment


def _adjudicates(user: Any, campaign: Campaign) -> bool:
    return Alignment.objects.filter(campaign=campaign, adjudicators=user).exists()


# An adjudicator may have seen the LLM's scores: they finish the item they hold, and no more.
ADJUDICATORS_ANNOTATE_NO_MORE = gettext_lazy(
    "As an adjudicator of this campaign you may have seen the LLM's scores, so you can no "
    "longer revise your answers or take up a skipped item; you may finish the item you hold."
)


def submit(
    user: Any,
    transcript: Transcript,
    answers: Sequence[Answer],
    time_on_task_ms: int,
    *,
    now: datetime | None = None,
) -> Assignment:
    """Store the user's answers on ``transcript``: a first submission or a revision.

    A hold that expired can still be submitted while the item has a free place. A revision
    replaces the answers and adds its time to the item's time on task.
    """
    campaign = transcript.campaign
    if not campaign.is_open:
        raise ItemUnavailable(_("This campaign is closed; its annotations can no longer change."))
    now = now or timezone.now()
    time_on_task_ms = max(0, min(MAX_TIME_ON_TASK_MS, time_on_task_ms))
    with transaction.atomic():
        assignment = _locked(
            Assignment.objects.filter(transcript=transcript, annotator=user)
        ).first()
        if assignment is None:
            raise ItemUnavailable(_("This item was not given to you."))
        if assignment.status == Assignment.Status.SKIPPED:
            raise ItemUnavailable(_("You skipped this item."))
        if assignment.status == Assignment.Status.SUBMITTED and _adjudicates(user, campaign):
            raise ItemUnavailable(str(ADJUDICATORS_ANNOTATE_NO_MORE))
        if (
            assignment.status != Assignment.Status.SUBMITTED
            and Transcript.objects.filter(pk=transcript.pk, superseded_at__isnull=False).exists()
        ):
            raise ItemUnavailable(_("This item was replaced by a newer version."))
        if assignment.status == Assignment.Status.EXPIRED:
            taken = (
                _locked(Transcript.objects.filter(pk=transcript.pk))
                .values_list("active_count", flat=True)
                .get()
            )
            if taken >= campaign.annotations_per_item:
                raise ItemUnavailable(
                    _("You held this item too long and others have completed it.")
                )
            Transcript.objects.filter(pk=transcript.pk).update(active_count=F("active_count") + 1)
        if assignment.status == Assignment.Status.SUBMITTED:
            assignment.time_on_task_ms = min(
                MAX_TIME_ON_TASK_MS, assignment.time_on_task_ms + time_on_task_ms
            )
        else:
            assignment.status = Assignment.Status.SUBMITTED
            assignment.submitted_at = now
            assignment.time_on_task_ms = time_on_task_ms
        assignment.save(update_fields=["status", "submitted_at", "time_on_task_ms"])
        Response.objects.bulk_create(
            [
                Response(
                    assignment=assignment,
                    transcript=transcript,
                    dimension=answer.dimension,
                    value=answer.value,
                    rationale=answer.rationale,
                    text=answer.text,
                    time_on_task_ms=assignment.time_on_task_ms,
                    created_at=now,
                    updated_at=now,
                )
                for answer in answers
            ],
            update_conflicts=True,
            unique_fields=["assignment", "dimension"],
            update_fields=["value", "text", "rationale", "time_on_task_ms", "updated_at"],
        )
    return assignment


def skip(user: Any, transcript: Transcript) -> None:
    """Give the item back: it returns to the pool and is never offered to ``user`` again,
    unless they take it up themselves (`take_up`)."""
    with transaction.atomic():
        assignment = _locked(
            Assignment.objects.filter(transcript=transcript, annotator=user)
        ).first()
        if assignment is None:
            raise ItemUnavailable(_("This item was not given to you."))
        if assignment.status == Assignment.Status.SUBMITTED:
            raise ItemUnavailable(_("You have already submitted this item."))
        if assignment.status == Assignment.Status.HELD:
            _release([transcript.pk])
        assignment.status = Assignment.Status.SKIPPED
        assignment.save(update_fields=["status"])


def release_held(user: Any) -> int:
    """Give back every item ``user`` holds, in every campaign; return how many.

    Used when a coordinator deactivates someone, so that their items go to others now
    rather than when the holds expire.
    """
    with transaction.atomic():
        held = list(
            _locked(
                Assignment.objects.filter(annotator=user, status=Assignment.Status.HELD)
            ).values_list("pk", "transcript_id")
        )
        return _expire(held)


def release_outsiders(campaign: Campaign) -> int:
    """Give back the items of ``campaign`` held by annotators no longer on its team; how many.

    Used when a coordinator narrows the team, so that the items go to the team now rather than
    when the holds expire. A campaign listing nobody is open to every annotator.
    """
    team = list(campaign.annotators.values_list("pk", flat=True))
    if not team:
        return 0
    with transaction.atomic():
        held = list(
            _locked(
                Assignment.objects.filter(campaign=campaign, status=Assignment.Status.HELD).exclude(
                    annotator_id__in=team
                )
            ).values_list("pk", "transcript_id")
        )
        return _expire(held)


def take_up(user: Any, transcript: Transcript, *, now: datetime | None = None) -> Assignment:
    """Hold again an item ``user`` skipped, while it still has a free place."""
    campaign = transcript.campaign
    if not campaign.is_open:
        raise ItemUnavailable(_("This campaign is closed; its annotations can no longer change."))
    with transaction.atomic():
        assignment = _locked(
            Assignment.objects.filter(transcript=transcript, annotator=user)
        ).first()
        if assignment is None or assignment.status != Assignment.Status.SKIPPED:
            raise ItemUnavailable(_("You have not skipped this item."))
        if _adjudicates(user, campaign):
            raise ItemUnavailable(str(ADJUDICATORS_ANNOTATE_NO_MORE))
        taken = (
            _locked(Transcript.objects.filter(pk=transcript.pk))
            .values_list("active_count", flat=True)
            .get()
        )
        if taken >= campaign.annotations_per_item:
            raise ItemUnavailable(_("Others have completed this item since you skipped it."))
        Transcript.objects.filter(pk=transcript.pk).update(active_count=F("active_count") + 1)
        assignment.status = Assignment.Status.HELD
        assignment.held_at = now or timezone.now()
        assignment.save(update_fields=["status", "held_at"])
    return assignment


def skipped(user: Any, campaign: Campaign) -> QuerySet[Assignment]:
    """The items ``user`` skipped in ``campaign``, latest first."""
    return (
        Assignment.objects.filter(
            campaign=campaign, annotator=user, status=Assignment.Status.SKIPPED
        )
        .select_related("transcript")
        .order_by("-pk")
    )
