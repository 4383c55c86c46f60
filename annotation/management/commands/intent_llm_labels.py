"""``manage.py intent_llm_labels CAMPAIGN --base-url URL --model M``: the LLM labels intents."""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from annotation.from_intent.llm_labels import LABEL_JOB, PROMPT_VERSION, create_label_job
from annotation.models import Campaign
from evalsite import jobs
from evalsite.commands import named_or_numbered
from evalsite.llm.errors import LLMConfigError
from evalsite.llm.runs import (
    endpoint_settings_from_command,
    finished_from_command,
    resume_from_command,
)


class Command(BaseCommand):
    help = (
        "Label the utterances of an intent annotation campaign with an LLM on any "
        f"OpenAI-compatible endpoint, stored under <model>@{PROMPT_VERSION}; cached, resumable."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("campaign", nargs="?", help="the annotation campaign's name or id")
        parser.add_argument("--base-url", help="e.g. https://api.openai.com/v1")
        parser.add_argument("--model", help="the model name")
        parser.add_argument("--api-key-env", help="the environment variable holding the key")
        parser.add_argument("--concurrency", type=int, default=4, help="requests at once")
        parser.add_argument("--timeout", type=float, help="seconds per attempt (default 60)")
        parser.add_argument("--price-per-1k-prompt", help="price of 1,000 prompt tokens")
        parser.add_argument("--price-per-1k-completion", help="price of 1,000 completion tokens")
        parser.add_argument("--resume", type=int, metavar="JOB", help="continue a stopped run")

    def handle(self, *args: Any, **options: Any) -> None:
        if options["resume"] is not None:
            job = resume_from_command(options["resume"], LABEL_JOB, "intent labelling")
        else:
            if not options["campaign"] or not options["base_url"] or not options["model"]:
                raise CommandError("give a campaign, --base-url and --model (or --resume JOB)")
            campaign = named_or_numbered(
                Campaign.objects.all(), options["campaign"], "annotation campaign"
            )
            try:
                job = create_label_job(campaign, endpoint_settings_from_command(options))
            except LLMConfigError as error:
                raise CommandError(str(error)) from None
            job = jobs.run(job, on_progress=lambda j: jobs.print_progress(self.stdout, j))
        self.stdout.write("")
        finished_from_command(job)
        self.stdout.write(self.style.SUCCESS(f"job {job.pk} done: {json.dumps(job.result)}"))
