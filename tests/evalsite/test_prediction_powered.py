"""Prediction-powered estimates: the reference library's figures, hand-worked cases, coverage.

The reference figures in ``data/ppi_reference.json`` come from ``ppi_py`` 0.2.3, run outside the
project (which does not depend on it) on seeded arrays:

    python3 -m venv /tmp/ppienv && /tmp/ppienv/bin/pip install ppi_python==0.2.3
    /tmp/ppienv/bin/python tests/evalsite/data/make_ppi_reference.py

For each case (and each group of data/judge_estimate_example.csv) the script stores the arrays
(Y, Yhat, Yhat_unlabeled) and ``ppi_mean_pointestimate(Y, Yhat, Yhat_unlabeled)``,
``ppi_mean_ci(Y, Yhat, Yhat_unlabeled, alpha=0.05)`` (both with ``lam=None``) and
``classical_mean_ci(Y, alpha=0.05)``; for the cases also the interval with ``lam=1``.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from scipy.stats import norm

from evalsite.agreement.common import StatisticUndefined
from evalsite.agreement.prediction_powered import (
    classical_mean,
    mean_estimates,
    needed_ratings,
    power_tuning,
    ppi_mean,
    rogan_gladen,
)

REFERENCE = json.loads(
    (Path(__file__).parent / "data" / "ppi_reference.json").read_text(encoding="utf-8")
)
CASES: dict[str, dict[str, Any]] = {case["name"]: case for case in REFERENCE["cases"]}
Z = float(norm.ppf(0.975))
TOLERANCE = 1e-6


def arrays(case: dict[str, Any]) -> tuple[list[float], list[float], list[float]]:
    return case["human"], case["llm_labeled"], case["llm_unlabeled"]


@pytest.mark.parametrize("name", sorted(CASES))
def test_it_equals_ppi_py_on_the_reference_arrays(name: str) -> None:
    case = CASES[name]
    found = mean_estimates(*arrays(case), alpha=0.05)
    assert found.ppi_mean == pytest.approx(case["ppi_mean"], abs=TOLERANCE)
    assert found.ppi_ci == pytest.approx(tuple(case["ppi_ci"]), abs=TOLERANCE)
    assert found.classical_ci == pytest.approx(tuple(case["classical_ci"]), abs=TOLERANCE)
    untuned = ppi_mean(*arrays(case), alpha=0.05, lam=1.0)[1]
    assert untuned == pytest.approx(tuple(case["ppi_ci_lam1"]), abs=TOLERANCE)


def test_the_reference_cases_reach_both_clips_of_lambda() -> None:
    # ppi_py clips λ to [0, 1] itself; these two cases prove the clipped λ agrees with it.
    assert power_tuning(*arrays(CASES["anti_correlated"])) == 0.0
    assert power_tuning(*arrays(CASES["shrunk_llm"])) == 1.0
    assert 0 < power_tuning(*arrays(CASES["correlated_bias"])) < 1


def test_it_removes_a_constant_bias_by_hand() -> None:
    # People 1, 2, 3, 4; the LLM says one more on every item, and 3, 4 on two unrated items.
    # cov(Y, f) = 1.25 (divisor 4); var of the six LLM scores 2..5, 3, 4 = 5.5/5 = 1.1;
    # λ = 1.25 / ((1 + 4/2) · 1.1) = 25/66. θ̂ = λ·3.5 + (2.5 − λ·3.5) = 2.5.
    found = mean_estimates([1, 2, 3, 4], [2, 3, 4, 5], [3, 4])
    lam = 25 / 66
    assert found.lam == pytest.approx(lam)
    assert found.ppi_mean == pytest.approx(2.5)
    assert found.llm_only_mean == pytest.approx(21 / 6)
    assert found.classical_mean == pytest.approx(2.5)
    # var(f̃) = 0.25, var(Y − λf) = (1 − λ)²·1.25, both with divisor n.
    half = Z * math.sqrt(lam**2 * 0.25 / 2 + (1 - lam) ** 2 * 1.25 / 4)
    assert found.ppi_ci == pytest.approx((2.5 - half, 2.5 + half))
    classical_half = Z * math.sqrt(1.25) / 2
    assert found.classical_ci == pytest.approx((2.5 - classical_half, 2.5 + classical_half))
    assert found.effective_labels == pytest.approx(4 * (classical_half / half) ** 2)
    assert (found.n_labeled, found.n_unlabeled) == (4, 2)


def test_an_llm_without_information_gives_the_classical_interval() -> None:
    # A constant LLM cannot covary with people: λ = 0, and θ̂ is the people's mean.
    found = mean_estimates([1, 3, 2, 5], [4, 4, 4, 4], [4, 4, 4])
    assert found.lam == 0.0
    assert found.ppi_ci == pytest.approx(found.classical_ci)
    assert found.effective_labels == pytest.approx(4)


def test_classical_mean_uses_the_population_sd() -> None:
    # 0, 2: mean 1, sd (divisor n) 1, so the interval is 1 ± 1.96/√2.
    mean, interval = classical_mean([0, 2])
    assert mean == 1
    assert interval == pytest.approx((1 - Z / math.sqrt(2), 1 + Z / math.sqrt(2)))


def test_it_needs_two_rated_items_and_one_unrated() -> None:
    with pytest.raises(StatisticUndefined, match="fewer than 2"):
        mean_estimates([3], [3], [1, 2])
    with pytest.raises(StatisticUndefined, match="no item that people did not"):
        mean_estimates([3, 4], [3, 4], [])


def test_rogan_gladen_by_hand() -> None:
    # Calibration: people said 1 on 100 items, the LLM agreed on 80 (q1 = 0.8); people said 0
    # on 100, the LLM agreed on 90 (q0 = 0.9). Test set: 110 of 200 LLM scores are 1 (p = 0.55).
    human = [1] * 100 + [0] * 100
    llm = [1] * 80 + [0] * 20 + [0] * 90 + [1] * 10
    test = [1] * 110 + [0] * 90
    found = rogan_gladen(human, llm, test)
    theta = (0.55 + 0.9 - 1) / (0.9 + 0.8 - 1)  # 0.45 / 0.7
    variance = (
        0.55 * 0.45 / 200 + (1 - theta) ** 2 * 0.9 * 0.1 / 100 + theta**2 * 0.8 * 0.2 / 100
    ) / 0.7**2
    assert found.rate == pytest.approx(theta)
    half = Z * math.sqrt(variance)
    assert found.ci == pytest.approx((theta - half, theta + half))
    assert (found.sensitivity, found.specificity, found.llm_rate) == pytest.approx((0.8, 0.9, 0.55))
    assert (found.n_test, found.n_positive, found.n_negative, found.clipped) == (
        200,
        100,
        100,
        False,
    )


def test_rogan_gladen_clips_to_the_unit_interval() -> None:
    # q1 = q0 = 0.75 and p = 0.95: θ = 0.7 / 0.5 = 1.4, shown as 1 and said to be clipped.
    human = [1, 1, 1, 1, 0, 0, 0, 0]
    llm = [1, 1, 1, 0, 0, 0, 0, 1]
    found = rogan_gladen(human, llm, [1] * 19 + [0])
    assert found.rate == 1.0
    assert found.ci[1] == 1.0
    assert found.clipped


def test_rogan_gladen_refuses_an_llm_no_better_than_chance() -> None:
    # q1 = 0.5, q0 = 0.5: the sum is 1 and the correction divides by zero.
    with pytest.raises(StatisticUndefined, match=r"1\.000, not above 1"):
        rogan_gladen([1, 1, 0, 0], [1, 0, 1, 0], [1, 0, 1])


def test_rogan_gladen_needs_zeros_and_ones() -> None:
    with pytest.raises(StatisticUndefined, match="not all 0 or 1"):
        rogan_gladen([1, 0.5, 0], [1, 1, 0], [1])
    with pytest.raises(StatisticUndefined, match="no 1 or no 0"):
        rogan_gladen([1, 1, 1], [1, 1, 0], [1])


def test_needed_ratings_by_hand() -> None:
    # sd(Y) = 1 (0, 2 with divisor n): people alone need ⌈(1.96/0.1)²⌉ = ⌈384.15⌉ = 385.
    # A constant LLM adds nothing, so the PPI answer is the same.
    found = needed_ratings([0, 2, 0, 2], [4, 4, 4, 4], [4] * 996, half_width=0.1)
    assert found.classical == 385
    assert found.ppi == 385
    assert found.pool == 1000


def test_a_correlated_llm_needs_fewer_people() -> None:
    rng = np.random.default_rng(5)
    truth = rng.normal(3, 1, 2000)
    llm = truth + 0.5 + rng.normal(0, 0.3, 2000)
    found = needed_ratings(truth[:100], llm[:100], llm[100:], half_width=0.05)
    sd = float(truth[:100].std())
    assert Z * sd / math.sqrt(found.classical) <= 0.05 < Z * sd / math.sqrt(found.classical - 1)
    assert found.ppi < found.classical / 3
    # The PPI interval of a study of that size (with the measured variances) reaches the target.
    n = found.ppi
    estimate = mean_estimates(truth[:n], llm[:n], llm[n:2000])
    assert (estimate.ppi_ci[1] - estimate.ppi_ci[0]) / 2 <= 0.05 * 1.1


@pytest.mark.monte_carlo
def test_intervals_cover_the_true_mean_with_a_biased_llm() -> None:
    """Over 2,000 seeded studies the 95% PPI++ and Rogan–Gladen intervals cover the truth at
    least 93% of the time. The Monte Carlo s.e. of a coverage near 95% over 2,000 studies is
    √(0.95·0.05/2000) ≈ 0.005, so 93% is about four s.e. below the nominal rate. (On 4,000
    other studies of the score, PPI++ covered 94.8% at 80 rated items: its normal interval with
    sd of divisor n runs a little short on small samples, as the classical one does.)

    A 1–5 score: true mean 3; the LLM adds +0.6 and noise (r ≈ 0.85 with people); 80 items
    rated of 600. A 0/1 completion: true rate 0.6; the LLM's sensitivity 0.85 and specificity
    0.7 (its own rate 0.63); 150 rated of 600. The PPI++ interval is never more than 5% wider
    than the classical one, and narrower in every study where the LLM correlates with people.
    """
    rng = np.random.default_rng(27)
    studies = 2000
    covered = {"ppi": 0, "ppi_binary": 0, "rogan_gladen": 0, "uncorrelated": 0}
    ratios: dict[str, list[float]] = {"correlated": [], "uncorrelated": []}
    ppi_means, llm_means = [], []
    for _ in range(studies):
        truth = rng.normal(3.0, 0.8, 600)
        llm = truth + 0.6 + rng.normal(0, 0.5, 600)
        found = mean_estimates(truth[:80], llm[:80], llm[80:])
        covered["ppi"] += found.ppi_ci[0] <= 3.0 <= found.ppi_ci[1]
        ratios["correlated"].append(_width(found.ppi_ci) / _width(found.classical_ci))
        ppi_means.append(found.ppi_mean)
        llm_means.append(found.llm_only_mean)
        chance = rng.normal(0, 1, 600)
        blind = mean_estimates(truth[:80], chance[:80], chance[80:])
        covered["uncorrelated"] += blind.ppi_ci[0] <= 3.0 <= blind.ppi_ci[1]
        ratios["uncorrelated"].append(_width(blind.ppi_ci) / _width(blind.classical_ci))
        done = (rng.random(600) < 0.6).astype(float)
        said = np.where(done == 1, rng.random(600) < 0.85, rng.random(600) < 0.3).astype(float)
        binary = mean_estimates(done[:150], said[:150], said[150:])
        covered["ppi_binary"] += binary.ppi_ci[0] <= 0.6 <= binary.ppi_ci[1]
        corrected = rogan_gladen(done[:150], said[:150], said[150:])
        covered["rogan_gladen"] += corrected.ci[0] <= 0.6 <= corrected.ci[1]
    rates = {name: count / studies for name, count in covered.items()}
    assert min(rates.values()) >= 0.93, f"coverage {rates} (Monte Carlo s.e. ≈ 0.005)"
    assert max(max(ratios["correlated"]), max(ratios["uncorrelated"])) <= 1.05, ratios
    assert max(ratios["correlated"]) < 1, "a correlated LLM must narrow every interval"
    # Unbiased where the LLM is not: 2,000 estimates with sd ≈ 0.06 have a mean within ±0.003
    # (two s.e.) of the truth, while the LLM's own mean sits 0.6 above it.
    assert abs(float(np.mean(ppi_means)) - 3.0) < 0.01
    assert float(np.mean(llm_means)) == pytest.approx(3.6, abs=0.01)


def _width(interval: tuple[float, float]) -> float:
    return interval[1] - interval[0]
