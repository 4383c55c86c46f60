"""``manage.py job_worker``: a worker process that runs queued jobs and their parts.

It is django-tasks-db's ``db_worker`` (same options), with one addition: a thread that, every
``JOB_REAP_MILLISECONDS``, queues again the work of workers that stopped
(``evalsite.job_queue.recover``). Run as many as you like, on any machine that reaches the
database. Ctrl-C (SIGINT) or SIGTERM lets the task at hand finish; a second one stops at once,
and the task is queued again by another worker.
"""

from __future__ import annotations

import threading
from argparse import ArgumentParser
from typing import Any

from django.conf import settings
from django.core.management.base import CommandError
from django_tasks_db.management.commands import db_worker

from evalsite import job_queue, jobs


class Command(db_worker.Command):
    help = "Run queued background jobs (imports, reports, LLM runs); start one or more."

    def add_arguments(self, parser: ArgumentParser) -> None:
        super().add_arguments(parser)
        parser.set_defaults(reload=False, worker_id=jobs.worker_id()[-64:])

    def handle(self, *args: Any, **options: Any) -> None:
        if settings.JOB_RUNNER != "worker":
            raise CommandError(
                "JOB_RUNNER is 'thread': jobs run in the server's threads, not in workers"
            )
        stop = threading.Event()
        recovering = threading.Thread(
            target=job_queue.recover_forever,
            args=(settings.JOB_REAP_SECONDS, stop),
            name="recover-stopped-jobs",
            daemon=True,
        )
        recovering.start()
        try:
            super().handle(*args, **options)
        finally:
            stop.set()
