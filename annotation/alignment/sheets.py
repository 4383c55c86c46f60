"""The alignment's exports: versions, adjudications, calibration maps and held-out figures.

Each is a `evalsite.spreadsheets.Sheet`, written as CSV from the alignment page and as sheets
of the agreement report's workbook. The column names below are the one place that defines them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from django.utils.functional import Promise as StrPromise
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, gettext_noop

from annotation.alignment.comparison import VersionOnDimension
from annotation.alignment.figures import AgreementFigures
from annotation.alignment.page import alignment_summary
from annotation.alignment.paired import PairedDifference
from annotation.models import Adjudication, Campaign
from evalsite.agreement.alt_test import AltTestResult
from evalsite.agreement.phrases import shown
from evalsite.spreadsheets import CellValue, Sheet, export_time

VERSIONS_HEADER = (
    "version",
    "model",
    "prompt_version",
    "temperature",
    "seed",
    "few_shot_items",
    "created_at",
    "prompt_template",
)
ADJUDICATIONS_HEADER = (
    "item",
    "dimension",
    "resolved_score",
    "reason",
    "note",
    "adjudicator",
    "decided_at",
)
CALIBRATION_HEADER = (
    "version",
    "dimension",
    "llm_score",
    "mapped_value",
    "calibrated_score",
    "fitted_items",
    "collapsed",
    # Why the map is missing or near-constant, in the exporter's language.
    "note_label",
)
CONFUSION_HEADER = (
    "version",
    "dimension",
    "human_consensus",
    "llm_score",
    "items",
    "off_by_one_band",
)
HELD_OUT_HEADER = (
    "version",
    "dimension",
    "scores",
    "items",
    "mae",
    "mae_low",
    "mae_high",
    "alpha_llm_vs_humans",
    "alpha_low",
    "alpha_high",
    "alpha_humans_pairwise",
    "alt_test_epsilon",
    "alt_test_winning_rate",
    "alt_test_passed",
    "alt_test_note",
    "exact_agreement",
    "within_one",
    "exact_agreement_chance_uniform",
    "exact_agreement_chance_marginals",
    "within_one_chance_uniform",
    "within_one_chance_marginals",
    # The s.d. of these scores and of people's scores on the same items (`ScoreSpread`).
    "scores_sd",
    "people_sd",
    "gain",
    "gain_low",
    "gain_high",
    "best_on_calibration_split",
)


def version_rows(campaign: Campaign) -> Iterator[list[CellValue]]:
    for version in campaign.evaluator_versions.order_by("created_at", "pk"):
        yield [
            version.name,
            version.model,
            version.prompt_version,
            version.temperature,
            version.seed,
            " ".join(str(example["transcript"]) for example in version.few_shot),
            export_time(version.created_at),
            version.prompt_template,
        ]


def adjudication_rows(campaign: Campaign) -> Iterator[list[CellValue]]:
    decisions = Adjudication.objects.filter(transcript__campaign=campaign).select_related(
        "transcript", "dimension", "reason", "adjudicator"
    )
    for decision in decisions.order_by("transcript__position", "transcript_id", "dimension"):
        yield [
            decision.transcript.external_id,
            decision.dimension.key,
            decision.score,
            decision.reason.label_en,
            decision.note,
            decision.adjudicator.username,
            export_time(decision.decided_at),
        ]


def calibration_rows(campaign: Campaign) -> Iterator[list[CellValue]]:
    for block in alignment_summary(campaign).dimensions:
        for row, _shown in block.versions:
            fitted = row.calibration_map
            if fitted is None:
                note = "" if row.map_note is None else shown(row.map_note)
                yield [row.version, row.dimension, None, None, None, 0, None, note]
                continue
            for point, value in zip(fitted.points, fitted.fitted, strict=True):
                calibrated = fitted.calibrated_point(point)
                yield [
                    row.version,
                    row.dimension,
                    point,
                    round(value, 4),
                    float(calibrated),
                    fitted.n_fit,
                    fitted.collapsed,
                    fitted.note or "",
                ]


def confusion_rows(campaign: Campaign) -> Iterator[list[CellValue]]:
    """Every version's held-out confusion matrix (raw scores), one row per cell."""
    for block in alignment_summary(campaign).dimensions:
        for row, _shown in block.versions:
            for human, llm, count, in_band in row.held_out.confusion.cells():
                yield [row.version, row.dimension, human, llm, count, in_band]


