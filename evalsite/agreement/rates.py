"""Rates and means over items (Σ numerator / Σ denominator), once or on resamples."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from evalsite.agreement.common import FloatArray, StatisticUndefined, finite


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
            raise StatisticUndefined("there is nothing to average")
        return finite(self._numerator.sum() / total)

    def __call__(self, weights: FloatArray) -> FloatArray:
        numerator = weights @ self._numerator
        denominator = weights @ self._denominator
        safe = np.where(denominator > 0, denominator, 1.0)
        return np.where(denominator > 0, numerator / safe, np.nan)
