"""How people label intents: α among annotators and each annotator's official F against gold.

Each LLM that labelled the utterances (`annotation.from_intent.llm_labels`) is one more
labeller: its official F against gold, and whether it can stand in for one of the people by
the one rule (`evalsite.agreement.verdict`), from the agreement engine at the nominal level:
the alternative annotator test (accuracy alignment, the campaign's ε), α LLM–humans above 0
and not significantly below α between people, and labels that vary. The alt-test alone would
pass an LLM that gives every utterance the label most of them carry.

Answers come from the campaign's intent question; gold labels from the intent track. Each
annotator is scored on the utterances with gold that they labelled (user turns of live
dialogues have none), over the gold classes of those utterances; α uses every item.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from annotation.from_intent.utterances import QUESTION_KEY, external_id
from annotation.models import Campaign, LLMScore, Response
from evalsite.agreement.alpha import krippendorff_alpha
from evalsite.agreement.common import (
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    InputError,
    StatisticUndefined,
)
from evalsite.agreement.engine import agreement_blocks
from evalsite.agreement.phrases import reason_of
from evalsite.agreement.results import AgreementBlock
from evalsite.agreement.verdict import StandIn
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
    # The one rule's verdict; None (with ``alt_test_note`` saying why) when the engine could
    # not analyse the labels.
    verdict: StandIn | None = None


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
    block, note = _agreement(campaign, evaluator, chosen, items, people, humans)
    alt = None if block is None else block.alt_test
    if block is not None and alt is None:
        note = next((n for n in block.notes if n.startswith("alt_test is null")), None)
    passed = None if alt is None else alt.passed
    rate = None if alt is None else alt.winning_rate
    verdict = None if block is None else block.verdict
    official_f = result.official_f if result is not None else None
    accuracy = result.accuracy if result is not None else None
    return LLMLabeller(evaluator, len(keys), official_f, accuracy, passed, rate, note, verdict)


def _agreement(
    campaign: Campaign,
    evaluator: str,
    chosen: dict[str, float],
    items: list[str],
    people: list[str],
    humans: np.ndarray,
) -> tuple[AgreementBlock | None, str | None]:
    """The engine's block of the people's labels and the LLM's (label indices, nominal), or
    None and why the engine could not analyse them."""
    rater = evaluator
    while rater in people:
        rater = f"{rater} (LLM)"
    rows = [
        (item, who, float(humans[row, column]))
        for row, item in enumerate(items)
        for column, who in enumerate(people)
        if not np.isnan(humans[row, column])
    ]
    rows += [(item, rater, float(chosen[item])) for item in items if item in chosen]
    frame = pd.DataFrame(rows, columns=["item", "rater", "score"])
    try:
        blocks = agreement_blocks(
            frame,
            llm=rater,
            level="nominal",
            resamples=DEFAULT_RESAMPLES,
            seed=DEFAULT_SEED,
            epsilon=campaign.alt_test_epsilon,
        )
    except InputError as error:
        return None, str(error)
    return next(iter(blocks.values())), None
