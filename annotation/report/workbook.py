"""The report as an Excel workbook and as one CSV file per table (``evalsite.spreadsheets``)."""

from __future__ import annotations

import io
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import IO, Any

import numpy as np
from django.utils.functional import Promise
from django.utils.translation import get_language, gettext_lazy, gettext_noop
from django.utils.translation import gettext as _

from annotation.alignment.sheets import ALIGNMENT_SHEETS
from annotation.concept.sheet import concept_sheet
from annotation.models import (
    AdjudicationReason,
    Assignment,
    Campaign,
    Dimension,
    LLMScore,
    Response,
)
from annotation.models.transcript import version_label
from annotation.report.compute import evaluator_raters
from annotation.report.dimensions import DimensionSpec
from annotation.report.items import disagreements
from annotation.report.rows import (
    ALT_TEST_HEADER,
    DISAGREEMENTS_HEADER,
    HUMAN_SCORES_HEADER,
    LLM_SCORES_HEADER,
    PAIRWISE_HEADER,
    PER_DIMENSION_HEADER,
    PER_PERSONA_HEADER,
    PER_SYSTEM_HEADER,
    SUMMARY_HEADER,
    TRANSCRIPT_COLUMNS,
    alt_test_rows,
    pairwise_rows,
    per_dimension_rows,
    per_persona_rows,
    per_system_rows,
    summary_rows,
)
from annotation.report.scores import long_scores
from evalsite.language import is_chinese
from evalsite.spreadsheets import (
    About,
    BarChartSpec,
    CellValue,
    ScatterChartSpec,
    Sheet,
    export_time,
    write_csv,
    write_workbook,
)


def human_score_rows(campaign: Campaign) -> Iterator[list[CellValue]]:
    """Every submitted answer, straight from the database, a chunk at a time.

    A free-text answer has an empty score and its words under ``text``; ``b_shown_left``
    says, for pairwise questions, the order the two responses were shown in."""
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
            "transcript__version",
            "dimension__kind",
            "text",
            "assignment__swapped",
        )
    )
    for row in answers.iterator(chunk_size=2000):
        item, annotator, dimension, value, rationale, ms, updated, *rest = row
        *meta, kind, text, swapped = rest
        free = kind == Dimension.Kind.TEXT
        yield [
            item,
            annotator,
            dimension,
            None if free else value,
            rationale,
            ms,
            export_time(updated),
            *meta,
            text,
            swapped if kind == Dimension.Kind.PAIRWISE else None,
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
            "transcript__version",
        )
    )
    for item, evaluator, dimension, score, rationale, imported, *meta in scores.iterator(
        chunk_size=2000
    ):
        yield [item, evaluator, dimension, score, rationale, export_time(imported), *meta]


def disagreement_rows(campaign: Campaign) -> Iterator[list[CellValue]]:
    """Every (item, dimension) scored by an LLM and a person, the largest gap first: the
    current data, whereas the page lists the largest of the computed report."""
    frame = long_scores(campaign)
    frame["evaluator"] = np.where(frame["is_llm"], frame["rater"], "")
    evaluators = evaluator_raters(frame)
    frame.loc[frame["is_llm"], "rater"] = frame.loc[frame["is_llm"], "rater"].map(evaluators)
    specs = [DimensionSpec.of(d) for d in campaign.rubric.dimensions.scored().order_by("position")]
    rationales = {
        (version_label(item, version), evaluator, dimension): rationale
        for item, version, evaluator, dimension, rationale in LLMScore.objects.filter(
            transcript__campaign=campaign
        )
        .exclude(rationale="")
        .values_list(
            "transcript__external_id",
            "transcript__version",
            "evaluator",
            "dimension__key",
            "rationale",
        )
        .iterator(chunk_size=2000)
    }
    for name, rater in evaluators.items():
        rows = frame[~frame["is_llm"] | (frame["rater"] == rater)]
        for row in disagreements(rows, specs, rater):
            yield [
                name,
                row.dimension,
                row.item,
                row.system,
                row.human_mean,
                ", ".join(f"{value:g}" for value in row.humans),
                row.llm,
                row.difference,
                row.relative_gap,
                rationales.get((row.item, name, row.dimension), ""),
            ]


NO_RATED_DIMENSION = gettext_noop("The report has no rated dimension with scores.")
NO_LLM_AND_PEOPLE = gettext_noop("No item has both an LLM score and a person's score.")


def campaign_about(campaign: Campaign, exported_by: str) -> About:
    """The About sheet of an annotation campaign's workbooks: the dimensions and adjudication
    reasons by key, with the names people read."""
    chinese = is_chinese(get_language() or "en")
    dimensions = campaign.rubric.dimensions.order_by("position")
    codes = [
        ("dimension", d.key, d.name_zh if chinese else d.name_en) for d in dimensions.iterator()
    ]
    codes += [
        ("reason", reason.label_en, reason.label_zh if chinese else reason.label_en)
        for reason in AdjudicationReason.objects.order_by("position", "pk")
    ]
    return About(_("Annotation campaign: %(name)s") % {"name": campaign.name}, exported_by, codes)


