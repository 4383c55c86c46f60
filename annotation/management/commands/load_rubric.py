from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError, CommandParser

from annotation.rubrics import DEFAULT_RUBRIC_PATH, RubricFileError, load_rubric_file


class Command(BaseCommand):
    help = (
        "Load a rubric file (see annotation/rubrics.py) into the rubric library. A rubric "
        "version that already has annotations cannot change: give the file a new version."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "path",
            nargs="?",
            default=str(DEFAULT_RUBRIC_PATH),
            help="The rubric's JSON file (default: the CONCEPT rubric).",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            rubric, created = load_rubric_file(options["path"])
        except FileNotFoundError:
            raise CommandError(f"{options['path']} does not exist.") from None
        except RubricFileError as exc:
            raise CommandError(f"{options['path']}: {exc}") from None
        except ValidationError as exc:
            raise CommandError(" ".join(exc.messages)) from None
        verb = "Loaded" if created else "Updated"
        self.stdout.write(
            self.style.SUCCESS(
                f"{verb} rubric {rubric} with {rubric.dimensions.count()} dimensions."
            )
        )
