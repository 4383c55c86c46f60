"""The human–LLM agreement report of an annotation campaign: computed, cached and exported.

A report is computed by a background job (kind ``annotation.report``) and kept as that job's
``result``; nothing else stores it. The job's params hold a fingerprint of the campaign's data
(counts, latest update times and sums of transcripts, submitted answers and LLM scores), so a
report whose fingerprint no longer matches the data is stale and can be recomputed, with its
progress shown on the page.

The numbers all come from ``evalsite.agreement``: one engine call per dimension and LLM
evaluator, at the dimension's own level of measurement and scale, broken down by system and
persona. Pairwise dimensions are summarised separately (which response people prefer, and
whether the LLM picks the people's majority). The result is plain JSON.
"""

from __future__ import annotations

import importlib
import importlib.util
import io
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import IO, Any

import numpy as np
import pandas as pd
from django.db.models import Count, Max, QuerySet, Sum
from django.utils import timezone
from django.utils.translation import gettext as _

from annotation.models import Assignment, Campaign, Dimension, LLMScore, Response
from annotation.reports import long_scores
from evalsite import jobs
from evalsite.agreement import (
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    SCORE_TOLERANCE,
    InputError,
    Level,
    RatioOfSums,
    StatisticUndefined,
    bootstrap_ci,
    human_llm_agreement,
)
from evalsite.jobs import JobContext, JobError, job_kind
from evalsite.models import Job
from evalsite.spreadsheets import (
    BarChartSpec,
    CellValue,
    ScatterChartSpec,
    Sheet,
    write_csv,
    write_workbook,
)

REPORT_KIND = "annotation.report"
# Raised whenever the stored shape of a report changes, so older results count as stale.
REPORT_VERSION = 1
# What the page's "compute" button uses; tests lower it for speed.
RESAMPLES = DEFAULT_RESAMPLES
BREAKDOWNS = ("system", "persona_emotion", "persona_age_group")
PERSONA_BREAKDOWNS = ("persona_emotion", "persona_age_group")
# A scatter of thousands of overlapping points says no more than a sample of them and weighs
# megabytes in the page, so larger dimensions are sampled (with the report's seed).
SCATTER_POINTS = 400
DISAGREEMENTS_SHOWN = 20
POOLED = "all"

Progress = Callable[[int, int, str], None]


# Fingerprint and cache ------------------------------------------------------------------------


def _stamp(value: Any) -> str | None:
    return None if value is None else value.isoformat()


def _rounded(value: Any) -> float | None:
    # Floating sums may differ in the last digits between two runs of the same query.
    return None if value is None else round(float(value), 6)


def data_fingerprint(campaign: Campaign) -> dict[str, Any]:
    """What the report depends on: changes whenever a transcript, a submitted answer or an
    LLM score of ``campaign`` is added, revised, re-imported or removed."""
    transcripts = campaign.transcripts.aggregate(count=Count("pk"), latest=Max("imported_at"))
    answers = Response.objects.filter(
        assignment__campaign=campaign, assignment__status=Assignment.Status.SUBMITTED
    ).aggregate(count=Count("pk"), latest=Max("updated_at"), total=Sum("value"))
    scores = LLMScore.objects.filter(transcript__campaign=campaign).aggregate(
        count=Count("pk"), latest=Max("imported_at"), total=Sum("score")
    )
    return {
        "version": REPORT_VERSION,
        "transcripts": [transcripts["count"], _stamp(transcripts["latest"])],
        "responses": [answers["count"], _stamp(answers["latest"]), _rounded(answers["total"])],
        "llm_scores": [scores["count"], _stamp(scores["latest"]), _rounded(scores["total"])],
    }


def _report_jobs(campaign: Campaign) -> QuerySet[Job]:
    return Job.objects.filter(kind=REPORT_KIND, params__campaign=campaign.pk)


@dataclass(frozen=True)
class ReportState:
    """The latest computed report of a campaign, whether it is current, and any job at work."""

    report: Job | None
    fresh: bool
    running: Job | None
    failed: Job | None

    @property
    def result(self) -> dict[str, Any] | None:
        return None if self.report is None else self.report.result


def _under_way(campaign: Campaign) -> Job | None:
    """The computation at work for ``campaign``: a running job whose worker is alive, or a job
    created moments ago. A pending job that never started (its process died first) is ignored."""
    job = _report_jobs(campaign).filter(status__in=[Job.Status.PENDING, Job.Status.RUNNING]).first()
    if job is None:
        return None
    if job.status == Job.Status.RUNNING:
        jobs.reap_interrupted()
        job.refresh_from_db()
        return None if job.is_finished else job
    return job if job.created_at >= timezone.now() - jobs.STALE_AFTER else None


def report_state(campaign: Campaign) -> ReportState:
    recent = _report_jobs(campaign)
    done = recent.filter(status=Job.Status.DONE).first()
    latest = recent.first()
    failed = latest if latest is not None and latest.can_resume else None
    fresh = done is not None and done.params.get("fingerprint") == data_fingerprint(campaign)
    return ReportState(report=done, fresh=fresh, running=_under_way(campaign), failed=failed)


