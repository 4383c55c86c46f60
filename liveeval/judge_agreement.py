"""Agreement among the judges of a live campaign, and between simulated users and judges.

Plain functions over the `SessionRow`s of `liveeval.metrics` (no Django).

- Agreement among judges is Krippendorff's α over (task, system) pairs: nominal for C and G,
  ordinal for Sa and F. Its CI resamples tasks, as the leaderboard's do.
- Simulated users are set against human judges on the (task, system) pairs both rated: the
  correlations and exact agreement of old, and the verdict's evidence, which treats the simulated
  users as the "LLM" of the alternative annotator test (Calderon, Reichart and Dror 2025) and
  sets α(simulated, judge) beside α(judge, judge). `sources_verdict` sums it up by the one rule
  of `evalsite.agreement.verdict` that the agreement report and judge alignment apply: the
  alt-test passes, α(simulated, judge) is above 0 and not significantly below α(judge, judge),
  and the simulated ratings vary. The sentence itself is worded, and translated, where it is
  shown.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from itertools import combinations
from typing import Literal

import numpy as np
import numpy.typing as npt

from evalsite.agreement.alpha import AlphaStatistic, krippendorff_alpha
from evalsite.agreement.alt_test import (
    DEFAULT_EPSILON,
    DEFAULT_MIN_ITEMS,
    AltTestResult,
    AltTestUnavailable,
    alt_test,
    default_scoring,
)
from evalsite.agreement.clusters import (
    MIN_CLUSTERS_FOR_INTERVAL,
    Interval,
    cluster_bootstrap_ci,
    cluster_distributions,
    cluster_estimates,
    cluster_interval_of,
    too_few_clusters,
)
from evalsite.agreement.common import (
    DEFAULT_CONFIDENCE,
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    Level,
    StatisticUndefined,
)
from evalsite.agreement.correlations import HUMAN_MEAN, Correlation, correlations
from evalsite.agreement.pairwise_alpha import MeanAlpha, MeanPairAlphaStatistic, llm_human_alpha
from evalsite.agreement.phrases import Phrase, gettext_noop, reason_of
from evalsite.agreement.rates import marginal_chance, uniform_chance
from evalsite.agreement.score_matrix import ScoreMatrix
from evalsite.agreement.verdict import StandIn, stand_in
from liveeval.metrics import (
    MEASURES,
    SOURCES,
    JudgeId,
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


Unit = tuple[TaskId, SystemId]


def _reliability_matrix(
    sessions: list[SessionRow], measure: Measure
) -> tuple[npt.NDArray[np.float64], list[Unit], list[JudgeId]]:
    """Units are (task, system) pairs and raters are judges; NaN where a judge gave no rating.
    Also the units (whose tasks are the clusters a CI resamples) and the judges, in order."""
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
    return matrix, units, judges


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
        matrix, units, _ = _reliability_matrix(sessions, measure)
        tasks = [task for task, _ in units]
        present = ~np.isnan(matrix)
        alpha: float | None = None
        interval: tuple[float, float] | None = None
        note: str | None = None
        if not present.any():
            note = Phrase(
                gettext_noop("no session has a %(measure)s rating (%(symbol)s)"),
                measure=measure.label,
                symbol=measure.symbol,
            )
        else:
            try:
                alpha = krippendorff_alpha(matrix, measure.level, value_domain=measure.scale)
            except StatisticUndefined as error:
                note = reason_of(error)
        if alpha is not None and resamples == 0:
            note = Phrase(gettext_noop("no CI: bootstrap resampling was turned off (0 resamples)"))
        elif alpha is not None:
            found = cluster_bootstrap_ci(
                AlphaStatistic(matrix, measure.level),
                tasks,
                resamples=resamples,
                seed=seed,
                confidence=confidence,
            )
            interval = found.bounds
            note = (
                None
                if found.note is None
                else Phrase(gettext_noop("no CI: %(reason)s"), reason=found.note)
            )
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
#
# Whether simulated users can stand in for human judges is the question the alternative annotator
# test asks of an LLM judge: the simulated users are its "LLM", the judges its humans, and the
# (task, system) pairs its items.

SimulatedSummary = Literal["rounded median", "mode"]


@dataclass(frozen=True)
class SourceAgreement:
    """How simulated users' ratings follow human judges' on the same (task, system) pairs.

    The correlations compare the per-pair means; ``exact_agreement`` is the share of
    (human rating, simulated rating) pairs on the same (task, system) pair that are equal.

    The evidence for the verdict sets one simulated rating per pair against each judge's:
    ``simulated`` says how several simulated ratings of a pair became one (the rounded median
    at the ordinal level, the mode at the nominal). ``alt_test`` is the alternative annotator
    test at `DEFAULT_EPSILON` (a campaign sets no ε) that tests only judges with
    `DEFAULT_MIN_ITEMS` pairs also rated by a simulated user and another judge;
    ``alt_test_most_pairs`` is the most such pairs any judge has. ``alpha_vs_judges`` is the
    mean over judges of α(simulated, judge) and ``alpha_between_judges`` the mean α over pairs
    of judges, the ceiling; their intervals resample tasks, as the leaderboard's do, and
    ``alpha_gap`` is the interval of their difference on the same resamples.
    ``distinct_answers`` counts the distinct summary ratings of the simulated users.
    """

    measure: str
    symbol: str
    level: Level
    n_pairs: int
    n_judges: int
    pearson: Correlation | None
    spearman: Correlation | None
    exact_agreement: float | None
    simulated: SimulatedSummary
    alt_test: AltTestResult | AltTestUnavailable
    alt_test_most_pairs: int
    alpha_vs_judges: MeanAlpha
    alpha_between_judges: MeanAlpha
    note: str | None
    alpha_gap: Interval
    distinct_answers: int
    # The chance levels of ``exact_agreement``: uniform on the measure's scale, and from each
    # source's own observed shares over the same (human, simulated) comparisons.
    exact_agreement_chance_uniform: float | None = None
    exact_agreement_chance_marginals: float | None = None

    @property
    def verdict(self) -> StandIn:
        """Whether the simulated users can stand in for the judges on this measure, by the one
        rule (`evalsite.agreement.verdict.stand_in`)."""
        return stand_in(
            self.alt_test_result,
            self.alpha_vs_judges.interval.bounds,
            self.alpha_gap.bounds,
            self.distinct_answers,
        )

    @property
    def alt_test_result(self) -> AltTestResult | None:
        """The alt-test's outcome, or None when it could not run."""
        return self.alt_test if isinstance(self.alt_test, AltTestResult) else None

    @property
    def alt_test_note(self) -> str | None:
        """Why the alt-test could not run, or None when it ran."""
        return self.alt_test.note if isinstance(self.alt_test, AltTestUnavailable) else None


