"""Confusion matrices of an ordinal scale: the human consensus against the LLM's score.

Rows are the consensus (the rounded median of the humans), columns the LLM's score, both on
the scale's points. The off-by-one band is the diagonal and the cells next to it: on an
ordinal scale an answer one point away is a near miss, not a miss like one four points away.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from evalsite.agreement.common import FloatArray


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
    return OrdinalConfusion(
        points=tuple(float(point) for point in points),
        counts=tuple(tuple(int(count) for count in row) for row in counts),
        n_items=total,
        exact=exact,
        within_one=within,
    )
