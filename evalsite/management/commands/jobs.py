from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from evalsite import jobs
from evalsite.models import Job


class Command(BaseCommand):
    help = (
        "Background jobs from the command line: list them, run one inline with a progress bar, "
        "resume an interrupted one, or mark jobs whose worker died as interrupted."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        actions = parser.add_subparsers(dest="action", required=True)
        actions.add_parser("list", help="the latest jobs")
        run = actions.add_parser("run", help="run a job inline")
        run.add_argument("kind", help=f"one of: {', '.join(jobs.registered_kinds())}")
        run.add_argument(
            "--param",
            action="append",
            default=[],
            metavar="NAME=VALUE",
            help="a parameter; VALUE is read as JSON when it parses, else as text",
        )
        resume = actions.add_parser("resume", help="continue an interrupted or failed job inline")
        resume.add_argument("job_id", type=int)
        actions.add_parser("reap", help="mark jobs whose worker stopped as interrupted")

    def handle(self, *args: Any, **options: Any) -> None:
        action = options["action"]
        if action == "list":
            for job in Job.objects.all()[:50]:
                self.stdout.write(
                    f"{job.pk:>6} {job.kind:<32} {job.status:<12} {jobs.progress_bar(job)}"
                )
        elif action == "reap":
            self.stdout.write(f"{jobs.reap_interrupted()} job(s) marked interrupted.")
        elif action == "run":
            try:
                job = jobs.create(options["kind"], self._params(options["param"]))
            except jobs.JobError as exc:
                raise CommandError(str(exc)) from None
            self._finish(jobs.run(job, on_progress=self._draw))
        else:
            stored = Job.objects.filter(pk=options["job_id"]).first()
            if stored is None:
                raise CommandError(f"no job {options['job_id']}")
            jobs.reap_interrupted()
            stored.refresh_from_db()
            try:
                finished = jobs.resume(stored, background=False)
            except jobs.JobError as exc:
                raise CommandError(str(exc)) from None
            assert isinstance(finished, Job)
            self._finish(finished)

    @staticmethod
    def _params(pairs: list[str]) -> dict[str, Any]:
        params: dict[str, Any] = {}
        for pair in pairs:
            name, sep, raw = pair.partition("=")
            if not sep or not name:
                raise CommandError(f"--param must look like NAME=VALUE; got {pair!r}")
            try:
                params[name] = json.loads(raw)
            except json.JSONDecodeError:
                params[name] = raw
        return params

    def _draw(self, job: Job) -> None:
        jobs.print_progress(self.stdout, job)

    def _finish(self, job: Job) -> None:
        self.stdout.write("")
        if job.status != Job.Status.DONE:
            raise CommandError(f"job {job.pk} {job.status}: {'; '.join(job.errors)}")
        self.stdout.write(self.style.SUCCESS(f"job {job.pk} done: {json.dumps(job.result)}"))
