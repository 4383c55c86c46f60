"""Background jobs with progress: one mechanism for imports, reports and LLM runs.

A job kind is a function registered with :func:`job_kind`. It receives a
:class:`JobContext`, reports progress through it, and stores in
``context.checkpoint`` whatever it needs to continue after an interruption.

- Started from a page (:func:`start`), a job is queued with django-tasks
  (``evalsite.job_queue``) and run by a worker process (``manage.py job_worker``),
  or by a thread of this process when ``JOB_RUNNER=thread``; progress is written to
  the database and pushed to the ``job-<id>`` channel group for pages that watch it.
- Started from a management command (:func:`run`), it runs inline.
- A kind registered with ``split=True`` is cut into parts (``evalsite.job_parts``):
  it takes its share of the items with :meth:`JobContext.share`, and several workers
  run the parts at once.
- A job whose worker died (a restart, a kill) stops sending heartbeats;
  :func:`reap_interrupted` marks it ``interrupted`` and :func:`resume` continues
  it from its checkpoint; workers resume interrupted jobs by themselves.
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, TypeVar

from asgiref.sync import SyncToAsync, async_to_sync
from channels.layers import InMemoryChannelLayer, get_channel_layer
from django.conf import settings
from django.db import DatabaseError, connection
from django.db.models import F
from django.utils import timezone
from django.utils.translation import gettext_noop

from evalsite import job_descriptions
from evalsite.agreement import phrases
from evalsite.models import Job, JobPart, JobProgressMessage

logger = logging.getLogger(__name__)

HEARTBEAT_SECONDS = 5.0
PROGRESS_WRITE_INTERVAL = 0.25
# A job or part started this many times and stopped each time is not started again by itself.
MAX_ATTEMPTS = 3

JobFunction = Callable[["JobContext"], dict[str, Any] | None]
# Joins the results of a split job's parts into the job's result.
Merge = Callable[[Job, list[dict[str, Any]]], dict[str, Any]]
T = TypeVar("T")


@dataclass(frozen=True)
class JobKind:
    """A registered kind: its function and, for a split kind, how its parts' results join."""

    func: JobFunction
    split: bool = False
    merge: Merge | None = None


_REGISTRY: dict[str, JobKind] = {}


STALE_AFTER = timedelta(seconds=30)


def heartbeat_seconds() -> float:
    """How often a running job or part writes its heartbeat: well within the stale time."""
    return min(HEARTBEAT_SECONDS, settings.JOB_STALE_SECONDS / 3)


def stale_cutoff(stale_after: timedelta | None = None) -> Any:
    """The time before which a heartbeat is stale (``JOB_STALE_SECONDS`` ago by default)."""
    return timezone.now() - (stale_after or timedelta(seconds=settings.JOB_STALE_SECONDS))


class JobError(Exception):
    """A job failed for a reason the person who started it can act on."""


def job_kind(
    name: str,
    *,
    split: bool = False,
    merge: Merge | None = None,
    describe: job_descriptions.Describe | None = None,
) -> Callable[[JobFunction], JobFunction]:
    """Register a job kind. A ``split`` kind runs as parts on several workers at once: its
    function runs once per part, takes its items with :meth:`JobContext.share`, and the parts'
    results are joined by ``merge`` (default :func:`merge_results`). ``describe`` says what
    one of its jobs did, in words, for the job pages (``evalsite.job_descriptions``)."""

    def register(func: JobFunction) -> JobFunction:
        _REGISTRY[name] = JobKind(func, split, merge)
        if describe is not None:
            job_descriptions.register(name, describe)
        return func

    return register


def kind_of(name: str) -> JobKind | None:
    return _REGISTRY.get(name)


def merge_results(results: list[dict[str, Any]]) -> dict[str, Any]:
    """Join parts' results: whole numbers add up; any other value is the first part's."""
    merged: dict[str, Any] = {}
    for result in results:
        for key, value in result.items():
            if key not in merged:
                merged[key] = value
            elif _is_count(value) and _is_count(merged[key]):
                merged[key] += value
    return merged


