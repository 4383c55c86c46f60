"""Whether an LLM can stand in for a human annotator, and intervals over the right unit.

Plain functions over plain data (numpy, scipy; no Django), beside `evalsite.agreement`, whose α
and bootstrap code they reuse:

- `alt_test`: the alternative annotator test of Calderon, Reichart and Dror (2025), "The
  Alternative Annotator Test for LLM-as-a-Judge", arXiv 2501.10970. Leaving out one human at a
  time, it asks whether the LLM's score aligns with the remaining humans at least as well as the
  left-out human's score does, up to an allowance ε. It is the verdict's evidence; α with the LLM
  as one more rater is not, because half of that α's pairs are human–human.
- `llm_human_alpha`: Krippendorff's α between the LLM and each human on the items both scored,
  averaged over humans, beside the mean pairwise α between humans (the ceiling), each with a
  bootstrap CI over items.
- `cluster_bootstrap_ci`: a percentile CI that resamples clusters (transcripts), keeping every
  unit of a cluster (each (dimension, transcript) pair) together, for any resampled statistic.
- `agreement_verdict`: the sentence that says whether the LLM agrees with people, built from the
  two above.

Scores arrive as a `ScoreMatrix`: items × humans with NaN for a missing score, plus the LLM's
score per item. `score_matrix` builds one from long (item, rater, score) rows. Text labels are
nominal categories, held as category codes; only the `accuracy` alignment and nominal α accept
them.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Literal

import numpy as np
from scipy import stats

from evalsite.agreement import (
    DEFAULT_CONFIDENCE,
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    SCORE_TOLERANCE,
    AlphaStatistic,
    FloatArray,
    InputError,
    Level,
    StatisticUndefined,
    bootstrap_distributions,
    krippendorff_alpha,
    percentile_interval,
    resample_counts,
)

Score = float | str | None
AltScoring = Literal["accuracy", "neg_rmse"]

# ε is the cost–benefit allowance of the alt-test: how much worse than a person the LLM may align
# before it is judged unable to replace one. The paper's guidance, by who annotated:
EPSILON_BY_ANNOTATOR: dict[str, float] = {"expert": 0.2, "skilled": 0.15, "crowd": 0.1}
DEFAULT_EPSILON = 0.15
# The false discovery rate of the Benjamini–Yekutieli correction across annotators.
DEFAULT_Q = 0.05
# Annotators with fewer items are not tested (they still serve as references for the others).
DEFAULT_MIN_ITEMS = 30
# A winning rate of at least this passes the test.
PASSING_WINNING_RATE = 0.5
# Percentile intervals of α on fewer items under-cover; below this no interval is given.
MIN_ITEMS_FOR_INTERVAL = 20
# Likewise for clusters in a cluster bootstrap.
MIN_CLUSTERS_FOR_INTERVAL = 20
TOO_FEW_FOR_INTERVAL = "too few items for an interval"


# Scores ------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class ScoreMatrix:
    """Every score of one dimension: items × humans (NaN = not scored) and the LLM's per item.

    When ``categories`` is set the scores are nominal text labels and each number is a code:
    code k stands for ``categories[k]``.
    """

    items: tuple[str, ...]
    humans: tuple[str, ...]
    human_scores: FloatArray
    llm_scores: FloatArray
    categories: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        if self.human_scores.shape != (len(self.items), len(self.humans)):
            raise ValueError("human_scores must be items × humans")
        if self.llm_scores.shape != (len(self.items),):
            raise ValueError("llm_scores must hold one score per item")


def _is_missing(score: Score) -> bool:
    if score is None:
        return True
    if isinstance(score, str):
        return score.strip() == ""
    return math.isnan(score)


def score_matrix(rows: Iterable[tuple[str, str, Score]], *, llm: str) -> ScoreMatrix:
    """The `ScoreMatrix` of long (item, rater, score) rows; rater ``llm`` is the LLM.

    A missing score is None, NaN or an empty string. If any score is text, every score is a
    nominal label (its text, as ``str`` gives it) and every distinct label is a category;
    otherwise scores are numbers. Items and humans keep the order in which they first appear.
    The LLM may have scored nothing (its scores are then all NaN). Raises `InputError` for a
    rater who scored an item twice or an infinite score.
    """
    kept: dict[tuple[str, str], Score] = {}
    for item, rater, score in rows:
        if (item, rater) in kept:
            raise InputError(f"rater {rater} scored item {item} more than once")
        kept[(item, rater)] = score
    items = tuple(dict.fromkeys(item for item, _ in kept))
    humans = tuple(dict.fromkeys(rater for _, rater in kept if rater != llm))
    present = {key: score for key, score in kept.items() if not _is_missing(score)}
    categories: tuple[str, ...] | None = None
    values: dict[tuple[str, str], float] = {}
    if any(isinstance(score, str) for score in present.values()):
        categories = tuple(sorted({str(score) for score in present.values()}))
        code = {label: float(index) for index, label in enumerate(categories)}
        values = {key: code[str(score)] for key, score in present.items()}
    else:
        for (item, rater), score in present.items():
            number = float(score) if score is not None else math.nan
            if not math.isfinite(number):
                raise InputError(f"rater {rater} gave item {item} the score {score}")
            values[(item, rater)] = number
    item_index = {item: row for row, item in enumerate(items)}
    human_index = {human: column for column, human in enumerate(humans)}
    human_scores = np.full((len(items), len(humans)), np.nan)
    llm_scores = np.full(len(items), np.nan)
    for (item, rater), value in values.items():
        if rater == llm:
            llm_scores[item_index[item]] = value
        else:
            human_scores[item_index[item], human_index[rater]] = value
    return ScoreMatrix(items, humans, human_scores, llm_scores, categories)


def default_scoring(level: Level) -> AltScoring:
    """``accuracy`` for nominal data, ``neg_rmse`` for ordinal, interval and ratio data."""
    return "accuracy" if level == "nominal" else "neg_rmse"


# The alternative annotator test ------------------------------------------------------------


@dataclass(frozen=True)
class AltTestHuman:
    """One tested annotator j: the LLM against j on the items j and another human scored.

    ``p_value`` is the one-sided t-test's; ``p_adjusted`` is after the Benjamini–Yekutieli
    correction across the tested annotators, and ``rejected`` is ``p_adjusted <= q``.
    ``advantage`` is the share of j's items on which the LLM aligned at least as well as j.
    """

    rater: str
    n_items: int
    p_value: float
    p_adjusted: float
    rejected: bool
    advantage: float


@dataclass(frozen=True)
class UntestedHuman:
    """An annotator with too few items to be tested, who still served as a reference."""

    rater: str
    n_items: int


@dataclass(frozen=True)
class AltTestResult:
    """The alt-test's outcome.

    ``winning_rate`` is the share of tested annotators whose null hypothesis was rejected (the
    LLM beat them), ``passed`` is ``winning_rate >= 0.5``, and ``advantage_probability`` is the
    mean over tested annotators of each one's ``advantage``.
    """

    epsilon: float
    q: float
    scoring: AltScoring
    min_items: int
    winning_rate: float
    advantage_probability: float
    passed: bool
    humans: tuple[AltTestHuman, ...]
    untested: tuple[UntestedHuman, ...]


@dataclass(frozen=True)
class AltTestUnavailable:
    """The alt-test could not run; ``note`` says why in a plain sentence."""

    epsilon: float
    q: float
    scoring: AltScoring
    min_items: int
    note: str


def benjamini_yekutieli(
    p_values: Sequence[float], q: float = DEFAULT_Q
) -> tuple[tuple[float, ...], tuple[bool, ...]]:
    """BY-adjusted p-values (``scipy.stats.false_discovery_control``) and which are ≤ ``q``.

    The step-up procedure of Benjamini and Yekutieli (2001), valid under any dependence between
    the tests: with m tests and c(m) = Σ_{i≤m} 1/i, the k-th smallest p-value is adjusted to
    min over i ≥ k of m·c(m)·p_(i) / i, capped at 1.
    """
    if not p_values:
        return (), ()
    adjusted = stats.false_discovery_control(np.asarray(p_values, dtype=np.float64), method="by")
    values = tuple(float(value) for value in adjusted)
    return values, tuple(value <= q for value in values)


def one_sided_p_value(differences: FloatArray, epsilon: float) -> float:
    """p-value of H0: mean(differences) ≥ ε against mean < ε (one-sample t-test).

    When every difference is the same value d the t statistic has no spread to divide by, and
    scipy gives NaN; the data then leave no doubt, so the p-value is 0 if d < ε and 1 otherwise.
    """
    if len(differences) == 0:
        raise ValueError("the t-test needs at least one difference")
    if np.ptp(differences) == 0:
        return 0.0 if differences[0] < epsilon else 1.0
    result = stats.ttest_1samp(differences, epsilon, alternative="less")
    return float(result.pvalue)


def _misalignment(
    scores: FloatArray, references: FloatArray, counts: FloatArray, scoring: AltScoring
) -> FloatArray:
    """How badly each item's score fits the remaining humans' scores (lower is better).

    For ``accuracy`` it is minus the share of references equal to the score; for ``neg_rmse`` the
    mean squared difference, whose order is that of minus the root mean squared difference.
    """
    gaps = references - scores[:, None]
    present = ~np.isnan(references)
    if scoring == "accuracy":
        equal = (present & (np.abs(np.where(present, gaps, 0.0)) <= SCORE_TOLERANCE)).sum(axis=1)
        return np.asarray(-equal / counts, dtype=np.float64)
    return np.asarray(np.nansum(gaps**2, axis=1) / counts, dtype=np.float64)


def alt_test(
    scores: ScoreMatrix,
    *,
    scoring: AltScoring,
    epsilon: float = DEFAULT_EPSILON,
    q: float = DEFAULT_Q,
    min_items: int = DEFAULT_MIN_ITEMS,
) -> AltTestResult | AltTestUnavailable:
    """The alternative annotator test (Calderon, Reichart and Dror 2025, arXiv 2501.10970).

    For each human j in turn, on every item that j, the LLM and at least one other human scored:
    the alignment of a score with the remaining humans' scores on the item is ``accuracy`` (the
    share of them equal to it) or ``neg_rmse`` (minus the root mean squared difference to them).
    The LLM's indicator is 1 when its alignment is ≥ j's, and j's when j's is ≥ the LLM's, so a
    tie counts for both (alignments within `SCORE_TOLERANCE` are a tie). H0: mean(j's indicator −
    the LLM's) ≥ ``epsilon`` is tested with a one-sided one-sample t-test (`one_sided_p_value`).
    Humans with fewer than ``min_items`` such items are not tested but remain references for the
    others. The p-values are corrected across the tested humans by Benjamini–Yekutieli at ``q``.

    Returns `AltTestUnavailable` when fewer than two humans scored anything, or no human has
    ``min_items`` items. Raises ValueError for ``neg_rmse`` on text labels or a bad parameter.
    """
    if scoring not in ("accuracy", "neg_rmse"):
        raise ValueError(f"unknown alt-test scoring {scoring!r}; use accuracy or neg_rmse")
    if scoring == "neg_rmse" and scores.categories is not None:
        raise ValueError("neg_rmse needs numeric scores; text labels are compared by accuracy")
    if not 0 <= epsilon < 1:
        raise ValueError("epsilon must be at least 0 and below 1")
    if not 0 < q < 1:
        raise ValueError("q must lie between 0 and 1")
    if min_items < 1:
        raise ValueError("min_items must be at least 1")

    def unavailable(note: str) -> AltTestUnavailable:
        return AltTestUnavailable(epsilon, q, scoring, min_items, note)

    humans = scores.human_scores
    scored = ~np.isnan(humans)
    active = [column for column in range(len(scores.humans)) if scored[:, column].any()]
    if len(active) < 2:
        return unavailable(
            f"the alt-test needs at least two human annotators, and {len(active)} scored here"
        )
    llm_scored = ~np.isnan(scores.llm_scores)
    per_item = scored.sum(axis=1)
    tested: list[tuple[str, int, float, float]] = []
    untested: list[UntestedHuman] = []
    for column in active:
        rows = np.flatnonzero(scored[:, column] & llm_scored & (per_item >= 2))
        name = scores.humans[column]
        if len(rows) < min_items:
            untested.append(UntestedHuman(name, len(rows)))
            continue
        references = np.delete(humans[rows], column, axis=1)
        counts = (~np.isnan(references)).sum(axis=1).astype(np.float64)
        llm_miss = _misalignment(scores.llm_scores[rows], references, counts, scoring)
        human_miss = _misalignment(humans[rows, column], references, counts, scoring)
        llm_wins = llm_miss <= human_miss + SCORE_TOLERANCE
        human_wins = human_miss <= llm_miss + SCORE_TOLERANCE
        differences = human_wins.astype(np.float64) - llm_wins.astype(np.float64)
        p_value = one_sided_p_value(differences, epsilon)
        tested.append((name, len(rows), p_value, float(llm_wins.mean())))
    if not tested:
        most = max(untested, key=lambda human: human.n_items)
        return unavailable(
            f"no human annotator has {min_items} items that the LLM and another human also "
            f"scored (the most is {most.n_items}, by {most.rater})"
        )
    adjusted, rejected = benjamini_yekutieli([p for _, _, p, _ in tested], q)
    rows_out = tuple(
        AltTestHuman(name, n_items, p_value, p_adjusted, was_rejected, advantage)
        for (name, n_items, p_value, advantage), p_adjusted, was_rejected in zip(
            tested, adjusted, rejected, strict=True
        )
    )
    winning_rate = sum(rejected) / len(rows_out)
    return AltTestResult(
        epsilon=epsilon,
        q=q,
        scoring=scoring,
        min_items=min_items,
        winning_rate=winning_rate,
        advantage_probability=float(np.mean([row.advantage for row in rows_out])),
        passed=winning_rate >= PASSING_WINNING_RATE,
        humans=rows_out,
        untested=tuple(untested),
    )


# Intervals ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Interval:
    """A percentile bootstrap interval, or a ``note`` saying why there is none."""

    bounds: tuple[float, float] | None
    note: str | None = None


def _interval_of(distribution: FloatArray, confidence: float) -> Interval:
    try:
        return Interval(percentile_interval(distribution, confidence=confidence))
    except StatisticUndefined as error:
        return Interval(None, str(error))


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
    n_clusters = len(set(clusters))
    if n_clusters < min_clusters:
        return Interval(
            None,
            f"{TOO_FEW_FOR_INTERVAL} ({n_clusters} clusters; a cluster bootstrap needs at "
            f"least {min_clusters})",
        )
    blocks = [statistic(weights) for weights in cluster_resample_weights(clusters, resamples, seed)]
    return _interval_of(np.concatenate(blocks), confidence)


# α between the LLM and each human ----------------------------------------------------------


@dataclass(frozen=True)
class PairAlpha:
    """α between two raters on the items both scored, or a ``note`` saying why there is none."""

    raters: tuple[str, str]
    n_items: int
    alpha: float | None
    note: str | None = None


@dataclass(frozen=True)
class MeanAlpha:
    """The unweighted mean of the defined pair α values, with its bootstrap interval."""

    value: float | None
    interval: Interval
    pairs: tuple[PairAlpha, ...]
    note: str | None = None


@dataclass(frozen=True)
class LlmHumanAlpha:
    """α between the LLM and each human (averaged) beside α between humans (the ceiling)."""

    level: Level
    llm_vs_humans: MeanAlpha
    humans_pairwise: MeanAlpha


class MeanPairAlphaStatistic:
    """The mean of several two-rater α values, on bootstrap resamples of the shared items.

    A resample averages the pairs whose α is defined in it; it has no value only if none is.
    """

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
        return PairAlpha(names, both, None, str(error)), None
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
    and are withheld below `MIN_ITEMS_FOR_INTERVAL` usable items. ``resamples=0`` turns them
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
            what = "the LLM and any human" if name == "llm" else "any two humans"
            notes[name] = f"no α between {what} is defined"
            continue
        notes[name] = None
        statistics[name] = MeanPairAlphaStatistic(matrices, level)
    intervals = _alpha_intervals(statistics, resamples=resamples, seed=seed, confidence=confidence)

    def mean_alpha(name: str) -> MeanAlpha:
        pairs = tuple(pair for pair, _ in groups[name])
        values = [pair.alpha for pair in pairs if pair.alpha is not None]
        value = float(np.mean(values)) if values else None
        interval = intervals.get(name, Interval(None, notes[name]))
        return MeanAlpha(value, interval, pairs, notes[name])

    return LlmHumanAlpha(level, mean_alpha("llm"), mean_alpha("humans"))


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
            intervals[name] = Interval(None, "bootstrap resampling was turned off (0 resamples)")
        elif statistic.n_usable < MIN_ITEMS_FOR_INTERVAL:
            intervals[name] = Interval(
                None,
                f"{TOO_FEW_FOR_INTERVAL} ({statistic.n_usable} usable; at least "
                f"{MIN_ITEMS_FOR_INTERVAL} are needed)",
            )
        elif statistic.too_costly(resamples):
            intervals[name] = Interval(
                None, "ratio-level α over this many distinct values is too costly to resample"
            )
        else:
            ready[name] = statistic
    distributions = bootstrap_distributions(ready, resamples=resamples, seed=seed)
    for name, distribution in distributions.items():
        intervals[name] = _interval_of(distribution, confidence)
    return intervals


# The verdict -------------------------------------------------------------------------------


def agreement_verdict(alt: AltTestResult | AltTestUnavailable, alpha: LlmHumanAlpha) -> str:
    """One or two sentences saying whether the LLM can stand in for a human annotator.

    Built from the alt-test and from α between the LLM and the humans beside α between humans;
    never from α with the LLM counted as one more rater.
    """
    if isinstance(alt, AltTestUnavailable):
        opening = (
            f"There is no verdict on whether the LLM can replace a human annotator: {alt.note}."
        )
    else:
        beaten = sum(human.rejected for human in alt.humans)
        rule = "≥" if alt.passed else "<"
        opening = (
            f"The LLM {'can' if alt.passed else 'cannot'} replace a human annotator: in the "
            f"alternative annotator test (ε = {alt.epsilon:g}) it beat {beaten} of "
            f"{len(alt.humans)} annotators, a winning rate of {alt.winning_rate:.2f} "
            f"{rule} {PASSING_WINNING_RATE:g}."
        )
    llm, humans = alpha.llm_vs_humans.value, alpha.humans_pairwise.value
    if llm is None:
        return opening
    ceiling = "" if humans is None else f", against {humans:.2f} between humans"
    return f"{opening} Its α with each human averages {llm:.2f}{ceiling}."
