"""Agreement among human raters, and between human raters and an LLM evaluator.

Plain functions over plain data (numpy, pandas, scipy; no Django), shared by the report pages,
the ``agreement`` management command and the live-judging leaderboard.

A reliability matrix is units × raters: one row per item, one column per rater, NaN where a
rater did not score an item. (The ``krippendorff`` package takes the transpose.)

Every resampled statistic here is a callable that takes a block of resampling weights
(resamples × items; entry ``[b, i]`` says how often item ``i`` was drawn in resample ``b``) and
returns one value per resample. A weighted item counts exactly as often as it was drawn, so one
matrix product replaces a loop that rebuilds and re-scores every resample.
"""

from __future__ import annotations

import csv
import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Protocol, get_args

import krippendorff
import numpy as np
import numpy.typing as npt
import pandas as pd
from scipy import sparse, stats

Level = Literal["nominal", "ordinal", "interval", "ratio"]
LEVELS: tuple[Level, ...] = get_args(Level)
FloatArray = npt.NDArray[np.float64]

DEFAULT_RESAMPLES = 1000
DEFAULT_SEED = 42
DEFAULT_CONFIDENCE = 0.95
# Fewer items than this give percentile intervals that mostly echo a handful of items.
MIN_ITEMS_FOR_CI = 10
# With two items every correlation is ±1.
MIN_ITEMS_FOR_CORRELATION = 3
# Absolute tolerance when comparing an LLM score with a human score, so that 0.1 + 0.2 == 0.3.
SCORE_TOLERANCE = 1e-9
# Kendall's τ over P distinct (x, y) pairs builds a P × P sign matrix; above this it loops
# over resamples with scipy instead.
KENDALL_SIGN_MATRIX_LIMIT = 2000

# The package builds a units × V × V array (V distinct values); above this many cells the
# formulas of `_Reliability` take over, whose memory grows with the data, not with V².
_PACKAGE_CELL_LIMIT = 4_000_000
# Count matrices up to this many cells are held dense, so that products with a block of
# resampling weights go through BLAS; larger ones stay sparse.
_DENSE_CELLS = 2_000_000
# Resamples are drawn and scored in blocks of this size to bound memory on large data.
_RESAMPLE_BLOCK = 100
# Entries of the V × V ratio distance matrix held at once.
_RATIO_CHUNK_CELLS = 4_000_000
# Ratio-level α needs V² work per resample; beyond this budget its CI is refused.
_RATIO_BOOTSTRAP_BUDGET = 2e10

LLM_FIELDS = (
    "alpha.humans_plus_llm",
    "alpha.llm_vs_human_mean",
    "pearson",
    "spearman",
    "kendall",
    "mae",
    "exact_agreement",
    "within_one",
)


class StatisticUndefined(ValueError):
    """The data admit no value for a statistic; the message says why, in plain words."""


class InputError(ValueError):
    """Scores that cannot be analysed as given; the message names the line or row at fault."""


class ResampledStatistic(Protocol):
    """A statistic over items that can be evaluated on many bootstrap resamples at once."""

    @property
    def n_items(self) -> int:
        """Length of the item axis that the resampling weights index."""
        ...

    @property
    def n_usable(self) -> int:
        """Items that carry information for this statistic (pairable, complete, ...)."""
        ...

    def __call__(self, weights: FloatArray) -> FloatArray:
        """One value per row of ``weights`` (resamples × items); NaN where undefined."""
        ...


class _Tally:
    """How often each row (a unit, an item, a pair) holds each column (a value, a pair)."""

    def __init__(
        self, rows: npt.NDArray[np.intp], columns: npt.NDArray[np.intp], shape: tuple[int, int]
    ) -> None:
        self.sparse = sparse.csr_matrix((np.ones(len(rows)), (rows, columns)), shape=shape)
        self._dense = self.sparse.toarray() if shape[0] * shape[1] <= _DENSE_CELLS else None

    def weighted(self, weights: FloatArray) -> FloatArray:
        """Column totals under each row of ``weights``: weights @ tally."""
        if self._dense is not None:
            return weights @ self._dense
        return np.asarray((self.sparse.T @ weights.T).T, dtype=np.float64)

    def per_row(self, values: FloatArray) -> FloatArray:
        """Row sums of the column values (a vector, or one column per resample): tally @ values."""
        if self._dense is not None:
            return self._dense @ values
        return np.asarray(self.sparse @ values, dtype=np.float64)


