"""The alternative annotator test, LLM-vs-human α and the cluster bootstrap, on checked numbers."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from fractions import Fraction

import krippendorff
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy import stats

from evalsite.agreement.alpha import AlphaStatistic, krippendorff_alpha
from evalsite.agreement.alt_test import (
    AltTestResult,
    AltTestUnavailable,
    UntestedHuman,
    alt_test,
    benjamini_yekutieli,
    one_sided_p_value,
)
from evalsite.agreement.bootstrap import bootstrap_ci, resample_counts
from evalsite.agreement.clusters import (
    JACKKNIFE_GROUPS,
    cluster_bootstrap_ci,
    cluster_interval,
    cluster_jackknife_weights,
    cluster_resample_weights,
)
from evalsite.agreement.common import (
    TOO_FEW_FOR_INTERVAL,
    InputError,
    Level,
    StatisticUndefined,
)
from evalsite.agreement.engine import agreement_blocks
from evalsite.agreement.pairwise_alpha import MeanPairAlphaStatistic, llm_human_alpha
from evalsite.agreement.rates import RatioOfSums
from evalsite.agreement.score_matrix import ScoreMatrix, score_matrix
from evalsite.agreement.verdict import StandIn

nan = math.nan


def matrix_of(scores: Mapping[str, Sequence[float | str | None]], llm: str = "llm") -> ScoreMatrix:
    """A ScoreMatrix from one list per rater (one entry per item, None for not scored)."""
    rows = [
        (f"i{position + 1}", rater, score)
        for rater, column in scores.items()
        for position, score in enumerate(column)
    ]
    return score_matrix(rows, llm=llm)


def verdict_of(scores: ScoreMatrix, level: Level = "ordinal") -> StandIn:
    """The one rule's verdict on ``scores``, through the agreement engine (300 resamples)."""
    rows = [
        (item, human, score)
        for i, item in enumerate(scores.items)
        for j, human in enumerate(scores.humans)
        if not math.isnan(score := float(scores.human_scores[i, j]))
    ]
    rows += [
        (item, "llm", float(score))
        for item, score in zip(scores.items, scores.llm_scores, strict=True)
    ]
    frame = pd.DataFrame(rows, columns=["item", "rater", "score"])
    block = agreement_blocks(frame, llm="llm", level=level, resamples=300)["all"]
    assert block.verdict is not None
    return block.verdict


def ran(result: AltTestResult | AltTestUnavailable) -> AltTestResult:
    assert isinstance(result, AltTestResult), result
    return result


def t_test_p(mean: float, sd: float, n: int, epsilon: float) -> float:
    """The one-sided p-value of a one-sample t-test, from the mean and SD worked by hand."""
    return float(stats.t.cdf((mean - epsilon) / (sd / math.sqrt(n)), df=n - 1))


# The alt-test: worked by hand ---------------------------------------------------------------
#
# Three humans and the LLM on four nominal items; every item has three human scores.
TIES = {
    "h1": [1, 1, 2, 1],
    "h2": [1, 2, 2, 2],
    "h3": [1, 2, 1, 1],
    "llm": [1, 2, 1, 2],
}
# Leaving out h1 (references h2, h3), accuracies h1 : LLM per item are
#   i1 1 : 1 (tie), i2 0 : 1 (LLM), i3 ½ : ½ (tie), i4 ½ : ½ (tie),
# so h1's indicator − the LLM's is d = [0, −1, 0, 0]: mean −¼, SD ½ (Σ(d − mean)² = ¾ over 3).
# Leaving out h2 (references h1, h3): 1 : 1, ½ : ½, ½ : ½, 0 : 0, all ties, d = [0, 0, 0, 0].
# Leaving out h3 (references h1, h2): 1 : 1, ½ : ½, 0 : 0, ½ : ½, all ties, d = [0, 0, 0, 0].
# The LLM's indicator is 1 on every item for every human, so each advantage is 1.


def test_it_counts_a_tie_for_both_the_llm_and_the_human() -> None:
    result = ran(alt_test(matrix_of(TIES), scoring="accuracy", epsilon=0.15, min_items=4))
    by_rater = {human.rater: human for human in result.humans}
    assert by_rater["h1"].p_value == pytest.approx(t_test_p(-0.25, 0.5, 4, 0.15))
    # t = (−¼ − 0.15) / (½ / 2) = −1.6 on 3 degrees of freedom.
    assert by_rater["h1"].p_value == pytest.approx(stats.t.cdf(-1.6, df=3))
    # All differences equal 0 < ε: no spread for a t statistic, and no doubt either.
    assert by_rater["h2"].p_value == 0.0
    assert by_rater["h3"].p_value == 0.0
    assert [human.advantage for human in result.humans] == [1.0, 1.0, 1.0]
    assert [human.n_items for human in result.humans] == [4, 4, 4]


