"""The adjudication queue's evidence and decisions.

Coordinators and the campaign's designated adjudicators may adjudicate (an adjudicator who
also annotates the campaign only once they hold no item of it, and the queue gives them no
new one); nobody else, whatever other role they hold, reaches these pages, so this is the
only place outside the coordinator's pages where LLM scores and other people's answers are
shown. An adjudication is the resolved score of one (transcript, dimension), with a reason tag
from the editable list.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.core.exceptions import PermissionDenied
from django.utils.translation import get_language
from django.utils.translation import gettext as _

from annotation.models import (
    Adjudication,
    AdjudicationReason,
    Alignment,
    Assignment,
    Campaign,
    Dimension,
    LLMScore,
    Response,
    Transcript,
)
from annotation.models.transcript import version_label
from evalsite.roles import COORDINATORS, has_role


def is_adjudicator(user: Any, campaign: Campaign) -> bool:
    """Whether the campaign names ``user`` among its adjudicators."""
    return bool(
        user.is_authenticated
        and Alignment.objects.filter(campaign=campaign, adjudicators=user).exists()
    )


def holds_items(user: Any, campaign: Campaign) -> bool:
    """Whether ``user`` holds an item of ``campaign`` they have not submitted yet."""
    return Assignment.objects.filter(
        campaign=campaign, annotator=user, status=Assignment.Status.HELD
    ).exists()


class StillAnnotating(PermissionDenied):
    """An adjudicator who still holds an item to annotate in the campaign."""


def may_adjudicate(user: Any, campaign: Campaign) -> bool:
    """Coordinators, and the people the campaign names as adjudicators.

    Adjudication shows LLM scores, which annotators must never see while they annotate. So an
    adjudicator gets no new items of the campaign (`annotation.queue.next_for`), and cannot
    adjudicate while holding one: raises `StillAnnotating`, whose message says so.
    """
    if has_role(user, COORDINATORS):
        return True
    if not is_adjudicator(user, campaign):
        return False
    if holds_items(user, campaign):
        raise StillAnnotating(
            _(
                "You still hold an item to annotate in this campaign. Adjudication shows LLM "
                "scores, so submit or skip it first; as an adjudicator you get no new items."
            )
        )
    return True


@dataclass(frozen=True)
class PersonScore:
    annotator: str
    value: int
    rationale: str


@dataclass(frozen=True)
class MachineScore:
    evaluator: str
    score: float
    rationale: str


@dataclass(frozen=True)
class Evidence:
    """Everything an adjudicator weighs for one transcript on one dimension."""

    transcript: Transcript
    dimension: Dimension
    people: tuple[PersonScore, ...]
    machines: tuple[MachineScore, ...]
    decision: Adjudication | None

    @property
    def dimension_name(self) -> str:
        return self.dimension.name(get_language() or "")

    @property
    def turns(self) -> list[tuple[int, dict[str, Any]]]:
        return list(enumerate(self.transcript.turns, start=1))


def evidence(transcript: Transcript, dimension: Dimension) -> Evidence:
    people = Response.objects.filter(
        transcript=transcript,
        dimension=dimension,
        assignment__status=Assignment.Status.SUBMITTED,
    ).order_by("assignment__annotator__username")
    machines = LLMScore.objects.filter(transcript=transcript, dimension=dimension).order_by(
        "evaluator"
    )
    return Evidence(
        transcript=transcript,
        dimension=dimension,
        people=tuple(
            PersonScore(row.assignment.annotator.username, row.value, row.rationale)
            for row in people.select_related("assignment__annotator")
        ),
        machines=tuple(MachineScore(row.evaluator, row.score, row.rationale) for row in machines),
        decision=Adjudication.objects.filter(transcript=transcript, dimension=dimension)
        .select_related("reason", "adjudicator")
        .first(),
    )


def record_adjudication(
    transcript: Transcript,
    dimension: Dimension,
    *,
    score: int,
    reason: AdjudicationReason,
    note: str,
    user: Any,
) -> Adjudication:
    """Store (or replace) the resolved score; raises ValueError for a score off the scale."""
    if not dimension.in_scale(score):
        raise ValueError(f"the score must lie from {dimension.scale_min} to {dimension.scale_max}")
    decision, _ = Adjudication.objects.update_or_create(
        transcript=transcript,
        dimension=dimension,
        defaults={"score": score, "reason": reason, "note": note, "adjudicator": user},
    )
    return decision


def decided(campaign: Campaign) -> set[tuple[str, str]]:
    """The (item, dimension key) pairs already adjudicated."""
    return {
        (version_label(external_id, version), key)
        for external_id, version, key in Adjudication.objects.filter(
            transcript__campaign=campaign
        ).values_list("transcript__external_id", "transcript__version", "dimension__key")
    }
