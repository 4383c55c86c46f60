"""Annotation campaigns: transcripts to score with one rubric, R times each, by a team."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.urls import reverse
from django.utils import timezone
from django.utils.safestring import SafeString
from django.utils.translation import gettext_lazy as _

from annotation.instructions import format_instructions
from annotation.models.rubric import Rubric, RubricFrozen

# The alt-test's default allowance, for skilled annotators (evalsite.agreement.alt_test).
DEFAULT_ALT_TEST_EPSILON = 0.15


def validate_epsilon(value: float) -> None:
    """ε is an allowance on a difference of two shares: at least 0 and below 1."""
    if not 0 <= value < 1:
        raise ValidationError(
            _("ε must be at least 0 and below 1."), code="epsilon", params={"value": value}
        )


class Campaign(models.Model):
    """Transcripts to score with one rubric, R times each, by a team of annotators."""

    class Status(models.TextChoices):
        OPEN = "open", _("Open")
        CLOSED = "closed", _("Closed")

    class ItemOrder(models.TextChoices):
        SHUFFLED = "shuffled", _("Shuffled for each annotator")
        IMPORT = "import", _("Import order")

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
    item_order = models.CharField(
        _("item order"),
        max_length=16,
        choices=ItemOrder.choices,
        default=ItemOrder.SHUFFLED,
        help_text=_(
            "Among items equally near completion: each annotator in their own shuffled order "
            "(the same one on every visit), or everyone in import order."
        ),
    )
    hold_minutes = models.PositiveIntegerField(
        _("hold time (minutes)"),
        default=30,
        help_text=_("An item held this long without being submitted goes back to the pool."),
    )
    alt_test_epsilon = models.FloatField(
        _("alt-test ε"),
        default=DEFAULT_ALT_TEST_EPSILON,
        validators=[validate_epsilon],
        help_text=_(
            "How much worse than a human annotator the LLM evaluator may agree with the other "
            "annotators and still pass the alternative annotator test. Take 0.2 for expert "
            "annotators, 0.15 for skilled ones, 0.1 for crowd workers."
        ),
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
    archived_at = models.DateTimeField(
        _("archived"),
        null=True,
        blank=True,
        help_text=_("An archived campaign is hidden from annotators and takes no new work."),
    )

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
            models.CheckConstraint(
                condition=models.Q(alt_test_epsilon__gte=0, alt_test_epsilon__lt=1),
                name="campaign_alt_test_epsilon_below_one",
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

    @property
    def is_archived(self) -> bool:
        return self.archived_at is not None

    @property
    def formatted_instructions(self) -> SafeString:
        """The instructions as safe HTML: paragraphs, line breaks and http(s) links only."""
        return format_instructions(self.instructions)

    def has_responses(self) -> bool:
        from annotation.models.transcript import Response  # transcript.py builds on campaigns

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
