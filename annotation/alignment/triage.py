"""Disagreement triage: the items where an evaluator is furthest from the human consensus.

Per dimension, the gap is the LLM's score minus the consensus (the humans' median, rounded half
up), shown with the humans' spread (highest minus lowest), so that a large gap on an item where
the humans were split reads differently from one where they agreed. Overall, an item's gap is
the mean over its dimensions of |gap| as a share of each scale's range.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from annotation.alignment.comparison import DimensionScores
from annotation.alignment.consensus import human_consensus, human_spread


@dataclass(frozen=True)
class Disagreement:
    """One item on one dimension: the LLM's score, the consensus, the gap and the spread."""

    item: str
    dimension: str
    llm: float
    consensus: float
    gap: float
    spread: float
    humans: tuple[float, ...]

    @property
    def humans_text(self) -> str:
        return ", ".join(f"{value:g}" for value in self.humans)


@dataclass(frozen=True)
class OverallDisagreement:
    """One item over its dimensions: the mean |gap| as a share of the scale's range."""

    item: str
    share: float
    dimensions: int
    widest: Disagreement


def dimension_disagreements(data: DimensionScores, version: str) -> list[Disagreement]:
    """Every item both the version and people scored, the largest |gap| first."""
    llm = data.versions.get(version)
    if llm is None:
        return []
    consensus = human_consensus(data.humans.human_scores)
    spread = human_spread(data.humans.human_scores)
    rows = []
    for index, item in enumerate(data.humans.items):
        if np.isnan(llm[index]) or np.isnan(consensus[index]):
            continue
        humans = data.humans.human_scores[index]
        rows.append(
            Disagreement(
                item=item,
                dimension=data.key,
                llm=float(llm[index]),
                consensus=float(consensus[index]),
                gap=float(llm[index] - consensus[index]),
                spread=float(spread[index]),
                humans=tuple(float(value) for value in humans[~np.isnan(humans)]),
            )
        )
    return sorted(rows, key=lambda row: (-abs(row.gap), row.spread, row.item))


def overall_disagreements(
    dimensions: Sequence[DimensionScores], version: str
) -> list[OverallDisagreement]:
    """Every item's mean share of disagreement over its dimensions, the largest first."""
    by_item: dict[str, list[tuple[float, Disagreement]]] = defaultdict(list)
    for data in dimensions:
        scale = float(data.points[-1] - data.points[0]) or 1.0
        for row in dimension_disagreements(data, version):
            by_item[row.item].append((abs(row.gap) / scale, row))
    rows = [
        OverallDisagreement(
            item=item,
            share=float(np.mean([share for share, _ in entries])),
            dimensions=len(entries),
            widest=max(entries, key=lambda entry: entry[0])[1],
        )
        for item, entries in by_item.items()
    ]
    return sorted(rows, key=lambda row: (-row.share, row.item))
