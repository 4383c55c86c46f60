"""The queue of jobs, on django-tasks: a task runs a job, another runs one part of a split job.

With ``JOB_RUNNER=worker`` (the default) the tasks are rows of django-tasks-db's table, and
``manage.py job_worker`` processes, on any machine that reaches the database, take them one at
a time. Each worker also looks, every ``JOB_REAP_MILLISECONDS``, for work that stopped
(:func:`recover`): a part whose worker died is queued again, and a job interrupted by a stopped
worker resumes by itself, up to ``MAX_ATTEMPTS`` starts. With ``JOB_RUNNER=thread`` the same
tasks run in a thread of the process that queues them (``evalsite.job_threads``).
"""

from __future__ import annotations

import logging
import threading
from typing import Any

from django.db import connection
from django_tasks import task

from evalsite import job_parts, jobs
from evalsite.models import Job

logger = logging.getLogger(__name__)

# The event loop of the server that queued a task, when the task runs in one of its threads:
# progress for the in-memory channel layer must be sent from that loop.
_here = threading.local()


def current_loop() -> Any:
    return getattr(_here, "loop", None)


def set_loop(loop: Any) -> None:
    _here.loop = loop


@task()
def run_job_task(job_id: int) -> None:
    jobs.run_queued(job_id, loop=current_loop())


@task()
def run_part_task(job_id: int, index: int) -> None:
    job_parts.run_part(job_id, index, loop=current_loop())


def enqueue_job(job_id: int) -> Any:
    return run_job_task.enqueue(job_id)


def enqueue_part(job_id: int, index: int) -> Any:
    return run_part_task.enqueue(job_id, index)


def recover() -> tuple[int, int]:
    """Queue again the parts and jobs whose worker stopped; return how many of each."""
    parts = job_parts.requeue_stopped()
    jobs.reap_interrupted()
    resumed = 0
    stopped = Job.objects.filter(
        status=Job.Status.INTERRUPTED, attempts__lt=jobs.MAX_ATTEMPTS
    ).only("pk", "status", "kind", "params")
    for job in stopped:
        try:
            jobs.resume(job)
        except jobs.JobError:
            continue  # another worker resumed it first
        resumed += 1
    return parts, resumed


def recover_forever(interval: float, stop: threading.Event) -> None:
    """:func:`recover` every ``interval`` seconds until ``stop`` is set (a worker's thread)."""
    try:
        while not stop.wait(interval):
            try:
                parts, resumed = recover()
            except Exception:
                logger.exception("could not look for stopped jobs")
                continue
            if parts or resumed:
                logger.info("queued again %s part(s) and %s job(s) that stopped", parts, resumed)
    finally:
        connection.close()
