"""Krippendorff's α, correlations, bootstrap CIs and the human–LLM report, on checked numbers."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from fractions import Fraction
from pathlib import Path

import krippendorff
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy import stats

from evalsite.agreement import alpha as agreement_alpha
from evalsite.agreement import common as agreement
from evalsite.agreement import correlations as agreement_correlations
from evalsite.agreement.alpha import AlphaStatistic, krippendorff_alpha
from evalsite.agreement.bootstrap import (
    bootstrap_ci,
    bootstrap_distributions,
    percentile_interval,
    resample_counts,
)
from evalsite.agreement.common import InputError, StatisticUndefined
from evalsite.agreement.correlations import (
    KendallStatistic,
    PearsonStatistic,
    SpearmanStatistic,
    correlations,
)
from evalsite.agreement.engine import human_llm_agreement
from evalsite.agreement.long_csv import read_long_csv
from evalsite.agreement.rates import RatioOfSums

DATA = Path(__file__).parent / "data"
nan = math.nan

# Published reliability data, typed in from the publications: rows are coders, columns units.
KRIPPENDORFF_2011 = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, nan, nan, nan],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, nan, 3],
    [nan, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, nan],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, nan],
]
WIKIPEDIA_3X15 = [
    [nan, nan, nan, nan, nan, 3, 4, 1, 2, 1, 1, 3, 3, nan, 3],
    [1, nan, 2, 1, 3, 3, 4, 3, nan, nan, nan, nan, nan, nan, nan],
    [nan, nan, 2, 1, 3, 4, 4, nan, 2, 1, 1, 3, 3, nan, 4],
]
KRIPPENDORFF_2004_BINARY = [
    [1, 1, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 1, 1, 0, 0, 1, 0, 1, 0, 0],
]
# Hayes & Krippendorff (2007), Table 1: 40 news articles, 5 observers, tone 0–3.
HAYES_KRIPPENDORFF_2007 = [
    [1, 1, 2, nan, 0, 0, 1, 1, 2, 2, nan, 0, 1, 3, 1, 1, 2, 1, 1, 0,
     0, 0, 2, 0, 1, 0, 0, 1, 1, 1, 1, 2, 2, 3, 2, 2, 2, 2, 2, 1],
    [1, 1, 3, 0, 0, 0, 0, nan, 2, 1, 1, 0, 2, 3, 1, 1, 1, 2, 1, 0,
     0, 0, 3, 0, 2, 1, 0, 2, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 1],
    [2, 0, 3, 0, 0, 0, 2, 2, 2, 1, 0, 0, 2, 2, 1, 1, 2, 3, 0, 0,
     1, nan, 3, 0, nan, 1, 0, 1, 2, 2, 0, 2, nan, 2, 2, 3, 2, nan, 2, 1],
    [nan, 1, 3, nan, nan, nan, nan, 0, nan, 1, 0, 0, 2, 2, nan, nan, nan, 3, 1, nan,
     1, 0, 3, 0, 2, 1, 1, 2, 2, nan, nan, 1, 2, 2, nan, nan, nan, 1, 2, nan],
    [2, nan, nan, 0, 0, 0, 1, nan, 2, nan, nan, nan, nan, 3, 1, 1, 2, nan, nan, 0,
     nan, 0, nan, nan, 2, nan, 0, nan, nan, 2, 0, nan, 2, nan, 2, 2, 2, 2, nan, 1],
]  # fmt: skip

# A small case worked by hand below: 4 units × 2 raters, values 1–3 (n = 8 pairable values,
# n_1 = 2, n_2 = 3, n_3 = 3). Only units (1, 2) and (1, 3) disagree.
HAND_MATRIX = [[1, 2], [2, 2], [3, 3], [1, 3]]


def units_by_raters(coders_by_units: Sequence[Sequence[float]]) -> np.ndarray:
    return np.array(coders_by_units, dtype=float).T


def resampled_rows(weights: np.ndarray) -> list[np.ndarray]:
    """The item indices of each resample, as a plain bootstrap loop would draw them."""
    return [np.repeat(np.arange(weights.shape[1]), row.astype(int)) for row in weights]


# Krippendorff's alpha: published values -----------------------------------------------------


@pytest.mark.parametrize(
    ("level", "published"),
    [("nominal", 0.743), ("ordinal", 0.815), ("interval", 0.849), ("ratio", 0.797)],
)
def test_it_reproduces_krippendorff_2011_at_every_level(
    level: agreement.Level, published: float
) -> None:
    alpha = krippendorff_alpha(units_by_raters(KRIPPENDORFF_2011), level)
    assert round(alpha, 3) == published


@pytest.mark.parametrize(("level", "published"), [("nominal", 0.691), ("interval", 0.811)])
def test_it_reproduces_the_wikipedia_example(level: agreement.Level, published: float) -> None:
    alpha = krippendorff_alpha(units_by_raters(WIKIPEDIA_3X15), level)
    assert round(alpha, 3) == published


def test_it_reproduces_krippendorff_2004_binary_example() -> None:
    assert (
        round(krippendorff_alpha(units_by_raters(KRIPPENDORFF_2004_BINARY), "nominal"), 3) == 0.095
    )


def test_it_reproduces_hayes_and_krippendorff_2007_ordinal_alpha() -> None:
    assert (
        round(krippendorff_alpha(units_by_raters(HAYES_KRIPPENDORFF_2007), "ordinal"), 4) == 0.7598
    )


# Krippendorff's alpha: worked by hand -------------------------------------------------------
#
# α = 1 − (n − 1) · Σ_u q_u / Σ_ck n_c n_k δ_ck, with q_u = Σ_{i≠j in u} δ / (m_u − 1).
# Nominal: Σq = 2 + 2 (two disagreeing units, 2 ordered pairs each); Σ n_c n_k δ = 64 − 4 − 9 − 9.
# Interval: Σq = 2·1² + 2·2² = 10; Σ n_c n_k δ = 2(6·1 + 9·1 + 6·4) = 78.
# Ordinal: midranks 1, 3.5, 6.5, so δ12 = 6.25, δ23 = 9, δ13 = 30.25;
#   Σq = 2·6.25 + 2·30.25 = 73; Σ n_c n_k δ = 2(6·6.25 + 9·9 + 6·30.25) = 600.
# Ratio: δ = ((c − k)/(c + k))², so δ12 = 1/9, δ23 = 1/25, δ13 = 1/4;
#   Σq = 2/9 + 2/4 = 13/18; Σ n_c n_k δ = 2(6/9 + 9/25 + 6/4) = 379/75.
HAND_ALPHA = {
    "nominal": 1 - Fraction(7 * 4, 42),
    "interval": 1 - Fraction(7 * 10, 78),
    "ordinal": 1 - Fraction(7 * 73, 600),
    "ratio": 1 - 7 * Fraction(13, 18) / Fraction(379, 75),
}


@pytest.mark.parametrize("level", sorted(HAND_ALPHA))
def test_it_matches_alpha_worked_by_hand(level: agreement.Level) -> None:
    alpha = krippendorff_alpha(HAND_MATRIX, level)
    assert alpha == pytest.approx(float(HAND_ALPHA[level]), abs=1e-12)


@pytest.mark.parametrize("level", sorted(HAND_ALPHA))
def test_its_many_valued_formulas_match_the_hand_values(
    level: agreement.Level, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(agreement_alpha, "_PACKAGE_CELL_LIMIT", 0)
    alpha = krippendorff_alpha(HAND_MATRIX, level)
    assert alpha == pytest.approx(float(HAND_ALPHA[level]), abs=1e-12)


def test_it_counts_the_scale_as_the_ordinal_domain_without_changing_alpha() -> None:
    # Levels 4 and 5 are unused; in Krippendorff's ordinal distance they carry no weight.
    alpha = krippendorff_alpha(HAND_MATRIX, "ordinal", value_domain=[1, 2, 3, 4, 5])
    assert alpha == pytest.approx(89 / 600, abs=1e-12)


def test_it_rejects_scores_outside_the_value_domain() -> None:
    with pytest.raises(ValueError, match="score 3 is not in the value domain"):
        krippendorff_alpha(HAND_MATRIX, "ordinal", value_domain=[1, 2])


def test_it_handles_continuous_scores_that_would_exhaust_the_package() -> None:
    # Two raters, 20,000 units, about 30,000 distinct values: the package would need a
    # 20,000 × V × V table. For complete two-rater data the interval α reduces to
    # 1 − (n − 1) Σ (a − b)² / (n² · population variance of all n values).
    generator = np.random.default_rng(3)
    truth = generator.normal(3, 1, 20_000)
    matrix = np.column_stack(
        [truth + generator.normal(0, 0.5, 20_000), truth + generator.normal(0, 0.5, 20_000)]
    ).round(4)
    values = matrix.ravel()
    n = len(values)
    expected = 1 - (n - 1) * ((matrix[:, 0] - matrix[:, 1]) ** 2).sum() / (n**2 * values.var())
    assert krippendorff_alpha(matrix, "interval") == pytest.approx(expected, rel=1e-9)


@pytest.mark.parametrize("level", ["nominal", "ordinal", "ratio"])
def test_it_matches_the_package_on_many_valued_data_at_every_level(
    level: agreement.Level, monkeypatch: pytest.MonkeyPatch
) -> None:
    generator = np.random.default_rng(11)
    matrix = generator.gamma(4, 1, size=(200, 3)).round(1)
    matrix[generator.random(matrix.shape) < 0.2] = nan
    expected = krippendorff.alpha(matrix.T, level_of_measurement=level)
    monkeypatch.setattr(agreement_alpha, "_PACKAGE_CELL_LIMIT", 0)
    assert krippendorff_alpha(matrix, level) == pytest.approx(expected, abs=1e-10)


small_matrices = arrays(
    np.float64,
    st.tuples(st.integers(2, 12), st.integers(2, 4)),
    elements=st.one_of(st.sampled_from([1.0, 2.0, 3.0, 4.0, 5.0, 2.5]), st.just(nan)),
)


@settings(max_examples=60, deadline=None)
@given(matrix=small_matrices, level=st.sampled_from(agreement.LEVELS))
def test_its_own_formulas_agree_with_the_package_on_any_small_matrix(
    matrix: np.ndarray, level: agreement.Level
) -> None:
    try:
        with_package = krippendorff_alpha(matrix, level)
    except StatisticUndefined:
        return
    own = AlphaStatistic(matrix, level)(np.ones((1, matrix.shape[0])))[0]
    assert own == pytest.approx(with_package, abs=1e-10)


def test_it_gives_no_alpha_for_a_single_rater() -> None:
    with pytest.raises(StatisticUndefined, match="only one rater"):
        krippendorff_alpha([[1, nan], [2, nan], [3, nan]], "ordinal")


def test_it_gives_no_alpha_when_no_item_has_two_scores() -> None:
    with pytest.raises(StatisticUndefined, match="no item was scored by two or more raters"):
        krippendorff_alpha([[1, nan], [nan, 2], [3, nan]], "nominal")


def test_it_gives_no_alpha_for_a_constant_score() -> None:
    with pytest.raises(StatisticUndefined, match="every score is 4"):
        krippendorff_alpha([[4.0, 4.0], [4.0, 4.0], [4.0, nan]], "interval")


def test_it_refuses_negative_ratio_scores() -> None:
    with pytest.raises(ValueError, match="cannot be negative"):
        krippendorff_alpha([[-1, 2], [3, 4]], "ratio")


# Correlations -------------------------------------------------------------------------------


def test_it_computes_correlations_worked_by_hand() -> None:
    # x = 1..5, y = 2,1,4,3,5: deviations (−2,−1,0,1,2) and (−1,−2,1,0,2); Σ dx·dy = 8 and
    # Σ dx² = Σ dy² = 10, so r = 0.8; the values are their own ranks, so ρ = 0.8 too.
    # Of the 10 pairs only (1,2) and (3,4) are discordant: τ = (8 − 2) / 10.
    found = correlations([1, 2, 3, 4, 5], [2, 1, 4, 3, 5])
    assert found.pearson.statistic == pytest.approx(0.8)
    assert found.spearman.statistic == pytest.approx(0.8)
    assert found.kendall.statistic == pytest.approx(0.6)
    # t = r √(n − 2) / √(1 − r²) on 3 degrees of freedom, whose CDF has a closed form.
    t = 0.8 * math.sqrt(3) / 0.6
    cdf = 0.5 + (t / math.sqrt(3) / (1 + t * t / 3) + math.atan(t / math.sqrt(3))) / math.pi
    assert found.pearson.pvalue == pytest.approx(2 * (1 - cdf))
    # Exact two-sided p: permutations of 5 with at most 2 inversions are 1 + 4 + 9 of 120.
    assert found.kendall.pvalue == pytest.approx(2 * 14 / 120)


def test_it_computes_tie_corrected_ranks_and_tau_b_by_hand() -> None:
    # Ranks of x (4.5, 2, 3.5, 1.5) are 4, 2, 3, 1; of y (5, 3, 3, 1) are 4, 2.5, 2.5, 1.
    # ρ = 4.5 / √(5 · 4.5). τ-b: 5 concordant, 0 discordant, one pair tied in y: 5 / √(6 · 5).
    found = correlations([4.5, 2, 3.5, 1.5], [5, 3, 3, 1])
    assert found.spearman.statistic == pytest.approx(4.5 / math.sqrt(22.5))
    assert found.kendall.statistic == pytest.approx(5 / math.sqrt(30))


def test_it_leaves_out_pairs_with_a_missing_value() -> None:
    found = correlations([1, 2, nan, 3, 4, 5], [2, 1, 9, 4, 3, 5])
    assert found.pearson.statistic == pytest.approx(0.8)


def test_it_gives_no_correlation_for_fewer_than_three_pairs() -> None:
    with pytest.raises(StatisticUndefined, match="only 2 item"):
        correlations([1, 2, nan], [3, 4, 5])


def test_it_gives_no_correlation_for_a_constant_variable() -> None:
    with pytest.raises(StatisticUndefined, match="the LLM is the same \\(3\\) on every item"):
        correlations([1, 2, 3], [3, 3, 3], names=("the humans", "the LLM"))


# Bootstrap ----------------------------------------------------------------------------------


def test_it_draws_every_resample_with_replacement_over_all_items() -> None:
    blocks = list(resample_counts(7, 250, seed=42))
    weights = np.vstack(blocks)
    assert weights.shape == (250, 7)
    assert (weights.sum(axis=1) == 7).all()
    assert len(blocks) == 3


def test_it_draws_the_same_resamples_for_the_same_seed_only() -> None:
    first = np.vstack(list(resample_counts(30, 120, seed=5)))
    again = np.vstack(list(resample_counts(30, 120, seed=5)))
    other = np.vstack(list(resample_counts(30, 120, seed=6)))
    assert (first == again).all()
    assert not (first == other).all()


@pytest.mark.parametrize("level", agreement.LEVELS)
def test_its_vectorised_alpha_bootstrap_matches_a_naive_loop(level: agreement.Level) -> None:
    generator = np.random.default_rng(1)
    matrix = generator.integers(1, 6, size=(25, 3)).astype(float)
    matrix[generator.random(matrix.shape) < 0.2] = nan
    weights = next(resample_counts(25, 60, seed=9))
    vectorised = AlphaStatistic(matrix, level)(weights)
    naive = [
        krippendorff.alpha(matrix[rows].T, level_of_measurement=level)
        for rows in resampled_rows(weights)
    ]
    assert vectorised == pytest.approx(naive, abs=1e-10)


@pytest.mark.parametrize(
    ("statistic", "scipy_function"),
    [
        (PearsonStatistic, stats.pearsonr),
        (SpearmanStatistic, stats.spearmanr),
        (KendallStatistic, stats.kendalltau),
    ],
)
def test_its_vectorised_correlation_bootstrap_matches_a_naive_loop(
    statistic: type, scipy_function: object
) -> None:
    generator = np.random.default_rng(2)
    x = generator.integers(1, 6, 30) / 3 + generator.integers(1, 4, 30)
    y = np.clip(x.round() + generator.integers(-1, 2, 30), 1, 5)
    x[[3, 17]] = nan
    weights = next(resample_counts(30, 50, seed=4))
    vectorised = statistic(x, y)(weights)
    naive = []
    for rows in resampled_rows(weights):
        keep = ~np.isnan(x[rows])
        naive.append(scipy_function(x[rows][keep], y[rows][keep]).statistic)  # type: ignore[operator]
    assert vectorised == pytest.approx(naive, abs=1e-10)


def test_its_looped_kendall_path_matches_the_sign_matrix_path(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    generator = np.random.default_rng(8)
    x = generator.normal(size=40)
    y = x + generator.normal(size=40)
    weights = next(resample_counts(40, 30, seed=1))
    with_matrix = KendallStatistic(x, y)(weights)
    monkeypatch.setattr(agreement_correlations, "KENDALL_SIGN_MATRIX_LIMIT", 0)
    assert KendallStatistic(x, y)(weights) == pytest.approx(with_matrix, abs=1e-12)


def test_its_ratio_of_sums_bootstrap_matches_a_naive_loop() -> None:
    numerator = np.array([1.0, 0.0, 2.0, 3.0, 0.5])
    denominator = np.array([2.0, 1.0, 2.0, 0.0, 1.0])
    weights = next(resample_counts(5, 40, seed=3))
    naive = [numerator[rows].sum() / denominator[rows].sum() for rows in resampled_rows(weights)]
    assert RatioOfSums(numerator, denominator)(weights) == pytest.approx(naive)


def test_it_takes_percentiles_with_linear_interpolation() -> None:
    # 1,001 sorted values 0..1000: the 2.5th and 97.5th percentiles sit exactly on 25 and 975.
    assert percentile_interval(np.arange(1001.0)[::-1]) == pytest.approx((25.0, 975.0))
    assert percentile_interval(np.arange(1001.0), confidence=0.9) == pytest.approx((50.0, 950.0))


def test_it_gives_a_reproducible_ci_that_follows_the_seed() -> None:
    generator = np.random.default_rng(12)
    truth = generator.integers(1, 6, 60)
    matrix = np.column_stack(
        [np.clip(truth + generator.integers(-1, 2, 60), 1, 5) for _ in range(3)]
    ).astype(float)
    statistic = AlphaStatistic(matrix, "ordinal")
    low, high = bootstrap_ci(statistic)
    assert (low, high) == bootstrap_ci(statistic, seed=42, resamples=1000)
    assert (low, high) != bootstrap_ci(statistic, seed=43)
    assert low < krippendorff_alpha(matrix, "ordinal") < high


def test_it_gives_no_ci_for_too_few_items() -> None:
    with pytest.raises(StatisticUndefined, match=r"too few items for an interval \(4 usable"):
        bootstrap_ci(AlphaStatistic(HAND_MATRIX, "interval"))
    with pytest.raises(StatisticUndefined, match="only 4 item"):
        bootstrap_ci(RatioOfSums(np.ones(4), np.ones(4)))


def test_it_gives_no_ci_when_some_resample_has_no_value() -> None:
    # One disagreeing item among twenty constant ones: many resamples hold a single value.
    matrix = np.array([[2, 2]] * 20 + [[2, 3]], dtype=float)
    with pytest.raises(StatisticUndefined, match=r"undefined in [0-9]+ of 1000 resamples"):
        bootstrap_ci(AlphaStatistic(matrix, "nominal"))


def test_it_resamples_several_statistics_on_the_same_items() -> None:
    x = np.arange(12.0)
    distributions = bootstrap_distributions(
        {"mean": RatioOfSums(x, np.ones(12)), "twice": RatioOfSums(2 * x, np.ones(12))},
        resamples=200,
        seed=1,
    )
    assert distributions["twice"] == pytest.approx(2 * distributions["mean"])


# The human–LLM report -----------------------------------------------------------------------

# Two humans and an LLM on four items (the same scores as tests/evalsite/data/hand_example.csv).
HAND_SCORES = {
    "a": {"h1": 4, "h2": 5, "gpt": 5},
    "b": {"h1": 2, "h2": 2, "gpt": 3},
    "c": {"h1": 3, "h2": 4, "gpt": 3},
    "d": {"h1": 1, "h2": 2, "gpt": 1},
}


def long_frame(
    scores: Mapping[str, Mapping[str, float]], **columns: dict[str, str]
) -> pd.DataFrame:
    rows = [
        {"item": item, "rater": rater, "score": score}
        | {name: values[item] for name, values in columns.items()}
        for item, by_rater in scores.items()
        for rater, score in by_rater.items()
    ]
    return pd.DataFrame(rows)


def test_it_reports_every_human_llm_statistic_worked_by_hand() -> None:
    block = human_llm_agreement(long_frame(HAND_SCORES), llm="gpt", level="interval")["dimensions"][
        "all"
    ]
    assert block["n_items"] == 4
    assert block["raters"] == ["gpt", "h1", "h2"]
    # Humans: unit disagreements 2, 0, 2, 2; values sum 23, squares 79, n = 8:
    # α = 1 − 7 · 6 / (2 · (8 · 79 − 23²)).
    assert block["alpha"]["humans"] == pytest.approx(1 - 42 / 206)
    # With the LLM: each unit's 3·Σv² − (Σv)² is 2; n = 12, Σv = 35, Σv² = 123.
    assert block["alpha"]["humans_plus_llm"] == pytest.approx(1 - 11 * 8 / (2 * (12 * 123 - 35**2)))
    # LLM (5, 3, 3, 1) against human means (4.5, 2, 3.5, 1.5): squared gaps .25, 1, .25, .25.
    assert block["alpha"]["llm_vs_human_mean"] == pytest.approx(1 - 7 * 3.5 / 219.5)
    # Deviations (1.625, −.875, .625, −1.375) and (2, 0, 0, −2): r = 6 / √(5.6875 · 8).
    assert block["pearson"]["r"] == pytest.approx(6 / math.sqrt(5.6875 * 8))
    assert block["spearman"]["rho"] == pytest.approx(4.5 / math.sqrt(22.5))
    assert block["kendall"]["tau"] == pytest.approx(5 / math.sqrt(30))
    assert block["mae"] == pytest.approx((0.5 + 1 + 0.5 + 0.5) / 4)
    # Exact matches: a/h2, c/h1, d/h1 of 8 pairs; every pair is within one point.
    assert block["exact_agreement"] == pytest.approx(3 / 8)
    assert block["within_one"] == 1.0
    assert 0 < block["pearson"]["p"] < 1


def test_it_treats_every_rater_as_human_without_an_llm() -> None:
    block = human_llm_agreement(long_frame(HAND_SCORES), level="interval")["dimensions"]["all"]
    # All three raters are humans now: the same matrix as "humans + LLM" above.
    assert block["alpha"]["humans"] == pytest.approx(1 - 88 / 502)
    assert block["alpha"]["humans_plus_llm"] is None
    assert block["pearson"] == {"r": None, "p": None, "ci": None}
    assert block["mae"] is None
    assert any(note.startswith("No rater is marked as the LLM") for note in block["notes"])


def test_it_explains_a_null_alpha_for_a_single_human() -> None:
    scores = {item: {"h1": s["h1"], "gpt": s["gpt"]} for item, s in HAND_SCORES.items()}
    block = human_llm_agreement(long_frame(scores), llm="gpt")["dimensions"]["all"]
    assert block["alpha"]["humans"] is None
    assert block["alpha_ci"]["humans"] is None
    assert block["alpha"]["humans_plus_llm"] is not None
    assert (
        "alpha.humans and alpha_ci.humans are null: only one rater scored these items."
        in block["notes"]
    )


def test_it_explains_null_correlations_for_a_constant_llm() -> None:
    scores = {item: {**s, "gpt": 3} for item, s in HAND_SCORES.items()}
    block = human_llm_agreement(long_frame(scores), llm="gpt")["dimensions"]["all"]
    assert block["spearman"]["rho"] is None
    assert block["mae"] == pytest.approx((1.5 + 1 + 0.5 + 1.5) / 4)
    assert any(
        "spearman.rho and spearman.p" in note and "the LLM's score is the same (3)" in note
        for note in block["notes"]
    )


def test_it_explains_an_llm_that_scored_nothing_here() -> None:
    frame = long_frame(HAND_SCORES, dimension={"a": "x", "b": "x", "c": "y", "d": "y"})
    frame = frame[~((frame["rater"] == "gpt") & (frame["dimension"] == "y"))]
    block = human_llm_agreement(frame, llm="gpt")["dimensions"]["y"]
    assert block["alpha"]["llm_vs_human_mean"] is None
    assert any("The LLM rater 'gpt' scored none of these items" in n for n in block["notes"])


def several_items(count: int = 30, seed: int = 0) -> pd.DataFrame:
    generator = np.random.default_rng(seed)
    scores = {}
    for number in range(count):
        quality = int(generator.integers(1, 6))
        scores[f"i{number}"] = {
            rater: float(np.clip(quality + generator.integers(-1, 2), 1, 5))
            for rater in ("h1", "h2", "h3", "llm")
        }
    systems = {item: ("kbrd" if n % 3 else "chatgpt") for n, item in enumerate(scores)}
    return long_frame(scores, system=systems)


def test_it_puts_a_ci_on_every_statistic_from_the_same_resamples() -> None:
    frame = several_items()
    block = human_llm_agreement(frame, llm="llm", seed=7)["dimensions"]["all"]
    for interval in (
        *block["alpha_ci"].values(),
        block["pearson"]["ci"],
        block["spearman"]["ci"],
        block["kendall"]["ci"],
        block["mae_ci"],
        block["exact_agreement_ci"],
        block["within_one_ci"],
    ):
        assert interval[0] <= interval[1]
    humans = frame[frame["rater"] != "llm"].pivot(index="item", columns="rater", values="score")
    expected = bootstrap_ci(AlphaStatistic(humans.to_numpy(), "ordinal"), seed=7)
    assert block["alpha_ci"]["humans"] == pytest.approx(list(expected))
    assert block["notes"] == []


def test_it_turns_cis_off_with_zero_resamples() -> None:
    block = human_llm_agreement(several_items(), llm="llm", resamples=0)["dimensions"]["all"]
    assert block["alpha"]["humans"] is not None
    assert block["alpha_ci"] == {
        "humans": None,
        "humans_plus_llm": None,
        "llm_vs_human_mean": None,
        "llm_vs_humans": None,
        "humans_pairwise": None,
    }
    assert block["kendall"]["ci"] is None
    assert block["notes"] == [
        "Every CI is null: bootstrap resampling was turned off (0 resamples)."
    ]


def test_it_breaks_each_dimension_down_by_a_metadata_column() -> None:
    frame = several_items()
    report = human_llm_agreement(frame, llm="llm", resamples=0, by=["system"])
    groups = report["dimensions"]["all"]["by"]["system"]
    assert sorted(groups) == ["chatgpt", "kbrd"]
    assert groups["chatgpt"]["n_items"] == 10
    assert groups["kbrd"]["n_items"] == 20
    only_chatgpt = frame[frame["system"] == "chatgpt"]
    alone = human_llm_agreement(only_chatgpt, llm="llm", resamples=0)["dimensions"]["all"]
    assert groups["chatgpt"]["alpha"] == alone["alpha"]
    assert "by" not in groups["chatgpt"]


def test_it_reports_each_dimension_in_the_order_it_first_appears() -> None:
    frame = pd.concat([several_items().assign(dimension=name) for name in ("fluency", "coherence")])
    report = human_llm_agreement(frame, llm="llm", resamples=0)
    assert list(report["dimensions"]) == ["fluency", "coherence"]


def test_its_report_is_strict_json_even_when_everything_is_undefined() -> None:
    frame = pd.DataFrame({"item": ["a", "b"], "rater": ["h1", "llm"], "score": [3.0, 3.0]})
    report = human_llm_agreement(frame, llm="llm")
    json.dumps(report, allow_nan=False)
    block = report["dimensions"]["all"]
    assert block["alpha"] == {
        "humans": None,
        "humans_plus_llm": None,
        "llm_vs_human_mean": None,
        "llm_vs_humans": None,
        "humans_pairwise": None,
    }
    assert block["notes"]


def test_it_rejects_a_rater_scoring_an_item_twice() -> None:
    frame = long_frame(HAND_SCORES)
    frame = pd.concat([frame, frame.iloc[[0]]], ignore_index=True)
    with pytest.raises(InputError, match="rows 0 and 12: rater h1 scored item a more than once"):
        human_llm_agreement(frame)


def test_it_rejects_a_score_outside_the_scale() -> None:
    with pytest.raises(InputError, match="score 5 is outside the scale 1:4"):
        human_llm_agreement(long_frame(HAND_SCORES), scale=(1, 4))


def test_it_rejects_a_non_numeric_score() -> None:
    frame = long_frame(HAND_SCORES).astype({"score": object})
    frame.loc[3, "score"] = "good"
    with pytest.raises(InputError, match="row 3: score 'good' is not a number"):
        human_llm_agreement(frame)


def test_it_rejects_a_breakdown_by_an_unknown_column() -> None:
    with pytest.raises(InputError, match="no metadata column 'system'"):
        human_llm_agreement(long_frame(HAND_SCORES), by=["system"])


def test_it_rejects_a_breakdown_column_that_varies_within_an_item() -> None:
    frame = long_frame(HAND_SCORES, system={"a": "s1", "b": "s1", "c": "s2", "d": "s2"})
    frame.loc[0, "system"] = "s9"
    with pytest.raises(InputError, match="item a has more than one value of 'system'"):
        human_llm_agreement(frame, by=["system"])


# Reading long CSV files ---------------------------------------------------------------------


def test_it_reads_a_long_csv_with_line_numbers_as_the_index() -> None:
    frame = read_long_csv(DATA / "hand_example.csv")
    assert list(frame.columns) == ["item", "rater", "score", "dimension", "system"]
    assert frame.index[0] == 2
    assert frame["score"].tolist()[:3] == [4.0, 5.0, 5.0]


def test_it_names_the_line_of_a_non_numeric_score() -> None:
    with pytest.raises(InputError, match="line 3, column 'score': 'four' is not a number"):
        read_long_csv(DATA / "non_numeric_score.csv")


def test_it_names_a_missing_column() -> None:
    with pytest.raises(InputError, match="there is no 'rater' column"):
        read_long_csv(DATA / "missing_rater_column.csv")


def test_it_names_a_row_with_the_wrong_number_of_fields() -> None:
    with pytest.raises(InputError, match="line 3: 4 field"):
        read_long_csv(DATA / "ragged_row.csv")


def test_it_rejects_a_binary_file(tmp_path: Path) -> None:
    path = tmp_path / "scores.xlsx"
    path.write_bytes(b"PK\x03\x04\x14\x00\x06\x00\x08\x00\xa1\xff\x00")
    with pytest.raises(InputError, match="the file is not CSV text"):
        read_long_csv(path)


def test_it_rejects_an_empty_file(tmp_path: Path) -> None:
    path = tmp_path / "empty.csv"
    path.write_text("")
    with pytest.raises(InputError, match="is empty"):
        read_long_csv(path)


def test_it_rejects_an_infinite_score(tmp_path: Path) -> None:
    path = tmp_path / "scores.csv"
    path.write_text("item,rater,score\ni1,r1,inf\n")
    with pytest.raises(InputError, match="line 2, column 'score': 'inf' is not a finite number"):
        read_long_csv(path)


def test_it_accepts_a_byte_order_mark_and_blank_lines(tmp_path: Path) -> None:
    path = tmp_path / "scores.csv"
    path.write_text("\ufeffitem,rater,score\ni1,r1,4\n\ni1,r2,3\n", encoding="utf-8")
    frame = read_long_csv(path)
    assert frame["rater"].tolist() == ["r1", "r2"]
    assert frame.index.tolist() == [2, 4]


def test_it_rejects_a_file_with_a_header_only(tmp_path: Path) -> None:
    path = tmp_path / "scores.csv"
    path.write_text("item,rater,score\n")
    with pytest.raises(InputError, match="the file has a header but no rows of scores"):
        read_long_csv(path)


def test_it_names_the_line_of_an_empty_item(tmp_path: Path) -> None:
    path = tmp_path / "scores.csv"
    path.write_text("item,rater,score\ni1,r1,4\n ,r2,3\n")
    with pytest.raises(InputError, match="line 3, column 'item' is empty"):
        read_long_csv(path)


def test_it_explains_null_llm_comparisons_when_no_item_has_both() -> None:
    frame = pd.DataFrame(
        {"item": ["a", "a", "b"], "rater": ["h1", "h2", "llm"], "score": [3.0, 4.0, 2.0]}
    )
    block = human_llm_agreement(frame, llm="llm")["dimensions"]["all"]
    assert block["mae"] is None
    assert (
        "mae, mae_ci, exact_agreement, exact_agreement_ci, exact_agreement_per_item, "
        "exact_agreement_per_item_ci, within_one and within_one_ci are null: no item has both "
        "an LLM score and a human score." in block["notes"]
    )