def test_it_corrects_the_tied_case_by_benjamini_yekutieli() -> None:
    # m = 3, c(3) = 1 + ½ + ⅓ = 11/6, so the largest p-value becomes 3 · 11/6 · p / 3 = 11/6 · p
    # (about 0.19, not rejected) and the two zeros stay 0 (rejected): 2 of 3 beaten.
    result = ran(alt_test(matrix_of(TIES), scoring="accuracy", epsilon=0.15, min_items=4))
    p_h1 = stats.t.cdf(-1.6, df=3)
    assert [human.p_adjusted for human in result.humans] == pytest.approx(
        [float(Fraction(11, 6)) * p_h1, 0.0, 0.0]
    )
    assert [human.rejected for human in result.humans] == [False, True, True]
    assert result.winning_rate == pytest.approx(2 / 3)
    assert result.passed is True
    assert result.advantage_probability == 1.0
    assert (result.epsilon, result.q, result.scoring) == (0.15, 0.05, "accuracy")


# Three humans and the LLM on a 1–5 scale. Items i4 (one human) and i5 (no LLM score) are left
# out. Mean squared differences (whose order is that of −RMSE), human : LLM:
#   without h1 (refs h2, h3): i1 (1+4)/2 = 2.5 : (0+1)/2 = ½ (LLM); i2 (0+1)/2 = ½ : (9+16)/2 =
#     12.5 (h1); i3 0 : 0 (tie). d = [−1, 1, 0]: mean 0, SD 1; LLM indicators 1, 0, 1.
#   without h2 (refs h1, h3): i1 (1+1)/2 = 1 : 1 (tie); i2 ½ : 12.5 (h2); i3 tie.
#     d = [0, 1, 0]: mean ⅓, SD √⅓ (Σ(d − mean)² = ⅔ over 2); LLM indicators 1, 0, 1.
#   without h3 (refs h1, h2): i1 (4+1)/2 = 2.5 : (1+0)/2 = ½ (LLM); i2 1 : 9 (h3); i3 tie.
#     d = [−1, 1, 0], as for h1.
NEG_RMSE: dict[str, list[float | None]] = {
    "h1": [1, 4, 3, 2, 1],
    "h2": [2, 4, 3, None, 2],
    "h3": [3, 5, 3, None, None],
    "llm": [2, 1, 3, 4, None],
}


def test_it_aligns_by_negative_rmse_worked_by_hand() -> None:
    result = ran(alt_test(matrix_of(NEG_RMSE), scoring="neg_rmse", epsilon=0.15, min_items=3))
    assert [human.n_items for human in result.humans] == [3, 3, 3]
    assert [human.p_value for human in result.humans] == pytest.approx(
        [
            t_test_p(0, 1, 3, 0.15),
            t_test_p(1 / 3, math.sqrt(1 / 3), 3, 0.15),
            t_test_p(0, 1, 3, 0.15),
        ]
    )
    assert [human.advantage for human in result.humans] == pytest.approx([2 / 3] * 3)
    # 11/6 · 3 / 3 · 0.68 and 11/6 · 3 / 2 · 0.41 both exceed 1, so every adjusted p is 1.
    assert [human.p_adjusted for human in result.humans] == [1.0, 1.0, 1.0]
    assert result.winning_rate == 0.0
    assert result.passed is False
    assert result.advantage_probability == pytest.approx(2 / 3)


# Humans A and B agree everywhere; C scored only i1, too few items to be tested.
#   With C, leaving out A (refs B, C) on i1: A = 1 matches ½ of (1, 2), the LLM's 2 matches ½,
#   a tie; i2 and i3 are ties, so d = [0, 0, 0] and p = 0 for A, and likewise for B.
#   Without C, i1's only reference is B = 1: A matches it and the LLM does not, so d = [1, 0, 0]
#   (mean ⅓, SD √⅓), which is far from rejecting mean ≥ 0.15.
REFERENCE_ONLY: dict[str, list[float | None]] = {
    "A": [1, 1, 2],
    "B": [1, 1, 2],
    "C": [2, None, None],
    "llm": [2, 1, 2],
}


def test_it_keeps_an_untested_annotator_among_the_references() -> None:
    result = ran(alt_test(matrix_of(REFERENCE_ONLY), scoring="accuracy", min_items=2))
    assert [human.rater for human in result.humans] == ["A", "B"]
    assert result.untested == (UntestedHuman("C", 1),)
    assert [human.p_value for human in result.humans] == [0.0, 0.0]
    assert result.winning_rate == 1.0

    without_c = {rater: scores for rater, scores in REFERENCE_ONLY.items() if rater != "C"}
    alone = ran(alt_test(matrix_of(without_c), scoring="accuracy", min_items=2))
    assert alone.humans[0].p_value == pytest.approx(t_test_p(1 / 3, math.sqrt(1 / 3), 3, 0.15))
    assert alone.winning_rate == 0.0


def test_it_takes_text_labels_as_categories() -> None:
    labels = {1: "yes", 2: "n/a: problem is resolved"}
    as_text = {rater: [labels[score] for score in scores] + [""] for rater, scores in TIES.items()}
    matrix = matrix_of(as_text)
    assert matrix.categories == ("n/a: problem is resolved", "yes")
    assert matrix.items == ("i1", "i2", "i3", "i4", "i5")
    numeric = ran(alt_test(matrix_of(TIES), scoring="accuracy", min_items=4))
    textual = ran(alt_test(matrix, scoring="accuracy", min_items=4))
    assert textual.humans == numeric.humans
    with pytest.raises(ValueError, match="neg_rmse needs numeric scores"):
        alt_test(matrix, scoring="neg_rmse")


