"""Judge alignment's held-out verdict in seeded simulated campaigns (no database).

Each campaign: 240 items with a true score 3 + 1.1 z (z standard normal), three people who each
add noise of s.d. 0.8 (rounded to 1–5), and an evaluator whose latent score correlates 0.6 with
the truth, rounded to 1–5. Half the items calibrate, half are held out. With n campaigns the
Monte Carlo standard error of a rate p is sqrt(p(1 − p)/n).
"""

from __future__ import annotations

import numpy as np
import pytest
from django.utils import translation

from annotation.alignment.comparison import DimensionScores, VersionOnDimension, compare_versions
from annotation.alignment.replacement import dimension_verdict, replacement_verdict
from annotation.alignment.split import calibration_items
from evalsite.agreement.alt_test import AltTestResult
from evalsite.agreement.score_matrix import ScoreMatrix

ITEMS = 240
CAMPAIGNS = 100
POINTS = np.arange(1.0, 6.0)


def campaign(seed: int) -> VersionOnDimension:
    generator = np.random.default_rng(seed)
    z = generator.standard_normal(ITEMS)
    truth = 3 + 1.1 * z
    humans = np.clip(np.rint(truth[:, None] + generator.normal(0, 0.8, (ITEMS, 3))), 1, 5)
    latent = 0.6 * z + 0.8 * generator.standard_normal(ITEMS)
    evaluator = np.clip(np.rint(3 + 1.1 * latent), 1, 5)
    matrix = ScoreMatrix(
        tuple(f"t{n}" for n in range(ITEMS)), ("a", "b", "c"), humans, np.full(ITEMS, np.nan)
    )
    chosen = calibration_items(range(ITEMS), seed=seed, calibration_share=0.5)
    scores = DimensionScores(
        key="relevance",
        points=POINTS,
        level="ordinal",
        humans=matrix,
        versions={"sub-human": evaluator},
        calibration=np.array([n in chosen for n in range(ITEMS)]),
    )
    (row,) = compare_versions(scores, epsilon=0.15, resamples=200)
    return row


@pytest.mark.monte_carlo
def test_a_sub_human_evaluator_calibrated_rarely_stands_in() -> None:
    rows = [campaign(seed) for seed in range(CAMPAIGNS)]
    verdicts = [dimension_verdict(row, "Relevance") for row in rows]
    calibrated_alt = [
        row.calibrated is not None
        and isinstance(row.calibrated.alt, AltTestResult)
        and row.calibrated.alt.passed
        for row in rows
    ]
    # Measured: the calibrated scores pass the alt-test alone in 16 of 100 campaigns (s.e.
    # 0.037), the rule lets 1 of 100 stand in (s.e. 0.01); the bound is 5%.
    assert sum(verdict.calibrated for verdict in verdicts) >= 90
    assert np.mean(calibrated_alt) >= 0.08
    assert np.mean([verdict.stands_in for verdict in verdicts]) <= 0.05
    # Calibration pulls the weak evaluator toward the people's mean: its calibrated scores
    # spread 0.52 times as much as a person's on average (raw: 0.88), below 0.8 in 98 of 100
    # campaigns (s.e. 0.014), and the verdict says so wherever it judges them.
    shrunk = [
        row.calibrated is not None
        and row.calibrated.spread is not None
        and row.calibrated.spread.shrunk
        for row in rows
    ]
    assert np.mean(shrunk) >= 0.9
    said = [
        any("shrinks the spread" in sentence for sentence in verdict_sentences(row)) for row in rows
    ]
    assert said == [
        flag and verdict.calibrated for flag, verdict in zip(shrunk, verdicts, strict=True)
    ]


def verdict_sentences(row: VersionOnDimension) -> tuple[str, ...]:
    with translation.override("en"):
        return replacement_verdict("sub-human", [row], epsilon=0.15, names={}).sentences
