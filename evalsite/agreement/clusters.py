"""Percentile intervals that resample the right unit: clusters of units, kept together.

When a transcript contributes several units (one per dimension, in the pooled block), those
units share the transcript's halo and are not independent draws. `cluster_bootstrap_ci`
resamples clusters (transcripts) with replacement and gives every unit its cluster's count, for
any statistic that takes bootstrap weights. Below `MIN_CLUSTERS_FOR_INTERVAL` clusters it gives
no interval, with a note, rather than one that under-covers.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from evalsite.agreement.bootstrap import percentile_interval, resample_counts
from evalsite.agreement.common import (
    DEFAULT_CONFIDENCE,
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    FloatArray,
    ResampledStatistic,
    StatisticUndefined,
)
from evalsite.agreement.phrases import Phrase, gettext_noop, reason_of

# Percentile intervals on fewer clusters (or items) under-cover; below this none is given.
MIN_CLUSTERS_FOR_INTERVAL = 20


@dataclass(frozen=True)
class Interval:
    """A percentile bootstrap interval, or a ``note`` saying why there is none."""

    bounds: tuple[float, float] | None
    note: str | None = None


def interval_of(distribution: FloatArray, confidence: float) -> Interval:
    try:
        return Interval(percentile_interval(distribution, confidence=confidence))
    except StatisticUndefined as error:
        return Interval(None, reason_of(error))


def cluster_resample_weights(
    clusters: Sequence[Hashable], resamples: int, seed: int
) -> Iterator[FloatArray]:
    """Blocks of unit weights (resamples × units) from resampling clusters with replacement.

    Each resample draws as many clusters as there are; a unit weighs as often as its cluster was
    drawn, so the units of a cluster always come and go together. The draws are those of
    `evalsite.agreement.resample_counts` over the clusters, in order of first appearance.
    """
    codes_of: dict[Hashable, int] = {}
    codes = np.array([codes_of.setdefault(label, len(codes_of)) for label in clusters])
    for cluster_counts in resample_counts(len(codes_of), resamples, seed):
        yield cluster_counts[:, codes]


def too_few_clusters(clusters: Sequence[Hashable], min_clusters: int) -> str | None:
    """Why a cluster bootstrap gives no interval over these labels, or None when it can."""
    n_clusters = len(set(clusters))
    if n_clusters >= min_clusters:
        return None
    return Phrase(
        gettext_noop(
            "too few items for an interval (%(n)d clusters; a cluster bootstrap needs at least "
            "%(needed)d)"
        ),
        n=n_clusters,
        needed=min_clusters,
    )


def cluster_distributions(
    statistics: Mapping[str, ResampledStatistic],
    clusters: Sequence[Hashable],
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> dict[str, FloatArray]:
    """Every statistic on the same cluster resamples of their common units.

    The cluster counterpart of `evalsite.agreement.bootstrap.bootstrap_distributions`: each
    statistic's units are labelled by ``clusters``, and whole clusters are drawn together.
    """
    for statistic in statistics.values():
        if statistic.n_items != len(clusters):
            raise ValueError(
                f"the statistic has {statistic.n_items} units but {len(clusters)} cluster labels"
            )
    if not statistics:
        return {}
    parts: dict[str, list[FloatArray]] = {name: [] for name in statistics}
    for weights in cluster_resample_weights(clusters, resamples, seed):
        for name, statistic in statistics.items():
            parts[name].append(statistic(weights))
    return {name: np.concatenate(blocks) for name, blocks in parts.items()}


def cluster_bootstrap_ci(
    statistic: Callable[[FloatArray], FloatArray],
    clusters: Sequence[Hashable],
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    confidence: float = DEFAULT_CONFIDENCE,
    min_clusters: int = MIN_CLUSTERS_FOR_INTERVAL,
) -> Interval:
    """Percentile CI of ``statistic`` from resampling whole clusters of its units.

    ``statistic`` is any callable from unit weights (resamples × units) to one value per
    resample, such as `evalsite.agreement.RatioOfSums` or `AlphaStatistic` over units;
    ``clusters`` labels each unit with its cluster, e.g. each (dimension, transcript) unit with
    its transcript. With fewer than ``min_clusters`` clusters the interval is withheld with the
    note "too few items for an interval"; it is also withheld when some resample has no value.
    """
    n_items = getattr(statistic, "n_items", len(clusters))
    if n_items != len(clusters):
        raise ValueError(f"the statistic has {n_items} units but {len(clusters)} cluster labels")
    reason = too_few_clusters(clusters, min_clusters)
    if reason is not None:
        return Interval(None, reason)
    blocks = [statistic(weights) for weights in cluster_resample_weights(clusters, resamples, seed)]
    return interval_of(np.concatenate(blocks), confidence)