def test_it_says_why_it_cannot_run_with_one_human() -> None:
    result = alt_test(matrix_of({"h1": [1, 2, 3], "llm": [1, 2, 3]}), scoring="accuracy")
    assert isinstance(result, AltTestUnavailable)
    assert result.note == "the alt-test needs at least two human annotators, and 1 scored here"


def test_it_says_why_it_cannot_run_without_enough_items() -> None:
    result = alt_test(matrix_of(TIES), scoring="accuracy")
    assert isinstance(result, AltTestUnavailable)
    assert result.note == (
        "no human annotator has 30 items that the LLM and another human also scored (the most "
        "is 4, by h1)"
    )


@pytest.mark.parametrize(
    ("parameters", "message"),
    [
        ({"epsilon": 1.0}, "epsilon"),
        ({"q": 0.0}, "q must"),
        ({"min_items": 0}, "min_items"),
        ({"scoring": "kappa"}, "unknown alt-test scoring"),
    ],
)
def test_it_rejects_bad_parameters(parameters: dict[str, object], message: str) -> None:
    arguments: dict[str, object] = {"scoring": "accuracy"} | parameters
    with pytest.raises(ValueError, match=message):
        alt_test(matrix_of(TIES), **arguments)  # type: ignore[arg-type]


def test_it_rejects_a_rater_scoring_an_item_twice() -> None:
    with pytest.raises(InputError, match="rater h1 scored item a more than once"):
        score_matrix([("a", "h1", 1.0), ("a", "h1", 2.0)], llm="llm")


def test_it_decides_a_t_test_without_spread_by_the_common_value() -> None:
    assert one_sided_p_value(np.array([0.1, 0.1]), 0.15) == 0.0
    assert one_sided_p_value(np.array([0.15]), 0.15) == 1.0
    assert one_sided_p_value(np.array([1.0, 1.0, 1.0]), 0.15) == 1.0


# The clustered alt-test: the t-tests on cluster means --------------------------------------
# Two humans who always say 1, and an LLM on 8 items in 4 clusters (transcripts) of 2. Leaving
# out either human, the other's 1 is the only reference: the human always matches it and the
# LLM matches it where it says 1, so d = 1 − [LLM says 1] = [0, 1 | 0, 0 | 1, 1 | 0, 0].
# Item by item: mean 3/8 over 8 items. Cluster by cluster: means [½, 0, 1, 0], mean 3/8 over 4.
CLUSTERED = {"h1": [1] * 8, "h2": [1] * 8, "llm": [1, 2, 1, 1, 2, 2, 1, 1]}
TRANSCRIPTS = ["t1", "t1", "t2", "t2", "t3", "t3", "t4", "t4"]


def test_the_clustered_alt_test_runs_its_t_tests_on_cluster_means() -> None:
    scores = matrix_of(CLUSTERED)
    clustered = ran(
        alt_test(scores, scoring="accuracy", min_items=1, epsilon=0.1, clusters=TRANSCRIPTS)
    )
    means = [0.5, 0.0, 1.0, 0.0]
    expected = t_test_p(float(np.mean(means)), float(np.std(means, ddof=1)), 4, 0.1)
    assert [human.p_value for human in clustered.humans] == pytest.approx([expected] * 2)
    # The item-by-item test (the paper's) counts each item once: 8 draws, not 4.
    paper = ran(alt_test(scores, scoring="accuracy", min_items=1, epsilon=0.1))
    d = [0, 1, 0, 0, 1, 1, 0, 0]
    by_item = t_test_p(float(np.mean(d)), float(np.std(d, ddof=1)), 8, 0.1)
    assert [human.p_value for human in paper.humans] == pytest.approx([by_item] * 2)
    assert by_item != pytest.approx(expected)
    # Items are still counted, and the advantage is still a share of items.
    assert [(h.n_items, h.advantage) for h in clustered.humans] == [(8, 5 / 8), (8, 5 / 8)]


def test_clusters_of_one_item_give_the_papers_test() -> None:
    scores = matrix_of(CLUSTERED)
    alone = ran(
        alt_test(scores, scoring="accuracy", min_items=1, clusters=[f"c{n}" for n in range(8)])
    )
    assert alone == ran(alt_test(scores, scoring="accuracy", min_items=1))


def test_the_clustered_alt_test_needs_one_label_per_item() -> None:
    with pytest.raises(ValueError, match="8 items but 3 cluster labels"):
        alt_test(matrix_of(CLUSTERED), scoring="accuracy", clusters=["a", "b", "c"])