@dataclass(frozen=True)
class Table:
    """One table of the exports: its sheet title, and how to make its sheet."""

    slug: str
    title: str | Promise
    sheet: Callable[[Campaign, dict[str, Any]], Sheet]


def _summary_sheet(campaign: Campaign, result: dict[str, Any]) -> Sheet:
    return Sheet(
        "Summary",
        SUMMARY_HEADER,
        summary_rows(result),
        charts=[
            BarChartSpec(
                _("Krippendorff's α per dimension"),
                categories="label",
                values=["alpha_humans_pairwise", "alpha_llm_vs_humans"],
                y_title="α",
            )
        ],
        empty=_(NO_RATED_DIMENSION),
    )


def _disagreements_sheet(campaign: Campaign, result: dict[str, Any]) -> Sheet:
    return Sheet(
        "Disagreements",
        DISAGREEMENTS_HEADER,
        disagreement_rows(campaign),
        charts=[
            ScatterChartSpec(
                _("LLM score against the human mean"),
                x="human_mean",
                y="llm_score",
                x_title=_("human mean"),
                y_title=_("LLM score"),
            )
        ],
        empty=_(NO_LLM_AND_PEOPLE),
    )


TABLES: tuple[Table, ...] = (
    Table("summary", gettext_lazy("Summary"), _summary_sheet),
    Table(
        "per-dimension",
        gettext_lazy("Per dimension"),
        lambda c, r: Sheet(
            "Per dimension",
            PER_DIMENSION_HEADER,
            per_dimension_rows(r),
            empty=_(NO_RATED_DIMENSION),
        ),
    ),
    Table(
        "per-system",
        gettext_lazy("Per system"),
        lambda c, r: Sheet(
            "Per system", PER_SYSTEM_HEADER, per_system_rows(r), empty=_(NO_RATED_DIMENSION)
        ),
    ),
    Table(
        "per-persona",
        gettext_lazy("Per persona"),
        lambda c, r: Sheet(
            "Per persona",
            PER_PERSONA_HEADER,
            per_persona_rows(r),
            empty=_("No transcript of this campaign has persona attributes."),
        ),
    ),
    Table(
        "alt-test",
        gettext_lazy("Alt-test"),
        lambda c, r: Sheet(
            "Alt-test",
            ALT_TEST_HEADER,
            alt_test_rows(r),
            empty=_("The alternative annotator test could not run on any dimension."),
        ),
    ),
    Table(
        "pairwise",
        gettext_lazy("Pairwise"),
        lambda c, r: Sheet(
            "Pairwise",
            PAIRWISE_HEADER,
            pairwise_rows(r),
            empty=_("The rubric has no pairwise question."),
        ),
    ),
    Table(
        "human-scores",
        gettext_lazy("Human scores"),
        lambda c, r: Sheet(
            "Human scores",
            HUMAN_SCORES_HEADER,
            human_score_rows(c),
            empty=_("No annotator has submitted an item of this campaign."),
        ),
    ),
    Table(
        "llm-scores",
        gettext_lazy("LLM scores"),
        lambda c, r: Sheet(
            "LLM scores",
            LLM_SCORES_HEADER,
            llm_score_rows(c),
            empty=_("No LLM score has been imported into this campaign."),
        ),
    ),
    Table("disagreements", gettext_lazy("Disagreements"), _disagreements_sheet),
)


def _concept_sheet(campaign: Campaign, result: dict[str, Any]) -> Sheet:
    return _titled(concept_sheet(campaign), "CONCEPT")


def _alignment_table(slug: str, title: str | Promise, build: Callable[[Campaign], Sheet]) -> Table:
    return Table(f"alignment-{slug}", title, lambda campaign, result: build(campaign))


def report_tables() -> list[Table]:
    """Every table of the exports, in the workbook's order; judge alignment, then CONCEPT."""
    alignment = [_alignment_table(*entry) for entry in ALIGNMENT_SHEETS]
    return [*TABLES, *alignment, Table("concept", "CONCEPT", _concept_sheet)]


def _titled(sheet: Sheet, title: str) -> Sheet:
    return Sheet(title, sheet.header, sheet.rows, sheet.charts, sheet.empty, sheet.glossary)


def write_report_workbook(
    target: str | IO[bytes], campaign: Campaign, result: dict[str, Any], exported_by: str = ""
) -> None:
    write_workbook(
        target,
        [table.sheet(campaign, result) for table in report_tables()],
        campaign_about(campaign, exported_by),
    )


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
