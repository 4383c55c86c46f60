"""Krippendorff's α of a units × raters reliability matrix, once or on many resamples.

A reliability matrix is units × raters: one row per item, one column per rater, NaN where a
rater did not score an item. (The ``krippendorff`` package takes the transpose.)
"""

from __future__ import annotations

import krippendorff
import numpy as np
import numpy.typing as npt

from evalsite.agreement.common import (
    MIN_ITEMS_FOR_ALPHA_CI,
    FloatArray,
    Level,
    StatisticUndefined,
    Tally,
    check_level,
    finite,
)
from evalsite.agreement.phrases import Phrase, gettext_noop

# The package builds a units × V × V array (V distinct values); above this many cells the
# formulas of `_Reliability` take over, whose memory grows with the data, not with V².
_PACKAGE_CELL_LIMIT = 4_000_000
# Entries of the V × V ratio distance matrix held at once.
_RATIO_CHUNK_CELLS = 4_000_000
# Ratio-level α needs V² work per resample; beyond this budget its CI is refused.
_RATIO_BOOTSTRAP_BUDGET = 2e10


def _as_matrix(data: npt.ArrayLike) -> FloatArray:
    matrix = np.asarray(data, dtype=np.float64)
    if matrix.ndim != 2:
        raise ValueError(f"a reliability matrix is units × raters, got {matrix.ndim} dimension(s)")
    return matrix


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
        check_level(level)
        self.level = level
        self.n_units: int = matrix.shape[0]
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
        self.counts = Tally(units, codes, (self.n_units, len(self.domain)))
        if level == "ratio" and (values < 0).any():
            raise ValueError("ratio-level scores cannot be negative")
        self._unit_disagreement = self._fixed_unit_disagreement(units)

    def undefined_reason(self) -> str | None:
        if self.n_raters == 0:
            return Phrase(gettext_noop("no rater scored these items"))
        if self.n_raters == 1:
            return Phrase(gettext_noop("only one rater scored these items"))
        if self.n_pairable == 0:
            return Phrase(gettext_noop("no item was scored by two or more raters"))
        if len(self.domain) == 1:
            return Phrase(
                gettext_noop(
                    "every score is %(value)g, so there is no variation to measure agreement "
                    "against"
                ),
                value=float(self.domain[0]),
            )
        return None

    def _pair_denominator(self) -> FloatArray:
        return np.where(self.per_unit > 1, self.per_unit - 1, 1.0)

    def _fixed_unit_disagreement(self, units: npt.NDArray[np.intp]) -> FloatArray | None:
        if self.level == "nominal":
            squares = np.asarray(self.counts.sparse.power(2).sum(axis=1)).ravel()
            nominal: FloatArray = (self.per_unit**2 - squares) / self._pair_denominator()
            return nominal
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
    return finite(value)


class AlphaStatistic:
    """Krippendorff's α of a units × raters matrix, on bootstrap resamples of its units."""

    # Percentile intervals of α on fewer usable items under-cover.
    min_items_for_ci = MIN_ITEMS_FOR_ALPHA_CI

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
