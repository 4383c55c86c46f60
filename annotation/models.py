"""Rubric annotation: rubrics and their dimensions, campaigns, transcripts, and the scores
people and LLM evaluators give them.

A transcript gets exactly R annotations (``Campaign.annotations_per_item``). An
``Assignment`` is one annotator's hold on, or finished annotation of, one transcript;
``Transcript.active_count`` counts the assignments that take one of the R places (held or
submitted), so that the queue finds the item nearest to completion without counting.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext_lazy as _


class RubricFrozen(ValidationError):
    """A rubric in use by a campaign with annotations cannot change."""


def _speaks_chinese(lang: str) -> bool:
    return lang.lower().startswith("zh")


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
        return self.name_zh if _speaks_chinese(lang) else self.name_en

    @property
    def is_frozen(self) -> bool:
        """True once any campaign using this rubric holds a response."""
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


class Dimension(models.Model):
    """One question of a rubric, answered on an integer scale with a description per level."""

    class Kind(models.TextChoices):
        LIKERT = "likert", _("Likert scale")
        BINARY = "binary", _("Yes or no")
        PAIRWISE = "pairwise", _("Which of two responses is better")

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
        return self.name_zh if _speaks_chinese(lang) else self.name_en

    def question(self, lang: str) -> str:
        return self.question_zh if _speaks_chinese(lang) else self.question_en

    def in_scale(self, value: float) -> bool:
        return self.scale_min <= value <= self.scale_max

    def applies_to(self, transcript: Transcript) -> bool:
        """Whether this question is asked about ``transcript``."""
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
        return self.label_zh if _speaks_chinese(lang) else self.label_en

    def description(self, lang: str) -> str:
        return self.description_zh if _speaks_chinese(lang) else self.description_en


class Campaign(models.Model):
    """Transcripts to score with one rubric, R times each, by a team of annotators."""

    class Status(models.TextChoices):
        OPEN = "open", _("Open")
        CLOSED = "closed", _("Closed")

    name = models.CharField(_("name"), max_length=200, unique=True)
    rubric = models.ForeignKey(Rubric, on_delete=models.PROTECT, related_name="campaigns")
    instructions = models.TextField(_("instructions"), blank=True)
    annotations_per_item = models.PositiveSmallIntegerField(
        _("annotations per item (R)"), default=3
    )
    show_feelings = models.BooleanField(
        _("show the simulated user's feelings"),
        default=False,
        help_text=_("The simulator's inner state, written next to its turns."),
    )
    randomise_order = models.BooleanField(
        _("randomise the order"),
        default=False,
        help_text=_("Among items equally near completion, hand out a random one, not the first."),
    )
    hold_minutes = models.PositiveIntegerField(
        _("hold time (minutes)"),
        default=30,
        help_text=_("An item held this long without being submitted goes back to the pool."),
    )
    status = models.CharField(
        _("status"), max_length=16, choices=Status.choices, default=Status.OPEN
    )
    annotators = models.ManyToManyField(
        settings.AUTH_USER_MODEL,
        blank=True,
        related_name="annotation_campaigns",
        verbose_name=_("annotators"),
        help_text=_("Leave empty to open the campaign to every annotator."),
    )
    created_at = models.DateTimeField(_("created"), default=timezone.now)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = _("annotation campaign")
        constraints = [
            models.CheckConstraint(
                condition=models.Q(annotations_per_item__gte=1),
                name="campaign_annotations_per_item_positive",
            ),
            models.CheckConstraint(
                condition=models.Q(hold_minutes__gte=1), name="campaign_hold_minutes_positive"
            ),
        ]

    def __str__(self) -> str:
        return self.name

    def save(self, *args: Any, **kwargs: Any) -> None:
        self.clean()
        super().save(*args, **kwargs)

    def get_absolute_url(self) -> str:
        return reverse("annotation:dashboard", args=[self.pk])

    @property
    def is_open(self) -> bool:
        return self.status == self.Status.OPEN

    def has_responses(self) -> bool:
        return Response.objects.filter(assignment__campaign=self).exists()

    def clean(self) -> None:
        if self.pk is None:
            return
        stored = Campaign.objects.filter(pk=self.pk).values_list("rubric_id", flat=True).first()
        if stored is not None and stored != self.rubric_id and self.has_responses():
            raise RubricFrozen(
                _("This campaign already has annotations; its rubric cannot change."),
                code="frozen",
            )

    def open_to(self, user: Any) -> bool:
        """Whether ``user`` may annotate in this campaign (roles are checked by the views)."""
        listed = self.annotators.all()
        return not listed.exists() or listed.filter(pk=user.pk).exists()


class Transcript(models.Model):
    """One item to annotate: a dialogue, or a context with two responses to compare."""

    class Kind(models.TextChoices):
        DIALOGUE = "dialogue", _("Dialogue")
        PAIRWISE = "pairwise", _("Pairwise comparison")

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

    class Meta:
        ordering = ["campaign", "position", "id"]
        verbose_name = _("transcript")
        constraints = [
            models.UniqueConstraint(
                fields=["campaign", "external_id"], name="transcript_external_id_unique"
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
        return self.external_id

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
    response A), whichever side A was shown on.
    """

    assignment = models.ForeignKey(Assignment, on_delete=models.CASCADE, related_name="responses")
    transcript = models.ForeignKey(Transcript, on_delete=models.CASCADE, related_name="responses")
    dimension = models.ForeignKey(Dimension, on_delete=models.PROTECT, related_name="responses")
    value = models.IntegerField(_("value"))
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


