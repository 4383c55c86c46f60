"""How far a campaign and its annotators have got: progress bars and the coordinator's dashboard."""

from __future__ import annotations

import math
import statistics
from collections import Counter, defaultdict
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.core.cache import cache
from django.db.models import Count, Max, Q

from annotation.models import Assignment, Campaign, Response

FIGURES_SECONDS = 30


@dataclass(frozen=True)
class Bar:
    done: int
    target: int
    # Nothing is left for this person: the bar is full whatever the share said.
    finished: bool = False

    @property
    def percent(self) -> int:
        if self.finished or self.target <= 0:
            return 100
        return min(100, math.floor(100 * self.done / self.target))


@dataclass(frozen=True)
class CampaignFigures:
    items: int
    team: int
    submitted: int


def campaign_figures(campaign: Campaign, *, fresh: bool = False) -> CampaignFigures:
    """Items, listed annotators and submitted annotations of ``campaign``.

    Counting every annotation takes time that grows with the campaign, so the workspace
    reuses the figures for `FIGURES_SECONDS`; pages that must be exact pass ``fresh``.
    """
    # The creation time tells apart campaigns that reuse a deleted campaign's id.
    key = f"annotation:figures:{campaign.pk}:{campaign.created_at.timestamp()}"
    if not fresh:
        cached = cache.get(key)
        if isinstance(cached, CampaignFigures):
            return cached
    figures = CampaignFigures(
        items=campaign.transcripts.filter(superseded_at__isnull=True).count(),
        team=campaign.annotators.count(),
        submitted=Assignment.objects.filter(
            campaign=campaign,
            status=Assignment.Status.SUBMITTED,
            transcript__superseded_at__isnull=True,
        ).count(),
    )
    cache.set(key, figures, FIGURES_SECONDS)
    return figures


def campaign_bar(campaign: Campaign, figures: CampaignFigures) -> Bar:
    """Submitted annotations out of items × R."""
    return Bar(figures.submitted, figures.items * campaign.annotations_per_item)


def annotator_bar(
    user: Any, campaign: Campaign, figures: CampaignFigures, *, finished: bool = False
) -> Bar:
    """The user's submitted items out of their share: items × R spread over the listed
    annotators, or every item when the campaign is open to all annotators.

    Others may take part of a share, so a person whose queue is empty (``finished``) is done
    with what they submitted: the target becomes their count."""
    items = figures.items
    share = (
        math.ceil(items * campaign.annotations_per_item / figures.team) if figures.team else items
    )
    done = Assignment.objects.filter(
        campaign=campaign, annotator=user, status=Assignment.Status.SUBMITTED
    ).count()
    if finished:
        return Bar(done, done, finished=True)
    return Bar(done, min(items, share))


@dataclass(frozen=True)
class AnnotatorRow:
    username: str
    done: int
    skipped: int
    median_seconds: float | None
    gold_correct: int
    gold_total: int
    user_id: int | None = None
    last_activity: datetime | None = None
    held: int = 0
    active: bool = True

    @property
    def gold_accuracy(self) -> float | None:
        return self.gold_correct / self.gold_total if self.gold_total else None


def annotator_rows(campaign: Campaign) -> list[AnnotatorRow]:
    """Per annotator: items done and skipped, median time on task, and accuracy on gold items.

    Gold accuracy counts every answer given on a gold item's dimensions that have an
    expected answer.
    """
    times: dict[str, list[int]] = defaultdict(list)
    skipped: Counter[str] = Counter()
    for username, status, time_ms in Assignment.objects.filter(
        campaign=campaign,
        status__in=[Assignment.Status.SUBMITTED, Assignment.Status.SKIPPED],
    ).values_list("annotator__username", "status", "time_on_task_ms"):
        if status == Assignment.Status.SUBMITTED:
            times[username].append(time_ms)
        else:
            skipped[username] += 1
    correct: Counter[str] = Counter()
    answered: Counter[str] = Counter()
    gold_answers = (
        Response.objects.filter(
            assignment__campaign=campaign, assignment__status=Assignment.Status.SUBMITTED
        )
        .exclude(transcript__gold={})
        .values_list(
            "assignment__annotator__username", "transcript__gold", "dimension__key", "value"
        )
    )
    for username, gold, key, value in gold_answers:
        if key in gold:
            answered[username] += 1
            correct[username] += int(gold[key] == value)
    people = _roster_people(campaign)
    names = sorted(set(times) | set(skipped) | set(people))
    return [
        AnnotatorRow(
            username=name,
            done=len(times[name]),
            skipped=skipped[name],
            median_seconds=statistics.median(times[name]) / 1000 if times[name] else None,
            gold_correct=correct[name],
            gold_total=answered[name],
            **people.get(name, {}),
        )
        for name in names
    ]


def _roster_people(campaign: Campaign) -> dict[str, dict[str, Any]]:
    """Each listed or working annotator's id, last activity, items held now, and whether active."""
    people: dict[str, dict[str, Any]] = {
        username: {"user_id": pk, "active": active, "last_activity": None, "held": 0}
        for pk, username, active in campaign.annotators.values_list("pk", "username", "is_active")
    }
    activity = (
        Assignment.objects.filter(campaign=campaign)
        .values("annotator_id", "annotator__username", "annotator__is_active")
        .annotate(
            held_last=Max("held_at"),
            submitted_last=Max("submitted_at"),
            held=Count("pk", filter=Q(status=Assignment.Status.HELD)),
        )
    )
    for row in activity:
        moments = [moment for moment in (row["held_last"], row["submitted_last"]) if moment]
        people[row["annotator__username"]] = {
            "user_id": row["annotator_id"],
            "active": row["annotator__is_active"],
            "last_activity": max(moments) if moments else None,
            "held": row["held"],
        }
    return people


@dataclass(frozen=True)
class CoverageBin:
    annotations: int
    items: int
    percent: int


def coverage(campaign: Campaign) -> list[CoverageBin]:
    """How many items have 0, 1, … R submitted annotations."""
    per_item = (
        Assignment.objects.filter(
            campaign=campaign,
            status=Assignment.Status.SUBMITTED,
            transcript__superseded_at__isnull=True,
        )
        .values("transcript")
        .annotate(n=Count("pk"))
        .values_list("n", flat=True)
    )
    counts = Counter(per_item)
    total = campaign.transcripts.filter(superseded_at__isnull=True).count()
    counts[0] = total - sum(counts.values())
    top = max([campaign.annotations_per_item, *counts])
    return [
        CoverageBin(n, counts[n], math.floor(100 * counts[n] / total) if total else 0)
        for n in range(top + 1)
    ]


def submitted_counts(transcript_ids: list[int]) -> dict[int, int]:
    """Submitted annotations of each of the given transcripts."""
    rows = (
        Assignment.objects.filter(
            transcript_id__in=transcript_ids, status=Assignment.Status.SUBMITTED
        )
        .values("transcript_id")
        .annotate(n=Count("pk"))
        .values_list("transcript_id", "n")
    )
    return dict(rows)


def held_count(campaign: Campaign) -> int:
    return Assignment.objects.filter(campaign=campaign, status=Assignment.Status.HELD).count()