def start_report(campaign: Campaign, user: Any = None, *, resamples: int | None = None) -> Job:
    """Start computing the report in the background, unless that computation is under way."""
    fingerprint = data_fingerprint(campaign)
    under_way = _under_way(campaign)
    if under_way is not None and under_way.params.get("fingerprint") == fingerprint:
        return under_way
    job = jobs.create(REPORT_KIND, _job_params(campaign, fingerprint, resamples), user=user)
    jobs.start(job)
    return job


def _job_params(
    campaign: Campaign, fingerprint: dict[str, Any], resamples: int | None
) -> dict[str, Any]:
    return {
        "campaign": campaign.pk,
        "fingerprint": fingerprint,
        "resamples": RESAMPLES if resamples is None else resamples,
        "seed": DEFAULT_SEED,
    }


def run_report(
    campaign: Campaign,
    *,
    resamples: int | None = None,
    on_progress: Callable[[Job], None] | None = None,
) -> Job:
    """Compute the report in this process (for commands); returns the finished job."""
    job = jobs.create(REPORT_KIND, _job_params(campaign, data_fingerprint(campaign), resamples))
    return jobs.run(job, on_progress=on_progress)


@job_kind(REPORT_KIND)
def report_job(context: JobContext) -> dict[str, Any]:
    """params: campaign (id), fingerprint, resamples, seed."""
    campaign = (
        Campaign.objects.select_related("rubric").filter(pk=context.params["campaign"]).first()
    )
    if campaign is None:
        raise JobError("The campaign no longer exists.")
    # Taken again just before reading: the report then describes exactly the data it read, or
    # at worst looks stale when an answer arrives in between.
    fingerprint = data_fingerprint(campaign)
    if fingerprint != context.job.params.get("fingerprint"):
        context.job.params = {**context.job.params, "fingerprint": fingerprint}
        context.job.save(update_fields=["params"])

    def report(done: int, total: int, message: str) -> None:
        # Steps are few and each takes a while, so every one is worth showing.
        context.progress(done, total, message, force=True)

    return compute_report(
        campaign,
        resamples=int(context.params.get("resamples", RESAMPLES)),
        seed=int(context.params.get("seed", DEFAULT_SEED)),
        progress=report,
    )


# Computing ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DimensionSpec:
    """What the report needs to know about a rubric dimension."""

    key: str
    name_en: str
    name_zh: str
    kind: str
    level: Level
    scale_min: int
    scale_max: int

    @classmethod
    def of(cls, dimension: Dimension) -> DimensionSpec:
        # A yes/no answer is a category whatever the rubric file says.
        level = (
            "nominal" if dimension.kind == Dimension.Kind.BINARY else dimension.level_of_measurement
        )
        return cls(
            key=dimension.key,
            name_en=dimension.name_en,
            name_zh=dimension.name_zh,
            kind=dimension.kind,
            level=level,  # type: ignore[arg-type]
            scale_min=dimension.scale_min,
            scale_max=dimension.scale_max,
        )

    @property
    def is_pairwise(self) -> bool:
        return self.kind == Dimension.Kind.PAIRWISE

    @property
    def scale(self) -> tuple[float, float]:
        return float(self.scale_min), float(self.scale_max)

    def as_dict(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "name_en": self.name_en,
            "name_zh": self.name_zh,
            "kind": self.kind,
            "level": self.level,
            "scale": [self.scale_min, self.scale_max],
        }


