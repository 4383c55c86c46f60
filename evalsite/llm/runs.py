"""What every LLM job shares: the worker pool, the checkpoint saved with each result, resuming.

An LLM job (the evaluator's scoring, the simulated judges) is a split job: each of its parts,
run by a worker process, works through its share of the items with as many concurrent
requests as the endpoint's concurrency, all sharing one client: each takes the next item when
it is free. Each result is stored together with the job's checkpoint in one
transaction (:func:`save_checkpoint`), so a resumed job skips what is done and asks nothing
twice. An endpoint that keeps failing stops the job as failed, to be resumed once it is back;
the management commands resume it with :func:`resume_from_command`.
"""

from __future__ import annotations

import asyncio
import datetime as dt
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, TypeVar

from asgiref.sync import async_to_sync
from django.core.management.base import CommandError
from django.utils import timezone

from evalsite import jobs
from evalsite.jobs import JobContext, JobError
from evalsite.llm.client import LLMClient
from evalsite.llm.config import LLMConfig
from evalsite.llm.errors import LLMError
from evalsite.llm.usage import Usage, job_purpose
from evalsite.models import Job

T = TypeVar("T")

# Enough of a malformed answer to see what went wrong, without flooding the job's page.
RAW_SHOWN = 500


async def run_pool(
    items: Sequence[T], concurrency: int, work: Callable[[T], Awaitable[None]]
) -> None:
    """``work`` on every item, at most ``concurrency`` at once; the first error stops all."""
    pending = iter(items)

    async def worker() -> None:
        # Workers share one iterator: each takes the next item when it is free.
        for item in pending:
            await work(item)

    workers = [asyncio.create_task(worker()) for _ in range(min(concurrency, len(items)))]
    try:
        await asyncio.gather(*workers)
    finally:
        for each in workers:
            each.cancel()
        await asyncio.gather(*workers, return_exceptions=True)


def run_with_llm(
    context: JobContext,
    config: LLMConfig,
    items: Sequence[T],
    work: Callable[[LLMClient, T], Awaitable[None]],
) -> Usage:
    """Work through ``items`` with one client; what the job's calls cost so far.

    Raises JobError when the endpoint fails, so that the job can be resumed later.
    """
    purpose = job_purpose(context.job)

    async def main() -> None:
        async with LLMClient(config, purpose=purpose) as llm:
            await run_pool(items, config.concurrency, lambda item: work(llm, item))

    try:
        async_to_sync(main)()
    except LLMError as error:
        raise JobError(
            f"the LLM endpoint failed ({error.reason}); resume the job to go on where it stopped"
        ) from None
    return Usage.of(purpose)


def save_checkpoint(
    context: JobContext, items_done: int, now: dt.datetime | None = None, **checkpoint: object
) -> None:
    """Write the job's checkpoint, errors, count of items done and heartbeat to its row.

    Call it inside the transaction that stores the result it records.
    """
    context.checkpoint.update(checkpoint)
    context.write_checkpoint(items_done, now or timezone.now())


def merge_results(job: Job, results: list[dict[str, Any]]) -> dict[str, Any]:
    """Join the results of an LLM job's parts: counts add up, and the usage is the whole job's
    (every part records its calls under the job's purpose)."""
    return {**jobs.merge_results(results), **Usage.of(job_purpose(job)).as_result()}


OPTIONAL_ENDPOINT_OPTIONS = (
    "api_key_env",
    "timeout",
    "price_per_1k_prompt",
    "price_per_1k_completion",
)


def endpoint_settings_from_command(options: Mapping[str, Any]) -> dict[str, Any]:
    """The endpoint settings a command's options give (an `LLMConfig`'s fields), as a job stores
    them: the base URL, model and concurrency, and each optional setting that was given."""
    settings: dict[str, Any] = {
        "base_url": options["base_url"],
        "model": options["model"],
        "concurrency": options["concurrency"],
    }
    for key in OPTIONAL_ENDPOINT_OPTIONS:
        if options[key] is not None:
            settings[key] = options[key]
    return settings


def resume_from_command(job_id: int, kind: str, what: str) -> Job:
    """Continue the job ``job_id`` of ``kind`` in this process; CommandError names the problem."""
    stored = Job.objects.filter(pk=job_id, kind=kind).first()
    if stored is None:
        raise CommandError(f"there is no {what} job {job_id}")
    jobs.reap_interrupted()
    stored.refresh_from_db()
    try:
        resumed = jobs.resume(stored, background=False)
    except jobs.JobError as error:
        raise CommandError(str(error)) from None
    assert isinstance(resumed, Job)
    return resumed


def finished_from_command(job: Job) -> None:
    """Raise CommandError, with how to resume, unless the job is done."""
    if job.status != Job.Status.DONE:
        raise CommandError(
            f"job {job.pk} {job.status}: {'; '.join(job.errors[-3:]) or job.message}; "
            f"continue it with --resume {job.pk}"
        )
