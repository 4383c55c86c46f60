from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from annotation.concept.scorecard import DEFAULT_BY, campaign_scorecard, gather_inputs
from annotation.models import Campaign
from evalsite.commands import named_or_numbered

# The columns of ``--format table``; JSON holds every measure.
TABLE_MEASURES = (
    "n",
    "acceptance_rate",
    "avg_turns_to_accept",
    "sr_rec@3",
    "sr_rec@5",
    "sr_rec@10",
    "sr_dialogue@3",
    "sr_dialogue@5",
    "sr_dialogue@10",
    "nonexistent_item_ratio",
    "deceptive_ratio_catalog",
    "quality_score",
    "sincerity_score",
)


def table_text(cards: Sequence[Mapping[str, Any]], by: Sequence[str]) -> str:
    """The main measures as aligned plain-text columns; null is a dash."""
    header = [*by, *TABLE_MEASURES]
    lines = [header]
    for card in cards:
        cells = []
        for name in header:
            value = card.get(name)
            if value is None:
                cells.append("-")
            elif isinstance(value, float):
                cells.append(f"{value:.3f}")
            else:
                cells.append(str(value))
        lines.append(cells)
    widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
    return "\n".join(
        "  ".join(
            cell.ljust(width) if i < len(by) else cell.rjust(width)
            for i, (cell, width) in enumerate(zip(line, widths, strict=True))
        ).rstrip()
        for line in lines
    )


class Command(BaseCommand):
    help = (
        "Print the CONCEPT scorecard of an annotation campaign, per group of transcripts. "
        'JSON: {"rows": [{<group columns>, "n", "acceptance_rate", "avg_turns_to_accept", '
        '"sr_rec@3", ..., "sr_dialogue@10", ...}]}; rates are fractions, a measure that cannot '
        "be computed is null."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("campaign", help="The campaign's name (or its id).")
        parser.add_argument(
            "--by",
            default=",".join(DEFAULT_BY),
            help=(
                "Comma-separated transcript columns or metadata keys to group by "
                "(default: system,dataset; 'preference' groups by stated preference)."
            ),
        )
        parser.add_argument("--format", choices=("json", "table"), default="json")

    def handle(self, *args: Any, **options: Any) -> None:
        name = options["campaign"]
        campaign = named_or_numbered(Campaign.objects.all(), name, "annotation campaign")
        by = [column.strip() for column in options["by"].split(",") if column.strip()]
        if not by:
            raise CommandError("--by needs at least one column, such as --by system,dataset.")
        inputs = gather_inputs(campaign)
        for dataset in inputs.datasets_without_catalog:
            self.stderr.write(
                f"Dataset {dataset!r} has no item catalog: its non-existent item and deceptive "
                "ratios are null (see manage.py import_catalog)."
            )
        if not inputs.human_scores:
            self.stderr.write(
                "No human scores yet: every human measure, coordination_score_human included, "
                "is null (the notes say why)."
            )
        cards = campaign_scorecard(inputs, by)
        if any(card["duplicate_cells"] for card in cards):
            self.stderr.write(
                "Some transcripts repeat a Concept4CRS persona x attribute cell (see "
                "duplicate_cells); import_transcripts --dedupe-cells keeps the lowest dialogue "
                "id of each."
            )
        if options["format"] == "table":
            self.stdout.write(table_text(cards, by))
        else:
            self.stdout.write(json.dumps({"rows": cards}, ensure_ascii=False, allow_nan=False))
