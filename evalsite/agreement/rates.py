"""Rates and means over items (Σ numerator / Σ denominator), once or on resamples.

`llm_human_rates` gives the LLM's MAE and agreement rates against the humans: exact agreement
pooled over (LLM, human) pairs, so items with more annotators weigh more, and averaged per item,
so every item weighs alike; within one step of the scale, pooled over pairs.

A rate means little without the rate chance would give: `uniform_chance` is that of two raters
answering uniformly at random on the scale, `marginal_chance` that of the LLM and the people
answering independently with the shares of answers they were observed to give.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence

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


def uniform_chance(points: int | None, *, within_one: bool = False) -> float | None:
    """The agreement of two raters who answer uniformly at random on a scale of ``points``.

    Exact: 1/K. Within one step: the K equal pairs and the 2(K − 1) neighbours among K² pairs,
    (3K − 2)/K². None without a count of points.
    """
    if not points:
        return None
    if not within_one:
        return 1 / points
    return (3 * points - 2) / points**2


def marginal_chance(
    humans: FloatArray,
    llm_scores: FloatArray,
    tolerance: float,
    groups: Sequence[Hashable] | None = None,
) -> float | None:
    """The agreement expected if the LLM and the people answered independently, each with
    its own observed shares of answers (the chance term of Cohen's κ, not the pooled shares of
    Scott's π or α): Σ over pairs of values at most ``tolerance`` apart of p_v · q_w.

    The shares are over the (LLM, human) pairs that `llm_human_rates` counts: p_v is the share
    of pairs where the LLM answered v, q_w the share where the human answered w. With
    ``groups`` (one label per item, such as each unit's dimension in the pooled block) the
    chance is worked out within each group and averaged with the groups' numbers of pairs as
    weights, since answers are only compared within a group. None when no pair is scored.
    """
    labels = list(groups) if groups is not None else [0] * len(llm_scores)
    total = 0.0
    weighted = 0.0
    for label in dict.fromkeys(labels):
        rows = np.array([found == label for found in labels])
        own = llm_scores[rows]
        people = humans[rows][~np.isnan(own)]
        own = own[~np.isnan(own)]
        counts = (~np.isnan(people)).sum(axis=1)
        if not counts.sum():
            continue
        llm_values = np.repeat(own, counts)
        human_values = people[~np.isnan(people)]
        values = np.unique(np.concatenate([llm_values, human_values]))
        p = np.array([(np.abs(llm_values - v) <= SCORE_TOLERANCE).mean() for v in values])
        q = np.array([(np.abs(human_values - v) <= SCORE_TOLERANCE).mean() for v in values])
        close = np.abs(values[:, None] - values[None, :]) <= tolerance + SCORE_TOLERANCE
        pairs = float(counts.sum())
        weighted += pairs * float(p @ close @ q)
        total += pairs
    return weighted / total if total else None


def most_values(scores: FloatArray, groups: Sequence[Hashable] | None = None) -> int:
    """The most distinct scores any group holds (all the scores when there are no groups)."""
    labels = list(groups) if groups is not None else [0] * len(scores)
    most = 0
    for label in dict.fromkeys(labels):
        rows = np.array([found == label for found in labels])
        found = scores[rows]
        most = max(most, len(np.unique(found[~np.isnan(found)])))
    return most
