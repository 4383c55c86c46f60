"""Rates and means over items (Σ numerator / Σ denominator), once or on resamples.

`llm_human_rates` gives the LLM's MAE and agreement rates against the humans: exact agreement
pooled over (LLM, human) pairs, so items with more annotators weigh more, and averaged per item,
so every item weighs alike; within one step of the scale, pooled over pairs.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from evalsite.agreement.common import SCORE_TOLERANCE, FloatArray, StatisticUndefined, finite
from evalsite.agreement.phrases import Phrase, gettext_noop


class RatioOfSums:
    """Σ numerator / Σ denominator over items, such as a mean or an agreement rate."""

    def __init__(self, numerator: npt.ArrayLike, denominator: npt.ArrayLike) -> None:
        self._numerator = np.asarray(numerator, dtype=np.float64)
        self._denominator = np.asarray(denominator, dtype=np.float64)
        if self._numerator.shape != self._denominator.shape or self._numerator.ndim != 1:
            raise ValueError("numerator and denominator need one value per item")

    @property
    def n_items(self) -> int:
        return len(self._numerator)

    @property
    def n_usable(self) -> int:
        return int((self._denominator > 0).sum())

    def estimate(self) -> float:
        total = self._denominator.sum()
        if total <= 0:
            raise StatisticUndefined(Phrase(gettext_noop("there is nothing to average")))
        return finite(self._numerator.sum() / total)

    def __call__(self, weights: FloatArray) -> FloatArray:
        numerator = weights @ self._numerator
        denominator = weights @ self._denominator
        safe = np.where(denominator > 0, denominator, 1.0)
        return np.where(denominator > 0, numerator / safe, np.nan)


def llm_human_rates(
    humans: FloatArray, human_mean: FloatArray, llm_scores: FloatArray, step: float | None
) -> dict[str, RatioOfSums | None]:
    """MAE against the human mean, and the shares of (LLM, human) pairs that agree.

    ``humans`` is items × humans (NaN = not scored). Returns "mae", "exact_agreement" (pooled
    over pairs), "exact_agreement_per_item" (each item's share of agreeing pairs, averaged over
    items) and "within_one" (pairs at most ``step`` apart; None when ``step`` is None).
    """
    scored = ~np.isnan(llm_scores)
    complete = scored & ~np.isnan(human_mean)
    gap = np.where(complete, np.abs(llm_scores - human_mean), 0.0)
    distance = np.abs(humans - llm_scores[:, None])
    pairs = np.where(scored, (~np.isnan(humans)).sum(axis=1), 0).astype(np.float64)
    exact = np.where(scored, (distance <= SCORE_TOLERANCE).sum(axis=1), 0)
    paired = pairs > 0
    item_share = np.divide(exact, pairs, out=np.zeros(len(pairs)), where=paired)
    within = None
    if step is not None:
        close = np.where(scored, (distance <= step + SCORE_TOLERANCE).sum(axis=1), 0)
        within = RatioOfSums(close, pairs)
    return {
        "mae": RatioOfSums(gap, complete.astype(np.float64)),
        "exact_agreement": RatioOfSums(exact, pairs),
        "exact_agreement_per_item": RatioOfSums(item_share, paired.astype(np.float64)),
        "within_one": within,
    }
