"""A scale's points and step: the ordinal value domain, and the step ``within_one`` counts in.

"Within one" means within one step of the scale: 1 on an integer scale, 0.25 on a scale of
quarters. On a two-point scale (yes/no, or a scale of two points) every pair is within one step,
so the rate would say nothing; on nominal categories a step means nothing. There the rate is
null, with the reason. So it is on data that take only two values, whatever the level and the
scale (`TWO_VALUES`): two values one step apart make every pair "within one", two values further
apart make the rate a copy of exact agreement.

`ScaleStep.points` counts the scale's points, for the chance level of a rater answering
uniformly at random (`evalsite.agreement.rates.uniform_chance`).
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
    # The number of points of the scale (categories at the nominal level); None when the scores
    # lie on no evenly spaced grid.
    points: int | None = None


# Why within_one is null on a block whose scores take at most two values.
TWO_VALUES = Phrase(
    gettext_noop(
        "the scores take at most two values, so a within-one rate says nothing beyond exact "
        "agreement: either every pair is within one step or only equal pairs are"
    )
)


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
    with two points (``scale`` given and its ends one step apart), and on scores that take at
    most two values, whatever the level. ``points`` counts the grid's points from the lowest to
    the highest score or end of the scale (the categories at the nominal level).
    """
    observed = scores[~np.isnan(scores)]
    if level == "nominal":
        domain = scale_points(scale, level)
        categories = np.union1d(observed, [] if domain is None else domain)
        return ScaleStep(
            None,
            Phrase(gettext_noop("nominal categories have no order, so no step of a scale")),
            len(categories) or None,
        )
    ends = np.asarray([] if scale is None else scale, dtype=np.float64)
    grid = np.unique(np.concatenate([observed, ends]))
    integer = bool(np.all(np.mod(grid, 1) == 0))
    found = 1.0 if integer else _grid_step(grid)
    step = found or 1.0
    points = None
    if found is not None and len(grid):
        points = round((grid.max() - grid.min()) / found) + 1
    if scale is not None and round((scale[1] - scale[0]) / step) + 1 <= 2:
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
            points,
        )
    if len(grid) <= 2:
        # Such as 0/1 data read without a scale: a random LLM would read 1.000 [1.000, 1.000].
        return ScaleStep(None, TWO_VALUES, points)
    return ScaleStep(step, points=points)


def scale_points(scale: tuple[float, float] | None, level: str) -> FloatArray | None:
    """The points of an integer scale, which nominal and ordinal α take as their domain."""
    if scale is None or level not in ("nominal", "ordinal"):
        return None
    low, high = scale
    if not (float(low).is_integer() and float(high).is_integer()):
        return None
    return np.arange(low, high + 1, dtype=np.float64)
