"""A monotone map from the LLM's scores to the human scale, fitted on the calibration split.

`fit_calibration` takes the calibration items only (the caller never hands it a held-out
item): for each point of the scale the LLM used, the mean human score of the items it gave that
point, weighted by how many there were, then isotonic regression
(``scipy.optimize.isotonic_regression``) so that a higher LLM score never maps lower. Points
the LLM did not use on the calibration split are interpolated between their neighbours, or take
the nearest fitted value beyond the ends. A calibrated score is the map's value rounded half up
to the scale, so that it can enter an ordinal α and a confusion matrix like any other score.

A map that sends nearly everything to one point (a random LLM's map pools into the overall mean)
is flagged as *collapsed*: its lower MAE is that of a constant guess, not evidence that the
evaluator reads the transcripts.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop
from scipy.optimize import isotonic_regression

from annotation.alignment.consensus import clip_to_scale
from evalsite.agreement.common import FloatArray
from evalsite.agreement.phrases import Phrase

# A map whose fitted values span less than this many steps of the scale is near-constant...
COLLAPSE_RANGE_STEPS = 1.0
# ...and so is one that sends at least this share of the calibration items to one point.
COLLAPSE_SHARE = 0.9


@dataclass(frozen=True)
class CalibrationMap:
    """The map from each scale point (an LLM score) to a value on the human scale.

    ``fitted`` are the isotonic values at ``points`` (before rounding); ``n_fit`` the number of
    calibration items fitted; ``collapsed`` is set with ``note`` saying why when the map is
    near-constant.
    """

    points: tuple[float, ...]
    fitted: tuple[float, ...]
    n_fit: int
    collapsed: bool
    note: str | None = None

    @property
    def pairs(self) -> list[tuple[float, float]]:
        """(LLM score, mapped value) for every point of the scale."""
        return list(zip(self.points, self.fitted, strict=True))

    def calibrated_point(self, point: float) -> float:
        """The calibrated score of one LLM score."""
        return float(self.apply(np.array([point], dtype=np.float64))[0])

    def apply(self, llm_scores: FloatArray) -> FloatArray:
        """The calibrated scores: the map's value at each LLM score, rounded to the scale."""
        points = np.asarray(self.points)
        values = np.interp(llm_scores, points, np.asarray(self.fitted))
        values = np.where(np.isnan(llm_scores), np.nan, values)
        return clip_to_scale(values, points[0], points[-1])


def fit_calibration(
    llm_scores: FloatArray, human_means: FloatArray, points: FloatArray
) -> CalibrationMap:
    """Fit the map on calibration items: their LLM scores and their human mean scores.

    Items missing either score are left out. Raises ValueError when no item has both, or when
    an LLM score is not a point of the scale.
    """
    usable = ~np.isnan(llm_scores) & ~np.isnan(human_means)
    llm, human = llm_scores[usable], human_means[usable]
    if not len(llm):
        raise ValueError(
            Phrase(gettext_noop("no calibration item has both an LLM score and a human score"))
        )
    if not np.isin(llm, points).all():
        outside = llm[~np.isin(llm, points)][0]
        raise ValueError(
            Phrase(
                gettext_noop("the LLM score %(score)s is not a point of the scale"),
                score=f"{outside:g}",
            )
        )
    used, codes = np.unique(llm, return_inverse=True)
    counts = np.bincount(codes).astype(np.float64)
    means = np.bincount(codes, weights=human) / counts
    fit = isotonic_regression(means, weights=counts, increasing=True).x
    fitted = np.interp(points, used, fit)
    step = float(np.diff(points).min()) if len(points) > 1 else 1.0
    calibrated = clip_to_scale(np.interp(llm, used, fit), points[0], points[-1])
    shares = np.unique(calibrated, return_counts=True)[1]
    top_share = float(shares.max() / len(calibrated))
    spread = float(fit.max() - fit.min())
    note = None
    if spread < COLLAPSE_RANGE_STEPS * step:
        note = _(
            "the map is near-constant: its values span %(spread).2f of the scale, less than "
            "one point, so it mostly guesses the average score"
        ) % {"spread": spread}
    elif top_share >= COLLAPSE_SHARE:
        note = _(
            "the map is near-constant: it sends %(share)d%% of the calibration items to one "
            "point of the scale"
        ) % {"share": round(100 * top_share)}
    return CalibrationMap(
        points=tuple(float(point) for point in points),
        fitted=tuple(float(value) for value in fitted),
        n_fit=int(usable.sum()),
        collapsed=note is not None,
        note=note,
    )