def test_the_engine_runs_a_clustered_blocks_alt_test_on_cluster_means() -> None:
    # CLUSTERED four times over, as 32 items in 16 transcripts of 2 (the engine needs 30 items).
    labels = [f"{transcript}-{copy}" for copy in range(4) for transcript in TRANSCRIPTS]
    rows = [
        (f"i{n:02d}", rater, float(column[n % 8]), labels[n])
        for rater, column in CLUSTERED.items()
        for n in range(32)
    ]
    frame = pd.DataFrame(rows, columns=["item", "rater", "score", "transcript"])
    block = agreement_blocks(frame, llm="llm", level="nominal", resamples=0, cluster="transcript")
    found = block["all"].alt_test
    assert found is not None
    repeated = matrix_of({rater: column * 4 for rater, column in CLUSTERED.items()})
    expected = ran(alt_test(repeated, scoring="accuracy", clusters=labels))
    paper = ran(alt_test(repeated, scoring="accuracy"))
    assert [h.p_value for h in found.humans] == pytest.approx([h.p_value for h in expected.humans])
    assert found.humans[0].p_value != pytest.approx(paper.humans[0].p_value)
    assert any("t-tests ran on the mean of each cluster" in note for note in block["all"].notes)


# Benjamini–Yekutieli: adjusted p_(k) = min over i ≥ k of m · c(m) · p_(i) / i -----------------


def test_it_adjusts_p_values_by_benjamini_yekutieli_worked_by_hand() -> None:
    # m = 4, c(4) = 25/12, m · c = 25/3: 0.001 → 0.00833; 0.01 / 2 → 0.04167; 0.02 / 3 → 0.0556;
    # 0.5 / 4 → 1.04, capped at 1. Given in any order.
    adjusted, rejected = benjamini_yekutieli([0.5, 0.001, 0.02, 0.01])
    assert adjusted == pytest.approx([1.0, 25 / 3 * 0.001, 25 / 3 * 0.02 / 3, 25 / 3 * 0.01 / 2])
    assert rejected == (False, True, False, True)


def test_it_rejects_below_q_only_after_the_dependence_penalty() -> None:
    # m = 4, m · c = 25/3: each of 0.01..0.04 becomes 25/3 · k / 100 / k = 1/12 > 0.05, so none
    # is rejected, where Benjamini–Hochberg (no c(m)) would reject all four at 0.04.
    adjusted, rejected = benjamini_yekutieli([0.01, 0.02, 0.03, 0.04])
    assert adjusted == pytest.approx([1 / 12] * 4)
    assert rejected == (False, False, False, False)


def test_it_steps_up_from_the_largest_rejected_p_value() -> None:
    # m = 2, m · c = 3: 0.013 → 3 · 0.013 / 2 = 0.0195; 0.012 → min(0.036, 0.0195).
    adjusted, rejected = benjamini_yekutieli([0.012, 0.013])
    assert adjusted == pytest.approx([0.0195, 0.0195])
    assert rejected == (True, True)


# The alt-test against the published algorithm ------------------------------------------------


def reference_alt_test(
    humans: dict[str, dict[int, float]],
    llm: dict[int, float],
    scoring: str,
    epsilon: float,
    min_items: int,
    q: float = 0.05,
) -> tuple[float, float, list[float]] | None:
    """The paper's published procedure (dict loops, −RMSE with a square root, BY by thresholds).

    Only the zero-spread t-test is decided by the common value, as `alt_test` documents.
    """
    raters_of: dict[int, list[str]] = {}
    for human, scores in humans.items():
        for item in scores:
            raters_of.setdefault(item, []).append(human)
    kept = {item for item, raters in raters_of.items() if len(raters) >= 2 and item in llm}

    def align(score: float, others: list[float]) -> float:
        if scoring == "accuracy":
            return sum(other == score for other in others) / len(others)
        return -math.sqrt(sum((score - other) ** 2 for other in others) / len(others))

    p_values, advantages = [], []
    for human, scores in humans.items():
        items = [item for item in scores if item in kept]
        if len(items) < min_items:
            continue
        differences, wins = [], []
        for item in items:
            others = [humans[other][item] for other in raters_of[item] if other != human]
            mine, its = align(scores[item], others), align(llm[item], others)
            wins.append(int(its >= mine))
            differences.append(int(mine >= its) - int(its >= mine))
        if len(set(differences)) == 1:
            p_values.append(0.0 if differences[0] < epsilon else 1.0)
        else:
            p_values.append(stats.ttest_1samp(differences, epsilon, alternative="less").pvalue)
        advantages.append(sum(wins) / len(wins))
    if not p_values:
        return None
    m = len(p_values)
    c = sum(1 / k for k in range(1, m + 1))
    order = np.argsort(p_values)
    passing = [rank for rank in range(1, m + 1) if p_values[order[rank - 1]] <= q * rank / (m * c)]
    rejected = max(passing, default=0)
    return rejected / m, sum(advantages) / m, p_values


score_grids = arrays(
    np.float64,
    st.tuples(st.integers(3, 12), st.integers(3, 5)),
    elements=st.one_of(st.sampled_from([1.0, 2.0, 3.0, 2.5]), st.just(nan)),
)


