"""Split jobs: one job cut into parts that several workers run at once.

A kind registered with ``job_kind(..., split=True)`` runs its function once per part. Each
part takes its share of the items (:meth:`PartContext.share`: the items whose key modulo the
number of parts is the part's index), keeps its own checkpoint, progress and errors in a
``JobPart`` row, and is claimed by one worker at a time: a claim is the part's worker and
attempt number, and every write of the part checks it, so a worker whose part was taken over
stops instead of writing twice. The job's progress is the sum of its parts'. When the last part
finishes, its worker joins the parts' results into the job's (:func:`settle`).

A part whose worker died (its process is gone, or its heartbeat is stale) is queued again by
:func:`requeue_stopped` and goes on from its checkpoint: no finished item is lost, and only the
items that were in flight are asked again.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from django.conf import settings
from django.db import connection, transaction
from django.db.models import F, Sum
from django.utils import timezone
from django.utils.translation import gettext_noop

from evalsite import jobs
from evalsite.agreement import phrases
from evalsite.jobs import JobContext, JobError
from evalsite.models import Job, JobPart

logger = logging.getLogger(__name__)

T = TypeVar("T")


class PartTakenOver(Exception):
    """Another worker holds this part now; this one stops without writing."""


class PartContext(JobContext):
    """What one part of a split job sees: its share of the items, its own checkpoint."""

    def __init__(
        self,
        job: Job,
        part: JobPart,
        *,
        loop: asyncio.AbstractEventLoop | None = None,
        on_progress: Callable[[Job], None] | None = None,
    ) -> None:
        super().__init__(job, loop=loop, on_progress=on_progress, resumed=part.attempts > 1)
        self.part = part
        self.parts = job.parts
        self.checkpoint = dict(part.checkpoint)
        # The kind's code adds its errors to job.errors; a part keeps its own.
        job.errors = list(part.errors)
        job.done, job.total = part.done, part.total
        job.message, job.message_phrase = part.message, part.message_phrase

    def share(self, items: Iterable[T], key: Callable[[T], int]) -> list[T]:
        return [item for item in items if key(item) % self.parts == self.part.index]

    def write_checkpoint(self, items_done: int, now: Any = None) -> None:
        self._write(
            checkpoint=self.checkpoint,
            errors=self.job.errors,
            done=items_done,
            heartbeat_at=now or timezone.now(),
        )

    def add_error(self, text: str) -> None:
        self.job.errors = [*self.job.errors, text]
        self._persist(["errors"])

    def _persist(self, fields: list[str]) -> None:
        self._write(
            done=self.job.done,
            total=self.job.total,
            message=self.job.message,
            message_phrase=self.job.message_phrase,
            checkpoint=self.checkpoint,
            errors=self.job.errors,
            heartbeat_at=timezone.now(),
        )
        job = refresh_progress(self.job.pk, self.part, _phrase_of(self.job))
        if job is not None:
            jobs.publish(job, loop=self._loop)
            if self._on_progress is not None:
                self._on_progress(job)

    def _write(self, **fields: Any) -> None:
        if not holds(self.part).update(**fields):
            raise PartTakenOver(f"part {self.part.index} of job {self.job.pk} was taken over")


def holds(part: JobPart) -> Any:
    """The part's row, as long as this claim (worker and attempt) still holds it."""
    return JobPart.objects.filter(
        pk=part.pk, worker=part.worker, attempts=part.attempts, status=JobPart.Status.RUNNING
    )


def _phrase_of(record: Job | JobPart) -> str:
    """A job's or part's progress message, as the phrase it was stored as when it was one."""
    return phrases.from_json(record.message_phrase) if record.message_phrase else record.message


def _message_fields(message: phrases.Phrase) -> dict[str, Any]:
    return {"message": message[:500], "message_phrase": phrases.to_json(message)}


