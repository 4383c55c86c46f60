from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from annotation.llm_evaluator.job import SCORE_JOB, create_scoring_job
from annotation.llm_evaluator.prompt import PROMPT_VERSION
from annotation.models import Campaign
from evalsite import jobs
from evalsite.commands import named_or_numbered
from evalsite.llm.errors import LLMConfigError
from evalsite.llm.runs import (
    endpoint_settings_from_command,
    finished_from_command,
    resume_from_command,
)
from evalsite.models import Job


class Command(BaseCommand):
    help = (
        "Score an annotation campaign's transcripts with an LLM evaluator on any "
        "OpenAI-compatible endpoint, as a job with progress that can be resumed. The scores are "
        f"stored under <model>@{PROMPT_VERSION} (after '<label>:' with --evaluator), where the "
        "agreement report reads them. Answers are cached: a second run costs nothing."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("campaign", nargs="?", help="the annotation campaign's name or id")
        parser.add_argument("--base-url", help="e.g. https://api.openai.com/v1")
        parser.add_argument("--model", help="the model name, e.g. gpt-4o-mini")
        parser.add_argument(
            "--evaluator", default="", help="a label put before <model>@<prompt version>"
        )
        parser.add_argument("--api-key-env", help="the environment variable holding the key")
        parser.add_argument("--concurrency", type=int, default=4, help="requests at once")
        parser.add_argument("--timeout", type=float, help="seconds per attempt (default 60)")
        parser.add_argument("--price-per-1k-prompt", help="price of 1,000 prompt tokens")
        parser.add_argument("--price-per-1k-completion", help="price of 1,000 completion tokens")
        parser.add_argument(
            "--resume", type=int, metavar="JOB", help="continue an interrupted or failed run"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        if options["resume"] is not None:
            job = resume_from_command(options["resume"], SCORE_JOB, "scoring")
        else:
            job = self._start(options)
        self.stdout.write("")
        finished_from_command(job)
        self.stdout.write(self.style.SUCCESS(f"job {job.pk} done: {json.dumps(job.result)}"))

    def _start(self, options: dict[str, Any]) -> Job:
        if not options["campaign"] or not options["base_url"] or not options["model"]:
            raise CommandError("give a campaign, --base-url and --model (or --resume JOB)")
        campaign = named_or_numbered(
            Campaign.objects.all(), options["campaign"], "annotation campaign"
        )
        settings = endpoint_settings_from_command(options)
        try:
            job = create_scoring_job(campaign, settings, label=options["evaluator"])
        except (LLMConfigError, ValueError) as error:
            raise CommandError(str(error)) from None
        self.stdout.write(f"job {job.pk}: scoring {campaign.name!r} as {job.params['evaluator']}")
        return jobs.run(job, on_progress=self._draw)

    def _draw(self, job: Job) -> None:
        jobs.print_progress(self.stdout, job)
