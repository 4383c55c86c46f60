"""A scale's points and step: the ordinal value domain, and the step ``within_one`` counts in.

"Within one" means within one step of the scale: 1 on an integer scale, 0.25 on a scale of
quarters. On a two-point scale (yes/no, or a scale of two points) every pair is within one step,
so the rate would say nothing; on nominal categories a step means nothing. There the rate is
null, with the reason.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from evalsite.agreement.common import FloatArray, Level
from evalsite.agreement.phrases import Phrase, gettext_noop

# Relative tolerance when checking that scores lie on a grid of steps.
_GRID_TOLERANCE = 1e-6


@dataclass(frozen=True)
class ScaleStep:
    """The scale's step, or None with ``reason`` saying why no within-one rate is given."""

    step: float | None
    reason: str | None = None


def _grid_step(values: FloatArray) -> float | None:
    """The step of the evenly spaced grid that holds every value, if the values show one."""
    if len(values) < 2:
        return None
    step = float(np.diff(values).min())
    positions = (values - values[0]) / step
    if np.allclose(positions, np.round(positions), atol=_GRID_TOLERANCE):
        return step
    return None


def scale_step(scores: FloatArray, *, level: Level, scale: tuple[float, float] | None) -> ScaleStep:
    """The step of the scale that ``scores`` (every score of the data) lie on.

    Integer scores (and integer ``scale`` ends) have step 1. Otherwise, if the scores and the
    scale's ends lie on an evenly spaced grid, the grid's step, which is (max − min) / (number of
    points − 1) when every point is used; failing that, 1. Null at the nominal level, on a scale
    with two points (``scale`` given and its ends one step apart), and on scores that take only
    two adjacent values, whatever the level.
    """
    if level == "nominal":
        return ScaleStep(
            None, Phrase(gettext_noop("nominal categories have no order, so no step of a scale"))
        )
    ends = np.asarray([] if scale is None else scale, dtype=np.float64)
    grid = np.unique(np.concatenate([scores[~np.isnan(scores)], ends]))
    integer = bool(np.all(np.mod(grid, 1) == 0))
    step = 1.0 if integer else (_grid_step(grid) or 1.0)
    if scale is not None:
        points = round((scale[1] - scale[0]) / step) + 1
        if points <= 2:
            return ScaleStep(
                None,
                Phrase(
                    gettext_noop(
                        "the scale %(low)g:%(high)g has two points, on which every pair is "
                        "within one step"
                    ),
                    low=float(scale[0]),
                    high=float(scale[1]),
                ),
            )
    if len(grid) and grid.max() - grid.min() <= step * (1 + _GRID_TOLERANCE):
        # Two adjacent values, such as 0/1 data read without a scale: every pair is within one
        # step, so a random LLM would read 1.000 [1.000, 1.000].
        return ScaleStep(
            None,
            Phrase(
                gettext_noop(
                    "the scores take only the values %(low)g and %(high)g, one step apart, so "
                    "every pair is within one step"
                ),
                low=float(grid.min()),
                high=float(grid.max()),
            ),
        )
    return ScaleStep(step)


def scale_points(scale: tuple[float, float] | None, level: str) -> FloatArray | None:
    """The points of an integer scale, which nominal and ordinal α take as their domain."""
    if scale is None or level not in ("nominal", "ordinal"):
        return None
    low, high = scale
    if not (float(low).is_integer() and float(high).is_integer()):
        return None
    return np.arange(low, high + 1, dtype=np.float64)
