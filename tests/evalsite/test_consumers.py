from __future__ import annotations

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.contrib.auth.models import User
from django.utils import translation
from django.utils.translation import gettext, gettext_noop

from evalsite import jobs
from evalsite.agreement.phrases import Phrase
from evalsite.asgi import application
from evalsite.consumers import JobProgressConsumer
from evalsite.job_descriptions import JobDescription
from evalsite.models import Job, JobEvent
from tests.channels_auth import session_headers

pytestmark = pytest.mark.django_db(transaction=True)

ORIGIN = (b"origin", b"http://localhost")


async def test_anonymous_users_are_refused() -> None:
    job = await database_sync_to_async(jobs.create)("testing.count", {"total": 1})
    communicator = WebsocketCommunicator(
        application, f"/ws/jobs/{job.pk}/", headers=[ORIGIN, (b"host", b"localhost")]
    )
    connected, _ = await communicator.connect()
    assert connected is False
    await communicator.disconnect()


async def test_a_foreign_origin_is_refused(coordinator: User) -> None:
    job = await database_sync_to_async(jobs.create)("testing.count", {}, user=coordinator)
    headers = await session_headers(coordinator, origin=b"http://evil.example.com")
    communicator = WebsocketCommunicator(application, f"/ws/jobs/{job.pk}/", headers=headers)
    connected, _ = await communicator.connect()
    assert connected is False
    await communicator.disconnect()


async def test_another_users_job_is_refused(judge: User, other_judge: User) -> None:
    job = await database_sync_to_async(jobs.create)("testing.count", {}, user=judge)
    headers = await session_headers(other_judge)
    communicator = WebsocketCommunicator(application, f"/ws/jobs/{job.pk}/", headers=headers)
    connected, _ = await communicator.connect()
    assert connected is False
    await communicator.disconnect()


async def test_the_owner_sees_progress_pushed_live(judge: User) -> None:
    job = await database_sync_to_async(jobs.create)("testing.count", {"total": 3}, user=judge)
    headers = await session_headers(judge)
    communicator = WebsocketCommunicator(application, f"/ws/jobs/{job.pk}/", headers=headers)
    connected, _ = await communicator.connect()
    assert connected is True
    first = await communicator.receive_from(timeout=5)
    assert f'id="job-bar-{job.pk}"' in first and 'hx-swap-oob="true"' in first
    await database_sync_to_async(jobs.run)(job)
    frames = []
    while True:
        frame = await communicator.receive_from(timeout=5)
        frames.append(frame)
        if 'data-status="done"' in frame:
            break
    assert 'data-percent="100"' in frames[-1]
    stored = await database_sync_to_async(Job.objects.get)(pk=job.pk)
    assert stored.status == Job.Status.DONE
    await communicator.disconnect()


async def test_the_socket_closes_once_the_job_has_finished(judge: User) -> None:
    job = await database_sync_to_async(jobs.create)("testing.count", {"total": 2}, user=judge)
    await database_sync_to_async(jobs.run)(job)
    headers = await session_headers(judge)
    communicator = WebsocketCommunicator(application, f"/ws/jobs/{job.pk}/", headers=headers)
    connected, _ = await communicator.connect()
    assert connected is True
    last = await communicator.receive_from(timeout=5)
    assert 'data-status="done"' in last and 'hx-swap-oob="true"' in last
    # Nothing more will be pushed; the page polls once for the finished job's card.
    assert (await communicator.receive_output(timeout=5))["type"] == "websocket.close"
    await communicator.disconnect()


async def test_a_job_finishing_while_the_socket_connects_is_not_missed(
    judge: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The job finishes after the consumer first reads it and before it joins the job's group,
    so the finishing push reaches no one; the bar sent on connecting must still say done."""
    job = await database_sync_to_async(jobs.create)("testing.count", {"total": 2}, user=judge)
    read = JobProgressConsumer._visible_job
    reads: list[JobEvent | None] = []

    def read_then_finish(consumer: JobProgressConsumer, job_id: int) -> JobEvent | None:
        seen = read.__wrapped__(consumer, job_id)
        reads.append(seen)
        if len(reads) == 1:
            jobs.run(job)
        return seen

    monkeypatch.setattr(
        JobProgressConsumer, "_visible_job", database_sync_to_async(read_then_finish)
    )
    communicator = WebsocketCommunicator(
        application, f"/ws/jobs/{job.pk}/", headers=await session_headers(judge)
    )
    connected, _ = await communicator.connect()
    assert connected is True
    first = await communicator.receive_from(timeout=5)
    assert 'data-status="done"' in first
    assert (await communicator.receive_output(timeout=5))["type"] == "websocket.close"
    await communicator.disconnect()


@jobs.job_kind("tests.described_from_the_database", describe=lambda job: _named_by_its_user(job))
def _described(context: jobs.JobContext) -> dict[str, object]:
    return {}


def _named_by_its_user(job: Job) -> JobDescription:
    # Like a report job, whose description reads the campaign it names.
    return JobDescription(User.objects.filter(pk=job.created_by_id or 0).get().username)


async def test_a_job_described_from_the_database_shows_its_bar(judge: User) -> None:
    job = await database_sync_to_async(jobs.create)(
        "tests.described_from_the_database", {}, user=judge
    )
    communicator = WebsocketCommunicator(
        application, f"/ws/jobs/{job.pk}/", headers=await session_headers(judge)
    )
    connected, _ = await communicator.connect()
    assert connected is True
    first = await communicator.receive_from(timeout=5)
    assert f'id="job-bar-{job.pk}"' in first
    await communicator.disconnect()


async def test_a_bar_reads_in_the_language_of_the_page_that_opened_the_socket(
    judge: User,
) -> None:
    """A worker writes its progress once; each page reads the status and message in its own
    language, whatever language the worker wrote in."""

    def running() -> Job:
        job = jobs.create("testing.count", {"total": 3}, user=judge)
        job.status = Job.Status.RUNNING
        job.set_message(Phrase(gettext_noop("Writing the report")))
        job.save()
        return job

    job = await database_sync_to_async(running)()
    with translation.override("zh-hans"):
        chinese = (gettext("Running"), gettext("Writing the report"))
    assert chinese != ("Running", "Writing the report")
    headers = await session_headers(judge)
    for lang, words in (("zh-hans", chinese), ("en", ("Running", "Writing the report"))):
        communicator = WebsocketCommunicator(
            application, f"/ws/jobs/{job.pk}/?lang={lang}", headers=headers
        )
        connected, _ = await communicator.connect()
        assert connected is True
        frame = await communicator.receive_from(timeout=5)
        assert all(word in frame for word in words), (lang, frame)
        await communicator.disconnect()
