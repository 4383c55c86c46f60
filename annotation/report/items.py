"""Per item of a dimension: the scatter of human mean against LLM score, the largest
disagreements, and the histograms of scores."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from annotation.report.dimensions import DimensionSpec
from evalsite.agreement.results import JsonObject, mapping_of

# A scatter of thousands of overlapping points says no more than a sample of them and weighs
# megabytes in the page, so larger dimensions are sampled (with the report's seed).
SCATTER_POINTS = 400


@dataclass(frozen=True)
class ScatterSeries:
    """The (item, human mean, LLM score) points of one dimension, sampled from ``total`` items."""

    total: int
    points: list[tuple[str, float, float]]

    def as_json(self) -> JsonObject:
        return {"total": self.total, "points": [list(point) for point in self.points]}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ScatterSeries:
        return cls(
            total=int(data["total"]),
            points=[(str(item), float(mean), float(llm)) for item, mean, llm in data["points"]],
        )


@dataclass(frozen=True)
class Disagreement:
    """One (item, dimension) scored by the LLM and by people, and the gap between them."""

    item: str
    dimension: str
    system: str
    human_mean: float
    humans: list[float]
    llm: float
    difference: float
    relative_gap: float

    def as_json(self) -> JsonObject:
        return {
            "item": self.item,
            "dimension": self.dimension,
            "system": self.system,
            "human_mean": self.human_mean,
            "humans": self.humans,
            "llm": self.llm,
            "difference": self.difference,
            "relative_gap": self.relative_gap,
        }


@dataclass(frozen=True)
class Histogram:
    """How many human scores, and how many of each LLM evaluator's, fall on each scale point."""

    values: list[int]
    human: list[int]
    llm: dict[str, list[int]] = field(default_factory=dict)

    def as_json(self) -> JsonObject:
        return {"values": self.values, "human": self.human, "llm": self.llm}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Histogram:
        return cls(
            values=[int(value) for value in data["values"]],
            human=[int(count) for count in data["human"]],
            llm={
                str(name): [int(count) for count in counts]
                for name, counts in mapping_of(data.get("llm")).items()
                if isinstance(counts, list)
            },
        )


def _item_means(rows: pd.DataFrame, rater: str) -> pd.DataFrame:
    """Per item of one dimension: the human mean, the human scores and the LLM's score."""
    human = rows[~rows["is_llm"]].groupby("item")["score"]
    machine = rows[rows["rater"] == rater].set_index("item")
    table = pd.DataFrame({"human_mean": human.mean(), "humans": human.apply(list)})
    table = table.join(machine[["score", "system"]], how="inner")
    return table.rename(columns={"score": "llm"}).sort_index()


def scatter(
    rows: pd.DataFrame, dimensions: Sequence[DimensionSpec], rater: str | None, seed: int
) -> dict[str, ScatterSeries]:
    if rater is None:
        return {}
    scatter: dict[str, ScatterSeries] = {}
    for position, spec in enumerate(dimensions):
        if spec.is_pairwise:
            continue
        table = _item_means(rows[rows["dimension"] == spec.key], rater)
        total = len(table)
        if total > SCATTER_POINTS:
            chosen = np.random.default_rng([seed, position]).choice(
                total, SCATTER_POINTS, replace=False
            )
            table = table.iloc[np.sort(chosen)]
        scatter[spec.key] = ScatterSeries(
            total=total,
            points=[
                (str(item), float(mean), float(llm))
                for item, mean, llm in zip(
                    table.index, table["human_mean"], table["llm"], strict=True
                )
            ],
        )
    return scatter


def disagreements(
    rows: pd.DataFrame, dimensions: Sequence[DimensionSpec], rater: str | None
) -> list[Disagreement]:
    """Every (item, dimension) with an LLM score and a human score, the largest gap first.

    Gaps are compared as a share of the dimension's scale, so that a yes/no question and a
    1–5 question rank on the same footing.
    """
    if rater is None:
        return []
    found: list[Disagreement] = []
    for spec in dimensions:
        if spec.is_pairwise:
            continue
        table = _item_means(rows[rows["dimension"] == spec.key], rater)
        width = spec.scale_max - spec.scale_min
        for item, entry in table.iterrows():
            difference = float(entry["llm"] - entry["human_mean"])
            found.append(
                Disagreement(
                    item=str(item),
                    dimension=spec.key,
                    system=str(entry["system"]),
                    human_mean=float(entry["human_mean"]),
                    humans=[float(value) for value in entry["humans"]],
                    llm=float(entry["llm"]),
                    difference=difference,
                    relative_gap=abs(difference) / width,
                )
            )
    # Stable: equal gaps keep the rubric's order of dimensions, then the items' order.
    found.sort(key=lambda row: -row.relative_gap)
    return found


def scale_points(spec: dict[str, Any]) -> list[int]:
    low, high = spec["scale"]
    return list(range(int(low), int(high) + 1))


def _histogram(scores: pd.Series[float], points: list[int]) -> list[int]:
    # An LLM score between two scale points counts at the nearest one (halves round up).
    nearest = np.clip(np.floor(scores.to_numpy(dtype=np.float64) + 0.5), points[0], points[-1])
    return [int((nearest == point).sum()) for point in points]


def histograms(
    frame: pd.DataFrame, dimensions: Sequence[DimensionSpec], evaluators: Sequence[str]
) -> dict[str, Histogram]:
    histograms: dict[str, Histogram] = {}
    for spec in dimensions:
        points = scale_points(spec.as_dict())
        rows = frame[frame["dimension"] == spec.key]
        histograms[spec.key] = Histogram(
            values=points,
            human=_histogram(rows.loc[~rows["is_llm"], "score"], points),
            llm={
                name: _histogram(rows.loc[rows["evaluator"] == name, "score"], points)
                for name in evaluators
            },
        )
    return histograms
