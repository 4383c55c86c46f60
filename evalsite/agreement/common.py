"""What every agreement statistic shares: levels, defaults, errors and resampled statistics.

A statistic that can be resampled is a callable that takes a block of resampling weights
(resamples × items; entry ``[b, i]`` says how often item ``i`` was drawn in resample ``b``) and
returns one value per resample. A weighted item counts exactly as often as it was drawn, so one
matrix product replaces a loop that rebuilds and re-scores every resample.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Literal, Protocol, get_args

import numpy as np
import numpy.typing as npt

from evalsite.agreement.phrases import Phrase, gettext_noop

Level = Literal["nominal", "ordinal", "interval", "ratio"]
LEVELS: tuple[Level, ...] = get_args(Level)
FloatArray = npt.NDArray[np.float64]
Interval = tuple[float, float]

DEFAULT_RESAMPLES = 1000
DEFAULT_SEED = 42
DEFAULT_CONFIDENCE = 0.95
# Fewer items than this give percentile intervals that mostly echo a handful of items.
MIN_ITEMS_FOR_CI = 10
# Percentile intervals of α on fewer items under-cover (85–89% at 10–12 items); below this
# many usable items an α interval is withheld.
MIN_ITEMS_FOR_ALPHA_CI = 20
TOO_FEW_FOR_INTERVAL = Phrase(gettext_noop("too few items for an interval"))
# With two items every correlation is ±1.
MIN_ITEMS_FOR_CORRELATION = 3
# Absolute tolerance when comparing an LLM score with a human score, so that 0.1 + 0.2 == 0.3.
SCORE_TOLERANCE = 1e-9

# Count matrices up to this many cells are held dense, so that products with a block of
# resampling weights go through BLAS; larger ones stay sparse.
_DENSE_CELLS = 2_000_000


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


class Tally:
    """How often each row (a unit, an item, a pair) holds each column (a value, a pair)."""

    def __init__(
        self, rows: npt.NDArray[np.intp], columns: npt.NDArray[np.intp], shape: tuple[int, int]
    ) -> None:
        # Imported here: every process imports this module at start-up (through the apps' job
        # kinds and demo data), and only one that computes a statistic needs scipy.
        from scipy import sparse

        self.sparse = sparse.csr_matrix((np.ones(len(rows)), (rows, columns)), shape=shape)
        self._dense = self.sparse.toarray() if shape[0] * shape[1] <= _DENSE_CELLS else None

    def weighted(self, weights: FloatArray) -> FloatArray:
        """Column totals under each row of ``weights``: weights @ tally."""
        if self._dense is not None:
            totals: FloatArray = weights @ self._dense
            return totals
        return np.asarray((self.sparse.T @ weights.T).T, dtype=np.float64)

    def per_row(self, values: FloatArray) -> FloatArray:
        """Row sums of the column values (a vector, or one column per resample): tally @ values."""
        if self._dense is not None:
            sums: FloatArray = self._dense @ values
            return sums
        return np.asarray(self.sparse @ values, dtype=np.float64)


def check_level(level: str) -> None:
    if level not in LEVELS:
        raise ValueError(f"unknown level {level!r}; use one of {', '.join(LEVELS)}")


def finite(value: object) -> float:
    number = float(value)  # type: ignore[arg-type]
    if not math.isfinite(number):
        raise StatisticUndefined(Phrase(gettext_noop("the computation gave no finite number")))
    return number


def joined(words: Sequence[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    if len(words) <= 1:
        return "".join(words)
    return f"{', '.join(words[:-1])} and {words[-1]}"