def _mean_of(counts: Counter[int]) -> float:
    return sum(value * count for value, count in counts.items()) / counts.total()


def _summary_of(counts: Counter[int], level: Level) -> float:
    """One rating for a pair's simulated ratings: the median rounded to a scale point (halves
    round up) at the ordinal level, the most frequent rating (the lowest of a tie) otherwise."""
    if level == "ordinal":
        return float(math.floor(np.median(list(counts.elements())) + 0.5))
    return float(max(sorted(counts), key=lambda value: counts[value]))


def _simulated_against_judges(
    sessions: list[SessionRow], measure: Measure
) -> tuple[ScoreMatrix, list[TaskId]]:
    """Items are the (task, system) pairs some judge rated, humans are the judges, and the "LLM"
    is the simulated users' summary rating of each pair (NaN where none rated it)."""
    human = [row for row in sessions if row.source == "human"]
    matrix, units, judges = _reliability_matrix(human, measure)
    simulated: dict[Unit, Counter[int]] = {}
    for row in sessions:
        value = getattr(row, measure.name)
        if row.source == "simulated" and value is not None:
            simulated.setdefault((row.task, row.system), Counter())[int(value)] += 1
    llm = np.array(
        [
            _summary_of(simulated[unit], measure.level) if unit in simulated else np.nan
            for unit in units
        ]
    )
    scores = ScoreMatrix(
        items=tuple(f"{task}/{system}" for task, system in units),
        humans=tuple(str(judge) for judge in judges),
        human_scores=matrix,
        llm_scores=llm.astype(np.float64),
    )
    return scores, [task for task, _ in units]


def _most_alt_test_pairs(scores: ScoreMatrix) -> int:
    """The most pairs a judge rated that a simulated user and another judge rated too."""
    scored = ~np.isnan(scores.human_scores)
    usable = scored & ~np.isnan(scores.llm_scores)[:, None] & (scored.sum(axis=1) >= 2)[:, None]
    return int(usable.sum(axis=0).max(initial=0))