def compute_report(
    campaign: Campaign,
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """The report of ``campaign`` as plain JSON: gathered from the database, then computed."""
    if progress is not None:
        progress(0, 1, _("Gathering the scores"))
    frame = long_scores(campaign)
    dimensions = [DimensionSpec.of(d) for d in campaign.rubric.dimensions.order_by("position")]
    transcripts = dict(campaign.transcripts.values_list("external_id", "pk"))
    result = agreement_report(frame, dimensions, resamples=resamples, seed=seed, progress=progress)
    for evaluation in result["evaluations"]:
        for row in evaluation["disagreements"]:
            row["transcript"] = transcripts.get(row["item"])
    result["campaign"] = campaign.pk
    return result


def _evaluator_raters(frame: pd.DataFrame) -> dict[str, str]:
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
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """The report of a long frame of scores (the shape of ``annotation.reports.long_scores``).

    One evaluation per LLM evaluator (or a single one without evaluator when there is none),
    each with the agreement of every dimension, its breakdowns, the pooled dimensions, the
    pairwise dimensions, the scatter of human mean against LLM score, and the largest
    disagreements.
    """
    frame = frame.copy()
    evaluators = _evaluator_raters(frame)
    frame["evaluator"] = np.where(frame["is_llm"], frame["rater"], "")
    frame.loc[frame["is_llm"], "rater"] = frame.loc[frame["is_llm"], "rater"].map(evaluators)
    scored = set(frame["dimension"])
    present = [spec for spec in dimensions if spec.key in scored]
    breakdowns = [
        column for column in BREAKDOWNS if (frame[column].astype(str).str.strip() != "").any()
    ]
    pooled = _pooled_dimensions(present)
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
        for spec in present:
            advance(_agreement_message(spec.key, evaluator))
            subset = rows[rows["dimension"] == spec.key]
            if spec.is_pairwise:
                evaluation["pairwise"][spec.key] = _pairwise(subset, spec, rater, resamples, seed)
            else:
                evaluation["dimensions"][spec.key] = _dimension_block(
                    subset, spec, rater, breakdowns, resamples, seed
                )
        if pooled:
            advance(_agreement_message(POOLED, evaluator))
            evaluation["pooled"] = _pooled_block(rows, pooled, rater, breakdowns, resamples, seed)
        evaluation["scatter"] = _scatter(rows, present, rater, seed)
        evaluation["disagreements"] = _disagreements(rows, present, rater)[:DISAGREEMENTS_SHOWN]
        evaluations.append(evaluation)
    result = {
        "version": REPORT_VERSION,
        "computed_at": timezone.now().isoformat(),
        "resamples": resamples,
        "seed": seed,
        "n_items": int(frame["item"].nunique()),
        "humans": sorted(str(name) for name in humans["rater"].unique()),
        "evaluators": list(evaluators),
        "breakdowns": breakdowns,
        "dimensions": [spec.as_dict() for spec in present],
        "pooled_dimensions": [spec.key for spec in pooled],
        "verdict_dimension": _verdict_dimension(present, pooled),
        "histograms": _histograms(frame, present, list(evaluators)),
        "evaluations": evaluations,
    }
    advance(_("Writing the report"))
    return result


def _agreement_message(dimension: str, evaluator: str | None) -> str:
    if evaluator is None:
        return _("Agreement on %(dimension)s") % {"dimension": dimension}
    return _("Agreement on %(dimension)s with %(evaluator)s") % {
        "dimension": dimension,
        "evaluator": evaluator,
    }


def _verdict_dimension(
    present: Sequence[DimensionSpec], pooled: Sequence[DimensionSpec]
) -> str | None:
    """What the verdict speaks of: the pooled dimensions, else the first rated dimension."""
    if pooled:
        return POOLED
    rated = [spec.key for spec in present if not spec.is_pairwise]
    return rated[0] if rated else None


def _pooled_dimensions(present: Sequence[DimensionSpec]) -> list[DimensionSpec]:
    """The rated dimensions that share the most common level and scale, to pool into one α."""
    rated = [spec for spec in present if not spec.is_pairwise]
    if not rated:
        return []
    shapes = Counter((spec.level, spec.scale) for spec in rated)
    # Counter keeps first-seen order among ties, so the rubric's first shape wins a tie.
    shape = shapes.most_common(1)[0][0]
    pooled = [spec for spec in rated if (spec.level, spec.scale) == shape]
    # A single dimension pooled would only repeat that dimension's own figures.
    return pooled if len(pooled) > 1 else []


def _sizes(rows: pd.DataFrame, rater: str | None) -> dict[str, int]:
    """How many items each statistic can use: α needs two scores on an item, the LLM
    comparisons an LLM score and at least one human score."""
    human = rows[~rows["is_llm"]].groupby("item").size()
    everyone = rows.groupby("item").size()
    sizes = {
        "items": int(rows["item"].nunique()),
        "alpha_humans": int((human >= 2).sum()),
        "alpha_humans_plus_llm": 0,
        "paired": 0,
    }
    if rater is not None:
        machine = set(rows.loc[rows["rater"] == rater, "item"])
        sizes["alpha_humans_plus_llm"] = int((everyone >= 2).sum())
        sizes["paired"] = len(machine & set(human.index))
    return sizes


def _engine(
    rows: pd.DataFrame,
    *,
    rater: str | None,
    level: Level,
    scale: tuple[float, float],
    by: Sequence[str],
    resamples: int,
    seed: int,
) -> dict[str, Any]:
    try:
        found = human_llm_agreement(
            rows,
            llm=rater,
            level=level,
            scale=scale,
            resamples=resamples,
            seed=seed,
            by=by,
        )
    except InputError as error:
        return {"error": str(error)}
    block: dict[str, Any] = next(iter(found["dimensions"].values()))
    block["n"] = _sizes(rows, rater)
    for column, groups in block.get("by", {}).items():
        for value, group in groups.items():
            group["n"] = _sizes(rows[rows[column].astype(str) == value], rater)
    return block


def _dimension_block(
    rows: pd.DataFrame,
    spec: DimensionSpec,
    rater: str | None,
    breakdowns: Sequence[str],
    resamples: int,
    seed: int,
) -> dict[str, Any]:
    block = _engine(
        rows,
        rater=rater,
        level=spec.level,
        scale=spec.scale,
        by=breakdowns,
        resamples=resamples,
        seed=seed,
    )
    if "error" not in block:
        block["llm"] = None if rater is None else _original_name(rows, rater)
    return block


def _original_name(rows: pd.DataFrame, rater: str) -> str | None:
    names = rows.loc[rows["rater"] == rater, "evaluator"]
    return str(names.iloc[0]) if len(names) else None


def _pooled_block(
    rows: pd.DataFrame,
    pooled: Sequence[DimensionSpec],
    rater: str | None,
    breakdowns: Sequence[str],
    resamples: int,
    seed: int,
) -> dict[str, Any]:
    """Every pooled dimension's items as units of one α, as the CONCEPT study reports it."""
    keys = [spec.key for spec in pooled]
    subset = rows[rows["dimension"].isin(keys)].copy()
    subset["item"] = subset["dimension"] + " · " + subset["item"]
    subset["dimension"] = POOLED
    block = _engine(
        subset,
        rater=rater,
        level=pooled[0].level,
        scale=pooled[0].scale,
        by=breakdowns,
        resamples=resamples,
        seed=seed,
    )
    block["dimensions"] = keys
    return block


def _vote(value: float, spec: DimensionSpec) -> str:
    if abs(value - spec.scale_min) <= SCORE_TOLERANCE:
        return "a"
    if abs(value - spec.scale_max) <= SCORE_TOLERANCE:
        return "b"
    return "other"


def _pairwise(
    rows: pd.DataFrame, spec: DimensionSpec, rater: str | None, resamples: int, seed: int
) -> dict[str, Any]:
    """Which response people prefer, how far they agree, and how often the LLM picks the
    people's majority (more than half of an item's human answers)."""
    human = rows[~rows["is_llm"]]
    votes = Counter(_vote(value, spec) for value in human["score"])
    judgements = len(human)
    block: dict[str, Any] = {
        "n_items": int(rows["item"].nunique()),
        "n_judgements": judgements,
        "share_a": votes["a"] / judgements if judgements else None,
        "share_b": votes["b"] / judgements if judgements else None,
        "share_other": votes["other"] / judgements if judgements else None,
    }
    agreement = _engine(
        rows, rater=rater, level="nominal", scale=spec.scale, by=(), resamples=resamples, seed=seed
    )
    block["error"] = agreement.get("error")
    block["alpha"] = agreement.get("alpha")
    block["alpha_ci"] = agreement.get("alpha_ci")
    block["notes"] = agreement.get("notes", [])
    block["n"] = agreement.get("n")
    block.update(_majority_agreement(rows, spec, rater, resamples, seed))
    return block


def _majority_agreement(
    rows: pd.DataFrame, spec: DimensionSpec, rater: str | None, resamples: int, seed: int
) -> dict[str, Any]:
    found: dict[str, Any] = {
        "llm_share_a": None,
        "llm_majority_agreement": None,
        "llm_majority_agreement_ci": None,
        "n_majority_items": 0,
    }
    if rater is None:
        return found
    machine = rows[rows["rater"] == rater].set_index("item")["score"]
    if len(machine):
        found["llm_share_a"] = sum(_vote(v, spec) == "a" for v in machine) / len(machine)
    matches: list[float] = []
    for item, group in rows[~rows["is_llm"]].groupby("item", sort=True):
        if item not in machine.index:
            continue
        value, count = Counter(group["score"]).most_common(1)[0]
        if count * 2 > len(group):
            matches.append(float(abs(machine[item] - value) <= SCORE_TOLERANCE))
    found["n_majority_items"] = len(matches)
    if not matches:
        return found
    rate = RatioOfSums(matches, np.ones(len(matches)))
    found["llm_majority_agreement"] = rate.estimate()
    if resamples:
        try:
            found["llm_majority_agreement_ci"] = list(
                bootstrap_ci(rate, resamples=resamples, seed=seed)
            )
        except StatisticUndefined:
            found["llm_majority_agreement_ci"] = None
    return found


def _item_means(rows: pd.DataFrame, rater: str) -> pd.DataFrame:
    """Per item of one dimension: the human mean, the human scores and the LLM's score."""
    human = rows[~rows["is_llm"]].groupby("item")["score"]
    machine = rows[rows["rater"] == rater].set_index("item")
    table = pd.DataFrame({"human_mean": human.mean(), "humans": human.apply(list)})
    table = table.join(machine[["score", "system"]], how="inner")
    return table.rename(columns={"score": "llm"}).sort_index()


def _scatter(
    rows: pd.DataFrame, dimensions: Sequence[DimensionSpec], rater: str | None, seed: int
) -> dict[str, Any]:
    if rater is None:
        return {}
    scatter: dict[str, Any] = {}
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
        scatter[spec.key] = {
            "total": total,
            "points": [
                [str(item), float(mean), float(llm)]
                for item, mean, llm in zip(
                    table.index, table["human_mean"], table["llm"], strict=True
                )
            ],
        }
    return scatter


def _disagreements(
    rows: pd.DataFrame, dimensions: Sequence[DimensionSpec], rater: str | None
) -> list[dict[str, Any]]:
    """Every (item, dimension) with an LLM score and a human score, the largest gap first.

    Gaps are compared as a share of the dimension's scale, so that a yes/no question and a
    1–5 question rank on the same footing.
    """
    if rater is None:
        return []
    found: list[dict[str, Any]] = []
    for spec in dimensions:
        if spec.is_pairwise:
            continue
        table = _item_means(rows[rows["dimension"] == spec.key], rater)
        width = spec.scale_max - spec.scale_min
        for item, entry in table.iterrows():
            difference = float(entry["llm"] - entry["human_mean"])
            found.append(
                {
                    "item": str(item),
                    "dimension": spec.key,
                    "system": str(entry["system"]),
                    "human_mean": float(entry["human_mean"]),
                    "humans": [float(value) for value in entry["humans"]],
                    "llm": float(entry["llm"]),
                    "difference": difference,
                    "relative_gap": abs(difference) / width,
                }
            )
    # Stable: equal gaps keep the rubric's order of dimensions, then the items' order.
    found.sort(key=lambda row: -row["relative_gap"])
    return found


def scale_points(spec: dict[str, Any]) -> list[int]:
    low, high = spec["scale"]
    return list(range(int(low), int(high) + 1))


def _histogram(scores: pd.Series[float], points: list[int]) -> list[int]:
    # An LLM score between two scale points counts at the nearest one (halves round up).
    nearest = np.clip(np.floor(scores.to_numpy(dtype=np.float64) + 0.5), points[0], points[-1])
    return [int((nearest == point).sum()) for point in points]


def _histograms(
    frame: pd.DataFrame, dimensions: Sequence[DimensionSpec], evaluators: Sequence[str]
) -> dict[str, Any]:
    histograms: dict[str, Any] = {}
    for spec in dimensions:
        points = scale_points(spec.as_dict())
        rows = frame[frame["dimension"] == spec.key]
        histograms[spec.key] = {
            "values": points,
            "human": _histogram(rows.loc[~rows["is_llm"], "score"], points),
            "llm": {
                name: _histogram(rows.loc[rows["evaluator"] == name, "score"], points)
                for name in evaluators
            },
        }
    return histograms


# Reading a report -----------------------------------------------------------------------------


def evaluation_of(result: dict[str, Any], evaluator: str | None) -> dict[str, Any]:
    """The evaluation of ``evaluator``, or the first one when it is not in the report."""
    evaluations: list[dict[str, Any]] = result["evaluations"]
    for evaluation in evaluations:
        if evaluation["evaluator"] == evaluator:
            return evaluation
    return evaluations[0]


def _ci_text(ci: Sequence[float] | None) -> str:
    return "" if not ci else f" [{ci[0]:.2f}, {ci[1]:.2f}]"


def _first_note(block: dict[str, Any] | None) -> str:
    if not block:
        return _("there are no scores to compare")
    if block.get("error"):
        return str(block["error"])
    notes = block.get("notes") or []
    return str(notes[0]).rstrip(".") if notes else _("the statistic has no value")


def verdict(result: dict[str, Any], evaluation: dict[str, Any]) -> str:
    """One sentence, in plain words, on how far the LLM evaluator agrees with people."""
    subject = result["verdict_dimension"]
    evaluator = evaluation["evaluator"]
    if subject is None:
        return _("No rated dimension has scores yet, so there is no agreement to report.")
    if subject == POOLED:
        block = evaluation["pooled"]
        scope = _("over %(count)d dimensions pooled") % {"count": len(result["pooled_dimensions"])}
    else:
        block = evaluation["dimensions"].get(subject)
        scope = _("on %(dimension)s") % {"dimension": subject}
    alpha = lookup(block, ("alpha",)) or {}
    alpha_ci = lookup(block, ("alpha_ci",)) or {}
    among = alpha.get("humans")
    people = (
        _("people agree among themselves at α = %(alpha).2f%(ci)s")
        % {"alpha": among, "ci": _ci_text(alpha_ci.get("humans"))}
        if among is not None
        else _("agreement among people cannot be measured (%(reason)s)")
        % {"reason": _first_note(block)}
    )
    if evaluator is None:
        return _("No LLM evaluator has scored this campaign; %(people)s, %(scope)s.") % {
            "people": people,
            "scope": scope,
        }
    together = alpha.get("humans_plus_llm")
    if together is None:
        return _(
            "How far the LLM evaluator %(evaluator)s agrees with people cannot be measured "
            "yet, %(scope)s: %(reason)s."
        ) % {"evaluator": evaluator, "scope": scope, "reason": _first_note(block)}
    return _(
        "The LLM evaluator %(evaluator)s agrees with people at α = %(alpha).2f%(ci)s overall "
        "(counted as one more rater, %(scope)s); %(people)s."
    ) % {
        "evaluator": evaluator,
        "alpha": together,
        "ci": _ci_text(alpha_ci.get("humans_plus_llm")),
        "scope": scope,
        "people": people,
    }


# Tables for the workbook and the CSV files -----------------------------------------------------

HEADLINE: tuple[tuple[str, tuple[str, ...], tuple[str, ...] | None, str], ...] = (
    ("alpha_humans", ("alpha", "humans"), ("alpha_ci", "humans"), "alpha_humans"),
    (
        "alpha_humans_plus_llm",
        ("alpha", "humans_plus_llm"),
        ("alpha_ci", "humans_plus_llm"),
        "alpha_humans_plus_llm",
    ),
    ("pearson_r", ("pearson", "r"), ("pearson", "ci"), "paired"),
    ("spearman_rho", ("spearman", "rho"), ("spearman", "ci"), "paired"),
    ("kendall_tau", ("kendall", "tau"), ("kendall", "ci"), "paired"),
)
DETAIL: tuple[tuple[str, tuple[str, ...], tuple[str, ...] | None], ...] = (
    ("alpha_humans", ("alpha", "humans"), ("alpha_ci", "humans")),
    ("alpha_humans_plus_llm", ("alpha", "humans_plus_llm"), ("alpha_ci", "humans_plus_llm")),
    (
        "alpha_llm_vs_human_mean",
        ("alpha", "llm_vs_human_mean"),
        ("alpha_ci", "llm_vs_human_mean"),
    ),
    ("pearson_r", ("pearson", "r"), ("pearson", "ci")),
    ("pearson_p", ("pearson", "p"), None),
    ("spearman_rho", ("spearman", "rho"), ("spearman", "ci")),
    ("spearman_p", ("spearman", "p"), None),
    ("kendall_tau", ("kendall", "tau"), ("kendall", "ci")),
    ("kendall_p", ("kendall", "p"), None),
    ("mae", ("mae",), ("mae_ci",)),
    ("exact_agreement", ("exact_agreement",), ("exact_agreement_ci",)),
    ("within_one", ("within_one",), ("within_one_ci",)),
)


def lookup(block: dict[str, Any] | None, path: Sequence[str]) -> Any:
    value: Any = block
    for key in path:
        if not isinstance(value, dict):
            return None
        value = value.get(key)
    return value


def _with_ci(name: str, ci: tuple[str, ...] | None) -> list[str]:
    return [name] if ci is None else [name, f"{name}_low", f"{name}_high"]


def _values(
    block: dict[str, Any] | None, path: Sequence[str], ci: Sequence[str] | None
) -> list[CellValue]:
    value = lookup(block, path)
    if ci is None:
        return [value]
    interval = lookup(block, ci) or [None, None]
    return [value, interval[0], interval[1]]


def _headline_cells(block: dict[str, Any] | None) -> list[CellValue]:
    cells: list[CellValue] = [lookup(block, ("n", "items"))]
    for _name, path, ci, size in HEADLINE:
        cells.extend(_values(block, path, ci))
        cells.append(lookup(block, ("n", size)))
    return cells


HEADLINE_HEADER = [
    "n_items",
    *[
        column
        for name, _path, ci, _size in HEADLINE
        for column in (*_with_ci(name, ci), f"{name}_n")
    ],
]
DETAIL_HEADER = [
    "n_items",
    "n_alpha_humans",
    "n_alpha_humans_plus_llm",
    "n_paired",
    *[column for name, _path, ci in DETAIL for column in _with_ci(name, ci)],
    "notes",
]


def _detail_cells(block: dict[str, Any] | None) -> list[CellValue]:
    cells: list[CellValue] = [
        lookup(block, ("n", key)) for key in ("items", "alpha_humans", "alpha_humans_plus_llm")
    ]
    cells.append(lookup(block, ("n", "paired")))
    for _name, path, ci in DETAIL:
        cells.extend(_values(block, path, ci))
    notes = list(lookup(block, ("notes",)) or [])
    if block and block.get("error"):
        notes.insert(0, str(block["error"]))
    cells.append(" ".join(notes))
    return cells


def _blocks(result: dict[str, Any]) -> Iterator[tuple[str, str, dict[str, Any] | None]]:
    """(evaluator, dimension, block) of every rated dimension, the pooled one first."""
    for evaluation in result["evaluations"]:
        evaluator = evaluation["evaluator"] or ""
        if evaluation["pooled"] is not None:
            yield evaluator, POOLED, evaluation["pooled"]
        for key, block in evaluation["dimensions"].items():
            yield evaluator, key, block


def _label(result: dict[str, Any], evaluator: str, dimension: str) -> str:
    return dimension if len(result["evaluations"]) == 1 else f"{dimension} · {evaluator}"


SUMMARY_HEADER = ["label", "evaluator", "dimension", "level", *HEADLINE_HEADER, "verdict"]


def levels_of(result: dict[str, Any]) -> dict[str, str]:
    """The level of measurement of each dimension of a report, the pooled one included."""
    levels = {spec["key"]: spec["level"] for spec in result["dimensions"]}
    pooled = result["pooled_dimensions"]
    if pooled:
        levels[POOLED] = levels[pooled[0]]
    return levels


def summary_rows(result: dict[str, Any]) -> Iterator[list[CellValue]]:
    levels = levels_of(result)
    verdicts = {
        evaluation["evaluator"] or "": verdict(result, evaluation)
        for evaluation in result["evaluations"]
    }
    for evaluator, dimension, block in _blocks(result):
        yield [
            _label(result, evaluator, dimension),
            evaluator,
            dimension,
            levels[dimension],
            *_headline_cells(block),
            verdicts[evaluator] if dimension == POOLED else "",
        ]


PER_DIMENSION_HEADER = ["evaluator", "dimension", "level", "scale_min", "scale_max", *DETAIL_HEADER]


def per_dimension_rows(result: dict[str, Any]) -> Iterator[list[CellValue]]:
    specs = {spec["key"]: spec for spec in result["dimensions"]}
    pooled = result["pooled_dimensions"]
    if pooled:
        specs[POOLED] = {**specs[pooled[0]], "key": POOLED}
    for evaluator, dimension, block in _blocks(result):
        spec = specs[dimension]
        yield [
            evaluator,
            dimension,
            spec["level"],
            spec["scale"][0],
            spec["scale"][1],
            *_detail_cells(block),
        ]


BREAKDOWN_HEADER = [*HEADLINE_HEADER, "mae", "mae_low", "mae_high"]


def _breakdown_rows(
    result: dict[str, Any], columns: Sequence[str], *, with_column: bool
) -> Iterator[list[CellValue]]:
    for evaluator, dimension, block in _blocks(result):
        groups = lookup(block, ("by",)) or {}
        for column in columns:
            for value, group in groups.get(column, {}).items():
                yield [
                    evaluator,
                    dimension,
                    *([column] if with_column else []),
                    value,
                    *_headline_cells(group),
                    *_values(group, ("mae",), ("mae_ci",)),
                ]


PER_SYSTEM_HEADER = ["evaluator", "dimension", "system", *BREAKDOWN_HEADER]
PER_PERSONA_HEADER = ["evaluator", "dimension", "attribute", "value", *BREAKDOWN_HEADER]


def per_system_rows(result: dict[str, Any]) -> Iterator[list[CellValue]]:
    return _breakdown_rows(result, ["system"], with_column=False)


def per_persona_rows(result: dict[str, Any]) -> Iterator[list[CellValue]]:
    return _breakdown_rows(result, PERSONA_BREAKDOWNS, with_column=True)


PAIRWISE_HEADER = [
    "evaluator",
    "dimension",
    "n_items",
    "n_judgements",
    "share_a",
    "share_b",
    "share_other",
    "alpha_humans",
    "alpha_humans_low",
    "alpha_humans_high",
    "alpha_humans_plus_llm",
    "alpha_humans_plus_llm_low",
    "alpha_humans_plus_llm_high",
    "llm_share_a",
    "n_majority_items",
    "llm_majority_agreement",
    "llm_majority_agreement_low",
    "llm_majority_agreement_high",
    "notes",
]


def pairwise_rows(result: dict[str, Any]) -> Iterator[list[CellValue]]:
    for evaluation in result["evaluations"]:
        for key, block in evaluation["pairwise"].items():
            majority = block["llm_majority_agreement_ci"] or [None, None]
            notes = [block["error"]] if block.get("error") else []
            yield [
                evaluation["evaluator"] or "",
                key,
                block["n_items"],
                block["n_judgements"],
                block["share_a"],
                block["share_b"],
                block["share_other"],
                *_values(block, ("alpha", "humans"), ("alpha_ci", "humans")),
                *_values(block, ("alpha", "humans_plus_llm"), ("alpha_ci", "humans_plus_llm")),
                block["llm_share_a"],
                block["n_majority_items"],
                block["llm_majority_agreement"],
                majority[0],
                majority[1],
                " ".join([*notes, *block.get("notes", [])]),
            ]


TRANSCRIPT_COLUMNS = ("system", "dataset", "lang", "persona_emotion", "persona_age_group")
HUMAN_SCORES_HEADER = [
    "item",
    "annotator",
    "dimension",
    "score",
    "rationale",
    "time_on_task_ms",
    "updated_at",
    *TRANSCRIPT_COLUMNS,
]


def human_score_rows(campaign: Campaign) -> Iterator[list[CellValue]]:
    """Every submitted answer, straight from the database, a chunk at a time."""
    answers = (
        Response.objects.filter(
            assignment__campaign=campaign, assignment__status=Assignment.Status.SUBMITTED
        )
        .order_by("transcript__position", "transcript_id", "dimension__position", "pk")
        .values_list(
            "transcript__external_id",
            "assignment__annotator__username",
            "dimension__key",
            "value",
            "rationale",
            "time_on_task_ms",
            "updated_at",
            *(f"transcript__{name}" for name in TRANSCRIPT_COLUMNS),
        )
    )
    for item, annotator, dimension, value, rationale, ms, updated, *meta in answers.iterator(
        chunk_size=2000
    ):
        yield [item, annotator, dimension, value, rationale, ms, updated.isoformat(), *meta]


LLM_SCORES_HEADER = [
    "item",
    "evaluator",
    "dimension",
    "score",
    "rationale",
    "imported_at",
    *TRANSCRIPT_COLUMNS,
]


def llm_score_rows(campaign: Campaign) -> Iterator[list[CellValue]]:
    """Every LLM score with its rationale, straight from the database, a chunk at a time."""
    scores = (
        LLMScore.objects.filter(transcript__campaign=campaign)
        .order_by("transcript__position", "transcript_id", "dimension__position", "evaluator")
        .values_list(
            "transcript__external_id",
            "evaluator",
            "dimension__key",
            "score",
            "rationale",
            "imported_at",
            *(f"transcript__{name}" for name in TRANSCRIPT_COLUMNS),
        )
    )
    for item, evaluator, dimension, score, rationale, imported, *meta in scores.iterator(
        chunk_size=2000
    ):
        yield [item, evaluator, dimension, score, rationale, imported.isoformat(), *meta]


DISAGREEMENTS_HEADER = [
    "evaluator",
    "dimension",
    "item",
    "system",
    "human_mean",
    "human_scores",
    "llm_score",
    "difference",
    "relative_gap",
    "llm_rationale",
]


def disagreement_rows(campaign: Campaign) -> Iterator[list[CellValue]]:
    """Every (item, dimension) scored by an LLM and a person, the largest gap first: the
    current data, whereas the page lists the largest of the computed report."""
    frame = long_scores(campaign)
    frame["evaluator"] = np.where(frame["is_llm"], frame["rater"], "")
    evaluators = _evaluator_raters(frame)
    frame.loc[frame["is_llm"], "rater"] = frame.loc[frame["is_llm"], "rater"].map(evaluators)
    specs = [DimensionSpec.of(d) for d in campaign.rubric.dimensions.order_by("position")]
    rationales = {
        (item, evaluator, dimension): rationale
        for item, evaluator, dimension, rationale in LLMScore.objects.filter(
            transcript__campaign=campaign
        )
        .exclude(rationale="")
        .values_list("transcript__external_id", "evaluator", "dimension__key", "rationale")
        .iterator(chunk_size=2000)
    }
    for name, rater in evaluators.items():
        rows = frame[~frame["is_llm"] | (frame["rater"] == rater)]
        for row in _disagreements(rows, specs, rater):
            yield [
                name,
                row["dimension"],
                row["item"],
                row["system"],
                row["human_mean"],
                ", ".join(f"{value:g}" for value in row["humans"]),
                row["llm"],
                row["difference"],
                row["relative_gap"],
                rationales.get((row["item"], name, row["dimension"]), ""),
            ]


@dataclass(frozen=True)
class Table:
    """One table of the exports: its sheet title, and how to make its sheet."""

    slug: str
    title: str
    sheet: Callable[[Campaign, dict[str, Any]], Sheet]


def _summary_sheet(campaign: Campaign, result: dict[str, Any]) -> Sheet:
    return Sheet(
        "Summary",
        SUMMARY_HEADER,
        summary_rows(result),
        charts=[
            BarChartSpec(
                "Krippendorff's α per dimension",
                categories="label",
                values=["alpha_humans", "alpha_humans_plus_llm"],
                y_title="α",
            )
        ],
    )


def _disagreements_sheet(campaign: Campaign, result: dict[str, Any]) -> Sheet:
    return Sheet(
        "Disagreements",
        DISAGREEMENTS_HEADER,
        disagreement_rows(campaign),
        charts=[
            ScatterChartSpec(
                "LLM score against the human mean",
                x="human_mean",
                y="llm_score",
                x_title="human mean",
                y_title="LLM score",
            )
        ],
    )


TABLES: tuple[Table, ...] = (
    Table("summary", "Summary", _summary_sheet),
    Table(
        "per-dimension",
        "Per dimension",
        lambda c, r: Sheet("Per dimension", PER_DIMENSION_HEADER, per_dimension_rows(r)),
    ),
    Table(
        "per-system",
        "Per system",
        lambda c, r: Sheet("Per system", PER_SYSTEM_HEADER, per_system_rows(r)),
    ),
    Table(
        "per-persona",
        "Per persona",
        lambda c, r: Sheet("Per persona", PER_PERSONA_HEADER, per_persona_rows(r)),
    ),
    Table(
        "pairwise", "Pairwise", lambda c, r: Sheet("Pairwise", PAIRWISE_HEADER, pairwise_rows(r))
    ),
    Table(
        "human-scores",
        "Human scores",
        lambda c, r: Sheet("Human scores", HUMAN_SCORES_HEADER, human_score_rows(c)),
    ),
    Table(
        "llm-scores",
        "LLM scores",
        lambda c, r: Sheet("LLM scores", LLM_SCORES_HEADER, llm_score_rows(c)),
    ),
    Table("disagreements", "Disagreements", _disagreements_sheet),
)
CONCEPT_MODULE = "annotation.concept.sheet"


def concept_sheet_builder() -> Callable[[Campaign], Sheet] | None:
    """``annotation.concept_report.concept_sheet``, when that module provides it."""
    if importlib.util.find_spec(CONCEPT_MODULE) is None:
        return None
    builder = getattr(importlib.import_module(CONCEPT_MODULE), "concept_sheet", None)
    return builder if callable(builder) else None


def report_tables() -> list[Table]:
    """Every table of the exports, in the workbook's order; CONCEPT last, when available."""
    tables = list(TABLES)
    builder = concept_sheet_builder()
    if builder is not None:
        tables.append(Table("concept", "CONCEPT", lambda c, r: _titled(builder(c), "CONCEPT")))
    return tables


def _titled(sheet: Sheet, title: str) -> Sheet:
    return Sheet(title, sheet.header, sheet.rows, sheet.charts)


def write_report_workbook(
    target: str | IO[bytes], campaign: Campaign, result: dict[str, Any]
) -> None:
    write_workbook(target, [table.sheet(campaign, result) for table in report_tables()])


def write_report_csv(
    stream: IO[str], campaign: Campaign, result: dict[str, Any], slug: str
) -> None:
    """One table as CSV; raises KeyError for a table the report does not have."""
    tables = {table.slug: table for table in report_tables()}
    sheet = tables[slug].sheet(campaign, result)
    write_csv(stream, sheet.header, sheet.rows)


def csv_bytes(campaign: Campaign, result: dict[str, Any], slug: str) -> bytes:
    buffer = io.StringIO()
    write_report_csv(buffer, campaign, result, slug)
    # The byte-order mark makes Excel read the file as UTF-8.
    return buffer.getvalue().encode("utf-8-sig")


def table_slugs() -> list[str]:
    return [table.slug for table in report_tables()]
