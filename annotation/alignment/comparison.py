"""Evaluator versions side by side on one dimension, and each version's calibration.

For every version: its raw MAE on the calibration split (what the best version is chosen by),
its calibration map fitted on the calibration split, and on the held-out split its raw and
calibrated figures (`AgreementFigures`), the gain of calibration, and its gain over the first
version, each with a paired bootstrap CI over the held-out items. Nothing here reads a held-out
human score before the fit and the choice are made: they see the calibration rows only.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from annotation.alignment.calibration import CalibrationMap, fit_calibration
from annotation.alignment.figures import (
    AgreementFigures,
    BoolArray,
    agreement_figures,
    human_means,
    rows_of,
    with_llm_scores,
)
from annotation.alignment.paired import PairedDifference, paired_mae_difference
from evalsite.agreement.common import DEFAULT_RESAMPLES, DEFAULT_SEED, FloatArray, Level
from evalsite.agreement.phrases import reason_of
from evalsite.agreement.score_matrix import ScoreMatrix


@dataclass(frozen=True)
class DimensionScores:
    """One dimension's humans (``humans.llm_scores`` unused) and each version's scores.

    ``versions`` maps a version's name to its scores, aligned with ``humans.items`` (NaN where
    it gave none), in the order the versions were made; ``calibration`` marks the items of the
    calibration split (the rest are held out).
    """

    key: str
    points: FloatArray
    level: Level
    humans: ScoreMatrix
    versions: Mapping[str, FloatArray]
    calibration: BoolArray


@dataclass(frozen=True)
class VersionOnDimension:
    """One version on one dimension; ``map_note`` says why there is no map when there is none."""

    version: str
    dimension: str
    calibration_mae: float | None
    calibration_map: CalibrationMap | None
    map_note: str | None
    held_out: AgreementFigures
    calibrated: AgreementFigures | None
    calibration_gain: PairedDifference | None
    gain_over_first: PairedDifference | None


def _mae(means: FloatArray, scores: FloatArray) -> float | None:
    both = ~np.isnan(means) & ~np.isnan(scores)
    return float(np.abs(scores[both] - means[both]).mean()) if both.any() else None


def compare_versions(
    data: DimensionScores,
    *,
    epsilon: float,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> list[VersionOnDimension]:
    """Every version of ``data`` on its dimension, in the order of ``data.versions``."""
    calibration = rows_of(data.humans, data.calibration)
    held_out = rows_of(data.humans, ~data.calibration)
    calibration_means = human_means(calibration)
    held_out_means = human_means(held_out)

    def measured(scores: FloatArray) -> AgreementFigures:
        return agreement_figures(
            with_llm_scores(held_out, scores),
            data.points,
            level=data.level,
            epsilon=epsilon,
            resamples=resamples,
            seed=seed,
        )

    first: FloatArray | None = None
    results = []
    for name, scores in data.versions.items():
        raw_calibration = scores[data.calibration]
        raw_held_out = scores[~data.calibration]
        fitted: CalibrationMap | None = None
        note: str | None = None
        try:
            fitted = fit_calibration(raw_calibration, calibration_means, data.points)
        except ValueError as error:
            note = reason_of(error)
        calibrated = gain = None
        if fitted is not None:
            adjusted = fitted.apply(raw_held_out)
            calibrated = measured(adjusted)
            gain = paired_mae_difference(
                held_out_means, raw_held_out, adjusted, resamples=resamples, seed=seed
            )
        over_first = None
        if first is not None:
            over_first = paired_mae_difference(
                held_out_means, first, raw_held_out, resamples=resamples, seed=seed
            )
        else:
            first = raw_held_out
        results.append(
            VersionOnDimension(
                version=name,
                dimension=data.key,
                calibration_mae=_mae(calibration_means, raw_calibration),
                calibration_map=fitted,
                map_note=note,
                held_out=measured(raw_held_out),
                calibrated=calibrated,
                calibration_gain=gain,
                gain_over_first=over_first,
            )
        )
    return results


def best_version(
    results: Mapping[str, list[VersionOnDimension]], scale_ranges: Mapping[str, float]
) -> str | None:
    """The version with the lowest calibration-split MAE, as a share of each scale's range,
    averaged over the dimensions it scored. ``results`` maps a dimension key to its versions.

    Only calibration-split figures enter the choice, so the held-out figures of the chosen
    version are not flattered by the choice itself.
    """
    shares: dict[str, list[float]] = {}
    for key, versions in results.items():
        for version in versions:
            if version.calibration_mae is not None:
                shares.setdefault(version.version, []).append(
                    version.calibration_mae / (scale_ranges[key] or 1.0)
                )
    if not shares:
        return None
    return min(shares, key=lambda name: (float(np.mean(shares[name])), name))
