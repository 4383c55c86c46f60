"""How people label intents: α among annotators and each annotator's official F against gold.

Each LLM that labelled the utterances (`annotation.from_intent.llm_labels`) is one more
labeller: its official F against gold, and the alternative annotator test against the people
(accuracy alignment, the campaign's ε), which says whether it could stand in for one of them.

Answers come from the campaign's intent question; gold labels from the intent track. Each
annotator is scored on the utterances with gold that they labelled (user turns of live
dialogues have none), over the gold classes of those utterances; α uses every item.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from annotation.from_intent.utterances import QUESTION_KEY, external_id
from annotation.models import Campaign, LLMScore, Response
from evalsite.agreement.alpha import krippendorff_alpha
from evalsite.agreement.alt_test import AltTestUnavailable, alt_test
from evalsite.agreement.common import StatisticUndefined
from evalsite.agreement.phrases import reason_of
from evalsite.agreement.score_matrix import ScoreMatrix
from intent.models import Track
from intent.scoring import score


@dataclass(frozen=True)
class AnnotatorF:
    annotator: str
    items: int
    official_f: float
    accuracy: float


@dataclass(frozen=True)
class LLMLabeller:
    """The LLM as one more labeller: its F against gold, and its alt-test against people."""

    evaluator: str
    items: int
    official_f: float | None
    accuracy: float | None
    alt_test_passed: bool | None
    winning_rate: float | None
    alt_test_note: str | None


@dataclass(frozen=True)
class IntentAgreement:
    items: int
    alpha: float | None
    alpha_note: str | None
    annotators: tuple[AnnotatorF, ...]
    llm: tuple[LLMLabeller, ...] = ()


def _answers(campaign: Campaign) -> dict[tuple[str, str], int]:
    """(transcript external id, annotator name) → chosen level."""
    rows = Response.objects.filter(
        transcript__campaign=campaign,
        transcript__superseded_at__isnull=True,
        dimension__key=QUESTION_KEY,
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
        note = reason_of(error)
    scored = []
    for who in people:
        mine = [
            (gold_of[item], value)
            for (item, w), value in answers.items()
            if w == who and item in gold_of
        ]
        if not mine:
            continue
        gold = np.array([g for g, _ in mine], dtype=np.int64)
        pred = np.array([p for _, p in mine], dtype=np.int64)
        result = score(labels, gold, pred)
        scored.append(AnnotatorF(who, len(mine), result.official_f, result.accuracy))
    llm = tuple(
        _llm_labeller(campaign, evaluator, labels, gold_of, items, people, matrix)
        for evaluator in _evaluators(campaign)
    )
    return IntentAgreement(len(items), alpha, note, tuple(scored), llm)


def _evaluators(campaign: Campaign) -> list[str]:
    return sorted(
        set(
            LLMScore.objects.filter(
                transcript__campaign=campaign, dimension__key=QUESTION_KEY
            ).values_list("evaluator", flat=True)
        )
    )


def _llm_labeller(
    campaign: Campaign,
    evaluator: str,
    labels: tuple[str, ...],
    gold_of: dict[str, int],
    items: list[str],
    people: list[str],
    humans: np.ndarray,
) -> LLMLabeller:
    chosen = dict(
        LLMScore.objects.filter(
            transcript__campaign=campaign,
            transcript__superseded_at__isnull=True,
            dimension__key=QUESTION_KEY,
            evaluator=evaluator,
        ).values_list("transcript__external_id", "score")
    )
    keys = sorted(key for key in chosen if key in gold_of)
    result = (
        score(
            labels,
            np.array([gold_of[key] for key in keys], dtype=np.int64),
            np.array([int(chosen[key]) for key in keys], dtype=np.int64),
        )
        if keys
        else None
    )
    llm_row = np.array([chosen.get(item, np.nan) for item in items], dtype=np.float64)
    matrix = ScoreMatrix(tuple(items), tuple(people), humans, llm_row, categories=labels)
    found = alt_test(matrix, scoring="accuracy", epsilon=campaign.alt_test_epsilon)
    if isinstance(found, AltTestUnavailable):
        passed, rate, note = None, None, found.note
    else:
        passed, rate, note = found.passed, found.winning_rate, None
    official_f = result.official_f if result is not None else None
    accuracy = result.accuracy if result is not None else None
    return LLMLabeller(evaluator, len(keys), official_f, accuracy, passed, rate, note)
