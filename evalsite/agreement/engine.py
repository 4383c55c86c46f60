"""The human–LLM agreement engine: per dimension, agreement among people and with the LLM.

`human_llm_agreement` takes a long frame of scores and returns, per dimension (and per
breakdown group), typed `AgreementBlock` values: α among people, α with the LLM as one more
rater, correlations, MAE and agreement rates, each with a bootstrap CI and notes that say why
any of them has no value. `AgreementBlock.as_json` gives the plain-JSON shape that the
``agreement`` command prints and the report caches.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd

from evalsite.agreement.alpha import AlphaStatistic, krippendorff_alpha
from evalsite.agreement.bootstrap import (
    bootstrap_distributions,
    ci_undefined_reason,
    percentile_interval,
)
from evalsite.agreement.common import (
    DEFAULT_CONFIDENCE,
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    SCORE_TOLERANCE,
    FloatArray,
    Interval,
    Level,
    ResampledStatistic,
    StatisticUndefined,
    joined,
)
from evalsite.agreement.correlations import (
    Correlation,
    KendallStatistic,
    PearsonStatistic,
    SpearmanStatistic,
    correlations,
)
from evalsite.agreement.long_csv import validated
from evalsite.agreement.rates import RatioOfSums
from evalsite.agreement.results import AgreementBlock, AlphaIntervals, Alphas, Estimate

LLM_FIELDS = (
    "alpha.humans_plus_llm",
    "alpha.llm_vs_human_mean",
    "pearson",
    "spearman",
    "kendall",
    "mae",
    "exact_agreement",
    "within_one",
)


def _scale_points(scale: tuple[float, float] | None, level: str) -> FloatArray | None:
    """The points of an integer scale, which nominal and ordinal α take as their domain."""
    if scale is None or level not in ("nominal", "ordinal"):
        return None
    low, high = scale
    if not (float(low).is_integer() and float(high).is_integer()):
        return None
    return np.arange(low, high + 1, dtype=np.float64)


@dataclass
class _Entry:
    """One statistic of a report block: its estimate, why it has none, and how to resample it."""

    fields: str
    interval_field: str
    value: float | None = None
    pvalue: float | None = None
    reason: str | None = None
    statistic: ResampledStatistic | None = None
    interval: tuple[float, float] | None = None
    interval_reason: str | None = None


class _Block:
    """The statistics of one dimension, or of one breakdown group within it."""

    def __init__(
        self,
        rows: pd.DataFrame,
        *,
        llm: str | None,
        level: Level,
        scale_points: FloatArray | None,
    ) -> None:
        wide = rows.pivot(index="item", columns="rater", values="score")
        self.n_items = len(wide)
        self.raters = sorted(str(name) for name in wide.columns)
        self.level = level
        self.llm = llm
        self.llm_scored = llm is not None and llm in wide.columns
        human_columns = [name for name in wide.columns if name != llm]
        humans = wide[human_columns].to_numpy(dtype=np.float64)
        self.entries: dict[str, _Entry] = {}
        self._alpha("humans", humans, level, scale_points)
        if not self.llm_scored:
            return
        llm_scores = wide[llm].to_numpy(dtype=np.float64)
        human_count = (~np.isnan(humans)).sum(axis=1)
        human_mean = np.divide(
            np.nansum(humans, axis=1),
            human_count,
            out=np.full(len(humans), np.nan),
            where=human_count > 0,
        )
        self._alpha("humans_plus_llm", np.column_stack([humans, llm_scores]), level, scale_points)
        self._alpha(
            "llm_vs_human_mean", np.column_stack([llm_scores, human_mean]), "interval", None
        )
        self._correlations(human_mean, llm_scores)
        self._rates(humans, human_mean, llm_scores)

    def _alpha(
        self, name: str, matrix: FloatArray, level: Level, scale_points: FloatArray | None
    ) -> None:
        entry = _Entry(f"alpha.{name}", f"alpha_ci.{name}")
        self.entries[f"alpha.{name}"] = entry
        domain = None
        if scale_points is not None:
            observed = matrix[~np.isnan(matrix)]
            domain = np.union1d(scale_points, observed)
        try:
            entry.value = krippendorff_alpha(matrix, level, value_domain=domain)
        except StatisticUndefined as error:
            entry.reason = str(error)
            return
        entry.statistic = AlphaStatistic(matrix, level)

    def _correlations(self, human_mean: FloatArray, llm_scores: FloatArray) -> None:
        kinds: dict[str, tuple[Callable[[FloatArray, FloatArray], ResampledStatistic], str]] = {
            "pearson": (PearsonStatistic, "r"),
            "spearman": (SpearmanStatistic, "rho"),
            "kendall": (KendallStatistic, "tau"),
        }
        entries = {
            name: _Entry(f"{name}.{symbol} and {name}.p", f"{name}.ci")
            for name, (_, symbol) in kinds.items()
        }
        self.entries.update(entries)
        try:
            found = correlations(
                human_mean, llm_scores, names=("the human mean", "the LLM's score")
            )
        except StatisticUndefined as error:
            for entry in entries.values():
                entry.reason = str(error)
            return
        for name, (kind, _) in kinds.items():
            result: Correlation = getattr(found, name)
            entries[name].value = result.statistic
            entries[name].pvalue = result.pvalue
            entries[name].statistic = kind(human_mean, llm_scores)

    def _rates(self, humans: FloatArray, human_mean: FloatArray, llm_scores: FloatArray) -> None:
        scored = ~np.isnan(llm_scores)
        complete = scored & ~np.isnan(human_mean)
        gap = np.where(complete, np.abs(llm_scores - human_mean), 0.0)
        distance = np.abs(humans - llm_scores[:, None])
        pairs = np.where(scored, (~np.isnan(humans)).sum(axis=1), 0).astype(np.float64)
        exact = np.where(scored, (distance <= SCORE_TOLERANCE).sum(axis=1), 0)
        within = np.where(scored, (distance <= 1 + SCORE_TOLERANCE).sum(axis=1), 0)
        rates = {
            "mae": RatioOfSums(gap, complete.astype(np.float64)),
            "exact_agreement": RatioOfSums(exact, pairs),
            "within_one": RatioOfSums(within, pairs),
        }
        for name, statistic in rates.items():
            entry = _Entry(name, f"{name}_ci")
            self.entries[name] = entry
            try:
                entry.value = statistic.estimate()
            except StatisticUndefined:
                entry.reason = "no item has both an LLM score and a human score"
                continue
            entry.statistic = statistic

    def add_intervals(self, *, resamples: int, seed: int, confidence: float) -> None:
        ready: dict[str, ResampledStatistic] = {}
        for name, entry in self.entries.items():
            if entry.statistic is None:
                continue
            entry.interval_reason = ci_undefined_reason(entry.statistic, resamples)
            if entry.interval_reason is None:
                ready[name] = entry.statistic
        distributions = bootstrap_distributions(ready, resamples=resamples, seed=seed)
        for name, distribution in distributions.items():
            try:
                self.entries[name].interval = percentile_interval(
                    distribution, confidence=confidence
                )
            except StatisticUndefined as error:
                self.entries[name].interval_reason = str(error)

    def result(self, *, intervals_computed: bool) -> AgreementBlock:
        notes: list[str] = []
        if self.llm is None:
            notes.append(
                "No rater is marked as the LLM, so every field comparing the LLM with the "
                f"humans is null ({', '.join(LLM_FIELDS)})."
            )
        elif not self.llm_scored:
            notes.append(
                f"The LLM rater '{self.llm}' scored none of these items, so every field "
                f"comparing the LLM with the humans is null ({', '.join(LLM_FIELDS)})."
            )
        if not intervals_computed:
            notes.append("Every CI is null: bootstrap resampling was turned off (0 resamples).")
        # Fields null for the same reason share one sentence.
        by_reason: dict[str, list[str]] = {}
        for entry in self.entries.values():
            if entry.reason is not None:
                by_reason.setdefault(entry.reason, []).extend([entry.fields, entry.interval_field])
            elif entry.interval_reason is not None:
                by_reason.setdefault(entry.interval_reason, []).append(entry.interval_field)
        for reason, fields in by_reason.items():
            verb = "is" if len(fields) == 1 else "are"
            notes.append(f"{joined(fields)} {verb} null: {reason}.")

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
            alpha=Alphas(
                humans=value("alpha.humans"),
                humans_plus_llm=value("alpha.humans_plus_llm"),
                llm_vs_human_mean=value("alpha.llm_vs_human_mean"),
            ),
            alpha_ci=AlphaIntervals(
                humans=interval("alpha.humans"),
                humans_plus_llm=interval("alpha.humans_plus_llm"),
                llm_vs_human_mean=interval("alpha.llm_vs_human_mean"),
            ),
            pearson=correlation("pearson"),
            spearman=correlation("spearman"),
            kendall=correlation("kendall"),
            mae=value("mae"),
            mae_ci=interval("mae"),
            exact_agreement=value("exact_agreement"),
            exact_agreement_ci=interval("exact_agreement"),
            within_one=value("within_one"),
            within_one_ci=interval("within_one"),
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
) -> dict[str, AgreementBlock]:
    """Agreement among the human raters and between them and the LLM, per dimension.

    ``long_frame`` has one row per score, with columns item, rater and score, optionally
    dimension (otherwise everything is dimension "all") and metadata columns, which ``by``
    names for breakdowns. ``llm`` is the rater name of the LLM evaluator; every other rater
    is human. ``scale`` (MIN, MAX) bounds the scores, and for nominal and ordinal α its integer
    points are the value domain. ``resamples=0`` turns CIs off.

    Returns one block per dimension, in the frame's order; each block's notes say why any
    field is None. Raises `InputError` for scores that cannot be analysed as given.
    """
    if resamples < 0:
        raise ValueError("the number of resamples cannot be negative")
    if seed < 0:
        raise ValueError("the seed must be zero or positive")
    frame = validated(long_frame, level=level, scale=scale, by=by)
    points = _scale_points(scale, level)

    def block(rows: pd.DataFrame) -> AgreementBlock:
        computed = _Block(rows, llm=llm, level=level, scale_points=points)
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
) -> dict[str, Any]:
    """`agreement_blocks` as plain JSON: ``{"dimensions": {name: block}}``.

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
    )
    return {"dimensions": {name: block.as_json() for name, block in blocks.items()}}
