"""The human–LLM agreement engine: per dimension, agreement among people and with the LLM.

`human_llm_agreement` takes a long frame of scores and returns, per dimension (and per
breakdown group), typed `AgreementBlock` values: the alternative annotator test, α among people,
α of the LLM with each human beside α between humans, α with the LLM as one more rater,
correlations, MAE and agreement rates (beside their chance levels), each with a bootstrap CI
and notes that say why any of them has no value. `AgreementBlock.as_json` gives the plain-JSON
shape that the ``agreement`` command prints and the report caches.

Two options serve a pooled block, whose items are (dimension, transcript) units: ``cluster``
names each item's cluster (its transcript), and every CI then resamples whole clusters;
``within`` names a column (the dimension) within which scores are centred before α and the
correlations, so that dimensions with different means cannot make pooled agreement look high.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd

from evalsite.agreement.alpha import AlphaStatistic, krippendorff_alpha
from evalsite.agreement.alt_test import (
    DEFAULT_EPSILON,
    AltScoring,
    AltTestResult,
    AltTestUnavailable,
    alt_test,
    default_scoring,
)
from evalsite.agreement.bootstrap import (
    bootstrap_distributions,
    ci_undefined_reason,
    percentile_interval,
)
from evalsite.agreement.clusters import (
    MIN_CLUSTERS_FOR_INTERVAL,
    cluster_distributions,
    cluster_estimates,
    cluster_interval,
    too_few_clusters,
)
from evalsite.agreement.common import (
    DEFAULT_CONFIDENCE,
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    FloatArray,
    InputError,
    Interval,
    Level,
    ResampledStatistic,
    StatisticUndefined,
)
from evalsite.agreement.correlations import (
    HUMAN_MEAN,
    Correlation,
    KendallStatistic,
    PearsonStatistic,
    SpearmanStatistic,
    correlations,
)
from evalsite.agreement.entries import Entry, entry_notes, setting_notes
from evalsite.agreement.long_csv import centred_within, coded_labels, validated
from evalsite.agreement.multiplicity import family
from evalsite.agreement.pairwise_alpha import MeanAlpha, llm_human_alpha
from evalsite.agreement.phrases import Phrase, gettext_noop, reason_of
from evalsite.agreement.rates import (
    llm_human_rates,
    marginal_chance,
    most_values,
    uniform_chance,
)
from evalsite.agreement.results import (
    ALPHA_NAMES,
    AgreementBlock,
    AlphaIntervals,
    Alphas,
    ChanceLevels,
    Estimate,
)
from evalsite.agreement.scale_step import TWO_VALUES, ScaleStep, scale_points, scale_step
from evalsite.agreement.score_matrix import ScoreMatrix
from evalsite.agreement.verdict import on_every_dimension, withheld_over

LLM_FIELDS = (
    "alt_test",
    "alpha.llm_vs_humans",
    "alpha.humans_plus_llm",
    "alpha.llm_vs_human_mean",
    "pearson",
    "spearman",
    "kendall",
    "mae",
    "exact_agreement",
    "exact_agreement_per_item",
    "within_one",
)


@dataclass(frozen=True)
class _Options:
    """How every block of one call is computed."""

    llm: str | None
    level: Level
    scale_points: FloatArray | None
    step: ScaleStep
    epsilon: float
    alt_scoring: AltScoring
    cluster: str | None
    within: str | None
    labels: tuple[str, ...] | None


# Why the numeric fields are null for text labels.
LABELS_HAVE_NO_DISTANCE = Phrase(
    gettext_noop("the scores are text labels, categories with no numeric distance")
)


class _Block:
    """The statistics of one dimension, or of one breakdown group within it."""

    def __init__(self, rows: pd.DataFrame, options: _Options) -> None:
        wide = rows.pivot(index="item", columns="rater", values="score")
        llm = options.llm
        self.n_items = len(wide)
        self.raters = sorted(str(name) for name in wide.columns)
        self.level = options.level
        self.llm = llm
        self.within = options.within
        self.cluster_column = options.cluster
        self.alt_test_note: str | None = None
        self.clusters: list[str] | None = None
        if options.cluster is not None:
            labels = rows.groupby("item")[options.cluster].first().reindex(wide.index)
            self.clusters = [str(label) for label in labels]
        # Scores are compared only within a group (a dimension of the pooled block).
        self.groups: list[str] | None = None
        if options.within is not None:
            found = rows.groupby("item")[options.within].first().reindex(wide.index)
            self.groups = [str(label) for label in found]
        self.chance = ChanceLevels()
        self.llm_scored = llm is not None and llm in wide.columns
        self.alt_test: AltTestResult | None = None
        self.gap_interval: Interval | None = None
        self.distinct_answers: int | None = None
        human_columns = [name for name in wide.columns if name != llm]
        humans = wide[human_columns].to_numpy(dtype=np.float64)
        llm_scores = (
            wide[llm].to_numpy(dtype=np.float64) if self.llm_scored else np.full(len(wide), np.nan)
        )
        # Centred scores have no scale points left: α compares their distances (interval).
        alpha_level: Level = "interval" if options.within else options.level
        points = None if options.within else options.scale_points
        self.entries: dict[str, Entry] = {}
        self._alpha("humans", humans, alpha_level, points)
        scores = ScoreMatrix(
            tuple(str(item) for item in wide.index),
            tuple(str(name) for name in human_columns),
            humans,
            llm_scores,
            options.labels,
        )
        pairwise = llm_human_alpha(scores, alpha_level, resamples=0)
        self._pair_mean("humans_pairwise", pairwise.humans_pairwise)
        if not self.llm_scored:
            return
        self.distinct_answers = len(np.unique(llm_scores[~np.isnan(llm_scores)]))
        self._alt_test(scores, options)
        self._pair_mean("llm_vs_humans", pairwise.llm_vs_humans)
        human_count = (~np.isnan(humans)).sum(axis=1)
        human_mean = np.divide(
            np.nansum(humans, axis=1),
            human_count,
            out=np.full(len(humans), np.nan),
            where=human_count > 0,
        )
        self._alpha("humans_plus_llm", np.column_stack([humans, llm_scores]), alpha_level, points)
        if options.labels is not None:
            self._without_distance()
        else:
            self._alpha(
                "llm_vs_human_mean", np.column_stack([llm_scores, human_mean]), "interval", None
            )
            self._correlations(human_mean, llm_scores)
        self._rates(humans, human_mean, llm_scores, options)

    def _without_distance(self) -> None:
        """Null the fields that need a distance between scores, which text labels lack."""
        for name, fields, interval_field in (
            ("alpha.llm_vs_human_mean", "alpha.llm_vs_human_mean", "alpha_ci.llm_vs_human_mean"),
            ("pearson", "pearson.r and pearson.p", "pearson.ci"),
            ("spearman", "spearman.rho and spearman.p", "spearman.ci"),
            ("kendall", "kendall.tau and kendall.p", "kendall.ci"),
        ):
            self.entries[name] = Entry(fields, interval_field, reason=LABELS_HAVE_NO_DISTANCE)

    def _alt_test(self, scores: ScoreMatrix, options: _Options) -> None:
        # Units of one cluster share its halo: the t-tests run on cluster means.
        found = alt_test(
            scores, scoring=options.alt_scoring, epsilon=options.epsilon, clusters=self.clusters
        )
        if isinstance(found, AltTestUnavailable):
            self.alt_test_note = found.note
        else:
            self.alt_test = found

    def _pair_mean(self, name: str, mean: MeanAlpha) -> None:
        entry = Entry(f"alpha.{name}", f"alpha_ci.{name}")
        self.entries[f"alpha.{name}"] = entry
        if mean.value is None:
            entry.reason = mean.note or Phrase(gettext_noop("no pair of raters has a defined α"))
            return
        entry.value = mean.value
        entry.statistic = mean.statistic

    def _alpha(
        self, name: str, matrix: FloatArray, level: Level, scale_points: FloatArray | None
    ) -> None:
        entry = Entry(f"alpha.{name}", f"alpha_ci.{name}")
        self.entries[f"alpha.{name}"] = entry
        domain = None
        if scale_points is not None:
            observed = matrix[~np.isnan(matrix)]
            domain = np.union1d(scale_points, observed)
        try:
            entry.value = krippendorff_alpha(matrix, level, value_domain=domain)
        except StatisticUndefined as error:
            entry.reason = reason_of(error)
            return
        entry.statistic = AlphaStatistic(matrix, level)

    def _correlations(self, human_mean: FloatArray, llm_scores: FloatArray) -> None:
        kinds: dict[str, tuple[Callable[[FloatArray, FloatArray], ResampledStatistic], str]] = {
            "pearson": (PearsonStatistic, "r"),
            "spearman": (SpearmanStatistic, "rho"),
            "kendall": (KendallStatistic, "tau"),
        }
        entries = {
            name: Entry(
                Phrase(
                    gettext_noop("%(statistic)s and %(p)s"),
                    statistic=f"{name}.{symbol}",
                    p=f"{name}.p",
                ),
                f"{name}.ci",
            )
            for name, (_, symbol) in kinds.items()
        }
        self.entries.update(entries)
        try:
            found = correlations(
                human_mean,
                llm_scores,
                names=(HUMAN_MEAN, Phrase(gettext_noop("the LLM's score"))),
            )
        except StatisticUndefined as error:
            for entry in entries.values():
                entry.reason = reason_of(error)
            return
        for name, (kind, _) in kinds.items():
            result: Correlation = getattr(found, name)
            entries[name].value = result.statistic
            entries[name].pvalue = result.pvalue
            entries[name].statistic = kind(human_mean, llm_scores)

    def _rates(
        self, humans: FloatArray, human_mean: FloatArray, llm_scores: FloatArray, options: _Options
    ) -> None:
        step = options.step
        if options.labels is not None:
            step = ScaleStep(None, LABELS_HAVE_NO_DISTANCE, options.step.points)
        elif step.step is not None:
            both = np.column_stack([humans, llm_scores])
            if most_values(both, self.groups) <= 2:
                step = ScaleStep(None, TWO_VALUES, step.points)
        rates = llm_human_rates(humans, human_mean, llm_scores, step.step)
        self.chance = ChanceLevels(
            scale_points=step.points,
            exact_uniform=uniform_chance(step.points),
            exact_marginals=marginal_chance(humans, llm_scores, 0.0, self.groups),
            within_one_uniform=None
            if step.step is None
            else uniform_chance(step.points, within_one=True),
            within_one_marginals=None
            if step.step is None
            else marginal_chance(humans, llm_scores, step.step, self.groups),
        )
        if options.labels is not None:
            rates["mae"] = None
        for name, statistic in rates.items():
            entry = Entry(name, f"{name}_ci")
            self.entries[name] = entry
            if statistic is None:
                entry.reason = step.reason
                continue
            try:
                entry.value = statistic.estimate()
            except StatisticUndefined:
                entry.reason = Phrase(
                    gettext_noop("no item has both an LLM score and a human score")
                )
                continue
            entry.statistic = statistic

    def add_intervals(self, *, resamples: int, seed: int, confidence: float) -> None:
        ready: dict[str, ResampledStatistic] = {}
        clustered = None
        if self.clusters is not None:
            clustered = too_few_clusters(self.clusters, MIN_CLUSTERS_FOR_INTERVAL)
        for name, entry in self.entries.items():
            if entry.statistic is None:
                continue
            entry.interval_reason = ci_undefined_reason(entry.statistic, resamples) or clustered
            if entry.interval_reason is None:
                ready[name] = entry.statistic
        if self.clusters is None:
            distributions = bootstrap_distributions(ready, resamples=resamples, seed=seed)
            estimates = {}
        else:
            distributions = cluster_distributions(
                ready, self.clusters, resamples=resamples, seed=seed
            )
            estimates = cluster_estimates(ready, self.clusters)
        pairs = ("alpha.llm_vs_humans", "alpha.humans_pairwise")
        if set(pairs) <= distributions.keys():
            # α LLM–humans against α between humans, on the same resamples: the verdict's third
            # check. Its value and jackknife are the differences of theirs.
            distributions["alpha.gap"] = distributions[pairs[0]] - distributions[pairs[1]]
            if estimates:
                (llm, llm_jack), (people, people_jack) = (estimates[name] for name in pairs)
                estimates["alpha.gap"] = (llm - people, llm_jack - people_jack)
        intervals: dict[str, Interval] = {}
        for name, distribution in distributions.items():
            try:
                intervals[name] = self._interval(
                    distribution, estimates.get(name), confidence=confidence
                )
            except StatisticUndefined as error:
                if name in self.entries:
                    self.entries[name].interval_reason = reason_of(error)
        for name, interval in intervals.items():
            if name in self.entries:
                self.entries[name].interval = interval
        self.gap_interval = intervals.get("alpha.gap")

    def _interval(
        self,
        distribution: FloatArray,
        estimate: tuple[float, FloatArray] | None,
        *,
        confidence: float,
    ) -> Interval:
        """The percentile interval over items; over clusters, BCa widened for few clusters."""
        if self.clusters is None or estimate is None:
            return percentile_interval(distribution, confidence=confidence)
        value, jackknife = estimate
        return cluster_interval(
            distribution,
            value,
            jackknife,
            n_clusters=len(set(self.clusters)),
            confidence=confidence,
        )

    def result(self, *, intervals_computed: bool) -> AgreementBlock:
        notes = setting_notes(
            llm=self.llm,
            llm_scored=bool(self.llm_scored),
            llm_fields=LLM_FIELDS,
            intervals_computed=intervals_computed,
            cluster_column=None if self.clusters is None else str(self.cluster_column),
            within=self.within,
            alt_test_note=self.alt_test_note,
            alt_test_clustered=self.alt_test is not None and self.clusters is not None,
        )
        notes.extend(entry_notes(self.entries.values()))

        def value(name: str) -> float | None:
            entry = self.entries.get(name)
            return None if entry is None else entry.value

        def interval(name: str) -> Interval | None:
            entry = self.entries.get(name)
            return None if entry is None else entry.interval

        def correlation(name: str) -> Estimate:
            entry = self.entries.get(name)
            return Estimate(
                value=None if entry is None else entry.value,
                p=None if entry is None else entry.pvalue,
                ci=interval(name),
            )

        return AgreementBlock(
            n_items=self.n_items,
            raters=self.raters,
            llm=self.llm,
            level=self.level,
            alpha=Alphas(**{name: value(f"alpha.{name}") for name in ALPHA_NAMES}),
            alpha_ci=AlphaIntervals(**{name: interval(f"alpha.{name}") for name in ALPHA_NAMES}),
            pearson=correlation("pearson"),
            spearman=correlation("spearman"),
            kendall=correlation("kendall"),
            mae=value("mae"),
            mae_ci=interval("mae"),
            exact_agreement=value("exact_agreement"),
            exact_agreement_ci=interval("exact_agreement"),
            exact_agreement_per_item=value("exact_agreement_per_item"),
            exact_agreement_per_item_ci=interval("exact_agreement_per_item"),
            within_one=value("within_one"),
            within_one_ci=interval("within_one"),
            chance=self.chance,
            alt_test=self.alt_test,
            alpha_gap_ci=self.gap_interval,
            llm_distinct_answers=self.distinct_answers,
            notes=notes,
        )


def agreement_blocks(
    long_frame: pd.DataFrame,
    *,
    llm: str | None = None,
    level: Level = "ordinal",
    scale: tuple[float, float] | None = None,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    by: Sequence[str] = (),
    confidence: float = DEFAULT_CONFIDENCE,
    epsilon: float = DEFAULT_EPSILON,
    alt_scoring: AltScoring | None = None,
    cluster: str | None = None,
    within: str | None = None,
) -> dict[str, AgreementBlock]:
    """Agreement among the human raters and between them and the LLM, per dimension.

    ``long_frame`` has one row per score, with columns item, rater and score, optionally
    dimension (otherwise everything is dimension "all") and metadata columns, which ``by``
    names for breakdowns. ``llm`` is the rater name of the LLM evaluator; every other rater
    is human. ``scale`` (MIN, MAX) bounds the scores, and for nominal and ordinal α its integer
    points are the value domain. ``resamples=0`` turns CIs off. At the nominal level scores
    may be text labels (`coded_labels`): α, exact agreement and the alt-test (accuracy) treat
    them as categories; the fields that need a distance are null with a note.

    With an LLM, each block carries the alternative annotator test at allowance ``epsilon``,
    aligning scores by ``alt_scoring`` (by default `default_scoring` of ``level``).
    ``cluster`` names a column giving each item's cluster: every CI then resamples whole
    clusters. ``within`` names a column (such as the dimension) within which scores are centred
    before α (then at the interval level) and the correlations. Both columns must hold one value
    per item.

    Returns one block per dimension, in the frame's order; each block's notes say why any
    field is None. Raises `InputError` for scores that cannot be analysed as given.
    """
    if resamples < 0:
        raise ValueError("the number of resamples cannot be negative")
    if seed < 0:
        raise ValueError("the seed must be zero or positive")
    if not 0 <= epsilon < 1:
        raise ValueError("epsilon must be at least 0 and below 1")
    per_item = [
        column for column in (cluster, within) if column is not None and column != "dimension"
    ]
    coded, labels = coded_labels(long_frame, level)
    if labels is not None and within is not None:
        raise InputError("text labels cannot be centred within groups; leave 'within' out")
    if labels is not None and alt_scoring == "neg_rmse":
        raise InputError("the alt-test's neg_rmse needs numbers; text labels align by accuracy")
    frame = validated(coded, level=level, scale=None if labels else scale, by=by, per_item=per_item)
    options = _Options(
        llm=llm,
        level=level,
        scale_points=scale_points(scale, level),
        step=scale_step(frame["score"].to_numpy(dtype=np.float64), level=level, scale=scale),
        epsilon=epsilon,
        alt_scoring=alt_scoring or default_scoring(level),
        cluster=cluster,
        within=within,
        labels=labels,
    )
    if within is not None:
        frame = centred_within(frame, within)

    def block(rows: pd.DataFrame) -> AgreementBlock:
        computed = _Block(rows, options)
        if resamples:
            computed.add_intervals(resamples=resamples, seed=seed, confidence=confidence)
        return computed.result(intervals_computed=resamples > 0)

    dimensions: dict[str, AgreementBlock] = {}
    for name, rows in frame.groupby("dimension", sort=False):
        result = block(rows)
        if by:
            result = replace(
                result,
                by={
                    column: {
                        str(value): block(group) for value, group in rows.groupby(column, sort=True)
                    }
                    for column in by
                },
            )
        dimensions[str(name)] = result
    return dimensions


def human_llm_agreement(
    long_frame: pd.DataFrame,
    *,
    llm: str | None = None,
    level: Level = "ordinal",
    scale: tuple[float, float] | None = None,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    by: Sequence[str] = (),
    confidence: float = DEFAULT_CONFIDENCE,
    epsilon: float = DEFAULT_EPSILON,
    alt_scoring: AltScoring | None = None,
    cluster: str | None = None,
    within: str | None = None,
) -> dict[str, Any]:
    """`agreement_blocks` as plain JSON: ``{"verdict": ..., "dimensions": {name: block}}``.

    Plain dicts, lists, numbers and None, ready for ``json.dumps(..., allow_nan=False)``;
    each block's "notes" say why any field is null. Raises `InputError` for scores that
    cannot be analysed as given.
    """
    blocks = agreement_blocks(
        long_frame,
        llm=llm,
        level=level,
        scale=scale,
        resamples=resamples,
        seed=seed,
        by=by,
        confidence=confidence,
        epsilon=epsilon,
        alt_scoring=alt_scoring,
        cluster=cluster,
        within=within,
    )
    return report_json(blocks)


def report_json(blocks: dict[str, AgreementBlock]) -> dict[str, Any]:
    """The blocks as plain JSON, with the verdict over the whole file before them.

    The whole-file verdict holds only where every dimension's does (`on_every_dimension`);
    it is null without an LLM, and null with ``verdict_withheld`` saying why when no dimension
    could be tested on its own (`withheld_over`). With breakdowns, ``breakdowns`` gives each
    dimension's breakdown as a family of tests: its intervals, and which groups' Pearson r
    survive Benjamini–Hochberg (`evalsite.agreement.multiplicity`).
    """
    verdicts = [block.verdict for block in blocks.values() if block.verdict is not None]
    whole = on_every_dimension(verdicts)
    withheld = None if whole is None else withheld_over(verdicts)
    report: dict[str, Any] = {
        "verdict": None if whole is None or withheld is not None else whole.as_json(),
        "verdict_withheld": withheld,
        "dimensions": {name: block.as_json() for name, block in blocks.items()},
    }
    breakdowns = {
        name: {column: _family_json(groups) for column, groups in block.by.items()}
        for name, block in blocks.items()
        if block.by
    }
    if breakdowns:
        report["breakdowns"] = breakdowns
    return report


def _family_json(groups: dict[str, AgreementBlock]) -> dict[str, Any]:
    """One breakdown as a family of tests (`evalsite.agreement.multiplicity`)."""
    found = family(list(groups.values()))
    return {
        "intervals": found.intervals,
        "tested": found.tested,
        "surviving": found.surviving,
        "survives_bh": dict(zip(groups, found.survives, strict=True)),
    }
