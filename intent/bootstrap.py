"""Bootstrap intervals of the official F over utterances, and the paired bootstrap test.

Resampling n utterances with replacement and scoring the resample depends only on how many drawn
utterances fall into each (gold, predicted) cell, and those counts follow a multinomial law with
n draws over the cells' shares of the utterances. So each resample is drawn directly as cell
counts over the occupied cells: exactly the utterance bootstrap, at a cost that grows with the
number of occupied cells (at most 31 × 32 for one submission) instead of with n.

The paired test resamples the same utterances for both submissions, through the cells of
(gold, prediction A, prediction B). Its p-value is two-sided: twice the smaller share of
resamples in which the difference F(A) − F(B) is ≤ 0 or ≥ 0, with one added to the count and to
the number of resamples so that it is never 0, and at most 1.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from evalsite.agreement.bootstrap import percentile_interval
from intent.scoring import FloatArray, IntArray, cell_codes, scores_from_cells

DEFAULT_RESAMPLES = 1000
DEFAULT_SEED = 42
DEFAULT_CONFIDENCE = 0.95
# Resamples drawn at once, to bound memory when many cells are occupied.
_BLOCK = 250


@dataclass(frozen=True)
class PairedTest:
    """F(A) − F(B), its percentile interval, and the two-sided bootstrap p-value."""

    difference: float
    low: float
    high: float
    p_value: float
    resamples: int

    @property
    def includes_zero(self) -> bool:
        return self.low <= 0.0 <= self.high


def _cell_draws(codes: IntArray, resamples: int, seed: int) -> tuple[IntArray, list[FloatArray]]:
    """The occupied cells and blocks of resampled counts over them (resamples × cells)."""
    if resamples < 1:
        raise ValueError("the number of resamples must be positive")
    occupied, counts = np.unique(codes, return_counts=True)
    shares = counts / counts.sum()
    generator = np.random.default_rng(seed)
    blocks = [
        generator.multinomial(len(codes), shares, size=min(_BLOCK, resamples - start)).astype(
            np.float64
        )
        for start in range(0, resamples, _BLOCK)
    ]
    return occupied.astype(np.int64), blocks


def official_f_distribution(
    gold: IntArray, pred: IntArray, n_labels: int, *, resamples: int, seed: int
) -> FloatArray:
    """The official F of each bootstrap resample of the utterances."""
    codes = cell_codes(gold, pred, n_labels)
    occupied, blocks = _cell_draws(codes, resamples, seed)
    gold_of, pred_of = np.divmod(occupied, n_labels + 1)
    return np.concatenate(
        [scores_from_cells(block, gold_of, pred_of, n_labels).official_f for block in blocks]
    )


def official_f_interval(
    gold: IntArray,
    pred: IntArray,
    n_labels: int,
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    confidence: float = DEFAULT_CONFIDENCE,
) -> tuple[float, float]:
    """The percentile interval of the official F over resampled utterances."""
    distribution = official_f_distribution(gold, pred, n_labels, resamples=resamples, seed=seed)
    return percentile_interval(distribution, confidence=confidence)


def paired_test(
    gold: IntArray,
    pred_a: IntArray,
    pred_b: IntArray,
    n_labels: int,
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    confidence: float = DEFAULT_CONFIDENCE,
) -> PairedTest:
    """Submission A against B on the same resampled utterances."""
    width = n_labels + 1
    codes = cell_codes(gold, pred_a, n_labels) * width + cell_codes(gold, pred_b, n_labels) % width
    occupied, blocks = _cell_draws(codes, resamples, seed)
    gold_and_a, pred_b_of = np.divmod(occupied, width)
    gold_of, pred_a_of = np.divmod(gold_and_a, width)
    differences = np.concatenate(
        [
            scores_from_cells(block, gold_of, pred_a_of, n_labels).official_f
            - scores_from_cells(block, gold_of, pred_b_of, n_labels).official_f
            for block in blocks
        ]
    )
    counts = np.bincount(np.searchsorted(occupied, codes), minlength=len(occupied))
    whole = counts.astype(np.float64).reshape(1, -1)
    observed = float(
        scores_from_cells(whole, gold_of, pred_a_of, n_labels).official_f[0]
        - scores_from_cells(whole, gold_of, pred_b_of, n_labels).official_f[0]
    )
    low, high = percentile_interval(differences, confidence=confidence)
    tail = min(int((differences <= 0).sum()), int((differences >= 0).sum()))
    p_value = min(1.0, 2 * (tail + 1) / (resamples + 1))
    return PairedTest(observed, low, high, p_value, resamples)
