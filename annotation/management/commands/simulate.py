"""Run simulated judges on a live campaign, then optionally send the dialogues to annotation.

The simulation is liveeval's job (``liveeval.simulation``); the command lives in annotation
because its last step, sending the ended dialogues on, is annotation's
(``annotation.from_live``), and liveeval never depends on annotation.
"""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from annotation.from_live.transcripts import send_to_annotation
from annotation.imports.problems import ImportFailed
from evalsite import jobs
from evalsite.commands import named_or_numbered
from evalsite.llm.errors import LLMConfigError
from evalsite.llm.runs import (
    endpoint_settings_from_command,
    finished_from_command,
    resume_from_command,
)
from evalsite.models import Job
from liveeval.models import Campaign, ChatSession
from liveeval.simulation.job import SIMULATE_JOB, create_simulation_job
from liveeval.simulation.personas import PersonaError, parse_personas


def _names(value: str | None) -> list[str]:
    return [name.strip() for name in (value or "").split(",") if name.strip()]


class Command(BaseCommand):
    help = (
        "Run simulated judges on a live campaign: an LLM on any OpenAI-compatible endpoint "
        "plays each persona on each (task, system) pair, through the same adapters as a judge, "
        "and rates each dialogue on the judges' form. Answers are cached: a second run costs "
        "nothing. With --send-to-annotation, the campaign's ended dialogues then become "
        "transcripts of an annotation campaign."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("campaign", nargs="?", help="the live campaign's name or id")
        parser.add_argument(
            "--personas",
            help="Emotion/Age group items, comma-separated; '*' for any, 'all' for all 48",
        )
        parser.add_argument("--base-url", help="e.g. https://api.openai.com/v1")
        parser.add_argument("--model", help="the model name")
        parser.add_argument("--tasks", help="task keys, comma-separated (default: all)")
        parser.add_argument("--systems", help="system slugs, comma-separated (default: all)")
        parser.add_argument("--api-key-env", help="the environment variable holding the key")
        parser.add_argument("--concurrency", type=int, default=4, help="dialogues at once")
        parser.add_argument("--timeout", type=float, help="seconds per attempt (default 60)")
        parser.add_argument("--price-per-1k-prompt", help="price of 1,000 prompt tokens")
        parser.add_argument("--price-per-1k-completion", help="price of 1,000 completion tokens")
        parser.add_argument(
            "--resume", type=int, metavar="JOB", help="continue an interrupted or failed run"
        )
        parser.add_argument(
            "--send-to-annotation",
            metavar="NAME",
            help="afterwards, import the ended dialogues into this annotation campaign",
        )
        parser.add_argument(
            "--with-human",
            action="store_true",
            help="with --send-to-annotation, send the human judges' dialogues too",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        if options["resume"] is not None:
            job = resume_from_command(options["resume"], SIMULATE_JOB, "simulation")
            campaign = Campaign.objects.get(pk=job.params["campaign"])
        else:
            if not options["campaign"]:
                raise CommandError("name a campaign (or --resume JOB)")
            campaign = named_or_numbered(
                Campaign.objects.all(), options["campaign"], "live campaign"
            )
            if options["personas"] is None and options["send_to_annotation"]:
                self._send(campaign, options)
                return
            job = self._start(campaign, options)
        self.stdout.write("")
        finished_from_command(job)
        self.stdout.write(self.style.SUCCESS(f"job {job.pk} done: {json.dumps(job.result)}"))
        if options["send_to_annotation"]:
            self._send(campaign, options)

    def _start(self, campaign: Campaign, options: dict[str, Any]) -> Job:
        if not options["personas"] or not options["base_url"] or not options["model"]:
            raise CommandError("give --personas, --base-url and --model")
        try:
            personas = parse_personas(options["personas"])
        except PersonaError as error:
            raise CommandError(str(error)) from None
        settings = endpoint_settings_from_command(options)
        try:
            job = create_simulation_job(
                campaign,
                settings,
                personas,
                tasks=_names(options["tasks"]),
                systems=_names(options["systems"]),
            )
        except (LLMConfigError, ValueError) as error:
            raise CommandError(str(error)) from None
        self.stdout.write(
            f"job {job.pk}: {len(job.params['tasks'])} task(s) × {len(job.params['systems'])} "
            f"system(s) × {len(personas)} persona(s) in {campaign.name!r}"
        )
        return jobs.run(job, on_progress=self._draw)

    def _send(self, campaign: Campaign, options: dict[str, Any]) -> None:
        kinds = [ChatSession.Kind.SIMULATED]
        if options["with_human"]:
            kinds.append(ChatSession.Kind.JUDGED)
        try:
            result = send_to_annotation(campaign, options["send_to_annotation"], kinds)
        except ImportFailed as failure:
            raise CommandError(failure.summary) from None
        self.stdout.write(
            f"sent {result.transcripts} dialogue(s) to the annotation campaign "
            f"{options['send_to_annotation']!r} ({result.created} new)"
        )

    def _draw(self, job: Job) -> None:
        jobs.print_progress(self.stdout, job)
