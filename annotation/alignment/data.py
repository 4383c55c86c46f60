"""A campaign's scores as the alignment statistics read them: one `DimensionScores` per
rated dimension, with every evaluator version's scores and the stored split.

Only Likert dimensions are aligned (a yes/no answer has no scale to calibrate, a pairwise one
no consensus to rank); every transcript enters, in the campaign's order.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from annotation.alignment.comparison import DimensionScores
from annotation.alignment.stored_split import held_out_ids
from annotation.models import Campaign, Dimension
from annotation.report.dimensions import DimensionSpec
from annotation.report.scores import item_pks, long_scores
from evalsite.agreement.score_matrix import ScoreMatrix


def aligned_dimensions(campaign: Campaign) -> list[Dimension]:
    return list(
        campaign.rubric.dimensions.filter(kind=Dimension.Kind.LIKERT).order_by("position", "pk")
    )


def campaign_scores(campaign: Campaign, versions: Sequence[str]) -> list[DimensionScores]:
    """Every Likert dimension that people scored, with each of ``versions``' scores."""
    held_out = held_out_ids(campaign)
    order = list(item_pks(campaign).items())
    held = {external for external, pk in order if pk in held_out}
    frame = long_scores(campaign)
    results = []
    for dimension in aligned_dimensions(campaign):
        spec = DimensionSpec.of(dimension)
        rows = frame[frame["dimension"] == dimension.key]
        people = rows[~rows["is_llm"]]
        if people.empty:
            continue
        items = [external for external, _ in order if external in set(people["item"])]
        humans = sorted(set(people["rater"]))
        human_scores = (
            people.pivot_table(index="item", columns="rater", values="score", aggfunc="first")
            .reindex(index=items, columns=humans)
            .to_numpy(dtype=np.float64)
        )
        machine = rows[rows["is_llm"]]
        scores = {
            name: machine[machine["rater"] == name]
            .set_index("item")["score"]
            .reindex(items)
            .to_numpy(dtype=np.float64)
            for name in versions
        }
        results.append(
            DimensionScores(
                key=dimension.key,
                points=np.arange(spec.scale_min, spec.scale_max + 1, dtype=np.float64),
                level=spec.level,
                humans=ScoreMatrix(
                    tuple(items), tuple(humans), human_scores, np.full(len(items), np.nan)
                ),
                versions=scores,
                calibration=np.array([item not in held for item in items], dtype=bool),
            )
        )
    return results