def _is_count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def registered_kinds() -> list[str]:
    return sorted(_REGISTRY)


def group_name(job_id: int) -> str:
    return f"job-{job_id}"


def worker_id() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def pushes_reach_here(job: Job) -> bool:
    """Whether the progress that ``job`` publishes reaches the WebSockets of this process.

    A shared channel layer (Redis) carries it from whichever process runs the job. The
    in-memory layer carries it only inside the process running the job, so a page watches
    a job on its socket only when that is this process; a job not yet claimed by a worker,
    or run elsewhere, is watched by polling until it is.
    """
    layer = get_channel_layer()
    if layer is None:
        return False
    return not isinstance(layer, InMemoryChannelLayer) or job.worker == worker_id()


class JobContext:
    """What a running job sees: its parameters, checkpoint and progress reporting."""

    def __init__(
        self,
        job: Job,
        *,
        loop: asyncio.AbstractEventLoop | None = None,
        on_progress: Callable[[Job], None] | None = None,
        resumed: bool = False,
    ) -> None:
        self.job = job
        self.params: dict[str, Any] = dict(job.params)
        self.checkpoint: dict[str, Any] = dict(job.checkpoint)
        self.resumed = resumed
        self._loop = loop
        self._on_progress = on_progress
        self._last_write = 0.0

    def progress(
        self,
        done: int,
        total: int | None = None,
        message: str | None = None,
        *,
        force: bool = False,
    ) -> None:
        """Record progress; writes are throttled unless ``force`` or the job is complete."""
        self.job.done = done
        if total is not None:
            self.job.total = total
        # A message of another kind (checking lines, then writing) starts a new phase, which
        # is always shown, however soon after the last write.
        new_phase = isinstance(message, phrases.Phrase) and message.msgid != (
            self.job.message_phrase.get("msgid") if self.job.message_phrase else None
        )
        if message is not None:
            self.job.set_message(message)
        complete = self.job.total is not None and done >= self.job.total
        now = time.monotonic()
        if force or complete or new_phase or now - self._last_write >= PROGRESS_WRITE_INTERVAL:
            self._last_write = now
            self._persist(["done", "total", "message", "message_phrase", "checkpoint"])

    def save_checkpoint(self, done: int | None = None, **values: Any) -> None:
        """Persist resume state together with the progress it corresponds to."""
        if done is not None:
            self.job.done = done
        self.checkpoint.update(values)
        self._persist(["done", "total", "message", "message_phrase", "checkpoint"])

    def add_error(self, text: str) -> None:
        self.job.errors = [*self.job.errors, text]
        self._persist(["errors"])

    def share(self, items: Iterable[T], key: Callable[[T], int]) -> list[T]:
        """The items this run works on: all of them; a part of a split job takes its share."""
        return list(items)

    def write_checkpoint(self, items_done: int, now: Any = None) -> None:
        """Write the checkpoint, errors, count of items done and heartbeat, nothing else, so
        that it can be called inside the transaction that stores the result it records."""
        Job.objects.filter(pk=self.job.pk).update(
            checkpoint=self.checkpoint,
            errors=self.job.errors,
            done=items_done,
            heartbeat_at=now or timezone.now(),
        )

    def _persist(self, fields: list[str]) -> None:
        self.job.checkpoint = self.checkpoint
        self.job.heartbeat_at = timezone.now()
        self.job.save(update_fields=[*fields, "heartbeat_at"])
        publish(self.job, loop=self._loop)
        if self._on_progress is not None:
            self._on_progress(self.job)


PROGRESS_BAR_WIDTH = 30


def progress_bar(job: Job) -> str:
    """One line of text showing a job's progress, for management commands."""
    filled = PROGRESS_BAR_WIDTH * job.percent // 100
    total = f"/{job.total}" if job.total else ""
    return (
        f"[{'#' * filled}{'.' * (PROGRESS_BAR_WIDTH - filled)}] {job.percent:3d}% "
        f"{job.done}{total} {job.message}"
    )


