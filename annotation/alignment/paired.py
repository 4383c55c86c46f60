"""The difference in MAE between two sets of scores of the same items, with a paired CI.

Both sets are compared with the same human means, item by item; the bootstrap resamples items
and keeps each item's two errors together, so that what the items share (an easy item is easy
for both) cancels out of the interval instead of widening it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from evalsite.agreement.bootstrap import bootstrap_ci
from evalsite.agreement.clusters import Interval
from evalsite.agreement.common import (
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    FloatArray,
    StatisticUndefined,
)
from evalsite.agreement.phrases import Phrase, gettext_noop, reason_of
from evalsite.agreement.rates import RatioOfSums


@dataclass(frozen=True)
class PairedDifference:
    """MAE of ``before`` and ``after`` on the items both scored, and the gain before − after.

    A positive gain means ``after`` is closer to the humans. ``interval`` is the paired
    bootstrap CI of the gain (or a note saying why there is none).
    """

    n_items: int
    mae_before: float | None
    mae_after: float | None
    gain: float | None
    interval: Interval

    @property
    def shows_improvement(self) -> bool:
        """True only when the whole interval lies above 0."""
        bounds = self.interval.bounds
        return bounds is not None and bounds[0] > 0


def paired_mae_difference(
    human_means: FloatArray,
    before: FloatArray,
    after: FloatArray,
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> PairedDifference:
    """The gain in MAE from ``before`` to ``after`` on the items all three arrays score."""
    both = ~np.isnan(human_means) & ~np.isnan(before) & ~np.isnan(after)
    n_items = int(both.sum())
    if not n_items:
        return PairedDifference(
            0, None, None, None, Interval(None, Phrase(gettext_noop("no item has both scores")))
        )
    error_before = np.abs(before[both] - human_means[both])
    error_after = np.abs(after[both] - human_means[both])
    gain = RatioOfSums(error_before - error_after, np.ones(n_items))
    try:
        interval = Interval(bootstrap_ci(gain, resamples=resamples, seed=seed))
    except StatisticUndefined as error:
        interval = Interval(None, reason_of(error))
    return PairedDifference(
        n_items=n_items,
        mae_before=float(error_before.mean()),
        mae_after=float(error_after.mean()),
        gain=gain.estimate(),
        interval=interval,
    )