def refresh_progress(job_id: int, part: JobPart, message: str) -> Job | None:
    """Sum the parts' progress into the job's row and return the job."""
    sums = JobPart.objects.filter(job_id=job_id).aggregate(done=Sum("done"), total=Sum("total"))
    of = {
        "part": part.index + 1,
        "parts": Job.objects.values_list("parts", flat=True).get(pk=job_id),
    }
    text = (
        phrases.Phrase(
            gettext_noop("Part %(part)s of %(parts)s: %(message)s"), message=message, **of
        )
        if message
        else phrases.Phrase(gettext_noop("Part %(part)s of %(parts)s"), **of)
    )
    Job.objects.filter(pk=job_id, status=Job.Status.RUNNING).update(
        done=sums["done"] or 0,
        total=sums["total"],
        message=text[:500],
        message_phrase=phrases.to_json(text),
        heartbeat_at=timezone.now(),
    )
    return Job.objects.filter(pk=job_id).first()


def run_split(
    job: Job,
    *,
    loop: asyncio.AbstractEventLoop | None,
    on_progress: Callable[[Job], None] | None,
    inline: bool,
) -> Job:
    """Plan the job's parts (once) and run them here one by one, or queue them for workers."""
    if not job.parts:
        job.parts = settings.JOB_PARTS
        Job.objects.filter(pk=job.pk).update(parts=job.parts)
        JobPart.objects.bulk_create(
            [JobPart(job=job, index=index) for index in range(job.parts)],
            ignore_conflicts=True,
        )
    # A resumed job runs again every part that did not finish well.
    JobPart.objects.filter(job=job).exclude(status=JobPart.Status.DONE).update(
        status=JobPart.Status.PENDING
    )
    indexes = list(
        JobPart.objects.filter(job=job, status=JobPart.Status.PENDING).values_list(
            "index", flat=True
        )
    )
    if inline:
        for index in indexes:
            run_part(job.pk, index, loop=loop, on_progress=on_progress)
            if failed_part(job.pk):
                break
        job = settle(job.pk, loop=loop) or job
        if on_progress is not None:
            on_progress(job)
        return job
    from evalsite import job_queue

    for index in indexes:
        job_queue.enqueue_part(job.pk, index)
    if not indexes:
        settle(job.pk, loop=loop)
    job.refresh_from_db()
    return job


def claim(job_id: int, index: int) -> JobPart | None:
    """Take the pending part for this worker; None when another worker has it or it is done."""
    me = jobs.worker_id()
    claimed = JobPart.objects.filter(
        job_id=job_id, index=index, status=JobPart.Status.PENDING
    ).update(
        status=JobPart.Status.RUNNING,
        worker=me,
        attempts=F("attempts") + 1,
        heartbeat_at=timezone.now(),
    )
    if not claimed:
        return None
    return JobPart.objects.get(job_id=job_id, index=index)


def run_part(
    job_id: int,
    index: int,
    *,
    loop: asyncio.AbstractEventLoop | None = None,
    on_progress: Callable[[Job], None] | None = None,
) -> None:
    """Run one part of a split job in this worker, then settle the job if it was the last."""
    job = Job.objects.filter(pk=job_id, status=Job.Status.RUNNING).first()
    if job is not None and failed_part(job_id):
        # The job fails as a whole; this part waits for the job to be resumed.
        settle(job_id, loop=loop)
        return
    part = claim(job_id, index) if job is not None else None
    if job is None or part is None:
        return
    kind = jobs.kind_of(job.kind)
    stop = threading.Event()
    beat = threading.Thread(target=_beat, args=(part, stop), daemon=True, name=f"part-{part.pk}")
    beat.start()
    context = PartContext(job, part, loop=loop, on_progress=on_progress)
    try:
        if kind is None:
            raise JobError(f"unknown job kind {job.kind!r}")
        result = kind.func(context) or {}
    except PartTakenOver:
        logger.warning("part %s of job %s was taken over by another worker", index, job_id)
        return
    except Exception as exc:
        if not isinstance(exc, JobError):
            logger.exception("part %s of job %s (%s) failed", index, job_id, job.kind)
        holds(part).update(
            status=JobPart.Status.FAILED,
            errors=[*context.job.errors, str(exc) or exc.__class__.__name__],
            checkpoint=context.checkpoint,
            **_message_fields(
                phrases.Phrase(
                    gettext_noop("Failed: %(error)s"), error=str(exc) or type(exc).__name__
                )
            ),
        )
    else:
        holds(part).update(
            status=JobPart.Status.DONE,
            result=result,
            errors=context.job.errors,
            checkpoint=context.checkpoint,
            done=context.job.total if context.job.total is not None else context.job.done,
        )
    finally:
        stop.set()
        beat.join(timeout=jobs.heartbeat_seconds())
    settle(job_id, loop=loop)


