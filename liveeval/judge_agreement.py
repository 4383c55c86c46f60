"""Agreement among the judges of a live campaign, and between simulated users and judges.

Plain functions over the `SessionRow`s of `liveeval.metrics` (no Django).

- Agreement among judges is Krippendorff's α over (task, system) pairs: nominal for C and G,
  ordinal for Sa and F. Its CI resamples tasks, as the leaderboard's do.
- Simulated users are set against human judges on the (task, system) pairs both rated.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from evalsite.agreement.alpha import AlphaStatistic, krippendorff_alpha
from evalsite.agreement.clusters import cluster_bootstrap_ci
from evalsite.agreement.common import (
    DEFAULT_CONFIDENCE,
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    Level,
    StatisticUndefined,
)
from evalsite.agreement.correlations import Correlation, correlations
from liveeval.metrics import (
    MEASURES,
    SOURCES,
    Measure,
    RowInput,
    SessionRow,
    Source,
    SystemId,
    TaskId,
    as_rows,
    id_order,
)

# Agreement among judges --------------------------------------------------------------------


@dataclass(frozen=True)
class AgreementResult:
    """Krippendorff's α of one measure; ``n_units`` counts the pairs rated by two or more."""

    measure: str
    level: Level
    alpha: float | None
    alpha_ci: tuple[float, float] | None
    n_units: int
    n_judges: int
    note: str | None


def _reliability_matrix(
    sessions: list[SessionRow], measure: Measure
) -> tuple[npt.NDArray[np.float64], list[TaskId]]:
    """Units are (task, system) pairs and raters are judges; NaN where a judge gave no rating.
    Also the task of each unit, the cluster its CI resamples."""
    rated = [row for row in sessions if getattr(row, measure.name) is not None]
    units = sorted({(row.task, row.system) for row in rated}, key=lambda u: tuple(map(id_order, u)))
    judges = sorted({row.judge for row in rated}, key=id_order)
    unit_index = {unit: index for index, unit in enumerate(units)}
    judge_index = {judge: index for index, judge in enumerate(judges)}
    matrix = np.full((len(units), len(judges)), np.nan)
    for row in rated:
        cell = (unit_index[row.task, row.system], judge_index[row.judge])
        if not np.isnan(matrix[cell]):
            raise ValueError(
                f"judge {row.judge} rated task {row.task} on system {row.system} more than once"
            )
        matrix[cell] = float(getattr(row, measure.name))
    return matrix, [task for task, _ in units]


def judge_agreement(
    rows: Iterable[RowInput],
    *,
    source: Source | None = "human",
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    confidence: float = DEFAULT_CONFIDENCE,
) -> dict[str, AgreementResult]:
    """Krippendorff's α among judges for C, Sa, F and G, keyed by measure name.

    α is None with a note saying why when the data admit no value (one judge, no pair rated
    twice, one value throughout). The CI resamples tasks, the cluster the leaderboard resamples
    too, keeping every (task, system) pair of a drawn task together; with fewer than
    `MIN_CLUSTERS_FOR_INTERVAL` tasks it is withheld with a note. Pass the rows of one system for
    that system's agreement. Raises ValueError if a judge rated a pair twice.
    """
    sessions = as_rows(rows, source)
    results: dict[str, AgreementResult] = {}
    for measure in MEASURES:
        matrix, tasks = _reliability_matrix(sessions, measure)
        present = ~np.isnan(matrix)
        alpha: float | None = None
        interval: tuple[float, float] | None = None
        note: str | None = None
        if not present.any():
            note = f"no session has a {measure.label} rating ({measure.symbol})"
        else:
            try:
                alpha = krippendorff_alpha(matrix, measure.level, value_domain=measure.scale)
            except StatisticUndefined as error:
                note = str(error)
        if alpha is not None and resamples == 0:
            note = "no CI: bootstrap resampling was turned off (0 resamples)"
        elif alpha is not None:
            found = cluster_bootstrap_ci(
                AlphaStatistic(matrix, measure.level),
                tasks,
                resamples=resamples,
                seed=seed,
                confidence=confidence,
            )
            interval = found.bounds
            note = None if found.note is None else f"no CI: {found.note}"
        results[measure.name] = AgreementResult(
            measure=measure.name,
            level=measure.level,
            alpha=alpha,
            alpha_ci=interval,
            n_units=int((present.sum(axis=1) >= 2).sum()),
            n_judges=int(present.any(axis=0).sum()),
            note=note,
        )
    return results


# Simulated users against human judges ------------------------------------------------------


@dataclass(frozen=True)
class SourceAgreement:
    """How simulated users' ratings follow human judges' on the same (task, system) pairs.

    The correlations compare the per-pair means; ``exact_agreement`` is the share of
    (human rating, simulated rating) pairs on the same (task, system) pair that are equal.
    """

    measure: str
    n_pairs: int
    pearson: Correlation | None
    spearman: Correlation | None
    exact_agreement: float | None
    note: str | None


def _mean_of(counts: Counter[int]) -> float:
    return sum(value * count for value, count in counts.items()) / counts.total()


def agreement_between_sources(rows: Iterable[RowInput]) -> dict[str, SourceAgreement]:
    """Per measure, agreement between simulated and human ratings, keyed by measure name."""
    sessions = as_rows(rows, None)
    results: dict[str, SourceAgreement] = {}
    for measure in MEASURES:
        ratings: dict[tuple[TaskId, SystemId], dict[str, Counter[int]]] = {}
        for row in sessions:
            value = getattr(row, measure.name)
            if value is not None:
                unit = ratings.setdefault((row.task, row.system), {s: Counter() for s in SOURCES})
                unit[row.source][int(value)] += 1
        shared = [
            unit
            for _, unit in sorted(ratings.items(), key=lambda item: tuple(map(id_order, item[0])))
            if unit["human"] and unit["simulated"]
        ]
        if not shared:
            results[measure.name] = SourceAgreement(
                measure=measure.name,
                n_pairs=0,
                pearson=None,
                spearman=None,
                exact_agreement=None,
                note=f"no (task, system) pair has both a human and a simulated {measure.label} "
                f"rating ({measure.symbol})",
            )
            continue

        human = np.array([_mean_of(unit["human"]) for unit in shared])
        simulated = np.array([_mean_of(unit["simulated"]) for unit in shared])
        matches = sum(
            unit["human"][value] * unit["simulated"][value]
            for unit in shared
            for value in unit["human"]
        )
        comparisons = sum(unit["human"].total() * unit["simulated"].total() for unit in shared)
        pearson: Correlation | None = None
        spearman: Correlation | None = None
        note: str | None = None
        try:
            found = correlations(human, simulated, names=("the human mean", "the simulated mean"))
            pearson, spearman = found.pearson, found.spearman
        except StatisticUndefined as error:
            note = f"no correlation: {error}"
        results[measure.name] = SourceAgreement(
            measure=measure.name,
            n_pairs=len(shared),
            pearson=pearson,
            spearman=spearman,
            exact_agreement=matches / comparisons,
            note=note,
        )
    return results
