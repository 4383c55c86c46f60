"""What every fidelity measure shares: a value with its interval and notes, and the bootstrap.

Each measure is written as a function of resampling weights over its units (responders, or
items for binary preference): row ``b`` of the weights says how often each unit was drawn in
resample ``b``. The point estimate is the same function under weights of one, so the value and
its interval can never be computed two different ways.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from evalsite.agreement.bootstrap import percentile_interval, resample_counts
from evalsite.agreement.common import (
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    MIN_ITEMS_FOR_CI,
    FloatArray,
    Interval,
    StatisticUndefined,
)
from evalsite.agreement.phrases import Phrase, gettext_noop, reason_of

__all__ = [
    "DEFAULT_RESAMPLES",
    "DEFAULT_SEED",
    "ITEMS",
    "RESPONDERS",
    "FloatArray",
    "Interval",
    "Measured",
    "UnitStatistic",
    "measured",
]

# "percentile": the resamples' quantiles. "basic": the quantiles reflected about the value
# (2v - q_high, 2v - q_low), which corrects a bias that the resampling reproduces, such as the
# plug-in entropy's: resampling responders repeats some and drops others, so almost every
# resample has a lower entropy than the sample, and a percentile interval would miss the value.
IntervalKind = Literal["percentile", "basic"]
# A measure over units: one value per row of a (resamples × units) weight matrix, NaN if none.
UnitStatistic = Callable[[FloatArray], FloatArray]
# What a measure resamples, as its notes name it (in the reader's language on a page).
RESPONDERS = gettext_noop("responders")
ITEMS = gettext_noop("items")


@dataclass(frozen=True)
class Measured:
    """One measure of one group: its value (None when undefined), its CI, and why either is
    missing (as `Phrase` objects, English text that a page shows in its reader's language)."""

    value: float | None
    ci: Interval | None
    notes: tuple[str, ...] = field(default=())


def _finite_or_none(value: float) -> float | None:
    return None if not np.isfinite(value) else float(value)


def measured(
    statistic: UnitStatistic,
    n_units: int,
    *,
    unit: str,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    undefined: str = "",
    interval: IntervalKind = "percentile",
) -> Measured:
    """The statistic on all units and its percentile CI over bootstrap resamples of the units.

    ``unit`` names what is resampled (`RESPONDERS`, `ITEMS`) in the notes. ``undefined`` says
    why the statistic has no value on the full data, when it has none. A CI is withheld, with a
    note, with no resamples, with fewer than `MIN_ITEMS_FOR_CI` units, or when some resample
    leaves the statistic undefined. A "basic" interval that does not hold the value says so.
    """
    units = Phrase(unit)
    if n_units == 0:
        return Measured(None, None, (Phrase(gettext_noop("there are no %(unit)s"), unit=units),))
    value = _finite_or_none(float(statistic(np.ones((1, n_units)))[0]))
    if value is None:
        why = undefined or Phrase(gettext_noop("the measure is undefined on these data"))
        return Measured(None, None, (why,))
    if resamples == 0:
        return Measured(value, None)
    if n_units < MIN_ITEMS_FOR_CI:
        return Measured(
            value,
            None,
            (
                Phrase(
                    gettext_noop("only %(n)d %(unit)s; a bootstrap CI needs at least %(minimum)d"),
                    n=n_units,
                    unit=units,
                    minimum=MIN_ITEMS_FOR_CI,
                ),
            ),
        )
    distribution = np.concatenate(
        [statistic(weights) for weights in resample_counts(n_units, resamples, seed)]
    )
    try:
        low, high = percentile_interval(distribution)
    except StatisticUndefined as error:
        note = Phrase(
            gettext_noop("no CI: %(reason)s of the %(unit)s"), reason=reason_of(error), unit=units
        )
        return Measured(value, None, (note,))
    if interval == "percentile":
        return Measured(value, (low, high))
    low, high = 2 * value - high, 2 * value - low
    if low <= value <= high:
        return Measured(value, (low, high))
    biased = (
        gettext_noop(
            "the CI lies above the value: the value is biased on this many %(unit)s, and the "
            "basic bootstrap interval corrects for the bias"
        )
        if low > value
        else gettext_noop(
            "the CI lies below the value: the value is biased on this many %(unit)s, and the "
            "basic bootstrap interval corrects for the bias"
        )
    )
    return Measured(value, (low, high), (Phrase(biased, unit=units),))


def entropy_bits(counts: FloatArray) -> FloatArray:
    """Plug-in Shannon entropy in bits of each row of counts; NaN for a row with no counts."""
    totals = counts.sum(axis=1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        shares = counts / totals
        terms = np.where(shares > 0, -shares * np.log2(np.where(shares > 0, shares, 1.0)), 0.0)
    result: FloatArray = terms.sum(axis=1)
    result[totals[:, 0] == 0] = np.nan
    return result + 0.0


def ratio(numerators: FloatArray, denominators: FloatArray) -> FloatArray:
    """Element-wise ratio, NaN where the denominator is zero."""
    with np.errstate(divide="ignore", invalid="ignore"):
        result: FloatArray = np.where(denominators > 0, numerators / denominators, np.nan)
    return result
