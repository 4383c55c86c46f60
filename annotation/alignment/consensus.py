"""The human consensus of an item: the median of its human scores, rounded to the scale.

A median of an even number of scores can fall between two points (2.5); it is rounded half up
(to 3), so that the consensus is always a point of the scale, as an ordinal confusion matrix
needs. The spread is the range of the human scores, which says how split the humans were.
"""

from __future__ import annotations

import warnings

import numpy as np

from evalsite.agreement.common import FloatArray


def round_half_up(values: FloatArray) -> FloatArray:
    """Round to whole numbers, halves upward (NaN stays NaN)."""
    rounded: FloatArray = np.floor(values + 0.5)
    return rounded


def human_consensus(human_scores: FloatArray) -> FloatArray:
    """Per item (rows of items × humans, NaN = not scored): the median, rounded half up.

    NaN for an item no human scored.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        medians = np.nanmedian(human_scores, axis=1) if human_scores.shape[1] else None
    if medians is None:
        return np.full(human_scores.shape[0], np.nan)
    return round_half_up(np.asarray(medians, dtype=np.float64))


def human_spread(human_scores: FloatArray) -> FloatArray:
    """Per item: the highest human score minus the lowest (0 when one human scored it)."""
    scored = ~np.isnan(human_scores)
    high = np.where(scored, human_scores, -np.inf).max(axis=1, initial=-np.inf)
    low = np.where(scored, human_scores, np.inf).min(axis=1, initial=np.inf)
    spread: FloatArray = np.where(scored.any(axis=1), high - low, np.nan)
    return spread


def clip_to_scale(values: FloatArray, low: float, high: float) -> FloatArray:
    """Scores rounded half up and kept within the scale's ends."""
    clipped: FloatArray = np.clip(round_half_up(values), low, high)
    return clipped
