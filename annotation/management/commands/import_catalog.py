from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from annotation.concept.catalog_store import served_datasets, store_catalog
from annotation.concept.catalogs import read_catalog_csv, read_concept4crs_catalog
from annotation.imports.problems import ImportFailed


class Command(BaseCommand):
    help = (
        "Import an item catalog for the CONCEPT scorecard, from a CSV file (id,name,year,"
        "attributes; attributes separated by '|') or a Concept4CRS catalogs folder "
        "(<dataset>_entity2id.json and <dataset>_id2info.json). The whole file is checked "
        "first; one bad line and nothing changes. Importing a catalog again replaces it."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("name", help="The catalog's name (letters, digits, '-' and '_').")
        source = parser.add_mutually_exclusive_group(required=True)
        source.add_argument("--csv", metavar="FILE", help="A CSV catalog.")
        source.add_argument("--concept4crs", metavar="DIR", help="A Concept4CRS catalogs folder.")
        parser.add_argument(
            "--dataset",
            help="With --concept4crs: the file prefix to read, such as redial or opendialkg.",
        )
        parser.add_argument(
            "--serves",
            default="",
            help=(
                "Comma-separated transcript dataset values the catalog describes (default: its "
                "name, and with --concept4crs also <dataset>_eval, the Concept4CRS folder name)."
            ),
        )

    def handle(self, *args: Any, **options: Any) -> None:
        name = options["name"]
        dataset = options["dataset"] or ""
        if options["concept4crs"] and not dataset:
            raise CommandError("--concept4crs needs --dataset, such as --dataset redial.")
        if options["csv"] and dataset:
            raise CommandError("--dataset applies to --concept4crs only.")
        served = served_datasets(name, options["serves"].split(","), concept4crs=dataset)
        try:
            if options["csv"]:
                contents = read_catalog_csv(options["csv"])
            else:
                contents = read_concept4crs_catalog(options["concept4crs"], dataset)
            stored = store_catalog(name, served, contents)
        except ImportFailed as failure:
            raise CommandError(f"Nothing was imported:\n{failure.summary}") from None
        self.stdout.write(
            self.style.SUCCESS(
                f"Imported catalog {stored.name!r} from {contents.source}: "
                f"{len(contents.items)} items and {len(contents.other_entities)} other "
                f"entities, for the datasets {', '.join(stored.datasets)}."
            )
        )
