"""How well one set of LLM scores agrees with people on a set of items.

MAE against the human mean (with a bootstrap CI over items), α of the LLM with each human
beside α between humans, the alternative annotator test at the campaign's ε, and the ordinal
confusion matrix against the human consensus, and the spread of the LLM's scores beside the
people's (`ScoreSpread`). The same figures serve the raw scores and the calibrated ones, on the
calibration split and on the held-out split.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import numpy.typing as npt

from annotation.alignment.confusion import OrdinalConfusion, ordinal_confusion
from annotation.alignment.consensus import human_consensus
from evalsite.agreement.alt_test import AltTestResult, AltTestUnavailable, alt_test
from evalsite.agreement.bootstrap import bootstrap_ci
from evalsite.agreement.clusters import Interval
from evalsite.agreement.common import (
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    FloatArray,
    Level,
    StatisticUndefined,
)
from evalsite.agreement.pairwise_alpha import LlmHumanAlpha, llm_human_alpha
from evalsite.agreement.phrases import reason_of
from evalsite.agreement.rates import RatioOfSums
from evalsite.agreement.score_matrix import ScoreMatrix
from evalsite.agreement.verdict import StandIn, stand_in

BoolArray = npt.NDArray[np.bool_]

# Scores whose s.d. is below this share of the people's are said to be shrunk. A calibrated score
# predicts the people's mean, so it spreads less than one person's scores do; below 0.8 the
# evaluator's scores have lost a fifth of a person's spread, which the page says in words.
SHRUNK_SPREAD_RATIO = 0.8


@dataclass(frozen=True)
class ScoreSpread:
    """The s.d. of the LLM's scores and of the people's scores on the same items.

    ``people_sd`` pools every human score of the items the LLM scored (one person's answer is
    what a stand-in replaces); both are population s.d. (ddof = 0).
    """

    llm_sd: float
    people_sd: float

    @property
    def ratio(self) -> float | None:
        return None if self.people_sd == 0 else self.llm_sd / self.people_sd

    @property
    def shrunk(self) -> bool:
        """Whether the LLM's scores spread less than `SHRUNK_SPREAD_RATIO` of the people's."""
        return self.ratio is not None and self.ratio < SHRUNK_SPREAD_RATIO


def score_spread(matrix: ScoreMatrix) -> ScoreSpread | None:
    """The spread of ``matrix``'s LLM scores beside its people's on the items the LLM scored;
    None when the LLM scored no item that a person scored."""
    scored = ~np.isnan(matrix.llm_scores)
    people = matrix.human_scores[scored]
    people = people[~np.isnan(people)]
    if not people.size:
        return None
    return ScoreSpread(float(np.std(matrix.llm_scores[scored])), float(np.std(people)))


@dataclass(frozen=True)
class AgreementFigures:
    """One set of LLM scores against the humans on some items."""

    n_items: int
    mae: float | None
    mae_interval: Interval
    alpha: LlmHumanAlpha
    alt: AltTestResult | AltTestUnavailable
    confusion: OrdinalConfusion
    distinct_answers: int = 0
    spread: ScoreSpread | None = None

    @property
    def verdict(self) -> StandIn:
        """Whether these scores can stand in for people, by the one rule."""
        return stand_in(
            self.alt if isinstance(self.alt, AltTestResult) else None,
            self.alpha.llm_vs_humans.interval.bounds,
            self.alpha.gap.bounds,
            self.distinct_answers,
        )


def human_means(matrix: ScoreMatrix) -> FloatArray:
    scored = ~np.isnan(matrix.human_scores)
    totals = np.where(scored, matrix.human_scores, 0.0).sum(axis=1)
    counts = scored.sum(axis=1)
    means: FloatArray = np.where(counts > 0, totals / np.maximum(counts, 1), np.nan)
    return means


def mean_absolute_error(
    matrix: ScoreMatrix, *, resamples: int, seed: int
) -> tuple[float | None, Interval]:
    means = human_means(matrix)
    both = ~np.isnan(means) & ~np.isnan(matrix.llm_scores)
    gaps = np.where(both, np.abs(matrix.llm_scores - means), 0.0)
    statistic = RatioOfSums(gaps, both.astype(np.float64))
    try:
        value: float | None = statistic.estimate()
    except StatisticUndefined as error:
        return None, Interval(None, reason_of(error))
    try:
        return value, Interval(bootstrap_ci(statistic, resamples=resamples, seed=seed))
    except StatisticUndefined as error:
        return value, Interval(None, reason_of(error))


def agreement_figures(
    matrix: ScoreMatrix,
    points: FloatArray,
    *,
    level: Level,
    epsilon: float,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> AgreementFigures:
    """The figures of ``matrix``'s LLM scores against its humans (neg_rmse alt-test)."""
    mae, interval = mean_absolute_error(matrix, resamples=resamples, seed=seed)
    return AgreementFigures(
        n_items=int((~np.isnan(matrix.llm_scores)).sum()),
        mae=mae,
        mae_interval=interval,
        alpha=llm_human_alpha(matrix, level, resamples=resamples, seed=seed),
        alt=alt_test(matrix, scoring="neg_rmse", epsilon=epsilon),
        confusion=ordinal_confusion(
            human_consensus(matrix.human_scores), matrix.llm_scores, points
        ),
        distinct_answers=len(np.unique(matrix.llm_scores[~np.isnan(matrix.llm_scores)])),
        spread=score_spread(matrix),
    )


def with_llm_scores(matrix: ScoreMatrix, llm_scores: FloatArray) -> ScoreMatrix:
    """The same items and humans with other LLM scores (such as calibrated ones)."""
    return replace(matrix, llm_scores=llm_scores)


def rows_of(matrix: ScoreMatrix, keep: BoolArray) -> ScoreMatrix:
    """The items of ``matrix`` selected by a boolean mask."""
    return ScoreMatrix(
        items=tuple(item for item, kept in zip(matrix.items, keep, strict=True) if kept),
        humans=matrix.humans,
        human_scores=matrix.human_scores[keep],
        llm_scores=matrix.llm_scores[keep],
        categories=matrix.categories,
    )
