"""Evaluator versions: what each LLM evaluator run was, and its few-shot examples.

A version is recorded when a scoring job is made: the prompt template, the model, the
temperature, the seed and the few-shot examples, under the evaluator name its scores are
stored with. A name already used by a version with other settings is refused, so that the
scores under one name always come from one setup. Few-shot examples come from the calibration
split only, never from a held-out item: each is a transcript with its adjudicated score per
dimension, or else the human consensus (the median of the submitted answers, rounded half up).
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass
from statistics import median
from typing import Any

from annotation.alignment.stored_split import held_out_ids
from annotation.models import (
    Adjudication,
    Assignment,
    Campaign,
    EvaluatorVersion,
    Response,
    Transcript,
)

MAX_FEW_SHOT = 10


@dataclass(frozen=True)
class FewShotExample:
    """A calibration transcript and the score people gave it on each dimension."""

    transcript: Transcript
    scores: dict[str, int]

    def as_json(self) -> dict[str, Any]:
        return {"transcript": self.transcript.pk, "scores": self.scores}


def _people_scores(campaign: Campaign, allowed: set[int]) -> dict[int, dict[str, int]]:
    answers: dict[tuple[int, str], list[int]] = defaultdict(list)
    for transcript, key, value in Response.objects.filter(
        assignment__campaign=campaign,
        assignment__status=Assignment.Status.SUBMITTED,
        transcript_id__in=allowed,
    ).values_list("transcript_id", "dimension__key", "value"):
        answers[(transcript, key)].append(value)
    scores: dict[int, dict[str, int]] = defaultdict(dict)
    for (transcript, key), values in answers.items():
        scores[transcript][key] = math.floor(median(values) + 0.5)
    for transcript, key, value in Adjudication.objects.filter(
        transcript_id__in=allowed
    ).values_list("transcript_id", "dimension__key", "score"):
        scores[transcript][key] = value
    return scores


def few_shot_examples(campaign: Campaign, count: int) -> list[FewShotExample]:
    """Up to ``count`` calibration items scored by people, the most fully scored first."""
    if count <= 0:
        return []
    held_out = held_out_ids(campaign)
    calibration = set(campaign.transcripts.exclude(pk__in=held_out).values_list("pk", flat=True))
    scores = _people_scores(campaign, calibration)
    transcripts = Transcript.objects.in_bulk(list(scores))
    chosen = sorted(scores, key=lambda pk: (-len(scores[pk]), transcripts[pk].position, pk))[:count]
    return [FewShotExample(transcripts[pk], dict(sorted(scores[pk].items()))) for pk in chosen]


def stored_examples(few_shot: list[dict[str, Any]]) -> list[FewShotExample]:
    """The examples a job's parameters name, read back from the database."""
    transcripts = Transcript.objects.in_bulk([entry["transcript"] for entry in few_shot])
    return [
        FewShotExample(transcripts[entry["transcript"]], dict(entry["scores"]))
        for entry in few_shot
        if entry["transcript"] in transcripts
    ]


def record_version(
    campaign: Campaign,
    name: str,
    *,
    prompt_template: str,
    prompt_version: str,
    model: str,
    temperature: float,
    seed: int | None,
    examples: list[FewShotExample],
) -> EvaluatorVersion:
    """The version named ``name``, made now or found with the same settings.

    Raises ValueError when ``name`` already names a version with other settings.
    """
    settings: dict[str, Any] = {
        "prompt_template": prompt_template,
        "prompt_version": prompt_version,
        "model": model,
        "temperature": temperature,
        "seed": seed,
        "few_shot": [example.as_json() for example in examples],
    }
    version, created = EvaluatorVersion.objects.get_or_create(
        campaign=campaign, name=name, defaults=settings
    )
    if not created:
        differing = [key for key, value in settings.items() if getattr(version, key) != value]
        if differing:
            raise ValueError(
                f"the evaluator {name} already names a version with another "
                f"{', '.join(differing)}; give this run a label of its own"
            )
    return version


def versions_of(campaign: Campaign) -> list[EvaluatorVersion]:
    return list(campaign.evaluator_versions.order_by("created_at", "pk"))
