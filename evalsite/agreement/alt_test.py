"""Whether an LLM can stand in for a human annotator: the alternative annotator test.

Calderon, Reichart and Dror (2025), "The Alternative Annotator Test for LLM-as-a-Judge",
arXiv 2501.10970. Leaving out one human at a time, the test asks whether the LLM's score aligns
with the remaining humans at least as well as the left-out human's score does, up to an
allowance ε. It is one of the four checks of the verdict (`evalsite.agreement.verdict`), never
the verdict alone: with accuracy scoring a constant majority answer passes it. α with the LLM
counted as one more rater is no check at all, because half of that α's pairs are human–human.
docs/agreement.md defines every field.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
from scipy import stats

from evalsite.agreement.common import SCORE_TOLERANCE, FloatArray, Level
from evalsite.agreement.phrases import Phrase, gettext_noop
from evalsite.agreement.score_matrix import ScoreMatrix

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


def default_scoring(level: Level) -> AltScoring:
    """``accuracy`` for nominal data, ``neg_rmse`` for ordinal, interval and ratio data."""
    return "accuracy" if level == "nominal" else "neg_rmse"


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


def benjamini_hochberg(
    p_values: Sequence[float], q: float = DEFAULT_Q
) -> tuple[tuple[float, ...], tuple[bool, ...]]:
    """BH-adjusted p-values and which are ≤ ``q``: the false discovery rate across a table.

    The step-up procedure of Benjamini and Hochberg (1995), for tests that are independent or
    positively dependent, as a breakdown table's groups are: the k-th smallest p-value is
    adjusted to min over i ≥ k of m·p_(i) / i, capped at 1.
    """
    if not p_values:
        return (), ()
    adjusted = stats.false_discovery_control(np.asarray(p_values, dtype=np.float64), method="bh")
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


def cluster_means(differences: FloatArray, clusters: Sequence[Hashable]) -> FloatArray:
    """The mean of ``differences`` within each cluster, in order of first appearance.

    Units of one cluster (the dimensions of one transcript) share its halo, so their
    differences are not independent draws; their mean is one draw per cluster.
    """
    codes_of: dict[Hashable, int] = {}
    codes = np.array([codes_of.setdefault(label, len(codes_of)) for label in clusters])
    sums = np.bincount(codes, weights=differences, minlength=len(codes_of))
    counts = np.bincount(codes, minlength=len(codes_of))
    return np.asarray(sums / counts, dtype=np.float64)


def alt_test(
    scores: ScoreMatrix,
    *,
    scoring: AltScoring,
    epsilon: float = DEFAULT_EPSILON,
    q: float = DEFAULT_Q,
    min_items: int = DEFAULT_MIN_ITEMS,
    clusters: Sequence[Hashable] | None = None,
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

    ``clusters`` (one label per item, such as each (dimension, transcript) unit's transcript)
    makes the test respect clustering: each human's differences are first averaged within each
    cluster, and the t-test runs on those cluster means, one per cluster, so that the units of
    one transcript count once. ``min_items`` still counts items, and ``advantage`` is still a
    share of items. Without ``clusters`` the test is the paper's, item by item.

    Returns `AltTestUnavailable` when fewer than two humans scored anything, when every score
    (the LLM's and the humans') is one and the same value, which leaves nothing to tell an
    LLM that judges from one that always says the same, or when no human has ``min_items``
    items. Raises ValueError for ``neg_rmse`` on text labels or a bad parameter.
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
    if clusters is not None and len(clusters) != len(scores.items):
        raise ValueError(f"{len(scores.items)} items but {len(clusters)} cluster labels")

    def unavailable(note: str) -> AltTestUnavailable:
        return AltTestUnavailable(epsilon, q, scoring, min_items, note)

    humans = scores.human_scores
    scored = ~np.isnan(humans)
    active = [column for column in range(len(scores.humans)) if scored[:, column].any()]
    if len(active) < 2:
        return unavailable(
            Phrase(
                gettext_noop(
                    "the alt-test needs at least two human annotators, and %(n)d scored here"
                ),
                n=len(active),
            )
        )
    llm_scored = ~np.isnan(scores.llm_scores)
    values = np.unique(np.concatenate([humans[scored], scores.llm_scores[llm_scored]]))
    if len(values) == 1:
        return unavailable(
            Phrase(
                gettext_noop(
                    "every score, the LLM's and the humans', is the same value, so the alt-test "
                    "cannot tell agreement from a constant"
                )
            )
        )
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
        if clusters is not None:
            differences = cluster_means(differences, [clusters[int(row)] for row in rows])
        p_value = one_sided_p_value(differences, epsilon)
        tested.append((name, len(rows), p_value, float(llm_wins.mean())))
    if not tested:
        most = max(untested, key=lambda human: human.n_items)
        return unavailable(
            Phrase(
                gettext_noop(
                    "no human annotator has %(needed)d items that the LLM and another human "
                    "also scored (the most is %(most)d, by %(rater)s)"
                ),
                needed=min_items,
                most=most.n_items,
                rater=most.rater,
            )
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