@settings(max_examples=60, deadline=None)
@given(
    grid=score_grids,
    scoring=st.sampled_from(["accuracy", "neg_rmse"]),
    epsilon=st.sampled_from([0.0, 0.1, 0.15, 0.2]),
    min_items=st.integers(1, 4),
)
def test_it_agrees_with_the_published_algorithm_on_any_small_grid(
    grid: np.ndarray, scoring: str, epsilon: float, min_items: int
) -> None:
    # The last column is the LLM.
    human_columns = [f"h{column}" for column in range(grid.shape[1] - 1)]
    humans = {
        name: {row: float(grid[row, column]) for row in range(len(grid))}
        for column, name in enumerate(human_columns)
    }
    humans = {
        name: {row: value for row, value in scores.items() if not math.isnan(value)}
        for name, scores in humans.items()
    }
    llm = {row: float(value) for row, value in enumerate(grid[:, -1]) if not math.isnan(value)}
    matrix = ScoreMatrix(
        tuple(str(row) for row in range(len(grid))),
        tuple(human_columns),
        grid[:, :-1].copy(),
        grid[:, -1].copy(),
    )
    result = alt_test(matrix, scoring=scoring, epsilon=epsilon, min_items=min_items)  # type: ignore[arg-type]
    expected = reference_alt_test(
        {name: scores for name, scores in humans.items() if scores},
        llm,
        scoring,
        epsilon,
        min_items,
    )
    if expected is None:
        assert isinstance(result, AltTestUnavailable)
        return
    observed = grid[~np.isnan(grid)]
    if len(np.unique(observed)) == 1:
        # One value throughout: withheld on purpose (see the constant-scores test below).
        assert isinstance(result, AltTestUnavailable)
        return
    winning_rate, advantage, p_values = expected
    result = ran(result)
    assert result.winning_rate == pytest.approx(winning_rate)
    assert result.advantage_probability == pytest.approx(advantage)
    assert [human.p_value for human in result.humans] == pytest.approx(p_values, nan_ok=True)


# LLM-vs-human α ------------------------------------------------------------------------------


def agreeing_panel(
    generator: np.random.Generator, n_items: int, n_humans: int
) -> tuple[np.ndarray, np.ndarray]:
    """True 1–5 scores and humans one step off them 60% of the time (α about 0.8)."""
    truth = generator.integers(1, 6, n_items)
    steps = generator.choice([-1, 0, 1], p=[0.3, 0.4, 0.3], size=(n_items, n_humans))
    return truth, np.clip(truth[:, None] + steps, 1, 5).astype(float)


def panel_matrix(humans: np.ndarray, llm: np.ndarray) -> ScoreMatrix:
    return ScoreMatrix(
        tuple(f"i{row}" for row in range(len(humans))),
        tuple(f"h{column}" for column in range(humans.shape[1])),
        humans,
        llm.astype(float),
    )


def test_its_mean_alphas_match_the_package_pair_by_pair() -> None:
    generator = np.random.default_rng(5)
    _, humans = agreeing_panel(generator, 40, 3)
    humans[generator.random(humans.shape) < 0.2] = nan
    llm = generator.integers(1, 6, 40).astype(float)
    result = llm_human_alpha(panel_matrix(humans, llm), "ordinal", resamples=200)

    def package(first: np.ndarray, second: np.ndarray) -> float:
        return float(krippendorff.alpha(np.vstack([first, second]), level_of_measurement="ordinal"))

    llm_alphas = [package(llm, humans[:, column]) for column in range(3)]
    human_alphas = [package(humans[:, a], humans[:, b]) for a, b in [(0, 1), (0, 2), (1, 2)]]
    assert result.llm_vs_humans.value == pytest.approx(np.mean(llm_alphas), abs=1e-12)
    assert result.humans_pairwise.value == pytest.approx(np.mean(human_alphas), abs=1e-12)
    assert [pair.raters for pair in result.humans_pairwise.pairs] == [
        ("h0", "h1"),
        ("h0", "h2"),
        ("h1", "h2"),
    ]
    for mean in (result.llm_vs_humans, result.humans_pairwise):
        assert mean.interval.bounds is not None
        low, high = mean.interval.bounds
        assert mean.value is not None
        assert low < mean.value < high


def test_its_mean_alpha_bootstrap_matches_a_naive_loop() -> None:
    generator = np.random.default_rng(6)
    matrices = [generator.integers(1, 4, size=(15, 2)).astype(float) for _ in range(2)]
    weights = next(resample_counts(15, 30, seed=2))
    naive = [
        np.mean([krippendorff_alpha(matrix[rows], "nominal") for matrix in matrices])
        for rows in (np.repeat(np.arange(15), row.astype(int)) for row in weights)
    ]
    assert MeanPairAlphaStatistic(matrices, "nominal")(weights) == pytest.approx(naive)


def test_it_gives_no_alpha_interval_on_too_few_items() -> None:
    result = llm_human_alpha(matrix_of(NEG_RMSE), "interval")
    assert result.llm_vs_humans.value is not None
    assert result.llm_vs_humans.interval.bounds is None
    assert result.llm_vs_humans.interval.note == (
        f"{TOO_FEW_FOR_INTERVAL} (4 usable; at least 20 are needed)"
    )


