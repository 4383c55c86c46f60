"""Pearson's r, Spearman's ρ and Kendall's τ-b between paired values, once or on resamples."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from scipy import stats

from evalsite.agreement.common import (
    MIN_ITEMS_FOR_CORRELATION,
    FloatArray,
    StatisticUndefined,
    Tally,
    finite,
)
from evalsite.agreement.phrases import Phrase, gettext_noop

# What the correlations of the human mean with another score call the human side.
HUMAN_MEAN = Phrase(gettext_noop("the human mean"))

# Kendall's τ over P distinct (x, y) pairs builds a P × P sign matrix; above this it loops
# over resamples with scipy instead.
KENDALL_SIGN_MATRIX_LIMIT = 2000


@dataclass(frozen=True)
class Correlation:
    statistic: float
    pvalue: float


@dataclass(frozen=True)
class Correlations:
    """Pearson's r, Spearman's ρ and Kendall's τ-b, each with its two-sided p-value."""

    pearson: Correlation
    spearman: Correlation
    kendall: Correlation


def _complete(x: npt.ArrayLike, y: npt.ArrayLike) -> tuple[FloatArray, FloatArray]:
    first = np.asarray(x, dtype=np.float64)
    second = np.asarray(y, dtype=np.float64)
    if first.shape != second.shape or first.ndim != 1:
        raise ValueError("correlations need two one-dimensional arrays of the same length")
    both = ~np.isnan(first) & ~np.isnan(second)
    return first[both], second[both]


def _correlation_undefined_reason(
    x: FloatArray, y: FloatArray, x_name: str, y_name: str
) -> str | None:

    if len(x) < MIN_ITEMS_FOR_CORRELATION:
        return Phrase(
            gettext_noop(
                "only %(n)d item(s) have both %(x)s and %(y)s; a correlation needs at least "
                "%(needed)d"
            ),
            n=len(x),
            x=x_name,
            y=y_name,
            needed=MIN_ITEMS_FOR_CORRELATION,
        )
    for values, name in ((x, x_name), (y, y_name)):
        if np.ptp(values) == 0:
            return Phrase(
                gettext_noop("%(name)s is the same (%(value)g) on every item"),
                name=name,
                value=float(values[0]),
            )
    return None


def correlations(
    x: npt.ArrayLike, y: npt.ArrayLike, *, names: tuple[str, str] = ("x", "y")
) -> Correlations:
    """Pearson, Spearman and Kendall (τ-b) between paired values, from scipy.stats.

    Pairs with a missing value on either side are left out. ``names`` words the reason of
    `StatisticUndefined`, raised for fewer than three pairs or a constant variable.
    """
    first, second = _complete(x, y)
    reason = _correlation_undefined_reason(first, second, *names)
    if reason is not None:
        raise StatisticUndefined(reason)
    pearson = stats.pearsonr(first, second)
    spearman = stats.spearmanr(first, second)
    kendall = stats.kendalltau(first, second)
    return Correlations(
        pearson=Correlation(finite(pearson.statistic), finite(pearson.pvalue)),
        spearman=Correlation(finite(spearman.statistic), finite(spearman.pvalue)),
        kendall=Correlation(finite(kendall.statistic), finite(kendall.pvalue)),
    )


