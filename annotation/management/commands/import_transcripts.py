from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from annotation.imports.formats import FORMATS, guess_format
from annotation.imports.writer import ON_ANNOTATED, REFUSE
from annotation.jobs import run_inline
from annotation.models import Campaign
from evalsite.models import Job


class Command(BaseCommand):
    help = (
        "Import transcripts into an annotation campaign, creating it with the default rubric "
        "if needed. The whole file is checked first; one bad row and nothing is written. "
        "Re-importing the same ids updates them; see --on-annotated for ids with annotations."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("path", help="A .jsonl or .csv file, or a Concept4CRS folder or .zip.")
        parser.add_argument("--campaign", required=True, help="The campaign's name.")
        parser.add_argument(
            "--format",
            choices=FORMATS,
            help="The input's format (default: from the path: .jsonl, .csv, a folder or .zip).",
        )
        parser.add_argument(
            "--personas",
            help="Concept4CRS only: personas.csv, for each transcript's emotion and age group.",
        )
        parser.add_argument(
            "--item-order",
            choices=Campaign.ItemOrder.values,
            help=(
                "How the campaign hands out items equally near completion: 'shuffled' (each "
                "annotator in their own seeded order, the default for a new campaign) or "
                "'import'."
            ),
        )
        parser.add_argument(
            "--dedupe-cells",
            action="store_true",
            help=(
                "Concept4CRS only: keep the lowest dialogue id of each duplicated "
                "persona x attribute cell (per system and dataset) and skip the others."
            ),
        )

        parser.add_argument(
            "--on-annotated",
            choices=ON_ANNOTATED,
            default=REFUSE,
            help=(
                "What to do with rows whose transcript already has annotations: 'refuse' the "
                "import, naming them (the default), or keep versions: 'version' adds the new "
                "content as a new version and leaves the annotated text with its scores."
            ),
        )

    def handle(self, *args: Any, **options: Any) -> None:
        fmt = options["format"] or guess_format(options["path"])
        if fmt is None:
            raise CommandError(
                f"Cannot tell the format of {options['path']}; pass --format jsonl, csv or "
                "concept4crs."
            )
        job = run_inline(
            "annotation.import_transcripts",
            {
                "path": options["path"],
                "campaign": options["campaign"],
                "format": fmt,
                "personas": options["personas"],
                "dedupe_cells": options["dedupe_cells"],
                "on_annotated": options["on_annotated"],
            },
            self.stderr.write,
        )
        if job.status != Job.Status.DONE:
            raise CommandError("\n".join(job.errors) or job.message)
        result = job.result
        if options["item_order"]:
            Campaign.objects.filter(name=options["campaign"]).update(
                item_order=options["item_order"]
            )
        self.stdout.write(
            self.style.SUCCESS(
                f"Imported {result['transcripts']} transcripts into {result['campaign']!r}: "
                f"{result['created']} new, {result['updated']} updated, "
                f"{result['versioned']} new versions of annotated transcripts, "
                f"{result['llm_scores']} LLM scores; the write held the database for "
                f"{result['lock_seconds']:.3f} s."
            )
        )
        if result["duplicates_skipped"]:
            self.stdout.write(
                f"Skipped {result['duplicates_skipped']} file(s) that duplicate a persona x "
                "attribute cell, keeping the lowest dialogue id of each."
            )
        elif result["duplicate_cells"]:
            self.stdout.write(
                f"{result['duplicate_cells']} transcript(s) duplicate a persona x attribute "
                "cell; --dedupe-cells keeps only the lowest dialogue id of each."
            )