def print_progress(stdout: Any, job: Job) -> None:
    """Redraw the progress bar in place on a terminal; print one line each time elsewhere."""
    if sys.stdout.isatty():
        stdout.write("\r" + progress_bar(job), ending="")
    else:
        stdout.write(progress_bar(job))


def publish(job: Job, *, loop: asyncio.AbstractEventLoop | None = None) -> None:
    """Push the job's state to pages watching it; never lets a broadcast failure stop a job."""
    layer = get_channel_layer()
    if layer is None:
        return
    message: JobProgressMessage = {"type": "job.progress", "job": job.as_event()}
    try:
        if loop is not None and loop.is_running():
            # The in-memory layer's queues belong to the server's event loop, so
            # the send must run there rather than in a loop of this thread.
            future = asyncio.run_coroutine_threadsafe(
                layer.group_send(group_name(job.pk), message), loop
            )
            future.result(timeout=5)
        else:
            async_to_sync(layer.group_send)(group_name(job.pk), message)
    except Exception:
        logger.warning("could not publish progress of job %s", job.pk, exc_info=True)


def create(kind: str, params: dict[str, Any] | None = None, user: Any = None) -> Job:
    """A new pending job of ``kind``; raises JobError for a kind nobody registered."""
    if kind not in _REGISTRY:
        raise JobError(f"unknown job kind {kind!r}; known kinds: {', '.join(registered_kinds())}")
    return Job.objects.create(kind=kind, params=params or {}, created_by=user)


def run(job: Job, *, on_progress: Callable[[Job], None] | None = None) -> Job:
    """Run a job to its end in this thread and return it, finished."""
    return _execute(job, loop=None, on_progress=on_progress)


def start(job: Job) -> Any:
    """Queue a job for a worker and return at once (the django-tasks result)."""
    from evalsite import job_queue

    return job_queue.enqueue_job(job.pk)


def resume(job: Job, *, background: bool = True) -> Any:
    """Continue an interrupted or failed job from its checkpoint.

    In the background, it is queued for a worker; otherwise it runs here and is returned.
    """
    if job.status not in {Job.Status.INTERRUPTED, Job.Status.FAILED}:
        raise JobError(f"job {job.pk} is {job.status}; only interrupted or failed jobs resume")
    if not job_descriptions.describe(job).resumable:
        raise JobError(f"job {job.pk} cannot continue: what it worked on is gone")
    claimed = Job.objects.filter(pk=job.pk, status=job.status).update(
        status=Job.Status.PENDING, finished_at=None
    )
    if not claimed:
        raise JobError(f"job {job.pk} was resumed already")
    job.status = Job.Status.PENDING
    job.finished_at = None
    return start(job) if background else run(job)


def reap_interrupted(*, stale_after: timedelta | None = None) -> int:
    """Mark as interrupted every running job whose worker is gone; return how many.

    A split job is gone when its heartbeat, which every running part keeps, is stale and none
    of its parts waits in the queue.
    """
    cutoff = stale_cutoff(stale_after)
    reaped = 0
    for job in Job.objects.filter(status=Job.Status.RUNNING):
        if job.parts and JobPart.objects.filter(job=job, status=JobPart.Status.PENDING).exists():
            continue  # its parts wait in the queue: the job is not gone, only behind others
        dead_here = not job.parts and worker_gone(job.worker)
        stale = job.heartbeat_at is None or job.heartbeat_at < cutoff
        if dead_here or stale:
            updated = Job.objects.filter(pk=job.pk, status=Job.Status.RUNNING).update(
                status=Job.Status.INTERRUPTED,
                message="Interrupted: the process running this job stopped.",
                finished_at=timezone.now(),
            )
            reaped += updated
    return reaped


def worker_gone(worker: str) -> bool:
    """Whether ``worker`` (host:pid) is a process of this host that no longer runs."""
    return worker.startswith(f"{socket.gethostname()}:") and not _pid_alive(worker)


