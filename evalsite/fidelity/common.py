"""What every fidelity measure shares: a value with its interval and notes, the bootstrap,
and the entropies.

Each measure is written as a function of resampling weights over its units (responders, or
items for binary preference): row ``b`` of the weights says how often each unit was drawn in
resample ``b``. The point estimate is the same function under weights of one, so the value and
its interval can never be computed two different ways. Every interval holds its own value: a
percentile interval that would not is withheld, with a note.

The entropies are measured twice (`entropy_measures`): the plug-in, as the paper reports it,
with no interval, and the Chao–Shen estimate, with a jackknife interval over units, for which
a bootstrap fails (see there). `entropy_at_count` compares groups at equal numbers of answers.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from scipy.stats import norm

from evalsite.agreement.bootstrap import percentile_interval, resample_counts
from evalsite.agreement.common import (
    DEFAULT_CONFIDENCE,
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
    "EQUAL_COUNT_REPEATS",
    "ITEMS",
    "LOW_COVERAGE",
    "RESPONDERS",
    "AtCount",
    "FloatArray",
    "Interval",
    "Measured",
    "UnitStatistic",
    "chao_shen_bits",
    "entropy_at_count",
    "entropy_measures",
    "low_coverage_note",
    "measured",
    "sample_coverage",
]

# A measure over units: one value per row of a (resamples × units) weight matrix, NaN if none.
UnitStatistic = Callable[[FloatArray], FloatArray]
# What a measure resamples, as its notes name it (in the reader's language on a page).
RESPONDERS = gettext_noop("responders")
ITEMS = gettext_noop("items")
# How often a group's answers are subsampled to another group's count (`entropy_at_count`).
EQUAL_COUNT_REPEATS = 200
# Leave-one-out counts are built this many units at a time, to bound memory on large data.
_JACKKNIFE_BLOCK = 200
PLUG_IN_NO_CI = Phrase(
    gettext_noop(
        "the plug-in entropy is biased down on few answers and has no interval; compare the "
        "Chao–Shen entropy"
    )
)

# Below this sample coverage 1 − f1/n (f1 items seen once among n mentions) the Chao–Shen
# interval undercovers the true entropy. Chosen from docs/fidelity.md's simulated table: at
# coverage 0.73–0.75 (far fewer mentions than films) the interval covered 0.12–0.26 of the
# time; at 0.83 and above, 0.79–0.975.
LOW_COVERAGE = 0.8
LOW_COVERAGE_MSGID = gettext_noop(
    "the sample coverage 1 − f1/n is %(coverage).2f, below %(threshold)s: many items were "
    "named once, so much of the catalogue was never named, and the Chao–Shen estimate and its "
    "interval lie below the true entropy (in simulation the interval covered it only 12–26%% "
    "of the time)"
)


def sample_coverage(total: FloatArray) -> float:
    """1 − f1/n of one group's summed counts, as Chao–Shen estimates it (f1 = n taken as
    n − 1); NaN without counts."""
    n = float(total.sum())
    if n == 0:
        return float("nan")
    singletons = float((total == 1).sum())
    if singletons == n:
        singletons = n - 1
    return 1 - singletons / n


def low_coverage_note(total: FloatArray) -> Phrase | None:
    """The note on a Chao–Shen entropy whose sample coverage is below `LOW_COVERAGE`."""
    coverage = sample_coverage(total)
    if not coverage < LOW_COVERAGE:
        return None
    return Phrase(LOW_COVERAGE_MSGID, coverage=coverage, threshold=f"{LOW_COVERAGE:g}")


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
) -> Measured:
    """The statistic on all units and its percentile CI over bootstrap resamples of the units.

    ``unit`` names what is resampled (`RESPONDERS`, `ITEMS`) in the notes. ``undefined`` says
    why the statistic has no value on the full data, when it has none. A CI is withheld, with a
    note, with no resamples, with fewer than `MIN_ITEMS_FOR_CI` units, or when some resample
    leaves the statistic undefined, or when the interval would not hold the value (a statistic
    so biased on this many units that its resamples fall on one side of it).
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
    # Rounding may put a value that every resample repeats a hair outside their quantiles.
    tolerance = 1e-9 * max(1.0, abs(value))
    if low - tolerance <= value <= high + tolerance:
        return Measured(value, (min(low, value), max(high, value)))
    note = Phrase(
        gettext_noop(
            "no CI: the resamples of the %(unit)s fall on one side of the value, so a "
            "percentile interval would not hold it"
        ),
        unit=units,
    )
    return Measured(value, None, (note,))


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


def chao_shen_bits(counts: FloatArray) -> FloatArray:
    """The Chao–Shen (2003) entropy in bits of each row of counts; NaN for a row with no counts.

    The plug-in entropy is biased down when many items are seen once, as in a catalogue of
    thousands of films: the items never seen carry probability it cannot see. Chao–Shen
    estimates the sample coverage C = 1 − f1/n (f1 items seen once, of n; f1 = n is taken as
    n − 1 so that C > 0), shrinks each share to p = C·x/n, and weighs each term by the chance
    1 − (1 − p)^n that the item was seen at all (Horvitz–Thompson):
    H = −Σ p log2 p / (1 − (1 − p)^n). With no item seen once it is close to the plug-in.
    """
    totals = counts.sum(axis=1, keepdims=True)
    singletons = (counts == 1).sum(axis=1, keepdims=True).astype(np.float64)
    singletons = np.where(singletons >= totals, totals - 1, singletons)
    with np.errstate(divide="ignore", invalid="ignore"):
        coverage = 1 - singletons / totals
        shares = coverage * counts / totals
        seen = 1 - (1 - shares) ** totals
        terms = np.where(
            counts > 0, -shares * np.log2(np.where(shares > 0, shares, 1.0)) / seen, 0.0
        )
    result: FloatArray = terms.sum(axis=1)
    result[totals[:, 0] == 0] = np.nan
    return result + 0.0


