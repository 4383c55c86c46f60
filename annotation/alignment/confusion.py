"""Confusion matrices of an ordinal scale: the human consensus against the LLM's score.

Rows are the consensus (the rounded median of the humans), columns the LLM's score, both on
the scale's points. The off-by-one band is the diagonal and the cells next to it: on an
ordinal scale an answer one point away is a near miss, not a miss like one four points away.

As in the agreement engine (`evalsite.agreement.scale_step`), the within-one rate is null, with
a note, on any two-valued data (a two-point scale, or scores that take two values): two values
one step apart make every pair "within one". Both rates come with their chance levels, from the
engine's own functions: two raters uniform on the scale's points, and the consensus and the LLM
answering independently with their own observed shares.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from evalsite.agreement.common import FloatArray
from evalsite.agreement.rates import marginal_chance, uniform_chance
from evalsite.agreement.scale_step import TWO_VALUES, scale_step


@dataclass(frozen=True)
class OrdinalConfusion:
    """Counts of items by (consensus, LLM score); ``counts[i][j]`` is consensus ``points[i]``
    against LLM ``points[j]``. ``exact`` and ``within_one`` are shares of the counted items,
    None when no item was counted."""

    points: tuple[float, ...]
    counts: tuple[tuple[int, ...], ...]
    n_items: int
    exact: float | None
    within_one: float | None
    # Why ``within_one`` is null on items that were counted (a translatable phrase).
    within_one_note: str | None = None
    # Chance levels: uniform on the scale's points, and from the observed answers.
    exact_chance_uniform: float | None = None
    exact_chance_marginals: float | None = None
    within_one_chance_uniform: float | None = None
    within_one_chance_marginals: float | None = None

    def in_band(self, row: int, column: int) -> bool:
        """Whether a cell lies on the diagonal or next to it (the off-by-one band)."""
        return abs(row - column) <= 1

    def cells(self) -> list[tuple[float, float, int, bool]]:
        """Every cell as (consensus, LLM score, count, in the off-by-one band)."""
        return [
            (self.points[row], self.points[column], count, self.in_band(row, column))
            for row, counts in enumerate(self.counts)
            for column, count in enumerate(counts)
        ]


def ordinal_confusion(
    consensus: FloatArray, llm_scores: FloatArray, points: FloatArray
) -> OrdinalConfusion:
    """The confusion matrix over the items where both the consensus and the LLM have a score.

    Both must lie on ``points`` (the scale's points, ascending); raises ValueError otherwise.
    """
    index = {float(point): position for position, point in enumerate(points)}
    counted = ~np.isnan(consensus) & ~np.isnan(llm_scores)
    counts = np.zeros((len(points), len(points)), dtype=np.int64)
    for human, llm in zip(consensus[counted], llm_scores[counted], strict=True):
        if float(human) not in index or float(llm) not in index:
            raise ValueError(f"score {human:g} or {llm:g} is not a point of the scale")
        counts[index[float(human)], index[float(llm)]] += 1
    total = int(counts.sum())
    rows, columns = np.indices(counts.shape)
    exact = float(np.trace(counts) / total) if total else None
    within = float(counts[np.abs(rows - columns) <= 1].sum() / total) if total else None
    humans, machine = consensus[counted], llm_scores[counted]
    step = scale_step(
        np.concatenate([humans, machine]),
        level="ordinal",
        scale=(float(points[0]), float(points[-1])) if len(points) else None,
    )
    reason = step.reason
    if step.step is not None and len(np.unique(np.concatenate([humans, machine]))) <= 2:
        # Two values on a wider scale, such as yes/no coded 1 and 2 on a scale of five points.
        reason = TWO_VALUES
    note = reason if total else None
    # One step of the scale is the distance between neighbouring points, the band's width.
    width = float(np.diff(points).min()) if len(points) > 1 else 0.0
    within_known = reason is None and total > 0
    return OrdinalConfusion(
        points=tuple(float(point) for point in points),
        counts=tuple(tuple(int(count) for count in row) for row in counts),
        n_items=total,
        exact=exact,
        within_one=within if within_known else None,
        within_one_note=note,
        exact_chance_uniform=uniform_chance(len(points)) if total else None,
        exact_chance_marginals=marginal_chance(humans[:, None], machine, 0.0) if total else None,
        within_one_chance_uniform=(
            uniform_chance(len(points), within_one=True) if within_known else None
        ),
        within_one_chance_marginals=(
            marginal_chance(humans[:, None], machine, width) if within_known else None
        ),
    )
