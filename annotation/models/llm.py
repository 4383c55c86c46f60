"""Scores LLM evaluators gave transcripts, kept apart from people's answers."""

from __future__ import annotations

from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from annotation.models.rubric import Dimension
from annotation.models.transcript import Transcript


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