def failed_part(job_id: int) -> bool:
    return JobPart.objects.filter(job_id=job_id, status=JobPart.Status.FAILED).exists()


def settle(job_id: int, *, loop: asyncio.AbstractEventLoop | None = None) -> Job | None:
    """Finish the job once every part has finished (done), or once a part failed and none is
    still running (failed; the parts not run yet wait for the job to be resumed)."""
    with transaction.atomic():
        job = Job.objects.select_for_update().filter(pk=job_id).first()
        if job is None or job.status != Job.Status.RUNNING:
            return job
        parts = list(JobPart.objects.filter(job=job).order_by("index"))
        failed = [part for part in parts if part.status == JobPart.Status.FAILED]
        running = [part for part in parts if part.status == JobPart.Status.RUNNING]
        if not parts or running or not (failed or all(part.is_finished for part in parts)):
            return job
        # The failures come last, so the job's last error says why it stopped.
        parts.sort(key=lambda part: part.status == JobPart.Status.FAILED)
        job.errors = [error for part in parts for error in part.errors]
        job.done = sum(part.done for part in parts)
        job.total = sum(part.total or 0 for part in parts)
        job.finished_at = timezone.now()
        if failed:
            job.status = Job.Status.FAILED
            job.set_message(
                phrases.Phrase(
                    gettext_noop("Failed in part %(part)s: %(message)s"),
                    part=failed[0].index + 1,
                    message=_phrase_of(failed[0]),
                )
            )
        else:
            kind = jobs.kind_of(job.kind)
            results = [part.result for part in parts]
            if kind is not None and kind.merge is not None:
                job.result = kind.merge(job, results)
            else:
                job.result = jobs.merge_results(results)
            job.status = Job.Status.DONE
            job.set_message(
                phrases.Phrase(gettext_noop("Done in %(parts)s parts"), parts=len(parts))
            )
        job.save()
    jobs.publish(job, loop=loop)
    return job


def requeue_stopped() -> int:
    """Queue again every running part whose worker is gone; return how many.

    A part stopped ``MAX_ATTEMPTS`` times fails instead, with a note, so that a part that kills
    its worker cannot stop every worker in turn.
    """
    from evalsite import job_queue

    cutoff = jobs.stale_cutoff()
    requeued = 0
    for part in JobPart.objects.filter(status=JobPart.Status.RUNNING):
        if not (jobs.worker_gone(part.worker) or (part.heartbeat_at or cutoff) <= cutoff):
            continue
        if part.attempts >= jobs.MAX_ATTEMPTS:
            holds(part).update(
                status=JobPart.Status.FAILED,
                **_message_fields(
                    phrases.Phrase(
                        gettext_noop("Stopped %(times)s times; resume the job to try again"),
                        times=part.attempts,
                    )
                ),
                errors=[*part.errors, f"part {part.index + 1} stopped {part.attempts} times"],
            )
            settle(part.job_id)
        elif holds(part).update(status=JobPart.Status.PENDING):
            job_queue.enqueue_part(part.job_id, part.index)
            requeued += 1
    return requeued


def _beat(part: JobPart, stop: threading.Event) -> None:
    try:
        while not stop.wait(jobs.heartbeat_seconds()):
            now = timezone.now()
            if holds(part).update(heartbeat_at=now):
                Job.objects.filter(pk=part.job_id, status=Job.Status.RUNNING).update(
                    heartbeat_at=now
                )
    finally:
        connection.close()
