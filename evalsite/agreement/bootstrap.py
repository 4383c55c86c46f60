"""Bootstrap resampling of items: seeded resample counts, distributions, percentile CIs."""

from __future__ import annotations

from collections.abc import Iterator, Mapping

import numpy as np

from evalsite.agreement.common import (
    DEFAULT_CONFIDENCE,
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    MIN_ITEMS_FOR_CI,
    FloatArray,
    ResampledStatistic,
    StatisticUndefined,
    finite,
)
from evalsite.agreement.phrases import Phrase, gettext_noop

# Resamples are drawn and scored in blocks of this size to bound memory on large data.
_RESAMPLE_BLOCK = 100


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
            Phrase(
                gettext_noop("the statistic is undefined in %(undefined)d of %(n)d resamples"),
                undefined=undefined,
                n=len(distribution),
            )
        )
    tail = (1 - confidence) / 2
    low, high = np.quantile(distribution, [tail, 1 - tail])
    return finite(low), finite(high)


def ci_undefined_reason(statistic: ResampledStatistic, resamples: int) -> str | None:
    """Why a bootstrap CI of ``statistic`` is not given, or None when it can be.

    An α (any statistic with ``min_items_for_ci``, such as `AlphaStatistic`) needs
    `MIN_ITEMS_FOR_ALPHA_CI` usable items; every other statistic `MIN_ITEMS_FOR_CI`.
    """
    minimum = getattr(statistic, "min_items_for_ci", MIN_ITEMS_FOR_CI)
    if minimum > MIN_ITEMS_FOR_CI and statistic.n_usable < minimum:
        return Phrase(
            gettext_noop(
                "too few items for an interval (%(n)d usable; at least %(needed)d are needed)"
            ),
            n=statistic.n_usable,
            needed=minimum,
        )
    if statistic.n_usable < MIN_ITEMS_FOR_CI:
        return Phrase(
            gettext_noop(
                "only %(n)d item(s) can be used; a bootstrap CI needs at least %(needed)d"
            ),
            n=statistic.n_usable,
            needed=MIN_ITEMS_FOR_CI,
        )
    too_costly = getattr(statistic, "too_costly", None)
    if callable(too_costly) and too_costly(resamples):
        return Phrase(
            gettext_noop(
                "ratio-level α over this many distinct values is too costly to resample; round "
                "the scores or use the interval level"
            )
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