def _pid_alive(worker: str) -> bool:
    try:
        pid = int(worker.rsplit(":", 1)[1])
    except (IndexError, ValueError):
        return True
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def server_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        pass
    # A sync view under ASGI runs in a thread started by asgiref, which records
    # the server's event loop there.
    loop = getattr(SyncToAsync.threadlocal, "main_event_loop", None)
    return loop if isinstance(loop, asyncio.AbstractEventLoop) else None


def run_queued(job_id: int, loop: asyncio.AbstractEventLoop | None = None) -> None:
    """Run a queued job in this worker, unless another worker has claimed it already."""
    claimed = Job.objects.filter(pk=job_id, status=Job.Status.PENDING).update(
        status=Job.Status.RUNNING, worker=worker_id(), heartbeat_at=timezone.now()
    )
    if not claimed:
        return
    try:
        job = Job.objects.get(pk=job_id)
        _execute(job, loop=loop, on_progress=None, inline=False)
    except Exception:
        logger.exception("job %s crashed outside its function", job_id)


def _execute(
    job: Job,
    *,
    loop: asyncio.AbstractEventLoop | None,
    on_progress: Callable[[Job], None] | None,
    inline: bool = True,
) -> Job:
    kind = _REGISTRY.get(job.kind)
    resumed = job.started_at is not None
    now = timezone.now()
    job.status = Job.Status.RUNNING
    job.worker = worker_id()
    job.started_at = job.started_at or now
    job.heartbeat_at = now
    if not resumed:
        job.set_message("")
    job.save(
        update_fields=[
            "status",
            "worker",
            "started_at",
            "heartbeat_at",
            "message",
            "message_phrase",
        ]
    )
    Job.objects.filter(pk=job.pk).update(attempts=F("attempts") + 1)
    job.attempts += 1
    publish(job, loop=loop)
    if kind is not None and kind.split:
        from evalsite import job_parts

        return job_parts.run_split(job, loop=loop, on_progress=on_progress, inline=inline)
    func = kind.func if kind is not None else None
    stop_heartbeat = threading.Event()
    heartbeat = threading.Thread(
        target=_beat, args=(job.pk, stop_heartbeat), name=f"job-{job.pk}-heartbeat", daemon=True
    )
    heartbeat.start()
    context = JobContext(job, loop=loop, on_progress=on_progress, resumed=resumed)
    try:
        if func is None:
            raise JobError(f"unknown job kind {job.kind!r}")
        result = func(context)
    except Exception as exc:
        if not isinstance(exc, JobError):
            logger.exception("job %s (%s) failed", job.pk, job.kind)
        job.status = Job.Status.FAILED
        job.errors = [*job.errors, str(exc) or exc.__class__.__name__]
        job.set_message(
            phrases.Phrase(
                gettext_noop("Failed: %(error)s"),
                error=phrases.reason_of(exc) or type(exc).__name__,
            )
        )
    else:
        job.status = Job.Status.DONE
        job.result = result or {}
        if job.total is not None:
            job.done = job.total
    finally:
        stop_heartbeat.set()
        heartbeat.join(timeout=heartbeat_seconds())
    job.finished_at = timezone.now()
    job.checkpoint = context.checkpoint
    job.save()
    publish(job, loop=loop)
    if on_progress is not None:
        on_progress(job)
    return job


def _beat(job_id: int, stop: threading.Event) -> None:
    try:
        while not stop.wait(heartbeat_seconds()):
            try:
                Job.objects.filter(pk=job_id, status=Job.Status.RUNNING).update(
                    heartbeat_at=timezone.now()
                )
            except DatabaseError:
                # A busy database (SQLite's lock held past its timeout, a dropped connection)
                # costs one beat, not the heartbeat: a job whose beats stopped would be taken
                # for dead and resumed by another worker while this one still runs it.
                logger.warning("job %s: a heartbeat could not be written; trying again", job_id)
                connection.close()
    finally:
        connection.close()
