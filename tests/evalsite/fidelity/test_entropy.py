"""The entropies every fidelity measure shares: plug-in and Chao–Shen, and their intervals."""

from __future__ import annotations

import math

import numpy as np
import pytest

from evalsite.fidelity.common import (
    LOW_COVERAGE,
    RESPONDERS,
    chao_shen_bits,
    entropy_at_count,
    entropy_bits,
    entropy_measures,
    measured,
    sample_coverage,
)


def test_chao_shen_by_hand() -> None:
    # Counts 2, 1, 1: n = 4, two items seen once, coverage C = 1 - 2/4 = 1/2, so the shares
    # 1/2, 1/4, 1/4 shrink to 1/4, 1/8, 1/8, and each term is divided by the chance that
    # the item is seen at all in 4 draws, 1 - (1 - p)^4.
    terms = [(0.25, 1 - 0.75**4), (0.125, 1 - 0.875**4), (0.125, 1 - 0.875**4)]
    expected = sum(-p * math.log2(p) / seen for p, seen in terms)
    assert chao_shen_bits(np.array([[2.0, 1.0, 1.0]]))[0] == pytest.approx(expected)
    assert expected == pytest.approx(2.5438, abs=1e-4)
    # The plug-in of the same counts: 1.5 bits.
    assert entropy_bits(np.array([[2.0, 1.0, 1.0]]))[0] == pytest.approx(1.5)


def test_chao_shen_is_near_the_plug_in_without_singletons() -> None:
    # 5 and 5: C = 1, p = 1/2, and 1 - (1/2)^10 of each item is seen: 1 / (1 - 2^-10) bits.
    assert chao_shen_bits(np.array([[5.0, 5.0]]))[0] == pytest.approx(1 / (1 - 2**-10))
    assert chao_shen_bits(np.array([[7.0]]))[0] == 0.0
    assert math.isnan(chao_shen_bits(np.array([[0.0, 0.0]]))[0])


def test_every_item_seen_once_keeps_a_positive_coverage() -> None:
    # f1 = n is taken as n - 1: C = 1/4, p = 1/16 for each of 4 items.
    p, seen = 1 / 16, 1 - (15 / 16) ** 4
    assert chao_shen_bits(np.ones((1, 4)))[0] == pytest.approx(4 * -p * math.log2(p) / seen)


def test_entropy_at_count_is_seeded_and_needs_a_larger_group() -> None:
    counts = np.eye(30)
    first = entropy_at_count(counts, 10, repeats=20, seed=1)
    assert first is not None and first == entropy_at_count(counts, 10, repeats=20, seed=1)
    # Ten distinct items, each once, whatever the subsample: no spread.
    assert first.sd == pytest.approx(0.0, abs=1e-12)
    assert first.low == pytest.approx(first.high) and first.high == pytest.approx(first.mean)
    assert first.mean == pytest.approx(chao_shen_bits(np.ones((1, 10)))[0])
    assert entropy_at_count(counts, 30) is None


@pytest.mark.monte_carlo
def test_the_chao_shen_interval_covers_the_true_entropy_at_a_3000_item_catalogue() -> None:
    """300 responders each name 10 films drawn from a Zipf(1.1) catalogue of 3,000 films
    (3,000 mentions, about 480 films seen once): the true entropy is 7.57 bits.

    Over these 200 seeded studies the 95% jackknife interval of the Chao–Shen entropy covers
    it in 0.975 of them (Monte Carlo s.e. √(0.975·0.025/200) = 0.011); the test asks for
    ≥ 0.85. Every interval holds its own estimate. The plug-in entropy lies below the truth in
    every study (by 0.5 bits on average), so no interval around it could cover.
    """
    generator = np.random.default_rng(20261202)
    catalogue, responders, mentions, studies = 3000, 300, 10, 200
    weights = 1 / np.arange(1, catalogue + 1) ** 1.1
    shares = weights / weights.sum()
    truth = float(-(shares * np.log2(shares)).sum())
    covered = held = plug_in_below = 0
    for _ in range(studies):
        drawn = generator.choice(catalogue, size=(responders, mentions), p=shares)
        counts = np.zeros((responders, catalogue))
        np.add.at(counts, (np.repeat(np.arange(responders), mentions), drawn.ravel()), 1.0)
        plug_in, chao_shen = entropy_measures(counts[:, counts.sum(axis=0) > 0], unit=RESPONDERS)
        assert chao_shen.value is not None and chao_shen.ci is not None
        assert plug_in.value is not None
        low, high = chao_shen.ci
        covered += low <= truth <= high
        held += low <= chao_shen.value <= high
        plug_in_below += plug_in.value < truth
    coverage = covered / studies
    assert coverage >= 0.85, (
        f"coverage {coverage:.3f} of {truth:.2f} bits over {studies} studies (s.e. 0.011)"
    )
    assert held == studies
    assert plug_in_below == studies