# Krippendorff's alpha ----------------------------------------------------------------------


def _as_matrix(data: npt.ArrayLike) -> FloatArray:
    matrix = np.asarray(data, dtype=np.float64)
    if matrix.ndim != 2:
        raise ValueError(f"a reliability matrix is units × raters, got {matrix.ndim} dimension(s)")
    return matrix


def _check_level(level: str) -> None:
    if level not in LEVELS:
        raise ValueError(f"unknown level {level!r}; use one of {', '.join(LEVELS)}")


def _ratio_distances(left: FloatArray, right: FloatArray) -> FloatArray:
    total = left + right
    quotient = np.divide(
        left - right, total, out=np.zeros(np.broadcast(left, right).shape), where=total != 0
    )
    return np.asarray(quotient**2, dtype=np.float64)


class _Reliability:
    """The pairable values of a reliability matrix, prepared once for α on many weightings.

    With ``o`` the coincidence matrix, ``n_c`` its marginals, ``n = Σ n_c`` and ``δ`` the
    level's distance, α = 1 − (n − 1) Σ_u q_u / Σ_ck n_c n_k δ_ck, where
    q_u = Σ_{i≠j in u} δ(v_i, v_j) / (m_u − 1) is unit u's share of Σ o·δ. A resample scales
    q_u and unit u's value counts by its weight, so only the expected-disagreement term needs
    the resampled marginals. The ordinal distance equals the squared difference of midranks
    r_c = N_c − n_c / 2 (N_c cumulative counts), so ordinal α is interval α on midranks, which
    change with the marginals of each resample.
    """

    def __init__(self, matrix: FloatArray, level: Level) -> None:
        _check_level(level)
        self.level = level
        self.n_units = matrix.shape[0]
        present = ~np.isnan(matrix)
        per_unit = present.sum(axis=1)
        pairable = per_unit >= 2
        self.n_raters = int(present.any(axis=0).sum())
        self.n_pairable = int(pairable.sum())
        # Only pairable units enter α: a lone value has no partner to agree with.
        units, _ = np.nonzero(present & pairable[:, None])
        values = matrix[present & pairable[:, None]]
        self.values = values
        self.per_unit = np.where(pairable, per_unit, 0).astype(np.float64)
        self.domain, codes = np.unique(values, return_inverse=True)
        # Interval distances ignore a shift; centring keeps n·Σv² − (Σv)² from cancelling.
        self._centred = self.domain - (values.mean() if len(values) else 0.0)
        self.counts = _Tally(units, codes, (self.n_units, len(self.domain)))
        if level == "ratio" and (values < 0).any():
            raise ValueError("ratio-level scores cannot be negative")
        self._unit_disagreement = self._fixed_unit_disagreement(units)

    def undefined_reason(self) -> str | None:
        if self.n_raters == 0:
            return "no rater scored these items"
        if self.n_raters == 1:
            return "only one rater scored these items"
        if self.n_pairable == 0:
            return "no item was scored by two or more raters"
        if len(self.domain) == 1:
            return (
                f"every score is {self.domain[0]:g}, so there is no variation to measure "
                "agreement against"
            )
        return None

    def _pair_denominator(self) -> FloatArray:
        return np.where(self.per_unit > 1, self.per_unit - 1, 1.0)

    def _fixed_unit_disagreement(self, units: npt.NDArray[np.intp]) -> FloatArray | None:
        if self.level == "nominal":
            squares = np.asarray(self.counts.sparse.power(2).sum(axis=1)).ravel()
            return (self.per_unit**2 - squares) / self._pair_denominator()
        if self.level == "interval":
            first = self.counts.per_row(self._centred)
            second = self.counts.per_row(self._centred**2)
            return 2 * (self.per_unit * second - first**2) / self._pair_denominator()
        if self.level == "ratio":
            # Pair every value with the ones k places later in the same unit (values are
            # sorted by unit), so the work is values × raters rather than V².
            totals = np.zeros(self.n_units)
            for offset in range(1, int(self.per_unit.max(initial=0))):
                same = units[offset:] == units[:-offset]
                totals += np.bincount(
                    units[offset:][same],
                    weights=_ratio_distances(
                        self.values[offset:][same], self.values[:-offset][same]
                    ),
                    minlength=self.n_units,
                )
            return 2 * totals / self._pair_denominator()
        return None

    def _ratio_expected(self, marginals: FloatArray) -> FloatArray:
        size = len(self.domain)
        chunk = max(1, _RATIO_CHUNK_CELLS // size)
        expected = np.zeros(marginals.shape[0])
        for start in range(0, size, chunk):
            rows = slice(start, start + chunk)
            distances = _ratio_distances(self.domain[rows, None], self.domain[None, :])
            expected += (marginals[:, rows] * (marginals @ distances.T)).sum(axis=1)
        return expected

    def ratio_bootstrap_too_costly(self, resamples: int) -> bool:
        return self.level == "ratio" and resamples * len(self.domain) ** 2 > _RATIO_BOOTSTRAP_BUDGET

    def alpha(self, weights: FloatArray) -> FloatArray:
        """α for each row of ``weights`` (resamples × units); NaN where α is undefined."""
        marginals = self.counts.weighted(weights)
        n = marginals.sum(axis=1)
        if self.level == "ordinal":
            ranks = np.cumsum(marginals, axis=1) - marginals / 2 - n[:, None] / 2
            first = self.counts.per_row(ranks.T)
            second = self.counts.per_row((ranks**2).T)
            per_unit = self.per_unit[:, None]
            unit_disagreement = (
                2 * (per_unit * second - first**2) / self._pair_denominator()[:, None]
            )
            observed = np.einsum("bu,ub->b", weights, unit_disagreement)
            expected = 2 * (
                n * (marginals * ranks**2).sum(axis=1) - (marginals * ranks).sum(axis=1) ** 2
            )
        else:
            assert self._unit_disagreement is not None
            observed = weights @ self._unit_disagreement
            if self.level == "nominal":
                expected = n**2 - (marginals**2).sum(axis=1)
            elif self.level == "interval":
                expected = 2 * (
                    n * (marginals @ self._centred**2) - (marginals @ self._centred) ** 2
                )
            else:
                expected = self._ratio_expected(marginals)
        # α is undefined unless at least two distinct values are pairable.
        defined = (marginals > 0).sum(axis=1) >= 2
        safe_expected = np.where(defined, expected, 1.0)
        return np.where(defined, 1 - (n - 1) * observed / safe_expected, np.nan)


def krippendorff_alpha(
    reliability_matrix: npt.ArrayLike,
    level: Level,
    *,
    value_domain: npt.ArrayLike | None = None,
) -> float:
    """Krippendorff's α of a units × raters matrix (NaN or None for a missing score).

    ``value_domain`` lists the scale's values (for an ordinal scale, in order); every observed
    score must be one of them. Under Krippendorff's distances a value nobody used weighs
    nothing, so the domain fixes order and validity rather than the number. Raises
    `StatisticUndefined` when α has no value: one rater, no item with two scores, or a single
    value throughout.
    """
    matrix = _as_matrix(reliability_matrix)
    reliability = _Reliability(matrix, level)
    reason = reliability.undefined_reason()
    if reason is not None:
        raise StatisticUndefined(reason)
    # Scores of items that nobody else scored take no part in α, but the package still checks
    # them against the domain.
    domain = np.unique(matrix[~np.isnan(matrix)])
    if value_domain is not None:
        observed = domain
        domain = np.asarray(value_domain, dtype=np.float64)
        outside = np.setdiff1d(observed, domain)
        if len(outside):
            raise ValueError(f"score {outside[0]:g} is not in the value domain")
    if matrix.shape[0] * len(domain) ** 2 <= _PACKAGE_CELL_LIMIT:
        value = krippendorff.alpha(
            reliability_data=matrix.T, value_domain=domain, level_of_measurement=level
        )
    else:
        value = reliability.alpha(np.ones((1, matrix.shape[0])))[0]
    return _finite(value)


class AlphaStatistic:
    """Krippendorff's α of a units × raters matrix, on bootstrap resamples of its units."""

    def __init__(self, reliability_matrix: npt.ArrayLike, level: Level) -> None:
        self._reliability = _Reliability(_as_matrix(reliability_matrix), level)

    @property
    def n_items(self) -> int:
        return self._reliability.n_units

    @property
    def n_usable(self) -> int:
        return self._reliability.n_pairable

    def too_costly(self, resamples: int) -> bool:
        return self._reliability.ratio_bootstrap_too_costly(resamples)

    def __call__(self, weights: FloatArray) -> FloatArray:
        return self._reliability.alpha(weights)


# Correlations ------------------------------------------------------------------------------


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
        return (
            f"only {len(x)} item(s) have both {x_name} and {y_name}; a correlation needs at "
            f"least {MIN_ITEMS_FOR_CORRELATION}"
        )
    for values, name in ((x, x_name), (y, y_name)):
        if np.ptp(values) == 0:
            return f"{name} is the same ({values[0]:g}) on every item"
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
        pearson=Correlation(_finite(pearson.statistic), _finite(pearson.pvalue)),
        spearman=Correlation(_finite(spearman.statistic), _finite(spearman.pvalue)),
        kendall=Correlation(_finite(kendall.statistic), _finite(kendall.pvalue)),
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
        self._pairs = _Tally(np.arange(len(self.items)), pair_of_item, (len(self.items), len(keys)))
        self._x_of_pair = _Tally(np.arange(len(keys)), self.pair_x, (len(keys), len(self.x_values)))
        self._y_of_pair = _Tally(np.arange(len(keys)), self.pair_y, (len(keys), len(self.y_values)))

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
        return ((x_counts > 0).sum(axis=1) >= 2) & ((y_counts > 0).sum(axis=1) >= 2)

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
    return np.cumsum(counts, axis=1) - (counts - 1) / 2 - (n + 1) / 2


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
        return _finite(self._numerator.sum() / total)

    def __call__(self, weights: FloatArray) -> FloatArray:
        numerator = weights @ self._numerator
        denominator = weights @ self._denominator
        safe = np.where(denominator > 0, denominator, 1.0)
        return np.where(denominator > 0, numerator / safe, np.nan)


# Bootstrap ---------------------------------------------------------------------------------


def resample_counts(n_items: int, resamples: int, seed: int) -> Iterator[FloatArray]:
    """Blocks of bootstrap weights: row b counts how often each item is drawn in resample b.

    Each block has its own generator, seeded with (seed, block number), so the draws depend
    only on the seed, the number of items and the number of resamples.
    """
    if n_items < 1:
        raise ValueError("there are no items to resample")
    if resamples < 1:
        raise ValueError("the number of resamples must be positive")
    if seed < 0:
        raise ValueError("the seed must be zero or positive")
    for block, start in enumerate(range(0, resamples, _RESAMPLE_BLOCK)):
        size = min(_RESAMPLE_BLOCK, resamples - start)
        generator = np.random.default_rng([seed, block])
        drawn = generator.integers(0, n_items, size=(size, n_items))
        cells = (drawn + np.arange(size)[:, None] * n_items).ravel()
        counts = np.bincount(cells, minlength=size * n_items)
        yield counts.reshape(size, n_items).astype(np.float64)


def bootstrap_distributions(
    statistics: Mapping[str, ResampledStatistic],
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> dict[str, FloatArray]:
    """Every statistic on the same bootstrap resamples of their common items."""
    sizes = {statistic.n_items for statistic in statistics.values()}
    if len(sizes) > 1:
        raise ValueError("statistics resampled together must share their items")
    if not statistics:
        return {}
    parts: dict[str, list[FloatArray]] = {name: [] for name in statistics}
    for weights in resample_counts(sizes.pop(), resamples, seed):
        for name, statistic in statistics.items():
            parts[name].append(statistic(weights))
    return {name: np.concatenate(blocks) for name, blocks in parts.items()}


def percentile_interval(
    distribution: FloatArray, *, confidence: float = DEFAULT_CONFIDENCE
) -> tuple[float, float]:
    """The percentile interval of a bootstrap distribution (linear interpolation)."""
    undefined = int(np.isnan(distribution).sum())
    if undefined:
        raise StatisticUndefined(
            f"the statistic is undefined in {undefined} of {len(distribution)} resamples"
        )
    tail = (1 - confidence) / 2
    low, high = np.quantile(distribution, [tail, 1 - tail])
    return _finite(low), _finite(high)


def ci_undefined_reason(statistic: ResampledStatistic, resamples: int) -> str | None:
    """Why a bootstrap CI of ``statistic`` is not given, or None when it can be."""
    if statistic.n_usable < MIN_ITEMS_FOR_CI:
        return (
            f"only {statistic.n_usable} item(s) can be used; a bootstrap CI needs at least "
            f"{MIN_ITEMS_FOR_CI}"
        )
    if isinstance(statistic, AlphaStatistic) and statistic.too_costly(resamples):
        return (
            "ratio-level α over this many distinct values is too costly to resample; round "
            "the scores or use the interval level"
        )
    return None


def bootstrap_ci(
    statistic: ResampledStatistic,
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    confidence: float = DEFAULT_CONFIDENCE,
) -> tuple[float, float]:
    """Percentile CI from bootstrap resamples of the items (seeded, reproducible).

    For example ``bootstrap_ci(AlphaStatistic(matrix, "ordinal"))``. Raises
    `StatisticUndefined` with too few items or when some resample has no value.
    """
    reason = ci_undefined_reason(statistic, resamples)
    if reason is not None:
        raise StatisticUndefined(reason)
    distribution = bootstrap_distributions(
        {"statistic": statistic}, resamples=resamples, seed=seed
    )["statistic"]
    return percentile_interval(distribution, confidence=confidence)


def _finite(value: Any) -> float:
    number = float(value)
    if not math.isfinite(number):
        raise StatisticUndefined("the computation gave no finite number")
    return number


# Reading long-format scores ----------------------------------------------------------------

REQUIRED_COLUMNS = ("item", "rater", "score")
RESERVED_COLUMNS = (*REQUIRED_COLUMNS, "dimension")


def read_long_csv(path: str | Path) -> pd.DataFrame:
    """Read a long CSV of scores: columns item, rater, score, optionally dimension, metadata.

    Text columns stay text and scores become floats. The frame's index is each row's line
    number in the file, so that later errors can name it. Raises `InputError`.
    """
    records: list[list[str]] = []
    lines: list[int] = []
    try:
        with open(path, encoding="utf-8-sig", newline="") as handle:
            reader = csv.reader(handle, strict=True)
            header = [name.strip() for name in next(reader, [])]
            for row in reader:
                if row:
                    records.append(row)
                    lines.append(reader.line_num)
    except UnicodeDecodeError as error:
        raise InputError(f"the file is not CSV text (byte {error.start} is not UTF-8)") from error
    except csv.Error as error:
        raise InputError(f"line {reader.line_num}: not valid CSV ({error})") from error
    except OSError as error:
        raise InputError(f"the file cannot be read ({error.strerror})") from error
    _check_header(header)
    if not records:
        raise InputError("the file has a header but no rows of scores")
    for line, row in zip(lines, records, strict=True):
        if len(row) != len(header):
            raise InputError(f"line {line}: {len(row)} field(s), but the header has {len(header)}")
    frame = pd.DataFrame(records, columns=header, index=pd.Index(lines, name="line"))
    for column in ("item", "rater", *(["dimension"] if "dimension" in header else [])):
        blank = frame[column].str.strip() == ""
        if blank.any():
            raise InputError(f"line {frame.index[_first(blank)]}, column '{column}' is empty")
    frame["score"] = [
        _parse_score(text, line) for text, line in zip(frame["score"], frame.index, strict=True)
    ]
    return frame


def _check_header(header: list[str]) -> None:
    if not header or header == [""]:
        raise InputError(
            "the file is empty; its first line must be a header such as item,rater,score"
        )
    repeated = sorted({name for name in header if header.count(name) > 1})
    if repeated:
        raise InputError(f"line 1: the header repeats column '{repeated[0]}'")
    for column in REQUIRED_COLUMNS:
        if column not in header:
            shown = ",".join(header)
            if len(shown) > 80:
                shown = shown[:77] + "..."
            raise InputError(
                f"line 1: there is no '{column}' column; the header must name item, rater and "
                f"score (it reads: {shown})"
            )


def _parse_score(text: str, line: int) -> float:
    try:
        value = float(text)
    except ValueError:
        raise InputError(f"line {line}, column 'score': {text!r} is not a number") from None
    if not math.isfinite(value):
        raise InputError(f"line {line}, column 'score': {text!r} is not a finite number")
    return value


# The human–LLM report ----------------------------------------------------------------------


def _first(mask: pd.Series[bool]) -> int:
    """Position of the first True in a boolean column."""
    return int(np.argmax(mask.to_numpy()))


def _where(frame: pd.DataFrame, label: Any) -> str:
    return f"{frame.index.name or 'row'} {label}"


def _joined(words: Sequence[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    if len(words) <= 1:
        return "".join(words)
    return f"{', '.join(words[:-1])} and {words[-1]}"


def _validated(
    long_frame: pd.DataFrame,
    *,
    level: str,
    scale: tuple[float, float] | None,
    by: Sequence[str],
) -> pd.DataFrame:
    _check_level(level)
    for column in REQUIRED_COLUMNS:
        if column not in long_frame.columns:
            raise InputError(f"the scores have no '{column}' column")
    frame = long_frame.copy()
    if not frame.index.is_unique:
        frame = frame.reset_index(drop=True)
    text_columns = ["item", "rater", *(["dimension"] if "dimension" in frame.columns else [])]
    for column in text_columns:
        missing = frame[column].isna()
        if missing.any():
            raise InputError(f"{_where(frame, frame.index[_first(missing)])}: no {column}")
        frame[column] = frame[column].astype(str)
    has_dimension = "dimension" in frame.columns
    if not has_dimension:
        frame["dimension"] = "all"
    scores = pd.to_numeric(frame["score"], errors="coerce")
    bad = scores.isna() | ~np.isfinite(scores.fillna(0.0))
    if bad.any():
        position = _first(bad)
        raise InputError(
            f"{_where(frame, frame.index[position])}: score {frame['score'].iloc[position]!r} "
            "is not a number"
        )
    frame["score"] = scores.astype(np.float64)
    key = ["dimension", "item", "rater"]
    repeated = frame.duplicated(key, keep=False)
    if repeated.any():
        first = frame[repeated].iloc[0]
        labels = frame.index[
            repeated
            & (frame["dimension"] == first["dimension"])
            & (frame["item"] == first["item"])
            & (frame["rater"] == first["rater"])
        ]
        places = f"{frame.index.name or 'row'}s {_joined([str(label) for label in labels])}"
        dimension = f" on dimension {first['dimension']}" if has_dimension else ""
        raise InputError(
            f"{places}: rater {first['rater']} scored item {first['item']} more than once"
            f"{dimension}"
        )
    if scale is not None:
        low, high = scale
        if not low < high:
            raise InputError(f"the scale {low:g}:{high:g} must run from a lower to a higher value")
        outside = (frame["score"] < low) | (frame["score"] > high)
        if outside.any():
            position = _first(outside)
            raise InputError(
                f"{_where(frame, frame.index[position])}: score "
                f"{float(frame['score'].iloc[position]):g} is outside the "
                f"scale {low:g}:{high:g}"
            )
    if level == "ratio" and (frame["score"] < 0).any():
        position = _first(frame["score"] < 0)
        raise InputError(
            f"{_where(frame, frame.index[position])}: score "
            f"{float(frame['score'].iloc[position]):g} is negative, but "
            "ratio-level scores cannot be"
        )
    for column in by:
        _check_breakdown_column(frame, column)
    return frame


def _check_breakdown_column(frame: pd.DataFrame, column: str) -> None:
    if column in RESERVED_COLUMNS or column not in frame.columns:
        metadata = [name for name in frame.columns if name not in RESERVED_COLUMNS]
        listed = ", ".join(str(name) for name in metadata) or "none"
        raise InputError(
            f"there is no metadata column '{column}' to break down by (metadata columns: {listed})"
        )
    frame[column] = frame[column].astype(str)
    spread = frame.groupby(["dimension", "item"])[column].nunique()
    if (spread > 1).any():
        dimension, item = spread.index[_first(spread > 1)]
        found = sorted(
            frame.loc[(frame["dimension"] == dimension) & (frame["item"] == item), column].unique()
        )
        raise InputError(
            f"item {item} has more than one value of '{column}' ({', '.join(found)}); a "
            "breakdown needs one value per item"
        )


def _scale_points(scale: tuple[float, float] | None, level: str) -> FloatArray | None:
    """The points of an integer scale, which nominal and ordinal α take as their domain."""
    if scale is None or level not in ("nominal", "ordinal"):
        return None
    low, high = scale
    if not (float(low).is_integer() and float(high).is_integer()):
        return None
    return np.arange(low, high + 1, dtype=np.float64)


@dataclass
class _Entry:
    """One statistic of a report block: its estimate, why it has none, and how to resample it."""

    fields: str
    interval_field: str
    value: float | None = None
    pvalue: float | None = None
    reason: str | None = None
    statistic: ResampledStatistic | None = None
    interval: tuple[float, float] | None = None
    interval_reason: str | None = None


class _Block:
    """The statistics of one dimension, or of one breakdown group within it."""

    def __init__(
        self,
        rows: pd.DataFrame,
        *,
        llm: str | None,
        level: Level,
        scale_points: FloatArray | None,
    ) -> None:
        wide = rows.pivot(index="item", columns="rater", values="score")
        self.n_items = len(wide)
        self.raters = sorted(str(name) for name in wide.columns)
        self.level = level
        self.llm = llm
        self.llm_scored = llm is not None and llm in wide.columns
        human_columns = [name for name in wide.columns if name != llm]
        humans = wide[human_columns].to_numpy(dtype=np.float64)
        self.entries: dict[str, _Entry] = {}
        self._alpha("humans", humans, level, scale_points)
        if not self.llm_scored:
            return
        llm_scores = wide[llm].to_numpy(dtype=np.float64)
        human_count = (~np.isnan(humans)).sum(axis=1)
        human_mean = np.divide(
            np.nansum(humans, axis=1),
            human_count,
            out=np.full(len(humans), np.nan),
            where=human_count > 0,
        )
        self._alpha("humans_plus_llm", np.column_stack([humans, llm_scores]), level, scale_points)
        self._alpha(
            "llm_vs_human_mean", np.column_stack([llm_scores, human_mean]), "interval", None
        )
        self._correlations(human_mean, llm_scores)
        self._rates(humans, human_mean, llm_scores)

    def _alpha(
        self, name: str, matrix: FloatArray, level: Level, scale_points: FloatArray | None
    ) -> None:
        entry = _Entry(f"alpha.{name}", f"alpha_ci.{name}")
        self.entries[f"alpha.{name}"] = entry
        domain = None
        if scale_points is not None:
            observed = matrix[~np.isnan(matrix)]
            domain = np.union1d(scale_points, observed)
        try:
            entry.value = krippendorff_alpha(matrix, level, value_domain=domain)
        except StatisticUndefined as error:
            entry.reason = str(error)
            return
        entry.statistic = AlphaStatistic(matrix, level)

    def _correlations(self, human_mean: FloatArray, llm_scores: FloatArray) -> None:
        kinds: dict[str, tuple[Callable[[FloatArray, FloatArray], ResampledStatistic], str]] = {
            "pearson": (PearsonStatistic, "r"),
            "spearman": (SpearmanStatistic, "rho"),
            "kendall": (KendallStatistic, "tau"),
        }
        entries = {
            name: _Entry(f"{name}.{symbol} and {name}.p", f"{name}.ci")
            for name, (_, symbol) in kinds.items()
        }
        self.entries.update(entries)
        try:
            found = correlations(
                human_mean, llm_scores, names=("the human mean", "the LLM's score")
            )
        except StatisticUndefined as error:
            for entry in entries.values():
                entry.reason = str(error)
            return
        for name, (kind, _) in kinds.items():
            result: Correlation = getattr(found, name)
            entries[name].value = result.statistic
            entries[name].pvalue = result.pvalue
            entries[name].statistic = kind(human_mean, llm_scores)

    def _rates(self, humans: FloatArray, human_mean: FloatArray, llm_scores: FloatArray) -> None:
        scored = ~np.isnan(llm_scores)
        complete = scored & ~np.isnan(human_mean)
        gap = np.where(complete, np.abs(llm_scores - human_mean), 0.0)
        distance = np.abs(humans - llm_scores[:, None])
        pairs = np.where(scored, (~np.isnan(humans)).sum(axis=1), 0).astype(np.float64)
        exact = np.where(scored, (distance <= SCORE_TOLERANCE).sum(axis=1), 0)
        within = np.where(scored, (distance <= 1 + SCORE_TOLERANCE).sum(axis=1), 0)
        rates = {
            "mae": RatioOfSums(gap, complete.astype(np.float64)),
            "exact_agreement": RatioOfSums(exact, pairs),
            "within_one": RatioOfSums(within, pairs),
        }
        for name, statistic in rates.items():
            entry = _Entry(name, f"{name}_ci")
            self.entries[name] = entry
            try:
                entry.value = statistic.estimate()
            except StatisticUndefined:
                entry.reason = "no item has both an LLM score and a human score"
                continue
            entry.statistic = statistic

    def add_intervals(self, *, resamples: int, seed: int, confidence: float) -> None:
        ready: dict[str, ResampledStatistic] = {}
        for name, entry in self.entries.items():
            if entry.statistic is None:
                continue
            entry.interval_reason = ci_undefined_reason(entry.statistic, resamples)
            if entry.interval_reason is None:
                ready[name] = entry.statistic
        distributions = bootstrap_distributions(ready, resamples=resamples, seed=seed)
        for name, distribution in distributions.items():
            try:
                self.entries[name].interval = percentile_interval(
                    distribution, confidence=confidence
                )
            except StatisticUndefined as error:
                self.entries[name].interval_reason = str(error)

    def as_dict(self, *, intervals_computed: bool) -> dict[str, Any]:
        notes: list[str] = []
        if self.llm is None:
            notes.append(
                "No rater is marked as the LLM, so every field comparing the LLM with the "
                f"humans is null ({', '.join(LLM_FIELDS)})."
            )
        elif not self.llm_scored:
            notes.append(
                f"The LLM rater '{self.llm}' scored none of these items, so every field "
                f"comparing the LLM with the humans is null ({', '.join(LLM_FIELDS)})."
            )
        if not intervals_computed:
            notes.append("Every CI is null: bootstrap resampling was turned off (0 resamples).")
        # Fields null for the same reason share one sentence.
        by_reason: dict[str, list[str]] = {}
        for entry in self.entries.values():
            if entry.reason is not None:
                by_reason.setdefault(entry.reason, []).extend([entry.fields, entry.interval_field])
            elif entry.interval_reason is not None:
                by_reason.setdefault(entry.interval_reason, []).append(entry.interval_field)
        for reason, fields in by_reason.items():
            verb = "is" if len(fields) == 1 else "are"
            notes.append(f"{_joined(fields)} {verb} null: {reason}.")

        def value(name: str) -> float | None:
            entry = self.entries.get(name)
            return None if entry is None else entry.value

        def interval(name: str) -> list[float] | None:
            entry = self.entries.get(name)
            return None if entry is None or entry.interval is None else list(entry.interval)

        def correlation(name: str, symbol: str) -> dict[str, Any]:
            entry = self.entries.get(name)
            return {
                symbol: None if entry is None else entry.value,
                "p": None if entry is None else entry.pvalue,
                "ci": interval(name),
            }

        alphas = ("humans", "humans_plus_llm", "llm_vs_human_mean")
        return {
            "n_items": self.n_items,
            "raters": self.raters,
            "llm": self.llm,
            "level": self.level,
            "alpha": {name: value(f"alpha.{name}") for name in alphas},
            "alpha_ci": {name: interval(f"alpha.{name}") for name in alphas},
            "pearson": correlation("pearson", "r"),
            "spearman": correlation("spearman", "rho"),
            "kendall": correlation("kendall", "tau"),
            "mae": value("mae"),
            "mae_ci": interval("mae"),
            "exact_agreement": value("exact_agreement"),
            "exact_agreement_ci": interval("exact_agreement"),
            "within_one": value("within_one"),
            "within_one_ci": interval("within_one"),
            "notes": notes,
        }


def human_llm_agreement(
    long_frame: pd.DataFrame,
    *,
    llm: str | None = None,
    level: Level = "ordinal",
    scale: tuple[float, float] | None = None,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    by: Sequence[str] = (),
    confidence: float = DEFAULT_CONFIDENCE,
) -> dict[str, Any]:
    """Agreement among the human raters and between them and the LLM, per dimension.

    ``long_frame`` has one row per score, with columns item, rater and score, optionally
    dimension (otherwise everything is dimension "all") and metadata columns, which ``by``
    names for breakdowns. ``llm`` is the rater name of the LLM evaluator; every other rater
    is human. ``scale`` (MIN, MAX) bounds the scores, and for nominal and ordinal α its integer
    points are the value domain. ``resamples=0`` turns CIs off.

    Returns ``{"dimensions": {name: block}}``: plain dicts, lists, numbers and None, ready for
    ``json.dumps(..., allow_nan=False)``; each block's "notes" say why any field is null.
    Raises `InputError` for scores that cannot be analysed as given.
    """
    if resamples < 0:
        raise ValueError("the number of resamples cannot be negative")
    if seed < 0:
        raise ValueError("the seed must be zero or positive")
    frame = _validated(long_frame, level=level, scale=scale, by=by)
    points = _scale_points(scale, level)

    def block(rows: pd.DataFrame) -> dict[str, Any]:
        computed = _Block(rows, llm=llm, level=level, scale_points=points)
        if resamples:
            computed.add_intervals(resamples=resamples, seed=seed, confidence=confidence)
        return computed.as_dict(intervals_computed=resamples > 0)

    dimensions: dict[str, Any] = {}
    for name, rows in frame.groupby("dimension", sort=False):
        result = block(rows)
        if by:
            result["by"] = {
                column: {
                    str(value): block(group) for value, group in rows.groupby(column, sort=True)
                }
                for column in by
            }
        dimensions[str(name)] = result
    return {"dimensions": dimensions}
