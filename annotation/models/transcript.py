"""Transcripts to annotate, annotators' assignments to them, and their answers (responses).

A transcript gets exactly R annotations (``Campaign.annotations_per_item``). An
``Assignment`` is one annotator's hold on, or finished annotation of, one transcript;
``Transcript.active_count`` counts the assignments that take one of the R places (held or
submitted), so that the queue finds the item nearest to completion without counting.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from annotation.models.campaign import Campaign
from annotation.models.rubric import Dimension


def version_label(external_id: str, version: int) -> str:
    """How reports and exports name one version of a transcript: 't1', then 't1 (v2)', ..."""
    return external_id if version == 1 else f"{external_id} (v{version})"


class Transcript(models.Model):
    """One item to annotate: a dialogue, a prompt, or a context with two responses to compare.

    A prompt item shows ``prompt`` (and ``prompt_items``, a list of strings) instead of turns;
    a pairwise item may show a prompt as its context.
    """

    class Kind(models.TextChoices):
        DIALOGUE = "dialogue", _("Dialogue")
        PAIRWISE = "pairwise", _("Pairwise comparison")
        PROMPT = "prompt", _("Prompt")

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="transcripts")
    external_id = models.CharField(_("external id"), max_length=255)
    kind = models.CharField(_("kind"), max_length=16, choices=Kind.choices, default=Kind.DIALOGUE)
    system = models.CharField(_("system"), max_length=100, blank=True)
    dataset = models.CharField(_("dataset"), max_length=100, blank=True)
    lang = models.CharField(_("language"), max_length=16, blank=True)
    persona_emotion = models.CharField(_("persona emotion"), max_length=64, blank=True)
    persona_age_group = models.CharField(_("persona age group"), max_length=64, blank=True)
    persona_text = models.TextField(_("persona"), blank=True)
    preferences = models.JSONField(_("preferences"), default=list, blank=True)
    turns = models.JSONField(
        _("turns"),
        default=list,
        blank=True,
        help_text=_("The dialogue, or the context of a pairwise item."),
    )
    prompt = models.TextField(_("prompt"), blank=True)
    prompt_items = models.JSONField(
        _("prompt's items"), default=list, blank=True, help_text=_("Shown as a list under it.")
    )
    response_a = models.JSONField(_("response A"), null=True, blank=True)
    response_b = models.JSONField(_("response B"), null=True, blank=True)
    accepted = models.BooleanField(_("accepted"), null=True, blank=True)
    accepted_items = models.JSONField(_("accepted items"), default=list, blank=True)
    accepted_turn = models.PositiveIntegerField(_("accepted at turn"), null=True, blank=True)
    metadata = models.JSONField(_("metadata"), default=dict, blank=True)
    gold = models.JSONField(
        _("gold answers"),
        default=dict,
        blank=True,
        help_text=_("Expected answers by dimension key; empty when this is not a gold item."),
    )
    position = models.PositiveIntegerField(_("position"), default=0)
    shuffle_key = models.PositiveIntegerField(_("shuffle key"), default=0)
    active_count = models.PositiveIntegerField(
        _("held or submitted annotations"),
        default=0,
        help_text=_("Kept by the queue; counts toward the campaign's R."),
    )
    imported_at = models.DateTimeField(_("imported"), default=timezone.now)
    version = models.PositiveIntegerField(
        _("version"),
        default=1,
        help_text=_("Raised when a re-import keeps the annotated text and adds new content."),
    )
    superseded_at = models.DateTimeField(
        _("replaced by a newer version"),
        null=True,
        blank=True,
        help_text=_("Set when a re-import added a newer version; its scores stay with this text."),
    )

    class Meta:
        ordering = ["campaign", "position", "id"]
        verbose_name = _("transcript")
        constraints = [
            models.UniqueConstraint(
                fields=["campaign", "external_id", "version"], name="transcript_version_unique"
            ),
            models.UniqueConstraint(
                fields=["campaign", "external_id"],
                condition=models.Q(superseded_at__isnull=True),
                name="transcript_one_current_version",
            ),
        ]
        indexes = [
            models.Index(
                fields=["campaign", "-active_count", "position"], name="transcript_queue_order"
            ),
            models.Index(
                fields=["campaign", "-active_count", "shuffle_key"],
                name="transcript_queue_shuffled",
            ),
        ]

    def __str__(self) -> str:
        return self.label

    @property
    def label(self) -> str:
        """The external id, with the version when a re-import made more than one."""
        return version_label(self.external_id, self.version)

    @property
    def is_current(self) -> bool:
        return self.superseded_at is None

    @property
    def is_pairwise(self) -> bool:
        return self.kind == self.Kind.PAIRWISE

    @property
    def is_gold(self) -> bool:
        return bool(self.gold)


class Assignment(models.Model):
    """One annotator's place on one transcript: held while they work, then submitted or skipped.

    A hold not submitted within the campaign's hold time expires: the place goes back to the
    pool, and the annotator may still submit while a place is free.

    The unique (transcript, annotator) constraint is the last guard against an annotator
    getting an item twice, whatever happens above it.
    """

    class Status(models.TextChoices):
        HELD = "held", _("Held")
        SUBMITTED = "submitted", _("Submitted")
        SKIPPED = "skipped", _("Skipped")
        EXPIRED = "expired", _("Expired (held too long, back in the pool)")

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="assignments")
    transcript = models.ForeignKey(Transcript, on_delete=models.CASCADE, related_name="assignments")
    annotator = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="annotation_assignments"
    )
    status = models.CharField(
        _("status"), max_length=16, choices=Status.choices, default=Status.HELD
    )
    swapped = models.BooleanField(
        _("B shown on the left"),
        default=False,
        help_text=_("For pairwise items: the side each response was shown on, drawn at random."),
    )
    held_at = models.DateTimeField(_("held"), default=timezone.now)
    submitted_at = models.DateTimeField(_("submitted"), null=True, blank=True)
    time_on_task_ms = models.PositiveIntegerField(_("time on task (ms)"), default=0)

    class Meta:
        ordering = ["-held_at", "-id"]
        verbose_name = _("assignment")
        constraints = [
            models.UniqueConstraint(
                fields=["transcript", "annotator"], name="assignment_once_per_annotator"
            ),
        ]
        indexes = [
            models.Index(fields=["campaign", "status", "held_at"], name="assignment_holds"),
            models.Index(
                fields=["annotator", "campaign", "status"], name="assignment_by_annotator"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.transcript} · {self.annotator} ({self.status})"

    def as_stored(self, dimension: Dimension, shown: int) -> int:
        """The stored value of the option shown as ``shown``: pairwise sides may be swapped."""
        if self.swapped and dimension.kind == Dimension.Kind.PAIRWISE:
            return dimension.scale_min + dimension.scale_max - shown
        return shown

    def as_shown(self, dimension: Dimension, stored: int) -> int:
        return self.as_stored(dimension, stored)


class Response(models.Model):
    """One answer of one annotator to one dimension of one transcript.

    Pairwise answers are stored in the item's own terms (the scale's lowest value means
    response A), whichever side A was shown on; ``Assignment.swapped`` records the side.
    A free-text answer is ``text``, with ``value`` 0.
    """

    assignment = models.ForeignKey(Assignment, on_delete=models.CASCADE, related_name="responses")
    transcript = models.ForeignKey(Transcript, on_delete=models.CASCADE, related_name="responses")
    dimension = models.ForeignKey(Dimension, on_delete=models.PROTECT, related_name="responses")
    value = models.IntegerField(_("value"), help_text=_("0 for a free-text answer."))
    text = models.TextField(_("text"), blank=True, help_text=_("A free-text answer."))
    rationale = models.TextField(_("rationale"), blank=True)
    time_on_task_ms = models.PositiveIntegerField(
        _("time on task (ms)"), default=0, help_text=_("The item's time, shared by its answers.")
    )
    created_at = models.DateTimeField(_("created"), default=timezone.now)
    updated_at = models.DateTimeField(_("updated"), default=timezone.now)

    class Meta:
        ordering = ["assignment", "dimension"]
        verbose_name = _("response")
        constraints = [
            models.UniqueConstraint(
                fields=["assignment", "dimension"], name="response_once_per_dimension"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.assignment_id}/{self.dimension_id}={self.value}"