def test_a_percentile_interval_that_would_miss_its_value_is_withheld() -> None:
    # A statistic that every resample puts below its value (a resample repeats some units
    # and drops others, and this one counts the distinct units drawn).
    def distinct(weights: np.ndarray) -> np.ndarray:
        return (weights > 0).sum(axis=1).astype(np.float64)

    missed = measured(distinct, 20, unit=RESPONDERS, resamples=200, seed=1)
    assert missed.value == 20.0 and missed.ci is None
    assert "would not hold it" in missed.notes[0]
    # A value that every resample repeats keeps its (zero-width) interval despite rounding.
    steady = measured(
        lambda weights: weights.sum(axis=1) / weights.sum(axis=1) * 0.1 * 3,
        20,
        unit=RESPONDERS,
        resamples=50,
    )
    assert steady.ci is not None and steady.ci[0] <= steady.value <= steady.ci[1]  # type: ignore[operator]


def test_a_low_sample_coverage_puts_a_note_on_the_chao_shen_entropy() -> None:
    # Counts 2, 1, 1 over three responders: C = 1 - 2/4 = 0.5, below 0.8.
    counts = np.array([[2.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    assert sample_coverage(counts.sum(axis=0)) == pytest.approx(0.5)
    _, chao_shen = entropy_measures(counts, unit=RESPONDERS, resamples=0)
    (note,) = chao_shen.notes
    assert note.startswith("the sample coverage 1 − f1/n is 0.50, below 0.8")
    # 5 and 5: nothing seen once, C = 1, no note.
    _, full = entropy_measures(np.array([[5.0, 0.0], [0.0, 5.0]]), unit=RESPONDERS, resamples=0)
    assert full.notes == ()


@pytest.mark.parametrize(
    ("exponent", "responders", "noted"),
    # docs/fidelity.md's table: Zipf 1.0 at 1,500 mentions (C ≈ 0.73, interval coverage 0.12)
    # gets the note; Zipf 1.1 at 3,000 mentions (C ≈ 0.84, coverage 0.975) does not.
    [(1.0, 150, True), (1.1, 300, False)],
)
def test_the_note_marks_the_settings_where_the_interval_undercovers(
    exponent: float, responders: int, noted: bool
) -> None:
    generator = np.random.default_rng(5)
    catalogue, mentions = 3000, 10
    weights = 1 / np.arange(1, catalogue + 1) ** exponent
    drawn = generator.choice(catalogue, size=(responders, mentions), p=weights / weights.sum())
    counts = np.zeros((responders, catalogue))
    np.add.at(counts, (np.repeat(np.arange(responders), mentions), drawn.ravel()), 1.0)
    counts = counts[:, counts.sum(axis=0) > 0]
    _, chao_shen = entropy_measures(counts, unit=RESPONDERS)
    assert (sample_coverage(counts.sum(axis=0)) < LOW_COVERAGE) is noted
    assert any(note.startswith("the sample coverage") for note in chao_shen.notes) is noted
    assert chao_shen.ci is not None