def _jackknife_interval(
    statistic: Callable[[FloatArray], FloatArray],
    counts: FloatArray,
    value: float,
    confidence: float,
) -> Interval | None:
    """value ± z·s.e., the s.e. from the delete-one-unit jackknife; None if some deletion
    leaves the statistic undefined."""
    n_units = counts.shape[0]
    total = counts.sum(axis=0)
    left_out = np.concatenate(
        [
            statistic(total[None, :] - counts[start : start + _JACKKNIFE_BLOCK])
            for start in range(0, n_units, _JACKKNIFE_BLOCK)
        ]
    )
    if np.isnan(left_out).any():
        return None
    spread = float(np.sqrt((n_units - 1) / n_units * ((left_out - left_out.mean()) ** 2).sum()))
    half = float(norm.ppf(0.5 + confidence / 2)) * spread
    return (value - half, value + half)


def entropy_measures(
    counts: FloatArray, *, unit: str, resamples: int = DEFAULT_RESAMPLES, undefined: str = ""
) -> tuple[Measured, Measured]:
    """The plug-in and the Chao–Shen entropy in bits of one group's counts (units × items).

    The plug-in (the paper's figure) has no interval: it is biased down by an amount that
    depends on the number of answers, and a bootstrap of it neither covers the true entropy nor
    holds its own value. Chao–Shen's interval is its value ± 1.96 s.e. of the delete-one-unit
    jackknife. Not a bootstrap: resampling units with replacement turns items seen once into
    items seen twice, which is what Chao–Shen reads to estimate what was not seen, so nearly
    every resample lies below the value and percentile (or BCa) intervals cover the true
    entropy in none of the simulated studies at a 3,000-item catalogue. The jackknife
    interval holds its value by construction. It is withheld, with a note, with
    ``resamples=0`` (intervals turned off), with fewer than `MIN_ITEMS_FOR_CI` units, or when
    leaving out one unit leaves nothing to measure.
    """
    units = Phrase(unit)
    n_units = counts.shape[0]
    if n_units == 0 or counts.sum() == 0:
        why = (
            Phrase(gettext_noop("there are no %(unit)s"), unit=units)
            if n_units == 0
            else undefined or Phrase(gettext_noop("the measure is undefined on these data"))
        )
        return Measured(None, None, (why,)), Measured(None, None, (why,))
    total = counts.sum(axis=0, keepdims=True)
    plug_in = Measured(float(entropy_bits(total)[0]), None, (PLUG_IN_NO_CI,))
    value = float(chao_shen_bits(total)[0])
    low = low_coverage_note(total[0])
    warning: tuple[str, ...] = () if low is None else (low,)
    if resamples == 0:
        return plug_in, Measured(value, None, warning)
    if n_units < MIN_ITEMS_FOR_CI:
        note = Phrase(
            gettext_noop("only %(n)d %(unit)s; a CI needs at least %(minimum)d"),
            n=n_units,
            unit=units,
            minimum=MIN_ITEMS_FOR_CI,
        )
        return plug_in, Measured(value, None, (note, *warning))
    interval = _jackknife_interval(chao_shen_bits, counts, value, DEFAULT_CONFIDENCE)
    if interval is None:
        note = Phrase(
            gettext_noop("no CI: leaving out one of the %(unit)s leaves nothing to measure"),
            unit=units,
        )
        return plug_in, Measured(value, None, (note, *warning))
    return plug_in, Measured(value, interval, warning)


@dataclass(frozen=True)
class AtCount:
    """A group's Chao–Shen entropy at another group's number of answers.

    ``repeats`` subsamples of ``count`` answers each, drawn without replacement (seeded):
    their mean, standard deviation, and 2.5th and 97.5th percentiles.
    """

    count: int
    repeats: int
    mean: float
    sd: float
    low: float
    high: float

    def as_json(self) -> dict[str, object]:
        return {
            "count": self.count,
            "repeats": self.repeats,
            "mean": self.mean,
            "sd": self.sd,
            "low": self.low,
            "high": self.high,
        }


def entropy_at_count(
    answer_counts: FloatArray,
    count: int,
    *,
    repeats: int = EQUAL_COUNT_REPEATS,
    seed: int = DEFAULT_SEED,
) -> AtCount | None:
    """The Chao–Shen entropy of ``count`` of the group's answers (rows of counts), over
    ``repeats`` seeded subsamples; None when the group has no more answers than ``count``, or
    some subsample mentions nothing.

    People answer each prompt several times and a simulator once, and even a bias-corrected
    entropy still rises with the number of answers; subsampling the larger group to the
    smaller one's count compares like with like.
    """
    n_answers = answer_counts.shape[0]
    if count < 1 or n_answers <= count:
        return None
    generator = np.random.default_rng([seed, count])
    chosen = np.zeros((repeats, n_answers))
    for row in range(repeats):
        chosen[row, generator.choice(n_answers, size=count, replace=False)] = 1.0
    values = chao_shen_bits(chosen @ answer_counts)
    if np.isnan(values).any():
        return None
    low, high = np.quantile(values, [0.025, 0.975])
    return AtCount(
        count,
        repeats,
        float(values.mean()),
        float(values.std(ddof=1)),
        float(low),
        float(high),
    )
