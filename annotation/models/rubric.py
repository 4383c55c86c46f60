"""Rubrics: versioned sets of questions (dimensions), each answered on a scale of levels.

A rubric in use by a campaign with annotations is frozen: its dimensions and levels cannot
change (`RubricFrozen`); a changed rubric is a new version, used by a new campaign. Names,
questions and level descriptions are kept in English and Chinese.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.core.exceptions import ValidationError
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from evalsite.language import is_chinese

if TYPE_CHECKING:
    from annotation.models.transcript import Transcript


class RubricFrozen(ValidationError):
    """A rubric in use by a campaign with annotations cannot change."""


class Rubric(models.Model):
    """A versioned set of questions. A changed rubric is a new version, used by a new campaign."""

    key = models.SlugField(_("key"), max_length=64)
    version = models.PositiveIntegerField(_("version"), default=1)
    name_en = models.CharField(_("name (English)"), max_length=200)
    name_zh = models.CharField(_("name (Chinese)"), max_length=200)
    description = models.TextField(_("description"), blank=True)
    created_at = models.DateTimeField(_("created"), default=timezone.now)

    class Meta:
        ordering = ["key", "-version"]
        verbose_name = _("rubric")
        constraints = [
            models.UniqueConstraint(fields=["key", "version"], name="rubric_key_version_unique")
        ]

    def __str__(self) -> str:
        return f"{self.key} v{self.version}"

    def name(self, lang: str) -> str:
        return self.name_zh if is_chinese(lang) else self.name_en

    @property
    def is_frozen(self) -> bool:
        """True once any campaign using this rubric holds a response."""
        from annotation.models.transcript import Response  # transcript.py builds on rubrics

        return Response.objects.filter(assignment__campaign__rubric=self).exists()

    def check_not_frozen(self) -> None:
        if self.pk is not None and self.is_frozen:
            raise RubricFrozen(
                _(
                    "Rubric %(rubric)s already has annotations and cannot change; "
                    "load a new version and use it in a new campaign."
                )
                % {"rubric": str(self)},
                code="frozen",
            )


class DimensionQuerySet(models.QuerySet["Dimension"]):
    def scored(self) -> DimensionQuerySet:
        """The questions answered on a scale: every one but the free-text questions."""
        return self.exclude(kind=Dimension.Kind.TEXT)


class Dimension(models.Model):
    """One question of a rubric, answered on an integer scale with a description per level.

    A free-text question (``Kind.TEXT``) has no levels: its answer is the response's text,
    and it stays out of every score, agreement figure and LLM evaluation. A pairwise
    question whose scale has a middle level offers it as "neither": the sides mirror
    around it, so it means the same whichever side each response was shown on.
    """

    class Kind(models.TextChoices):
        LIKERT = "likert", _("Likert scale")
        BINARY = "binary", _("Yes or no")
        PAIRWISE = "pairwise", _("Which of two responses is better")
        TEXT = "text", _("Free text")

    class Measurement(models.TextChoices):
        NOMINAL = "nominal", _("Nominal")
        ORDINAL = "ordinal", _("Ordinal")
        INTERVAL = "interval", _("Interval")
        RATIO = "ratio", _("Ratio")

    class Rationale(models.TextChoices):
        NONE = "none", _("Not asked")
        OPTIONAL = "optional", _("Optional")
        REQUIRED = "required", _("Required")

    class Condition(models.TextChoices):
        ALWAYS = "always", _("Every item of its kind")
        ACCEPTED = "accepted", _("Only dialogues in which the user accepted a recommendation")

    rubric = models.ForeignKey(Rubric, on_delete=models.CASCADE, related_name="dimensions")
    key = models.SlugField(_("key"), max_length=64)
    position = models.PositiveIntegerField(_("position"), default=0)
    name_en = models.CharField(_("name (English)"), max_length=200)
    name_zh = models.CharField(_("name (Chinese)"), max_length=200)
    question_en = models.TextField(_("question (English)"))
    question_zh = models.TextField(_("question (Chinese)"))
    kind = models.CharField(_("kind"), max_length=16, choices=Kind.choices)
    scale_min = models.IntegerField(_("lowest value"))
    scale_max = models.IntegerField(_("highest value"))
    level_of_measurement = models.CharField(
        _("level of measurement"),
        max_length=16,
        choices=Measurement.choices,
        help_text=_("How Krippendorff's alpha compares two values of this dimension."),
    )
    rationale = models.CharField(
        _("free-text rationale"), max_length=16, choices=Rationale.choices, default=Rationale.NONE
    )
    condition = models.CharField(
        _("asked for"), max_length=16, choices=Condition.choices, default=Condition.ALWAYS
    )
    required = models.BooleanField(
        _("answer required"),
        default=True,
        help_text=_("Free-text questions only: whether an empty answer may be submitted."),
    )
    max_chars = models.PositiveIntegerField(
        _("longest answer (characters)"),
        default=2000,
        help_text=_("Free-text questions only."),
    )

    objects = DimensionQuerySet.as_manager()

    class Meta:
        ordering = ["rubric", "position", "id"]
        verbose_name = _("dimension")
        constraints = [
            models.UniqueConstraint(fields=["rubric", "key"], name="dimension_key_unique"),
            models.CheckConstraint(
                condition=models.Q(scale_min__lt=models.F("scale_max")),
                name="dimension_scale_ordered",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.rubric}: {self.key}"

    def save(self, *args: Any, **kwargs: Any) -> None:
        if self.rubric_id is not None:
            self.rubric.check_not_frozen()
        super().save(*args, **kwargs)

    def delete(self, *args: Any, **kwargs: Any) -> Any:
        self.rubric.check_not_frozen()
        return super().delete(*args, **kwargs)

    def clean(self) -> None:
        if self.rubric_id is not None:
            self.rubric.check_not_frozen()

    def name(self, lang: str) -> str:
        return self.name_zh if is_chinese(lang) else self.name_en

    def question(self, lang: str) -> str:
        return self.question_zh if is_chinese(lang) else self.question_en

    @property
    def is_text(self) -> bool:
        """A free-text question: its answers are words, outside every score and agreement."""
        return self.kind == self.Kind.TEXT

    def in_scale(self, value: float) -> bool:
        return self.scale_min <= value <= self.scale_max

    def applies_to(self, transcript: Transcript) -> bool:
        """Whether this question is asked about ``transcript``."""
        from annotation.models.transcript import Transcript  # transcript.py builds on rubrics

        if (self.kind == self.Kind.PAIRWISE) != (transcript.kind == Transcript.Kind.PAIRWISE):
            return False
        return self.condition == self.Condition.ALWAYS or transcript.accepted is True


class Level(models.Model):
    """What one value of a dimension's scale means; shown to annotators as an answer option."""

    dimension = models.ForeignKey(Dimension, on_delete=models.CASCADE, related_name="levels")
    value = models.IntegerField(_("value"))
    label_en = models.CharField(_("label (English)"), max_length=100)
    label_zh = models.CharField(_("label (Chinese)"), max_length=100)
    description_en = models.TextField(_("description (English)"))
    description_zh = models.TextField(_("description (Chinese)"))

    class Meta:
        ordering = ["dimension", "value"]
        verbose_name = _("level")
        constraints = [
            models.UniqueConstraint(fields=["dimension", "value"], name="level_value_unique")
        ]

    def __str__(self) -> str:
        return f"{self.dimension.key}={self.value}"

    def save(self, *args: Any, **kwargs: Any) -> None:
        self.dimension.rubric.check_not_frozen()
        super().save(*args, **kwargs)

    def delete(self, *args: Any, **kwargs: Any) -> Any:
        self.dimension.rubric.check_not_frozen()
        return super().delete(*args, **kwargs)

    def label(self, lang: str) -> str:
        return self.label_zh if is_chinese(lang) else self.label_en

    def description(self, lang: str) -> str:
        return self.description_zh if is_chinese(lang) else self.description_en
