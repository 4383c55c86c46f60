"""How people label intents: α among annotators and each annotator's official F against gold.

Answers come from the campaign's intent question; gold labels from the intent track. Each
annotator is scored on the utterances they labelled, over the gold classes of those utterances.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from annotation.from_intent.utterances import QUESTION_KEY, external_id
from annotation.models import Campaign, Response
from evalsite.agreement.alpha import krippendorff_alpha
from evalsite.agreement.common import StatisticUndefined
from intent.models import Track
from intent.scoring import score


@dataclass(frozen=True)
class AnnotatorF:
    annotator: str
    items: int
    official_f: float
    accuracy: float


@dataclass(frozen=True)
class IntentAgreement:
    items: int
    alpha: float | None
    alpha_note: str | None
    annotators: tuple[AnnotatorF, ...]


def _answers(campaign: Campaign) -> dict[tuple[str, str], int]:
    """(transcript external id, annotator name) → chosen level."""
    rows = Response.objects.filter(
        transcript__campaign=campaign, dimension__key=QUESTION_KEY
    ).values_list("transcript__external_id", "assignment__annotator__username", "value")
    return {(item, who): value for item, who, value in rows}


def intent_agreement(campaign: Campaign, track: Track) -> IntentAgreement:
    labels = track.label_tuple
    gold_of = {
        external_id(track, uid): labels.index(label)
        for uid, label in track.utterances.values_list("uid", "label")
    }
    answers = _answers(campaign)
    items = sorted({item for item, _ in answers})
    people = sorted({who for _, who in answers})
    matrix = np.full((len(items), len(people)), np.nan)
    for (item, who), value in answers.items():
        matrix[items.index(item), people.index(who)] = value
    alpha, note = None, None
    try:
        alpha = krippendorff_alpha(matrix, "nominal", value_domain=list(range(len(labels))))
    except StatisticUndefined as error:
        note = str(error)
    scored = []
    for who in people:
        mine = [(gold_of[item], value) for (item, w), value in answers.items() if w == who]
        gold = np.array([g for g, _ in mine], dtype=np.int64)
        pred = np.array([p for _, p in mine], dtype=np.int64)
        result = score(labels, gold, pred)
        scored.append(AnnotatorF(who, len(mine), result.official_f, result.accuracy))
    return IntentAgreement(len(items), alpha, note, tuple(scored))
