"""Jobs run by real worker processes (``manage.py job_worker``), one of them killed.

Each test starts two workers against the test database (SQLite file or PostgreSQL, whichever
the suite runs on) with the database queue, and kills one with SIGKILL while it runs a job.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from urllib.parse import quote

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from django.test import override_settings

from annotation.imports.rows import import_rows
from annotation.jobs import store_upload
from annotation.llm_evaluator.job import create_scoring_job
from annotation.models import Campaign, Transcript
from evalsite import jobs
from evalsite.models import Job, JobPart
from testing.llm_run import RequestLog, WorkerProcess, run_on_workers, transcript, worker_env
from tests.fake_openai import FakeOpenAI

pytestmark = [pytest.mark.processes, pytest.mark.django_db(transaction=True)]

# The tests queue jobs in the database, whatever runner the suite uses elsewhere.
DATABASE_QUEUE = override_settings(
    TASKS={"default": {"BACKEND": "django_tasks_db.DatabaseBackend"}}
)


def database_url() -> str:
    """The test database, as a URL the workers' settings understand."""
    config = connection.settings_dict
    if connection.vendor == "sqlite":
        return f"sqlite:///{config['NAME']}"
    credentials = quote(config["USER"] or "")
    if config["PASSWORD"]:
        credentials += ":" + quote(config["PASSWORD"])
    return (
        f"postgres://{credentials}@{config['HOST'] or '127.0.0.1'}:{config['PORT'] or 5432}"
        f"/{config['NAME']}"
    )


@pytest.fixture
def two_workers() -> Iterator[list[WorkerProcess]]:
    env = worker_env(database_url(), JOB_PARTS="4")
    workers = [WorkerProcess(env) for _ in range(2)]
    try:
        for worker in workers:
            worker.wait_ready()
        yield workers
    finally:
        for worker in workers:
            worker.stop()


def wait_for(job: Job, condition: Callable[[Job], bool], timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        job.refresh_from_db()
        if condition(job):
            return
        time.sleep(0.02)
    raise AssertionError(f"job {job.pk} never got there: {job.status} {job.message}")


@DATABASE_QUEUE
def test_a_job_whose_worker_is_killed_is_resumed_by_another_worker(
    two_workers: list[WorkerProcess],
) -> None:
    job = jobs.create("testing.count", {"total": 40, "delay": 0.05})
    jobs.start(job)
    wait_for(job, lambda job: job.status == Job.Status.RUNNING and job.done >= 12)
    victim = next(worker for worker in two_workers if job.worker.endswith(f":{worker.pid}"))
    survivor = next(worker for worker in two_workers if worker is not victim)
    victim.kill()
    at_kill = Job.objects.get(pk=job.pk).checkpoint["next"]

    # Interrupted first, then resumed: wait for the end.
    wait_for(job, lambda job: job.status in {Job.Status.DONE, Job.Status.FAILED})

    assert job.status == Job.Status.DONE, job.errors
    assert job.worker.endswith(f":{survivor.pid}")
    assert job.attempts == 2
    # The second run went on from the checkpoint, and every step was counted once.
    assert job.checkpoint["starts"] == [0, at_kill] and at_kill >= 10
    assert job.checkpoint["counted"] == list(range(40))
    assert job.result == {"counted": 40, "sum": sum(range(40))}


@DATABASE_QUEUE
def test_an_llm_run_on_two_workers_with_one_killed_asks_nothing_twice_and_loses_nothing(
    two_workers: list[WorkerProcess],
) -> None:
    count = 80
    import_rows("Shared run", [transcript(number) for number in range(count)])
    log = RequestLog(delay=0.15)
    server = FakeOpenAI().start()
    server.script(*[log.answer] * (count * 2))
    try:
        job = create_scoring_job(
            Campaign.objects.get(name="Shared run"),
            {"base_url": server.base_url, "model": server.model, "concurrency": 4},
        )
        figures = run_on_workers(job.pk, transcripts=count, log=log, workers=two_workers)
    finally:
        server.stop()
    assert server.violations == []
    job.refresh_from_db()
    assert job.status == Job.Status.DONE, job.errors
    assert (job.parts, job.result["scored"], job.result["failed"]) == (4, count, 0)
    # A worker was killed while it held a part, and another worker finished that part.
    assert figures.killed_worker_parts >= 1 and figures.parts_taken_over >= 1
    assert {part.worker for part in JobPart.objects.filter(job=job)} <= {
        f"{jobs.worker_id().rsplit(':', 1)[0]}:{worker.pid}" for worker in two_workers
    }
    assert figures.duplicate_requests == 0
    assert figures.lost_items == 0
    assert figures.requests == count + figures.resent_in_flight


@DATABASE_QUEUE
def test_an_import_whose_worker_is_killed_midway_is_finished_by_another_worker(
    two_workers: list[WorkerProcess],
) -> None:
    count = 4000
    upload = SimpleUploadedFile(
        "big.jsonl", "".join(json.dumps(transcript(n)) + "\n" for n in range(count)).encode()
    )
    path = store_upload(upload)
    job = jobs.create(
        "annotation.import_transcripts",
        {"path": str(path), "campaign": "Killed import", "format": "jsonl", "uploaded": True},
    )
    jobs.start(job)
    # Killed while it checks lines, a quarter of the way through the file.
    wait_for(job, lambda job: job.status == Job.Status.RUNNING and job.done >= count // 4)
    victim = next(worker for worker in two_workers if job.worker.endswith(f":{worker.pid}"))
    victim.kill()
    assert not Transcript.objects.filter(campaign__name="Killed import").exists()

    wait_for(job, lambda job: job.status in {Job.Status.DONE, Job.Status.FAILED})

    assert job.status == Job.Status.DONE, job.errors
    assert job.attempts == 2 and not job.worker.endswith(f":{victim.pid}")
    assert (job.result["transcripts"], job.result["updated"]) == (count, 0)
    stored = list(
        Transcript.objects.filter(campaign__name="Killed import").values_list(
            "external_id", flat=True
        )
    )
    assert sorted(stored) == [f"bench-{n:05d}" for n in range(count)]  # none lost, none twice
    assert not path.parent.exists()  # the upload is gone once imported