def test_it_explains_a_pair_without_alpha_and_averages_the_others() -> None:
    # h3 shares no item with anyone, so every pair with h3 has no α and the means skip them.
    scores = matrix_of(
        {
            "h1": [1, 2, 3, None],
            "h2": [1, 3, 3, None],
            "h3": [None, None, None, 2],
            "llm": [1, 2, 2, None],
        }
    )
    result = llm_human_alpha(scores, "interval", resamples=0)
    lone = result.llm_vs_humans.pairs[2]
    assert (lone.raters, lone.n_items, lone.alpha) == (("LLM", "h3"), 0, None)
    assert lone.note == "no item was scored by two or more raters"
    assert result.llm_vs_humans.value == pytest.approx(
        np.mean(
            [
                krippendorff_alpha([[1, 1], [2, 2], [2, 3]], "interval"),
                krippendorff_alpha([[1, 1], [2, 3], [2, 3]], "interval"),
            ]
        )
    )
    assert [pair.alpha is None for pair in result.humans_pairwise.pairs] == [False, True, True]
    assert result.llm_vs_humans.interval.note == (
        "bootstrap resampling was turned off (0 resamples)"
    )


def test_it_refuses_a_non_nominal_alpha_on_text_labels() -> None:
    with pytest.raises(ValueError, match="their α is nominal"):
        llm_human_alpha(matrix_of({"h1": ["a", "b"], "h2": ["a", "a"]}), "ordinal")


# Adversarial: an LLM that scores at random, and one that copies a human -----------------------


def test_a_random_llm_fails_against_agreeing_humans() -> None:
    generator = np.random.default_rng(13)
    _, humans = agreeing_panel(generator, 80, 5)
    llm = generator.integers(1, 6, 80)
    scores = panel_matrix(humans, llm)
    alt = ran(alt_test(scores, scoring="neg_rmse", epsilon=0.15))
    alpha = llm_human_alpha(scores, "ordinal", resamples=300)
    assert alt.winning_rate == 0.0
    assert alt.passed is False
    assert alpha.humans_pairwise.value == pytest.approx(0.8, abs=0.06)
    assert alpha.llm_vs_humans.value == pytest.approx(0.0, abs=0.15)
    verdict = verdict_of(scores)
    assert not verdict.stands_in
    assert not verdict.check("alt_test").passed and verdict.check("alt_test").value == 0.0
    assert not verdict.check("alpha_above_zero").passed


def test_an_llm_that_copies_one_human_passes() -> None:
    # Leaving out the copied human, the LLM ties on every item (p = 0); leaving out any other,
    # the LLM's scores are among the references, so it aligns at least as well nearly always.
    generator = np.random.default_rng(13)
    _, humans = agreeing_panel(generator, 80, 5)
    scores = panel_matrix(humans, humans[:, 0])
    alt = ran(alt_test(scores, scoring="neg_rmse", epsilon=0.15))
    alpha = llm_human_alpha(scores, "ordinal", resamples=300)
    assert alt.humans[0].p_value == 0.0
    assert alt.winning_rate == 1.0
    assert alt.passed is True
    assert alt.advantage_probability > 0.8
    assert alpha.llm_vs_humans.value is not None
    assert verdict_of(scores).stands_in


def test_a_constant_llm_fails_against_agreeing_humans() -> None:
    # Always 3: it matches the people only where they say 3, so it must not pass.
    generator = np.random.default_rng(13)
    _, humans = agreeing_panel(generator, 80, 5)
    scores = panel_matrix(humans, np.full(80, 3))
    alt = ran(alt_test(scores, scoring="neg_rmse", epsilon=0.15))
    alpha = llm_human_alpha(scores, "ordinal", resamples=300)
    assert alt.passed is False and alt.winning_rate == 0.0
    # A constant rater beside people who vary has α at or below chance with each of them.
    assert alpha.llm_vs_humans.value is not None and alpha.llm_vs_humans.value <= 0.05
    verdict = verdict_of(scores)
    assert not verdict.stands_in
    assert not verdict.check("answers_vary").passed and verdict.check("answers_vary").value == 1


def test_constant_scores_everywhere_give_no_alt_test_and_no_alpha_and_say_why() -> None:
    scores = panel_matrix(np.full((40, 3), 4.0), np.full(40, 4))

    alt = alt_test(scores, scoring="neg_rmse")
    alpha = llm_human_alpha(scores, "ordinal", resamples=100)

    assert isinstance(alt, AltTestUnavailable)
    assert alt.note == (
        "every score, the LLM's and the humans', is the same value, so the alt-test cannot "
        "tell agreement from a constant"
    )
    assert alpha.llm_vs_humans.value is None and alpha.llm_vs_humans.note
    assert alpha.humans_pairwise.value is None and alpha.humans_pairwise.note
    verdict = verdict_of(scores)
    assert not verdict.stands_in
    assert [check.passed for check in verdict.checks] == [False, False, False, False]
    assert "the alternative annotator test could not be run" in verdict.sentence


