"""Computing the report: the campaign's long scores through the agreement engine, per dimension.

The numbers all come from ``evalsite.agreement``: one engine call per dimension and LLM
evaluator, at the dimension's own level of measurement and scale, broken down by system and
persona. Pairwise dimensions are summarised separately (which response people prefer, and
whether the LLM picks the people's majority). The result is plain JSON.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd
from django.utils import timezone
from django.utils.translation import gettext_noop
from scipy import stats

from annotation.models import Campaign
from annotation.report.blocks import PairwiseBlock, RatedBlock, Sizes
from annotation.report.cache import REPORT_VERSION
from annotation.report.dimensions import POOLED, DimensionSpec, pooled_dimensions
from annotation.report.items import disagreements, histograms, scatter
from annotation.report.scores import item_pks, long_scores
from evalsite.agreement.alt_test import DEFAULT_EPSILON
from evalsite.agreement.bootstrap import bootstrap_ci
from evalsite.agreement.common import (
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    SCORE_TOLERANCE,
    InputError,
    Level,
    StatisticUndefined,
)
from evalsite.agreement.engine import agreement_blocks
from evalsite.agreement.phrases import Phrase
from evalsite.agreement.rates import RatioOfSums
from evalsite.agreement.verdict import withheld_over

BREAKDOWNS = ("system", "persona_emotion", "persona_age_group")


PERSONA_BREAKDOWNS = ("persona_emotion", "persona_age_group")


DISAGREEMENTS_SHOWN = 20


Progress = Callable[[int, int, str], None]

# The pooled block's extra columns: each unit's transcript (the cluster its CIs resample) and
# its rubric dimension (within which scores are centred for the pooled correlations and α).
POOLED_CLUSTER = "transcript"
POOLED_WITHIN = "rubric_dimension"


@dataclass(frozen=True)
class Settings:
    """How every engine call of one report runs: its bootstrap and the alt-test's ε."""

    resamples: int = DEFAULT_RESAMPLES
    seed: int = DEFAULT_SEED
    epsilon: float = DEFAULT_EPSILON