class _PairedStatistic:
    """Items with both values, grouped into distinct (x, y) pairs weighted by resample counts."""

    def __init__(self, x: npt.ArrayLike, y: npt.ArrayLike) -> None:
        first = np.asarray(x, dtype=np.float64)
        second = np.asarray(y, dtype=np.float64)
        if first.shape != second.shape or first.ndim != 1:
            raise ValueError("paired statistics need two one-dimensional arrays of equal length")
        self._n_items = len(first)
        complete = ~np.isnan(first) & ~np.isnan(second)
        self.items = np.flatnonzero(complete)
        self.x_values, x_codes = np.unique(first[complete], return_inverse=True)
        self.y_values, y_codes = np.unique(second[complete], return_inverse=True)
        keys, pair_of_item = np.unique(x_codes * len(self.y_values) + y_codes, return_inverse=True)
        self.pair_x = keys // len(self.y_values) if len(keys) else keys
        self.pair_y = keys % len(self.y_values) if len(keys) else keys
        self.pair_of_item = pair_of_item
        self._pairs = Tally(np.arange(len(self.items)), pair_of_item, (len(self.items), len(keys)))
        self._x_of_pair = Tally(np.arange(len(keys)), self.pair_x, (len(keys), len(self.x_values)))
        self._y_of_pair = Tally(np.arange(len(keys)), self.pair_y, (len(keys), len(self.y_values)))

    @property
    def n_items(self) -> int:
        return self._n_items

    @property
    def n_usable(self) -> int:
        return len(self.items)

    def tallies(self, weights: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray]:
        """How often each distinct pair, x value and y value occurs in each resample."""
        pairs = self._pairs.weighted(weights[:, self.items])
        x_counts = self._x_of_pair.weighted(pairs)
        y_counts = self._y_of_pair.weighted(pairs)
        return pairs, x_counts, y_counts

    @staticmethod
    def defined(x_counts: FloatArray, y_counts: FloatArray) -> npt.NDArray[np.bool_]:
        varied: npt.NDArray[np.bool_] = ((x_counts > 0).sum(axis=1) >= 2) & (
            (y_counts > 0).sum(axis=1) >= 2
        )
        return varied

    @staticmethod
    def weighted_pearson(
        pairs: FloatArray, x: FloatArray, y: FloatArray, defined: npt.NDArray[np.bool_]
    ) -> FloatArray:
        """Pearson's r of values ``x``, ``y`` (resamples × pairs or pairs) weighted by ``pairs``."""
        n = pairs.sum(axis=1)
        sum_x = (pairs * x).sum(axis=1)
        sum_y = (pairs * y).sum(axis=1)
        covariance = n * (pairs * x * y).sum(axis=1) - sum_x * sum_y
        spread_x = n * (pairs * x**2).sum(axis=1) - sum_x**2
        spread_y = n * (pairs * y**2).sum(axis=1) - sum_y**2
        scale = np.sqrt(np.where(defined, spread_x * spread_y, 1.0))
        return np.where(defined, np.clip(covariance / scale, -1.0, 1.0), np.nan)


class PearsonStatistic(_PairedStatistic):
    """Pearson's r between paired item values, on bootstrap resamples of the items."""

    def __call__(self, weights: FloatArray) -> FloatArray:
        pairs, x_counts, y_counts = self.tallies(weights)
        # Centring keeps the sums of squares small enough to subtract without losing digits.
        x = self.x_values[self.pair_x] - self.x_values.mean()
        y = self.y_values[self.pair_y] - self.y_values.mean()
        return self.weighted_pearson(pairs, x, y, self.defined(x_counts, y_counts))


def _midranks(counts: FloatArray) -> FloatArray:
    """Average ranks (1-based, ties sharing their mean rank) of each distinct value, centred."""
    n = counts.sum(axis=1, keepdims=True)
    ranks: FloatArray = np.cumsum(counts, axis=1) - (counts - 1) / 2 - (n + 1) / 2
    return ranks


class SpearmanStatistic(_PairedStatistic):
    """Spearman's ρ between paired item values, re-ranked within every bootstrap resample."""

    def __call__(self, weights: FloatArray) -> FloatArray:
        pairs, x_counts, y_counts = self.tallies(weights)
        x = _midranks(x_counts)[:, self.pair_x]
        y = _midranks(y_counts)[:, self.pair_y]
        return self.weighted_pearson(pairs, x, y, self.defined(x_counts, y_counts))


class KendallStatistic(_PairedStatistic):
    """Kendall's τ-b between paired item values, on bootstrap resamples of the items.

    With J the resample's count of each distinct pair and K[p, q] the product of the signs of
    the x and y differences of pairs p and q, concordant − discordant = J K Jᵀ / 2; ties are
    counted from the marginal counts, as in scipy's τ-b.
    """

    def __call__(self, weights: FloatArray) -> FloatArray:
        pairs, x_counts, y_counts = self.tallies(weights)
        defined = self.defined(x_counts, y_counts)
        if len(self.pair_x) > KENDALL_SIGN_MATRIX_LIMIT:
            return self._looped(weights, defined)
        x = self.x_values[self.pair_x]
        y = self.y_values[self.pair_y]
        signs = np.sign(x[:, None] - x[None, :]) * np.sign(y[:, None] - y[None, :])
        score = ((pairs @ signs) * pairs).sum(axis=1) / 2
        n = pairs.sum(axis=1)
        total = n * (n - 1) / 2
        x_ties = (x_counts * (x_counts - 1) / 2).sum(axis=1)
        y_ties = (y_counts * (y_counts - 1) / 2).sum(axis=1)
        scale = np.sqrt(np.where(defined, (total - x_ties) * (total - y_ties), 1.0))
        return np.where(defined, np.clip(score / scale, -1.0, 1.0), np.nan)

    def _looped(self, weights: FloatArray, defined: npt.NDArray[np.bool_]) -> FloatArray:
        x = self.x_values[self.pair_x]
        y = self.y_values[self.pair_y]
        values = np.full(weights.shape[0], np.nan)
        for row in np.flatnonzero(defined):
            drawn = np.repeat(self.pair_of_item, weights[row, self.items].astype(np.intp))
            values[row] = stats.kendalltau(x[drawn], y[drawn]).statistic
        return values
