from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from annotation.imports.formats import SCORE_FORMATS
from annotation.jobs import run_inline
from evalsite.models import Job


class Command(BaseCommand):
    help = (
        "Import one LLM evaluator's scores (JSONL, or a long CSV with transcript_id, dimension, "
        "score, rationale) into an existing campaign; all or nothing."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("path", help="A .jsonl or .csv file.")
        parser.add_argument("--campaign", required=True, help="The campaign's name.")
        parser.add_argument("--evaluator", required=True, help="The LLM evaluator's name.")
        parser.add_argument(
            "--format", choices=SCORE_FORMATS, help="The file's format (default: its suffix)."
        )

    def handle(self, *args: Any, **options: Any) -> None:
        job = run_inline(
            "annotation.import_llm_scores",
            {
                "path": options["path"],
                "campaign": options["campaign"],
                "evaluator": options["evaluator"],
                "format": options["format"],
            },
            self.stderr.write,
        )
        if job.status != Job.Status.DONE:
            raise CommandError("\n".join(job.errors) or job.message)
        result = job.result
        self.stdout.write(
            self.style.SUCCESS(
                f"Imported {result['llm_scores']} scores of {result['evaluator']!r} into "
                f"{result['campaign']!r}."
            )
        )