def _task_intervals(
    means: Mapping[str, MeanAlpha],
    columns: Mapping[str, list[tuple[int, int]]],
    raters: npt.NDArray[np.float64],
    level: Level,
    tasks: list[TaskId],
    *,
    resamples: int,
    seed: int,
    confidence: float,
) -> tuple[dict[str, MeanAlpha], Interval]:
    """Each mean with an interval from resampling tasks, and the interval of the first mean
    minus the second on the same resamples. ``columns[name]`` gives, for each pair of
    ``means[name]`` in order, the two columns of ``raters`` that the pair compares."""
    statistics = {}
    for name, mean in means.items():
        matrices = [
            raters[:, list(pair_columns)]
            for pair, pair_columns in zip(mean.pairs, columns[name], strict=True)
            if pair.alpha is not None
        ]
        if matrices:
            statistics[name] = MeanPairAlphaStatistic(matrices, level)
    if not statistics or resamples == 0:
        return dict(means), Interval(None)
    reason = too_few_clusters(tasks, MIN_CLUSTERS_FOR_INTERVAL)
    if reason is not None:
        return {
            name: replace(mean, interval=Interval(None, reason)) if name in statistics else mean
            for name, mean in means.items()
        }, Interval(None, reason)
    distributions = cluster_distributions(statistics, tasks, resamples=resamples, seed=seed)
    estimates = cluster_estimates(statistics, tasks)
    found = {
        name: replace(
            mean,
            interval=cluster_interval_of(
                distributions[name], estimates[name], tasks, confidence=confidence
            ),
        )
        if name in distributions
        else mean
        for name, mean in means.items()
    }
    first, second = means
    if {first, second} <= distributions.keys():
        # The difference on the same resamples; its value and jackknife are the differences.
        (one, one_jack), (other, other_jack) = estimates[first], estimates[second]
        gap = cluster_interval_of(
            distributions[first] - distributions[second],
            (one - other, one_jack - other_jack),
            tasks,
            confidence=confidence,
        )
    else:
        gap = Interval(None)
    return found, gap


def _judge_alphas(
    scores: ScoreMatrix,
    level: Level,
    tasks: list[TaskId],
    *,
    resamples: int,
    seed: int,
    confidence: float,
) -> tuple[MeanAlpha, MeanAlpha, Interval]:
    """α(simulated, judge) averaged over judges and α(judge, judge) averaged over pairs, each
    with an interval that resamples tasks, and the interval of their difference."""
    found = llm_human_alpha(scores, level, resamples=0)
    n_judges = len(scores.humans)
    # Column 0 is the simulated users', column k + 1 judge k's: the pairs' order in `found`.
    raters = np.column_stack([scores.llm_scores, scores.human_scores])
    pairs = {
        "versus": [(0, judge + 1) for judge in range(n_judges)],
        "between": [(first + 1, second + 1) for first, second in combinations(range(n_judges), 2)],
    }
    means = {"versus": found.llm_vs_humans, "between": found.humans_pairwise}
    resampled, gap = _task_intervals(
        means, pairs, raters, level, tasks, resamples=resamples, seed=seed, confidence=confidence
    )
    return resampled["versus"], resampled["between"], gap


def _correlations_and_matches(
    shared: list[dict[Source, Counter[int]]],
) -> tuple[Correlation | None, Correlation | None, float | None, str | None]:
    """Pearson and Spearman between the pairs' mean ratings, the exact-agreement share, and a
    note when the correlations have no value."""
    if not shared:
        return None, None, None, None
    human = np.array([_mean_of(unit["human"]) for unit in shared])
    simulated = np.array([_mean_of(unit["simulated"]) for unit in shared])
    matches = sum(
        unit["human"][value] * unit["simulated"][value]
        for unit in shared
        for value in unit["human"]
    )
    comparisons = sum(unit["human"].total() * unit["simulated"].total() for unit in shared)
    try:
        found = correlations(
            human,
            simulated,
            names=(HUMAN_MEAN, Phrase(gettext_noop("the simulated mean"))),
        )
    except StatisticUndefined as error:
        reason = Phrase(gettext_noop("no correlation: %(reason)s"), reason=reason_of(error))
        return None, None, matches / comparisons, reason
    return found.pearson, found.spearman, matches / comparisons, None


def _exact_chance(shared: list[dict[Source, Counter[int]]]) -> float | None:
    """Exact agreement expected if both sources answered independently with their observed
    shares, weighted as `_correlations_and_matches` counts comparisons: each simulated rating
    of a pair against each human rating of it (`evalsite.agreement.rates.marginal_chance`, with
    one row per simulated rating holding the pair's human ratings)."""
    rows = [
        (value, list(unit["human"].elements()))
        for unit in shared
        for value in unit["simulated"].elements()
    ]
    if not rows:
        return None
    width = max(len(humans) for _, humans in rows)
    humans = np.full((len(rows), width), np.nan)
    for index, (_, ratings) in enumerate(rows):
        humans[index, : len(ratings)] = ratings
    simulated = np.array([value for value, _ in rows], dtype=np.float64)
    return marginal_chance(humans, simulated, 0.0)