def test_its_verdict_says_when_there_is_none() -> None:
    scores = matrix_of({"h1": [1, 2, 3], "llm": [1, 2, 3]})
    verdict = verdict_of(scores)
    assert not verdict.stands_in
    assert verdict.sentence == (
        "The LLM cannot stand in for people: the alternative annotator test could not be run, "
        "its α with people has no confidence interval and its α with people cannot be set "
        "against α between people."
    )


# The cluster bootstrap -----------------------------------------------------------------------


def test_it_draws_whole_clusters() -> None:
    clusters = ["t1", "t1", "t2", "t3", "t3", "t3"]
    weights = np.vstack(list(cluster_resample_weights(clusters, 150, seed=4)))
    assert weights.shape == (150, 6)
    # Units of one cluster share its count, and every resample draws three clusters.
    assert (weights[:, 0] == weights[:, 1]).all()
    assert (weights[:, 3] == weights[:, 5]).all()
    assert (weights[:, [0, 2, 3]].sum(axis=1) == 3).all()
    expected = np.vstack(list(resample_counts(3, 150, seed=4)))
    assert (weights[:, [0, 2, 3]] == expected).all()


def test_it_gives_no_cluster_interval_for_too_few_clusters() -> None:
    values = np.arange(30.0)
    interval = cluster_bootstrap_ci(
        RatioOfSums(values, np.ones(30)), [unit // 2 for unit in range(30)]
    )
    assert interval.bounds is None
    assert interval.note == (
        f"{TOO_FEW_FOR_INTERVAL} (15 clusters; a cluster bootstrap needs at least 20)"
    )


def test_it_refuses_cluster_labels_that_do_not_fit_the_statistic() -> None:
    with pytest.raises(ValueError, match="3 units but 2 cluster labels"):
        cluster_bootstrap_ci(RatioOfSums([1, 2, 3], [1, 1, 1]), ["a", "b"])


def halo_datasets(
    generator: np.random.Generator, transcripts: int, dimensions: int
) -> tuple[np.ndarray, list[int]]:
    """A rater's error on each (dimension, transcript) unit: a per-transcript halo plus noise.

    The true mean error is 0. The halo (SD 1) is shared by every dimension of a transcript, the
    noise (SD ½) is not, so units of one transcript correlate at 1 / 1.25 = 0.8.
    """
    halo = generator.normal(0, 1, transcripts)
    errors = halo[:, None] + generator.normal(0, 0.5, (transcripts, dimensions))
    return errors.ravel(), [unit // dimensions for unit in range(transcripts * dimensions)]


def test_its_cluster_interval_covers_a_pooled_statistic_under_a_transcript_halo() -> None:
    # With 6 correlated dimensions per transcript, the unit bootstrap treats 240 units as
    # independent: its interval is about √(1 + 5 · 0.8) ≈ 2.2 times too narrow, and covers the
    # truth in roughly 60% of datasets. Resampling the 40 transcripts covers it near 95%.
    generator = np.random.default_rng(2025)
    datasets = 200
    cluster_hits = unit_hits = 0
    for dataset in range(datasets):
        errors, transcripts = halo_datasets(generator, 40, 6)
        pooled_mean = RatioOfSums(errors, np.ones(len(errors)))
        bounds = cluster_bootstrap_ci(pooled_mean, transcripts, resamples=400, seed=dataset).bounds
        assert bounds is not None
        cluster_hits += bounds[0] <= 0 <= bounds[1]
        low, high = bootstrap_ci(pooled_mean, resamples=400, seed=dataset)
        unit_hits += low <= 0 <= high
    assert cluster_hits / datasets >= 0.90
    assert unit_hits / datasets < 0.80


def pooled_ratings(
    generator: np.random.Generator, transcripts: int
) -> tuple[np.ndarray, list[int]]:
    """(dimension, transcript) units × 3 people, centred within each of 8 dimensions.

    1–5 scores: a dimension's mean (−1 to 1 around 3), the transcript's quality (s.d. 0.8), each
    person's halo on the transcript (s.d. 0.5, shared by its 8 dimensions) and noise (s.d. 0.7).
    Centred within dimensions, as the report's pooled α is, and taken at the interval level.
    """
    offsets = np.linspace(-1, 1, 8)
    quality = generator.normal(0, 0.8, transcripts)
    halo = generator.normal(0, 0.5, (transcripts, 1, 3))
    noise = generator.normal(0, 0.7, (transcripts, 8, 3))
    scores = np.clip(
        np.round(3 + offsets[None, :, None] + quality[:, None, None] + halo + noise), 1, 5
    )
    scores -= scores.mean(axis=(0, 2), keepdims=True)
    return scores.reshape(transcripts * 8, 3), [unit // 8 for unit in range(transcripts * 8)]


@pytest.mark.monte_carlo
def test_its_cluster_interval_of_pooled_alpha_keeps_its_promise_at_20_transcripts() -> None:
    """600 datasets of 20 transcripts × 8 dimensions, 1,000 resamples each.

    The truth is α on 20,000 transcripts of the same kind (0.418). Measured: the BCa interval,
    widened for 20 clusters, covers it in 553 of 600 datasets (92.2%, Monte Carlo s.e. 1.1%);
    the plain percentile interval of the same resamples in 519 (86.5%, s.e. 1.4%). The BCa
    interval is 5% wider on average (0.377 against 0.360).
    """
    generator = np.random.default_rng(20)
    large, _ = pooled_ratings(generator, 20_000)
    truth = krippendorff_alpha(large, "interval")
    datasets = 600
    covered = percentile_covered = 0
    for dataset in range(datasets):
        ratings, transcripts = pooled_ratings(generator, 20)
        statistic = AlphaStatistic(ratings, "interval")
        bounds = cluster_bootstrap_ci(statistic, transcripts, seed=dataset).bounds
        assert bounds is not None
        covered += bounds[0] <= truth <= bounds[1]
        weights = cluster_resample_weights(transcripts, 1000, seed=dataset)
        distribution = np.concatenate([statistic(block) for block in weights])
        low, high = np.quantile(distribution, [0.025, 0.975])
        percentile_covered += low <= truth <= high
    rate, plain = covered / datasets, percentile_covered / datasets
    error = math.sqrt(rate * (1 - rate) / datasets)
    assert rate >= 0.90, f"covered {covered} of {datasets} (s.e. {error:.3f})"
    # The plain percentile interval is what fell short: the design can see the difference.
    assert plain < 0.90 <= rate, f"percentile covered {percentile_covered} of {datasets}"


def test_its_cluster_interval_is_widened_for_few_clusters() -> None:
    # With no bias (half the resamples below the estimate) and no skew (a symmetric jackknife),
    # BCa is the percentile interval at z = √(n / (n − 1)) · t_{n−1}: at 20 clusters
    # √(20/19) · 2.0930 = 2.1474, so the 1.588% and 98.412% quantiles; at 10,000 about 1.96.
    distribution = np.arange(1, 10_001, dtype=np.float64)
    jackknife = np.array([-1.0, 0.0, 1.0])
    bounds = cluster_interval(distribution, 5000.5, jackknife, n_clusters=20)
    tail = stats.norm.cdf(-math.sqrt(20 / 19) * stats.t.ppf(0.975, 19))
    assert tail == pytest.approx(0.01588, abs=1e-5)
    assert bounds == pytest.approx(tuple(np.quantile(distribution, [tail, 1 - tail])))
    large = cluster_interval(distribution, 5000.5, jackknife, n_clusters=10_000)
    assert large == pytest.approx(tuple(np.quantile(distribution, [0.025, 0.975])), rel=1e-3)


def test_its_cluster_interval_corrects_bias_and_skew() -> None:
    # Every resample above the estimate but 10%: z0 = Φ⁻¹(0.1); a skewed jackknife gives
    # a = Σd³ / (6 (Σd²)^{3/2}). The levels are Φ(z0 + (z0 ± z) / (1 − a (z0 ± z))).
    distribution = np.linspace(0, 1, 1001)
    estimate = 0.1
    jackknife = np.array([0.0, 0.0, 0.0, 1.0])
    gaps = jackknife.mean() - jackknife
    a = np.sum(gaps**3) / (6 * np.sum(gaps**2) ** 1.5)
    z0 = stats.norm.ppf(100.5 / 1001)  # 100 below and one tie, counted half
    z = math.sqrt(30 / 29) * stats.t.ppf(0.975, 29)
    levels = stats.norm.cdf(
        [z0 + (z0 - z) / (1 - a * (z0 - z)), z0 + (z0 + z) / (1 - a * (z0 + z))]
    )
    bounds = cluster_interval(distribution, estimate, jackknife, n_clusters=30)
    assert bounds == pytest.approx(tuple(np.quantile(distribution, levels)))
    assert a < 0 and bounds[1] < 0.975


def test_its_jackknife_leaves_out_one_cluster_or_one_group_of_clusters() -> None:
    weights = cluster_jackknife_weights(["a", "a", "b", "c", "c"])
    assert weights.tolist() == [[0, 0, 1, 1, 1], [1, 1, 0, 1, 1], [1, 1, 1, 0, 0]]
    many = cluster_jackknife_weights([unit // 2 for unit in range(2 * (JACKKNIFE_GROUPS + 3))])
    assert many.shape == (JACKKNIFE_GROUPS, 2 * (JACKKNIFE_GROUPS + 3))
    # Cluster 0 and cluster JACKKNIFE_GROUPS share the first group.
    assert np.flatnonzero(many[0] == 0).tolist() == [
        0,
        1,
        2 * JACKKNIFE_GROUPS,
        2 * JACKKNIFE_GROUPS + 1,
    ]


def test_it_withholds_a_cluster_interval_when_a_resample_has_no_value() -> None:
    numerator = np.zeros(25)
    denominator = np.zeros(25)
    denominator[0] = 1.0
    interval = cluster_bootstrap_ci(RatioOfSums(numerator, denominator), list(range(25)))
    assert interval.bounds is None
    assert interval.note is not None
    assert "undefined in" in interval.note
    with pytest.raises(StatisticUndefined):
        bootstrap_ci(RatioOfSums(numerator, denominator))
