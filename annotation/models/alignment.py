"""Judge alignment: the campaign's stored split, evaluator versions, and adjudications.

``Alignment`` holds a campaign's seeded split into calibration and held-out items (one
``SplitItem`` per transcript, stored once made) and who may adjudicate. ``EvaluatorVersion`` is
what an LLM evaluator run was: prompt template, model, temperature, seed and few-shot examples.
``Adjudication`` is a resolved score for one (transcript, dimension), with a reason tag from the
editable ``AdjudicationReason`` list.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from annotation.models.campaign import Campaign
from annotation.models.rubric import Dimension
from annotation.models.transcript import Transcript


class Alignment(models.Model):
    """A campaign's judge-alignment settings: the split's seed and share, and the adjudicators."""

    campaign = models.OneToOneField(Campaign, on_delete=models.CASCADE, related_name="alignment")
    split_seed = models.PositiveIntegerField(_("split seed"), default=42)
    calibration_share = models.FloatField(
        _("calibration share"),
        default=0.5,
        help_text=_("The share of items that calibration and few-shot examples may learn from."),
    )
    adjudicators = models.ManyToManyField(
        settings.AUTH_USER_MODEL,
        blank=True,
        related_name="adjudicated_campaigns",
        verbose_name=_("adjudicators"),
        help_text=_("People besides the coordinators who may resolve disagreements."),
    )
    split_at = models.DateTimeField(_("split made"), null=True, blank=True)

    class Meta:
        verbose_name = _("judge alignment")
        constraints = [
            models.CheckConstraint(
                condition=models.Q(calibration_share__gt=0, calibration_share__lt=1),
                name="alignment_calibration_share_open_unit",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.campaign}"


class SplitItem(models.Model):
    """Which part of the split a transcript is in; stored once, never moved."""

    alignment = models.ForeignKey(Alignment, on_delete=models.CASCADE, related_name="items")
    transcript = models.OneToOneField(
        Transcript, on_delete=models.CASCADE, related_name="split_item"
    )
    held_out = models.BooleanField(_("held out"))

    class Meta:
        verbose_name = _("split item")

    def __str__(self) -> str:
        return f"{self.transcript_id}: {'held out' if self.held_out else 'calibration'}"


class EvaluatorVersion(models.Model):
    """One LLM evaluator setup whose scores are stored under ``name`` in ``LLMScore.evaluator``.

    ``few_shot`` lists the examples shown in the prompt as ``{"transcript": id, "scores":
    {dimension key: score}}``; they come from the calibration split only.
    """

    campaign = models.ForeignKey(
        Campaign, on_delete=models.CASCADE, related_name="evaluator_versions"
    )
    name = models.CharField(_("name"), max_length=100)
    prompt_template = models.TextField(_("prompt template"))
    prompt_version = models.CharField(_("prompt version"), max_length=40)
    model = models.CharField(_("model"), max_length=200)
    temperature = models.FloatField(_("temperature"), default=0.0)
    seed = models.IntegerField(_("seed"), null=True, blank=True)
    few_shot = models.JSONField(_("few-shot examples"), default=list, blank=True)
    created_at = models.DateTimeField(_("created"), default=timezone.now)

    class Meta:
        ordering = ["campaign", "created_at", "id"]
        verbose_name = _("evaluator version")
        constraints = [
            models.UniqueConstraint(fields=["campaign", "name"], name="evaluator_version_unique"),
        ]

    def __str__(self) -> str:
        return self.name


class AdjudicationReason(models.Model):
    """One tag of the editable list of reasons for a resolved score."""

    label_en = models.CharField(_("label (English)"), max_length=100, unique=True)
    label_zh = models.CharField(_("label (Chinese)"), max_length=100)
    position = models.PositiveIntegerField(_("position"), default=0)

    class Meta:
        ordering = ["position", "id"]
        verbose_name = _("adjudication reason")

    def __str__(self) -> str:
        return self.label_en


class Adjudication(models.Model):
    """The resolved score of one transcript on one dimension, with its reason."""

    transcript = models.ForeignKey(
        Transcript, on_delete=models.CASCADE, related_name="adjudications"
    )
    dimension = models.ForeignKey(Dimension, on_delete=models.PROTECT, related_name="adjudications")
    score = models.IntegerField(_("resolved score"))
    reason = models.ForeignKey(
        AdjudicationReason, on_delete=models.PROTECT, related_name="adjudications"
    )
    note = models.TextField(_("note"), blank=True)
    adjudicator = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="adjudications"
    )
    decided_at = models.DateTimeField(_("decided"), default=timezone.now)

    class Meta:
        ordering = ["transcript", "dimension"]
        verbose_name = _("adjudication")
        constraints = [
            models.UniqueConstraint(
                fields=["transcript", "dimension"], name="adjudication_once_per_dimension"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.transcript_id}/{self.dimension_id}={self.score}"