def _shared_pairs(sessions: list[SessionRow], measure: Measure) -> list[dict[Source, Counter[int]]]:
    """Per (task, system) pair rated by both sources, in pair order, each source's ratings."""
    ratings: dict[Unit, dict[Source, Counter[int]]] = {}
    for row in sessions:
        value = getattr(row, measure.name)
        if value is not None:
            unit = ratings.setdefault((row.task, row.system), {s: Counter() for s in SOURCES})
            unit[row.source][int(value)] += 1
    return [
        unit
        for _, unit in sorted(ratings.items(), key=lambda item: tuple(map(id_order, item[0])))
        if unit["human"] and unit["simulated"]
    ]


def agreement_between_sources(
    rows: Iterable[RowInput],
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    confidence: float = DEFAULT_CONFIDENCE,
) -> dict[str, SourceAgreement]:
    """Per measure, agreement between simulated and human ratings, keyed by measure name.

    See `SourceAgreement` for every field; `sources_verdict` sums them up. Raises ValueError if
    a judge rated a pair twice.
    """
    sessions = as_rows(rows, None)
    results: dict[str, SourceAgreement] = {}
    for measure in MEASURES:
        shared = _shared_pairs(sessions, measure)
        pearson, spearman, exact, note = _correlations_and_matches(shared)
        if not shared:
            note = Phrase(
                gettext_noop(
                    "no (task, system) pair has both a human and a simulated %(measure)s rating "
                    "(%(symbol)s)"
                ),
                measure=measure.label,
                symbol=measure.symbol,
            )
        scores, tasks = _simulated_against_judges(sessions, measure)
        versus, between, gap = _judge_alphas(
            scores, measure.level, tasks, resamples=resamples, seed=seed, confidence=confidence
        )
        simulated = scores.llm_scores[~np.isnan(scores.llm_scores)]
        results[measure.name] = SourceAgreement(
            measure=measure.name,
            symbol=measure.symbol,
            level=measure.level,
            n_pairs=len(shared),
            n_judges=len(scores.humans),
            pearson=pearson,
            spearman=spearman,
            exact_agreement=exact,
            simulated="rounded median" if measure.level == "ordinal" else "mode",
            alt_test=alt_test(
                scores,
                scoring=default_scoring(measure.level),
                epsilon=DEFAULT_EPSILON,
                min_items=DEFAULT_MIN_ITEMS,
            ),
            alt_test_most_pairs=_most_alt_test_pairs(scores),
            alpha_vs_judges=versus,
            alpha_between_judges=between,
            note=note,
            alpha_gap=gap,
            distinct_answers=len(np.unique(simulated)),
            exact_agreement_chance_uniform=uniform_chance(len(measure.scale)) if shared else None,
            exact_agreement_chance_marginals=_exact_chance(shared),
        )
    return results


@dataclass(frozen=True)
class SourcesVerdict:
    """What the verdict on simulated users rests on, by measure symbol: where they stand in by
    the one rule (``passed``), where the alt-test ran but some check failed (``failed``, with
    each measure's `StandIn` in ``failures`` naming what failed), and where the alt-test could
    not run (``untested``), at ``epsilon``."""

    passed: tuple[str, ...]
    failed: tuple[str, ...]
    untested: tuple[str, ...]
    epsilon: float
    min_items: int
    failures: tuple[tuple[str, StandIn], ...] = ()

    @property
    def outcome(self) -> Literal["stand_in", "cannot_stand_in", "mixed", "no_verdict"]:
        """``stand_in`` when the rule held wherever the alt-test ran, ``cannot_stand_in`` when
        it failed wherever it ran, ``mixed`` otherwise, ``no_verdict`` when it ran nowhere."""
        if self.passed and self.failed:
            return "mixed"
        if self.passed:
            return "stand_in"
        return "cannot_stand_in" if self.failed else "no_verdict"


def sources_verdict(between: Mapping[str, SourceAgreement]) -> SourcesVerdict:
    """The one rule's verdict on each measure of `agreement_between_sources`.

    A measure whose alt-test could not run is untested: it gets no verdict either way. Never
    built from α with the simulated users counted as one more judge, half of whose pairs would
    be between judges, nor from the alt-test alone, which a constant rating can pass.
    """
    outcomes: dict[str, list[str]] = {"passed": [], "failed": [], "untested": []}
    failures = []
    for agreement in between.values():
        verdict = agreement.verdict
        if agreement.alt_test_result is None:
            key = "untested"
        elif verdict.stands_in:
            key = "passed"
        else:
            key = "failed"
            failures.append((agreement.symbol, verdict))
        outcomes[key].append(agreement.symbol)
    return SourcesVerdict(
        passed=tuple(outcomes["passed"]),
        failed=tuple(outcomes["failed"]),
        untested=tuple(outcomes["untested"]),
        epsilon=DEFAULT_EPSILON,
        min_items=DEFAULT_MIN_ITEMS,
        failures=tuple(failures),
    )