def compute_report(
    campaign: Campaign,
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """The report of ``campaign`` as plain JSON: gathered from the database, then computed."""
    if progress is not None:
        progress(0, 1, Phrase(gettext_noop("Gathering the scores")))
    frame = long_scores(campaign)
    dimensions = [
        DimensionSpec.of(d) for d in campaign.rubric.dimensions.scored().order_by("position")
    ]
    transcripts = item_pks(campaign)
    settings = Settings(resamples=resamples, seed=seed, epsilon=campaign.alt_test_epsilon)
    result = agreement_report(frame, dimensions, settings=settings, progress=progress)
    for evaluation in result["evaluations"]:
        for row in evaluation["disagreements"]:
            row["transcript"] = transcripts.get(row["item"])
    result["campaign"] = campaign.pk
    return result


def evaluator_raters(frame: pd.DataFrame) -> dict[str, str]:
    """Each LLM evaluator's rater name in the engine's frame, apart from every person's."""
    people = set(frame.loc[~frame["is_llm"], "rater"])
    raters: dict[str, str] = {}
    for name in sorted(set(frame.loc[frame["is_llm"], "rater"])):
        rater = name
        while rater in people:
            rater = f"{rater} (LLM)"
        raters[name] = rater
    return raters


def agreement_report(
    frame: pd.DataFrame,
    dimensions: Sequence[DimensionSpec],
    *,
    settings: Settings = Settings(),
    progress: Progress | None = None,
) -> dict[str, Any]:
    """The report of a long frame of scores (the shape of ``annotation.report.scores.long_scores``).

    One evaluation per LLM evaluator (or a single one without evaluator when there is none),
    each with the agreement of every dimension, its breakdowns, the pooled dimensions, the
    pairwise dimensions, the scatter of human mean against LLM score, and the largest
    disagreements.
    """
    frame = frame.copy()
    evaluators = evaluator_raters(frame)
    frame["evaluator"] = np.where(frame["is_llm"], frame["rater"], "")
    frame.loc[frame["is_llm"], "rater"] = frame.loc[frame["is_llm"], "rater"].map(evaluators)
    scored = set(frame["dimension"])
    present = [spec for spec in dimensions if spec.key in scored]
    breakdowns = [
        column for column in BREAKDOWNS if (frame[column].astype(str).str.strip() != "").any()
    ]
    pooled = pooled_dimensions(present)
    plans: list[str | None] = list(evaluators) or [None]
    steps = len(plans) * (len(present) + (1 if pooled else 0)) + 1
    done = 0

    def advance(message: str) -> None:
        """Announce the next step; the bar counts the steps finished before it."""
        nonlocal done
        if progress is not None:
            progress(done, steps, message)
        done += 1

    humans = frame[~frame["is_llm"]]
    evaluations = []
    for evaluator in plans:
        rater = None if evaluator is None else evaluators[evaluator]
        rows = humans if rater is None else frame[~frame["is_llm"] | (frame["rater"] == rater)]
        evaluation: dict[str, Any] = {
            "evaluator": evaluator,
            "dimensions": {},
            "pairwise": {},
            "pooled": None,
        }
        rated: dict[str, RatedBlock] = {}
        for spec in present:
            advance(_agreement_message(spec.key, evaluator))
            subset = rows[rows["dimension"] == spec.key]
            if spec.is_pairwise:
                evaluation["pairwise"][spec.key] = _pairwise(
                    subset, spec, rater, settings
                ).as_json()
            else:
                rated[spec.key] = _dimension_block(subset, spec, rater, breakdowns, settings)
                evaluation["dimensions"][spec.key] = rated[spec.key].as_json()
        if pooled:
            advance(_agreement_message(POOLED, evaluator))
            block = _pooled_block(rows, pooled, rater, breakdowns, settings)
            evaluation["pooled"] = _judged_against(
                block, [rated[spec.key] for spec in pooled]
            ).as_json()
        evaluation["scatter"] = {
            key: series.as_json()
            for key, series in scatter(rows, present, rater, settings.seed).items()
        }
        evaluation["disagreements"] = [
            row.as_json() for row in disagreements(rows, present, rater)[:DISAGREEMENTS_SHOWN]
        ]
        evaluations.append(evaluation)
    result = {
        "version": REPORT_VERSION,
        "computed_at": timezone.now().isoformat(),
        "resamples": settings.resamples,
        "seed": settings.seed,
        "alt_test_epsilon": settings.epsilon,
        "n_items": int(frame["item"].nunique()),
        "humans": sorted(str(name) for name in humans["rater"].unique()),
        "evaluators": list(evaluators),
        "breakdowns": breakdowns,
        "dimensions": [spec.as_dict() for spec in present],
        "pooled_dimensions": [spec.key for spec in pooled],
        "verdict_dimension": _verdict_dimension(present, pooled),
        "histograms": {
            key: histogram.as_json()
            for key, histogram in histograms(frame, present, list(evaluators)).items()
        },
        "evaluations": evaluations,
    }
    advance(Phrase(gettext_noop("Writing the report")))
    return result


def _agreement_message(dimension: str, evaluator: str | None) -> str:
    if evaluator is None:
        return Phrase(gettext_noop("Agreement on %(dimension)s"), dimension=dimension)
    return Phrase(
        gettext_noop("Agreement on %(dimension)s with %(evaluator)s"),
        dimension=dimension,
        evaluator=evaluator,
    )


def _verdict_dimension(
    present: Sequence[DimensionSpec], pooled: Sequence[DimensionSpec]
) -> str | None:
    """What the verdict speaks of: the pooled dimensions, else the first rated dimension."""
    if pooled:
        return POOLED
    rated = [spec.key for spec in present if not spec.is_pairwise]
    return rated[0] if rated else None


def _sizes(rows: pd.DataFrame, rater: str | None) -> Sizes:
    """How many items each statistic can use: α needs two scores on an item, the LLM
    comparisons an LLM score and at least one human score."""
    human = rows[~rows["is_llm"]].groupby("item").size()
    everyone = rows.groupby("item").size()
    items = int(rows["item"].nunique())
    alpha_humans = int((human >= 2).sum())
    if rater is None:
        return Sizes(items=items, alpha_humans=alpha_humans, alpha_humans_plus_llm=0, paired=0)
    machine = set(rows.loc[rows["rater"] == rater, "item"])
    return Sizes(
        items=items,
        alpha_humans=alpha_humans,
        alpha_humans_plus_llm=int((everyone >= 2).sum()),
        paired=len(machine & set(human.index)),
    )


def _engine(
    rows: pd.DataFrame,
    *,
    rater: str | None,
    level: Level,
    scale: tuple[float, float],
    by: Sequence[str],
    settings: Settings,
    cluster: str | None = None,
    within: str | None = None,
) -> RatedBlock:
    try:
        found = agreement_blocks(
            rows,
            llm=rater,
            level=level,
            scale=scale,
            resamples=settings.resamples,
            seed=settings.seed,
            by=by,
            epsilon=settings.epsilon,
            cluster=cluster,
            within=within,
        )
    except InputError as error:
        return RatedBlock(error=str(error))
    block = next(iter(found.values()))
    groups = {
        column: {
            value: RatedBlock(
                agreement=group, n=_sizes(rows[rows[column].astype(str) == value], rater)
            )
            for value, group in values.items()
        }
        for column, values in (block.by or {}).items()
    }
    return RatedBlock(agreement=replace(block, by=None), n=_sizes(rows, rater), by=groups)


def _dimension_block(
    rows: pd.DataFrame,
    spec: DimensionSpec,
    rater: str | None,
    breakdowns: Sequence[str],
    settings: Settings,
) -> RatedBlock:
    block = _engine(
        rows, rater=rater, level=spec.level, scale=spec.scale, by=breakdowns, settings=settings
    )
    if block.error is not None:
        return block
    llm = None if rater is None else _original_name(rows, rater)
    return replace(block, agreement=replace(block.agreement, llm=llm))


def _original_name(rows: pd.DataFrame, rater: str) -> str | None:
    names = rows.loc[rows["rater"] == rater, "evaluator"]
    return str(names.iloc[0]) if len(names) else None


def _pooled_block(
    rows: pd.DataFrame,
    pooled: Sequence[DimensionSpec],
    rater: str | None,
    breakdowns: Sequence[str],
    settings: Settings,
) -> RatedBlock:
    """Every pooled dimension's items as units of one α, as the CONCEPT study reports it.

    A transcript's units (one per dimension) share its halo, so the CIs resample transcripts
    with all their units together; and the correlations and α are taken on scores centred
    within each dimension, so that dimensions with different means cannot inflate them.
    """
    keys = [spec.key for spec in pooled]
    subset = rows[rows["dimension"].isin(keys)].copy()
    subset[POOLED_CLUSTER] = subset["item"]
    subset[POOLED_WITHIN] = subset["dimension"]
    subset["item"] = subset["dimension"] + " · " + subset["item"]
    subset["dimension"] = POOLED
    block = _engine(
        subset,
        rater=rater,
        level=pooled[0].level,
        scale=pooled[0].scale,
        by=breakdowns,
        settings=settings,
        cluster=POOLED_CLUSTER,
        within=POOLED_WITHIN,
    )
    return replace(block, dimensions=keys)


def _judged_against(pooled: RatedBlock, dimensions: Sequence[RatedBlock]) -> RatedBlock:
    """The pooled block, its verdict withheld where the pooled dimensions' own verdicts cannot
    support it (`evalsite.agreement.verdict.withheld_over`)."""
    verdict = pooled.agreement.verdict
    if verdict is None:
        return pooled
    own = [block.agreement.verdict for block in dimensions]
    withheld = withheld_over([found for found in own if found is not None], verdict)
    return replace(pooled, agreement=replace(pooled.agreement, verdict_withheld=withheld))


def _vote(value: float, spec: DimensionSpec) -> str:
    if abs(value - spec.scale_min) <= SCORE_TOLERANCE:
        return "a"
    if abs(value - spec.scale_max) <= SCORE_TOLERANCE:
        return "b"
    return "other"


def _pairwise(
    rows: pd.DataFrame, spec: DimensionSpec, rater: str | None, settings: Settings
) -> PairwiseBlock:
    """Which response people prefer, how far they agree, and how often the LLM picks the
    people's majority (more than half of an item's human answers)."""
    human = rows[~rows["is_llm"]]
    votes = Counter(_vote(value, spec) for value in human["score"])
    judgements = len(human)
    agreement = _engine(
        rows, rater=rater, level="nominal", scale=spec.scale, by=(), settings=settings
    )
    block = PairwiseBlock(
        n_items=int(rows["item"].nunique()),
        n_judgements=judgements,
        share_a=votes["a"] / judgements if judgements else None,
        share_b=votes["b"] / judgements if judgements else None,
        share_other=votes["other"] / judgements if judgements else None,
        error=agreement.error,
        alpha=agreement.agreement.alpha,
        alpha_ci=agreement.agreement.alpha_ci,
        notes=agreement.notes,
        n=agreement.n,
        n_majority_items=0,
        llm=agreement.agreement.llm,
        alt_test=agreement.agreement.alt_test,
        alpha_gap_ci=agreement.agreement.alpha_gap_ci,
        llm_distinct_answers=agreement.agreement.llm_distinct_answers,
    )
    return _majority_agreement(block, rows, spec, rater, settings)


def _majority_agreement(
    block: PairwiseBlock,
    rows: pd.DataFrame,
    spec: DimensionSpec,
    rater: str | None,
    settings: Settings,
) -> PairwiseBlock:
    if rater is None:
        return block
    machine = rows[rows["rater"] == rater].set_index("item")["score"]
    if len(machine):
        share = sum(_vote(v, spec) == "a" for v in machine) / len(machine)
        block = replace(block, llm_share_a=share)
    matches: list[float] = []
    for item, group in rows[~rows["is_llm"]].groupby("item", sort=True):
        if item not in machine.index:
            continue
        value, count = Counter(group["score"]).most_common(1)[0]
        if count * 2 > len(group):
            matches.append(float(abs(machine[item] - value) <= SCORE_TOLERANCE))
    block = replace(block, n_majority_items=len(matches))
    if not matches:
        return block
    rate = RatioOfSums(matches, np.ones(len(matches)))
    # Two answers, A or B: an LLM answering at random picks the majority half the time.
    chance = stats.binomtest(int(sum(matches)), len(matches), 0.5, alternative="greater")
    block = replace(
        block, llm_majority_agreement=rate.estimate(), llm_majority_p=float(chance.pvalue)
    )
    if settings.resamples:
        try:
            interval = bootstrap_ci(rate, resamples=settings.resamples, seed=settings.seed)
        except StatisticUndefined:
            interval = None
        block = replace(block, llm_majority_agreement_ci=interval)
    return block
