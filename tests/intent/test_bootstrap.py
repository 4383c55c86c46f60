"""Bootstrap intervals of the official F, resampling utterances, and the paired test."""

from __future__ import annotations

import numpy as np
import pytest

from intent.bootstrap import official_f_distribution, official_f_interval, paired_test
from intent.scoring import score

K = 5


def submission(accuracy: float, n: int = 400, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    generator = np.random.default_rng(seed)
    gold = generator.integers(0, K, n)
    wrong = generator.integers(0, K, n)
    return gold, np.where(generator.random(n) < accuracy, gold, wrong)


def utterance_bootstrap(gold: np.ndarray, pred: np.ndarray, resamples: int) -> np.ndarray:
    """The textbook bootstrap: draw utterance indices with replacement and score each draw."""
    generator = np.random.default_rng(99)
    labels = tuple(str(i) for i in range(K))
    values = []
    for _ in range(resamples):
        drawn = generator.integers(0, len(gold), len(gold))
        values.append(score(labels, gold[drawn], pred[drawn]).official_f)
    return np.array(values)


def test_cell_draws_match_resampling_utterances() -> None:
    gold, pred = submission(0.7)
    ours = official_f_distribution(gold, pred, K, resamples=2000, seed=1)
    textbook = utterance_bootstrap(gold, pred, 2000)
    assert ours.mean() == pytest.approx(textbook.mean(), abs=0.004)
    assert ours.std() == pytest.approx(textbook.std(), rel=0.1)


def test_the_interval_holds_the_observed_f_and_is_seeded() -> None:
    gold, pred = submission(0.7)
    observed = score(tuple("abcde"), gold, pred).official_f
    low, high = official_f_interval(gold, pred, K, resamples=500, seed=7)
    assert low < observed < high
    assert high - low < 0.15
    assert official_f_interval(gold, pred, K, resamples=500, seed=7) == (low, high)
    assert official_f_interval(gold, pred, K, resamples=500, seed=8) != (low, high)


def test_more_utterances_narrow_the_interval() -> None:
    small = official_f_interval(*submission(0.7, n=200), K, resamples=400)
    large = official_f_interval(*submission(0.7, n=3200), K, resamples=400)
    assert large[1] - large[0] < (small[1] - small[0]) / 2


def test_a_submission_against_itself_ties_exactly() -> None:
    gold, pred = submission(0.7)
    test = paired_test(gold, pred, pred, K, resamples=300)
    assert (test.difference, test.low, test.high, test.p_value) == (0.0, 0.0, 0.0, 1.0)
    assert test.includes_zero


def test_a_clearly_better_submission_wins_with_a_small_p_value() -> None:
    gold, strong = submission(0.9, seed=2)
    weak = np.where(np.random.default_rng(5).random(len(gold)) < 0.5, gold, (gold + 1) % K)
    test = paired_test(gold, strong, weak, K, resamples=500)
    labels = tuple("abcde")
    assert test.difference == pytest.approx(
        score(labels, gold, strong).official_f - score(labels, gold, weak).official_f
    )
    assert 0 < test.low < test.difference < test.high
    assert not test.includes_zero
    # No resample has the weak one ahead: p = 2 (0 + 1) / 501.
    assert test.p_value == pytest.approx(2 / 501)
    reverse = paired_test(gold, weak, strong, K, resamples=500)
    assert reverse.difference == pytest.approx(-test.difference)
    assert reverse.high < 0


def test_two_submissions_differing_on_a_few_utterances_are_not_separated() -> None:
    gold, pred = submission(0.7, n=1000)
    # Three utterances put right and three put wrong.
    right = np.flatnonzero(pred != gold)[:3]
    wrong = np.flatnonzero(pred == gold)[:3]
    other = pred.copy()
    other[right] = gold[right]
    other[wrong] = (gold[wrong] + 1) % K
    test = paired_test(gold, other, pred, K, resamples=500)
    assert test.includes_zero
    assert test.p_value > 0.05
