"""α between the LLM and each human, beside α between each pair of humans (the ceiling).

`llm_human_alpha` gives Krippendorff's α of the LLM with each human on the items both scored,
averaged over humans, and the mean pairwise α among humans, each with a bootstrap CI over
items. Unlike α with the LLM as one more rater, neither mixes human–human pairs into the LLM's
figure, so a random LLM gets an α near 0 however well people agree.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import combinations

import numpy as np

from evalsite.agreement.alpha import AlphaStatistic, krippendorff_alpha
from evalsite.agreement.bootstrap import bootstrap_distributions
from evalsite.agreement.clusters import Interval, interval_of
from evalsite.agreement.common import (
    DEFAULT_CONFIDENCE,
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    MIN_ITEMS_FOR_ALPHA_CI,
    FloatArray,
    Level,
    StatisticUndefined,
)
from evalsite.agreement.phrases import Phrase, gettext_noop, reason_of
from evalsite.agreement.score_matrix import ScoreMatrix


@dataclass(frozen=True)
class PairAlpha:
    """α between two raters on the items both scored, or a ``note`` saying why there is none."""

    raters: tuple[str, str]
    n_items: int
    alpha: float | None
    note: str | None = None


@dataclass(frozen=True)
class MeanAlpha:
    """The unweighted mean of the defined pair α values, with its bootstrap interval.

    ``statistic`` resamples the mean (None when no pair's α is defined), so that a caller can
    draw its interval on other resamples, such as those of a cluster bootstrap.
    """

    value: float | None
    interval: Interval
    pairs: tuple[PairAlpha, ...]
    note: str | None = None
    statistic: MeanPairAlphaStatistic | None = field(default=None, compare=False)


@dataclass(frozen=True)
class LlmHumanAlpha:
    """α between the LLM and each human (averaged) beside α between humans (the ceiling)."""

    level: Level
    llm_vs_humans: MeanAlpha
    humans_pairwise: MeanAlpha
    # α LLM–humans − α between humans, on the same resamples (`evalsite.agreement.verdict`).
    gap: Interval = field(default_factory=lambda: Interval(None))


class MeanPairAlphaStatistic:
    """The mean of several two-rater α values, on bootstrap resamples of the shared items.

    A resample averages the pairs whose α is defined in it; it has no value only if none is.
    """

    # Percentile intervals of α on fewer usable items under-cover.
    min_items_for_ci = MIN_ITEMS_FOR_ALPHA_CI

    def __init__(self, pair_matrices: Sequence[FloatArray], level: Level) -> None:
        if not pair_matrices:
            raise ValueError("a mean of pair α values needs at least one pair")
        self._pairs = [AlphaStatistic(matrix, level) for matrix in pair_matrices]
        pairable = np.zeros(pair_matrices[0].shape[0], dtype=bool)
        for matrix in pair_matrices:
            pairable |= (~np.isnan(matrix)).all(axis=1)
        self._n_usable = int(pairable.sum())

    @property
    def n_items(self) -> int:
        return self._pairs[0].n_items

    @property
    def n_usable(self) -> int:
        return self._n_usable

    def too_costly(self, resamples: int) -> bool:
        return any(pair.too_costly(resamples) for pair in self._pairs)

    def __call__(self, weights: FloatArray) -> FloatArray:
        values = np.vstack([pair(weights) for pair in self._pairs])
        defined = ~np.isnan(values)
        count = defined.sum(axis=0)
        total = np.where(defined, values, 0.0).sum(axis=0)
        return np.where(count > 0, total / np.maximum(count, 1), np.nan)


def _pair_alpha(
    names: tuple[str, str], matrix: FloatArray, level: Level
) -> tuple[PairAlpha, FloatArray | None]:
    both = int((~np.isnan(matrix)).all(axis=1).sum())
    try:
        value = krippendorff_alpha(matrix, level)
    except StatisticUndefined as error:
        return PairAlpha(names, both, None, reason_of(error)), None
    return PairAlpha(names, both, value), matrix


def llm_human_alpha(
    scores: ScoreMatrix,
    level: Level,
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    confidence: float = DEFAULT_CONFIDENCE,
) -> LlmHumanAlpha:
    """α between the LLM and each human, averaged over humans, and the mean pairwise human α.

    Each pair's α is Krippendorff's α at ``level`` on the items both raters scored; the means
    are unweighted over the pairs whose α is defined (the others are listed with a note). Both
    intervals come from the same bootstrap resamples of the items (`MeanPairAlphaStatistic`)
    and are withheld below `MIN_ITEMS_FOR_ALPHA_CI` usable items. ``resamples=0`` turns them
    off. Text labels are allowed at the nominal level only.
    """
    if scores.categories is not None and level != "nominal":
        raise ValueError("text labels are categories; their α is nominal")
    llm_pairs = [
        _pair_alpha(
            ("LLM", human),
            np.column_stack([scores.llm_scores, scores.human_scores[:, column]]),
            level,
        )
        for column, human in enumerate(scores.humans)
    ]
    human_pairs = [
        _pair_alpha(
            (scores.humans[first], scores.humans[second]),
            scores.human_scores[:, [first, second]],
            level,
        )
        for first, second in combinations(range(len(scores.humans)), 2)
    ]
    groups = {"llm": llm_pairs, "humans": human_pairs}
    statistics: dict[str, MeanPairAlphaStatistic] = {}
    notes: dict[str, str | None] = {}
    for name, pairs in groups.items():
        matrices = [matrix for _, matrix in pairs if matrix is not None]
        if not matrices:
            notes[name] = Phrase(
                gettext_noop("no α between the LLM and any human is defined")
                if name == "llm"
                else gettext_noop("no α between any two humans is defined")
            )
            continue
        notes[name] = None
        statistics[name] = MeanPairAlphaStatistic(matrices, level)
    intervals = _alpha_intervals(statistics, resamples=resamples, seed=seed, confidence=confidence)
    gap = intervals.pop("gap", Interval(None))

    def mean_alpha(name: str) -> MeanAlpha:
        pairs = tuple(pair for pair, _ in groups[name])
        values = [pair.alpha for pair in pairs if pair.alpha is not None]
        value = float(np.mean(values)) if values else None
        interval = intervals.get(name, Interval(None, notes[name]))
        return MeanAlpha(value, interval, pairs, notes[name], statistics.get(name))

    return LlmHumanAlpha(level, mean_alpha("llm"), mean_alpha("humans"), gap)


def _alpha_intervals(
    statistics: dict[str, MeanPairAlphaStatistic],
    *,
    resamples: int,
    seed: int,
    confidence: float,
) -> dict[str, Interval]:
    if resamples < 0:
        raise ValueError("the number of resamples cannot be negative")
    intervals: dict[str, Interval] = {}
    ready: dict[str, MeanPairAlphaStatistic] = {}
    for name, statistic in statistics.items():
        if resamples == 0:
            intervals[name] = Interval(
                None, Phrase(gettext_noop("bootstrap resampling was turned off (0 resamples)"))
            )
        elif statistic.n_usable < MIN_ITEMS_FOR_ALPHA_CI:
            intervals[name] = Interval(
                None,
                Phrase(
                    gettext_noop(
                        "too few items for an interval (%(n)d usable; at least %(needed)d are "
                        "needed)"
                    ),
                    n=statistic.n_usable,
                    needed=MIN_ITEMS_FOR_ALPHA_CI,
                ),
            )
        elif statistic.too_costly(resamples):
            intervals[name] = Interval(
                None,
                Phrase(
                    gettext_noop(
                        "ratio-level α over this many distinct values is too costly to resample"
                    )
                ),
            )
        else:
            ready[name] = statistic
    distributions = bootstrap_distributions(ready, resamples=resamples, seed=seed)
    for name, distribution in distributions.items():
        intervals[name] = interval_of(distribution, confidence)
    if {"llm", "humans"} <= distributions.keys():
        gap = distributions["llm"] - distributions["humans"]
        intervals["gap"] = interval_of(gap, confidence)
    return intervals