def _bounds(bounds: tuple[float, float] | None) -> list[CellValue]:
    return [None, None] if bounds is None else [bounds[0], bounds[1]]


def _figures(figures: AgreementFigures) -> list[CellValue]:
    alpha = figures.alpha.llm_vs_humans
    alt = figures.alt
    passed = isinstance(alt, AltTestResult)
    return [
        figures.n_items,
        figures.mae,
        *_bounds(figures.mae_interval.bounds),
        alpha.value,
        *_bounds(alpha.interval.bounds),
        figures.alpha.humans_pairwise.value,
        alt.epsilon,
        alt.winning_rate if isinstance(alt, AltTestResult) else None,
        alt.passed if isinstance(alt, AltTestResult) else None,
        "" if passed else getattr(alt, "note", ""),
        figures.confusion.exact,
        figures.confusion.within_one,
        figures.confusion.exact_chance_uniform,
        figures.confusion.exact_chance_marginals,
        figures.confusion.within_one_chance_uniform,
        figures.confusion.within_one_chance_marginals,
        None if figures.spread is None else figures.spread.llm_sd,
        None if figures.spread is None else figures.spread.people_sd,
    ]


def _gain(difference: PairedDifference | None) -> list[CellValue]:
    if difference is None:
        return [None, None, None]
    return [difference.gain, *_bounds(difference.interval.bounds)]


def _held_out(row: VersionOnDimension, best: bool) -> Iterator[list[CellValue]]:
    yield [
        row.version,
        row.dimension,
        "raw",
        *_figures(row.held_out),
        *_gain(row.gain_over_first),
        best,
    ]
    if row.calibrated is not None:
        yield [
            row.version,
            row.dimension,
            "calibrated",
            *_figures(row.calibrated),
            *_gain(row.calibration_gain),
            best,
        ]


def held_out_rows(campaign: Campaign) -> Iterator[list[CellValue]]:
    summary = alignment_summary(campaign)
    for block in summary.dimensions:
        for row, _shown in block.versions:
            yield from _held_out(row, row.version == summary.best)


NO_VERSIONS = gettext_noop(
    "No evaluator version has scores on a dimension that people scored on held-out items."
)

ALIGNMENT_SHEETS: tuple[tuple[str, StrPromise, Callable[[Campaign], Sheet]], ...] = (
    (
        "versions",
        gettext_lazy("Versions"),
        lambda c: Sheet(
            "Versions",
            VERSIONS_HEADER,
            version_rows(c),
            empty=_("No evaluator version has been recorded for this campaign."),
        ),
    ),
    (
        "adjudications",
        gettext_lazy("Adjudications"),
        lambda c: Sheet(
            "Adjudications",
            ADJUDICATIONS_HEADER,
            adjudication_rows(c),
            empty=_("No score has been adjudicated in this campaign."),
        ),
    ),
    (
        "calibration",
        gettext_lazy("Calibration maps"),
        lambda c: Sheet(
            "Calibration maps",
            CALIBRATION_HEADER,
            calibration_rows(c),
            empty=_(NO_VERSIONS),
        ),
    ),
    (
        "confusion",
        gettext_lazy("Confusion matrices"),
        lambda c: Sheet(
            "Confusion matrices", CONFUSION_HEADER, confusion_rows(c), empty=_(NO_VERSIONS)
        ),
    ),
    (
        "held-out",
        gettext_lazy("Held-out figures"),
        lambda c: Sheet(
            "Held-out figures", HELD_OUT_HEADER, held_out_rows(c), empty=_(NO_VERSIONS)
        ),
    ),
)


def alignment_sheet(campaign: Campaign, slug: str) -> Sheet:
    """One alignment table; raises KeyError for a slug it does not have."""
    return {name: build for name, _, build in ALIGNMENT_SHEETS}[slug](campaign)
