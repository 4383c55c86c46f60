"""Background jobs with progress: one mechanism for imports, reports and LLM runs.

A job kind is a function registered with :func:`job_kind`. It receives a
:class:`JobContext`, reports progress through it, and stores in
``context.checkpoint`` whatever it needs to continue after an interruption.

- Started from a page (:func:`start`), a job runs in a thread of the server
  process, so the request returns at once; progress is written to the database
  and pushed to the ``job-<id>`` channel group for pages that watch it live.
- Started from a management command (:func:`run`), it runs inline.
- A job whose worker died (a restart, a kill) stops sending heartbeats;
  :func:`reap_interrupted` marks it ``interrupted`` and :func:`resume` continues
  it from its checkpoint.
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import sys
import threading
import time
from collections.abc import Callable
from datetime import timedelta
from typing import Any

from asgiref.sync import SyncToAsync, async_to_sync
from channels.layers import InMemoryChannelLayer, get_channel_layer
from django.db import connection
from django.utils import timezone

from evalsite.models import Job, JobProgressMessage

logger = logging.getLogger(__name__)

HEARTBEAT_SECONDS = 5.0
STALE_AFTER = timedelta(seconds=30)
PROGRESS_WRITE_INTERVAL = 0.25

JobFunction = Callable[["JobContext"], dict[str, Any] | None]
_REGISTRY: dict[str, JobFunction] = {}


class JobError(Exception):
    """A job failed for a reason the person who started it can act on."""


def job_kind(name: str) -> Callable[[JobFunction], JobFunction]:
    def register(func: JobFunction) -> JobFunction:
        _REGISTRY[name] = func
        return func

    return register


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
        if message is not None:
            self.job.message = message[:500]
        complete = self.job.total is not None and done >= self.job.total
        now = time.monotonic()
        if force or complete or now - self._last_write >= PROGRESS_WRITE_INTERVAL:
            self._last_write = now
            self._persist(["done", "total", "message", "checkpoint"])

    def save_checkpoint(self, done: int | None = None, **values: Any) -> None:
        """Persist resume state together with the progress it corresponds to."""
        if done is not None:
            self.job.done = done
        self.checkpoint.update(values)
        self._persist(["done", "total", "message", "checkpoint"])

    def add_error(self, text: str) -> None:
        self.job.errors = [*self.job.errors, text]
        self._persist(["errors"])

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
    if kind not in _REGISTRY:
        raise JobError(f"unknown job kind {kind!r}; known kinds: {', '.join(registered_kinds())}")
    return Job.objects.create(kind=kind, params=params or {}, created_by=user)


def run(job: Job, *, on_progress: Callable[[Job], None] | None = None) -> Job:
    """Run a job to its end in this thread and return it, finished."""
    return _execute(job, loop=None, on_progress=on_progress)


def start(job: Job) -> threading.Thread:
    """Run a job in a background thread of this process and return at once."""
    loop = _server_loop()
    thread = threading.Thread(
        target=_run_in_thread, args=(job.pk, loop), name=f"job-{job.pk}", daemon=True
    )
    thread.start()
    return thread


def resume(job: Job, *, background: bool = True) -> Job | threading.Thread:
    """Continue an interrupted or failed job from its checkpoint."""
    if not job.can_resume:
        raise JobError(f"job {job.pk} is {job.status}; only interrupted or failed jobs resume")
    job.status = Job.Status.PENDING
    job.finished_at = None
    job.save(update_fields=["status", "finished_at"])
    return start(job) if background else run(job)


def reap_interrupted(*, stale_after: timedelta = STALE_AFTER) -> int:
    """Mark as interrupted every running job whose worker is gone; return how many."""
    cutoff = timezone.now() - stale_after
    host = socket.gethostname()
    reaped = 0
    for job in Job.objects.filter(status=Job.Status.RUNNING):
        dead_here = job.worker.startswith(f"{host}:") and not _pid_alive(job.worker)
        stale = job.heartbeat_at is None or job.heartbeat_at < cutoff
        if dead_here or stale:
            updated = Job.objects.filter(pk=job.pk, status=Job.Status.RUNNING).update(
                status=Job.Status.INTERRUPTED,
                message="Interrupted: the process running this job stopped.",
                finished_at=timezone.now(),
            )
            reaped += updated
    return reaped


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


def _server_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        pass
    # A sync view under ASGI runs in a thread started by asgiref, which records
    # the server's event loop there.
    loop = getattr(SyncToAsync.threadlocal, "main_event_loop", None)
    return loop if isinstance(loop, asyncio.AbstractEventLoop) else None


def _run_in_thread(job_id: int, loop: asyncio.AbstractEventLoop | None) -> None:
    try:
        job = Job.objects.get(pk=job_id)
        _execute(job, loop=loop, on_progress=None)
    except Exception:
        logger.exception("job %s crashed outside its function", job_id)
    finally:
        # This thread ends here; a persistent connection left open would outlive it.
        connection.close()


def _execute(
    job: Job,
    *,
    loop: asyncio.AbstractEventLoop | None,
    on_progress: Callable[[Job], None] | None,
) -> Job:
    func = _REGISTRY.get(job.kind)
    resumed = job.started_at is not None
    now = timezone.now()
    job.status = Job.Status.RUNNING
    job.worker = worker_id()
    job.started_at = job.started_at or now
    job.heartbeat_at = now
    job.message = job.message if resumed else ""
    job.save(update_fields=["status", "worker", "started_at", "heartbeat_at", "message"])
    publish(job, loop=loop)
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
        job.message = f"Failed: {exc}"[:500]
    else:
        job.status = Job.Status.DONE
        job.result = result or {}
        if job.total is not None:
            job.done = job.total
    finally:
        stop_heartbeat.set()
        heartbeat.join(timeout=HEARTBEAT_SECONDS)
    job.finished_at = timezone.now()
    job.checkpoint = context.checkpoint
    job.save()
    publish(job, loop=loop)
    if on_progress is not None:
        on_progress(job)
    return job


def _beat(job_id: int, stop: threading.Event) -> None:
    try:
        while not stop.wait(HEARTBEAT_SECONDS):
            Job.objects.filter(pk=job_id, status=Job.Status.RUNNING).update(
                heartbeat_at=timezone.now()
            )
    finally:
        connection.close()
