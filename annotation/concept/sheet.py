"""The "CONCEPT" sheet of the agreement report's Excel workbook.

One row per system × dataset, one column per measure of the scorecard row
(``annotation.concept.card`` names them all), the notes that explain each null, and a bar chart
of the six ability scores from human judgements. ``concept_sheet`` is what the report calls.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from annotation.concept.card import HUMAN, NOTES, ability_keys, scalar_columns
from annotation.concept.page import measure_names, source_label
from annotation.concept.scorecard import DEFAULT_BY, campaign_scorecard, gather_inputs
from annotation.models import Campaign
from evalsite.agreement.phrases import shown
from evalsite.spreadsheets import BarChartSpec, CellValue, Sheet

SHEET_TITLE = "CONCEPT"
GROUP_COLUMN = "group"
JUDGED_PREFIX = "deceptive_judged_"
# The notes are sentences in the exporter's language, hence a label column.
NOTES_COLUMN = f"{NOTES}_label"
CHART_TITLE = gettext_noop("CONCEPT abilities (0–5), human")


@dataclass(frozen=True)
class SheetRow:
    """One row of the sheet: the group's label, its group columns, its measures, its notes."""

    group: str
    columns: tuple[CellValue, ...]
    measures: tuple[CellValue, ...]
    notes: str

    def cells(self) -> list[CellValue]:
        return [self.group, *self.columns, *self.measures, self.notes]


def sheet_header(measures: Sequence[str]) -> list[str]:
    return [GROUP_COLUMN, *DEFAULT_BY, *measures, NOTES_COLUMN]


def sheet_row(card: Mapping[str, Any], measures: Sequence[str]) -> SheetRow:
    notes: Mapping[str, str] = card.get(NOTES, {})
    return SheetRow(
        group=" / ".join("—" if card.get(name) is None else str(card[name]) for name in DEFAULT_BY),
        columns=tuple(card.get(name) for name in DEFAULT_BY),
        measures=tuple(card.get(measure) for measure in measures),
        notes="; ".join(f"{key}: {shown(sentence)}" for key, sentence in notes.items()),
    )


def concept_sheet(campaign: Campaign) -> Sheet:
    """The CONCEPT scorecard per system × dataset as a worksheet: one row per group, one
    column per measure, the notes that explain each null, and a chart of the six ability
    scores from human judgements."""
    inputs = gather_inputs(campaign)
    cards = campaign_scorecard(inputs)
    measures = scalar_columns(cards, DEFAULT_BY)
    rows = [sheet_row(card, measures).cells() for card in cards]
    charted = [key for _, key in ability_keys(HUMAN) if key in measures]
    charts = (
        [BarChartSpec(_(CHART_TITLE), GROUP_COLUMN, charted, y_title=_("score"))]
        if charted and rows
        else []
    )
    glossary = {
        GROUP_COLUMN: _("The system and dataset of the row's transcripts"),
        NOTES_COLUMN: _("Why a measure of the row is empty, in the exporter's language"),
        **measure_names(campaign, inputs, cards),
    }
    for key in measures:
        source = key.removeprefix(JUDGED_PREFIX)
        if source != key and key not in glossary:
            glossary[key] = _("Accepted transcripts judged by %(source)s") % {
                "source": source_label(source)
            }
    return Sheet(
        SHEET_TITLE,
        sheet_header(measures),
        rows,
        charts,
        empty=_("No transcript of this campaign has been scored yet."),
        glossary=glossary,
    )