class LLMScore(models.Model):
    """A score an LLM evaluator gave a transcript on one dimension. Never shown to annotators."""

    transcript = models.ForeignKey(Transcript, on_delete=models.CASCADE, related_name="llm_scores")
    dimension = models.ForeignKey(Dimension, on_delete=models.PROTECT, related_name="llm_scores")
    evaluator = models.CharField(_("evaluator"), max_length=100)
    score = models.FloatField(_("score"))
    rationale = models.TextField(_("rationale"), blank=True)
    imported_at = models.DateTimeField(_("imported"), default=timezone.now)

    class Meta:
        ordering = ["transcript", "dimension", "evaluator"]
        verbose_name = _("LLM score")
        constraints = [
            models.UniqueConstraint(
                fields=["transcript", "dimension", "evaluator"], name="llmscore_unique"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.evaluator}: {self.transcript_id}/{self.dimension_id}={self.score}"


class Catalog(models.Model):
    """The items a recommender could name for some datasets, as the CONCEPT scorecard checks
    them: an item a system names that is not here does not exist."""

    name = models.SlugField(_("name"), max_length=100, unique=True)
    datasets = models.JSONField(
        _("datasets served"),
        default=list,
        help_text=_("The transcript dataset values (such as redial_eval) this catalog describes."),
    )
    source = models.CharField(_("imported from"), max_length=500, blank=True)
    imported_at = models.DateTimeField(_("imported"), default=timezone.now)

    class Meta:
        ordering = ["name"]
        verbose_name = _("item catalog")

    def __str__(self) -> str:
        return self.name


class CatalogItem(models.Model):
    """One entry of a catalog: an item with its year and attributes, or another entity the
    datasets know (a person, a genre), which is never counted as an item."""

    class Kind(models.TextChoices):
        ITEM = "item", _("Item")
        ENTITY = "entity", _("Other entity (person, genre, year)")

    catalog = models.ForeignKey(Catalog, on_delete=models.CASCADE, related_name="entries")
    kind = models.CharField(_("kind"), max_length=16, choices=Kind.choices, default=Kind.ITEM)
    item_id = models.CharField(
        _("id"), max_length=255, help_text=_("The id the systems use for it, if any.")
    )
    name = models.CharField(_("name"), max_length=500)
    year = models.PositiveSmallIntegerField(_("year"), null=True, blank=True)
    attributes = models.JSONField(_("attributes"), default=list, blank=True)

    class Meta:
        ordering = ["catalog", "kind", "name", "id"]
        verbose_name = _("catalog entry")
        verbose_name_plural = _("catalog entries")
        constraints = [
            models.UniqueConstraint(
                fields=["catalog", "kind", "item_id"], name="catalogitem_id_unique"
            ),
        ]

    def __str__(self) -> str:
        return self.name
