from __future__ import annotations

import json
import time
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.test import Client, override_settings
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.translation import gettext, gettext_noop

from evalsite import job_parts, jobs
from evalsite.agreement.phrases import Phrase
from evalsite.models import Job, JobPart
from tests.annotation.conftest import dialogue


@pytest.mark.django_db
class TestRunInline:
    def test_it_reports_progress_and_completes(self) -> None:
        seen: list[tuple[str, int]] = []
        job = jobs.create("testing.count", {"total": 12})
        finished = jobs.run(job, on_progress=lambda j: seen.append((j.status, j.done)))
        assert finished.status == Job.Status.DONE
        assert (finished.done, finished.total, finished.percent) == (12, 12, 100)
        assert finished.result == {"counted": 12, "sum": sum(range(12))}
        assert finished.started_at is not None and finished.finished_at is not None
        assert ("running", 5) in seen and ("running", 10) in seen
        assert seen[-1] == ("done", 12)
        stored = Job.objects.get(pk=job.pk)
        assert stored.status == Job.Status.DONE and stored.done == 12

    def test_it_records_a_failure_with_its_reason(self) -> None:
        job = jobs.run(jobs.create("testing.count", {"total": 10, "fail_at": 7}))
        job.refresh_from_db()
        assert job.status == Job.Status.FAILED
        assert job.errors == ["step 7 failed on purpose"]
        assert job.checkpoint["next"] == 7
        assert job.checkpoint["counted"] == list(range(7))

    def test_a_failed_job_resumes_from_its_checkpoint(self) -> None:
        job = jobs.run(jobs.create("testing.count", {"total": 10, "fail_at": 7}))
        resumed = jobs.resume(job, background=False)
        assert isinstance(resumed, Job)
        assert resumed.status == Job.Status.DONE
        # Every step counted exactly once across both runs.
        assert resumed.checkpoint["counted"] == list(range(10))
        assert resumed.result == {"counted": 10, "sum": 45}

    def test_it_refuses_an_unknown_kind(self) -> None:
        with pytest.raises(jobs.JobError, match="unknown job kind"):
            jobs.create("nope.nothing")

    def test_it_refuses_to_resume_a_finished_job(self) -> None:
        job = jobs.run(jobs.create("testing.count", {"total": 2}))
        with pytest.raises(jobs.JobError, match="only interrupted or failed"):
            jobs.resume(job)


@pytest.mark.django_db
class TestInterruption:
    def _orphan(self, **fields: object) -> Job:
        defaults: dict[str, object] = {
            "kind": "testing.count",
            "params": {"total": 8},
            "status": Job.Status.RUNNING,
            "done": 5,
            "total": 8,
            "checkpoint": {"next": 5, "counted": [0, 1, 2, 3, 4]},
            "started_at": timezone.now() - timedelta(minutes=5),
            "heartbeat_at": timezone.now() - timedelta(minutes=5),
            "worker": "elsewhere:1",
        }
        defaults.update(fields)
        return Job.objects.create(**defaults)

    def test_a_job_without_heartbeat_is_marked_interrupted(self) -> None:
        job = self._orphan()
        assert jobs.reap_interrupted() == 1
        job.refresh_from_db()
        assert job.status == Job.Status.INTERRUPTED
        assert "Interrupted" in job.message

    def test_a_job_whose_process_died_is_interrupted_at_once(self) -> None:
        import socket

        job = self._orphan(heartbeat_at=timezone.now(), worker=f"{socket.gethostname()}:999999")
        assert jobs.reap_interrupted() == 1
        job.refresh_from_db()
        assert job.status == Job.Status.INTERRUPTED

    def test_a_live_job_is_left_alone(self) -> None:
        job = self._orphan(heartbeat_at=timezone.now(), worker="elsewhere:1")
        assert jobs.reap_interrupted() == 0
        job.refresh_from_db()
        assert job.status == Job.Status.RUNNING

    def test_an_interrupted_job_resumes_where_it_stopped(self) -> None:
        job = self._orphan()
        jobs.reap_interrupted()
        job.refresh_from_db()
        finished = jobs.resume(job, background=False)
        assert isinstance(finished, Job)
        assert finished.status == Job.Status.DONE
        assert finished.checkpoint["counted"] == list(range(8))
        assert finished.result == {"counted": 8, "sum": 28}


@pytest.mark.django_db(transaction=True)
class TestBackground:
    def test_a_started_job_runs_without_blocking(self, coordinator: User) -> None:
        job = jobs.create("testing.count", {"total": 6, "delay": 0.05}, user=coordinator)
        began = time.monotonic()
        jobs.start(job)
        assert time.monotonic() - began < 0.5
        deadline = time.monotonic() + 10
        while not job.is_finished and time.monotonic() < deadline:
            time.sleep(0.05)
            job.refresh_from_db()
        assert job.status == Job.Status.DONE and job.done == 6


@pytest.mark.django_db(transaction=True)
class TestJobPages:
    def test_a_coordinator_starts_a_job_and_watches_it(self, coordinator_client: Client) -> None:
        waiting = Job.objects.create(
            kind="testing.count", params={"total": 3}, status=Job.Status.INTERRUPTED
        )
        response = coordinator_client.post(reverse("job_resume", args=[waiting.pk]))
        assert response.status_code == 302
        job = Job.objects.get()
        assert response["Location"] == reverse("job_detail", args=[job.pk])
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            job.refresh_from_db()
            if job.is_finished:
                break
            time.sleep(0.05)
        assert job.status == Job.Status.DONE
        html = coordinator_client.get(reverse("job_detail", args=[job.pk])).content.decode()
        assert 'data-percent="100"' in html

    def test_the_progress_partial_is_served_to_htmx(self, coordinator: User) -> None:
        job = jobs.run(jobs.create("testing.count", {"total": 2}, user=coordinator))
        client = Client()
        client.force_login(coordinator)
        html = client.get(reverse("job_detail", args=[job.pk]), HTTP_HX_REQUEST="true").content
        assert b"<html" not in html and b'id="job-progress-' in html

    def test_only_the_owner_or_a_coordinator_sees_a_job(
        self, judge: User, judge_client: Client, other_judge: User
    ) -> None:
        job = jobs.run(jobs.create("testing.count", {"total": 1}, user=judge))
        assert judge_client.get(reverse("job_detail", args=[job.pk])).status_code == 200
        stranger = Client()
        stranger.force_login(other_judge)
        assert stranger.get(reverse("job_detail", args=[job.pk])).status_code == 403
        assert stranger.post(reverse("job_resume", args=[job.pk])).status_code == 403

    def test_resume_from_the_page(self, coordinator: User, coordinator_client: Client) -> None:
        job = jobs.run(jobs.create("testing.count", {"total": 4, "fail_at": 2}, user=coordinator))
        response = coordinator_client.post(reverse("job_resume", args=[job.pk]))
        assert response.status_code == 302
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            job.refresh_from_db()
            if job.status == Job.Status.DONE:
                break
            time.sleep(0.05)
        assert job.status == Job.Status.DONE and job.result["counted"] == 4


# Whether a job's pushes reach the page depends on the channel layer; these cases are about the
# in-memory one, whatever the suite runs with.
IN_MEMORY_LAYER = override_settings(
    CHANNEL_LAYERS={"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
)


@pytest.mark.django_db
class TestHowThePageWatchesAJob:
    """The page watches on the socket when the job's pushes reach it, and polls otherwise."""

    def _running(self, coordinator: User, worker: str) -> Job:
        return Job.objects.create(
            kind="testing.count",
            created_by=coordinator,
            status=Job.Status.RUNNING,
            total=8,
            worker=worker,
            started_at=timezone.now(),
            heartbeat_at=timezone.now(),
        )

    def _page(self, client: Client, job: Job) -> str:
        return client.get(reverse("job_detail", args=[job.pk])).content.decode()

    def test_a_job_running_in_this_process_is_watched_on_its_socket(
        self, coordinator: User, coordinator_client: Client
    ) -> None:
        job = self._running(coordinator, jobs.worker_id())
        html = self._page(coordinator_client, job)
        assert f'ws-connect="/ws/jobs/{job.pk}/?lang=en"' in html
        # Polling stands by for when the socket is closed (static/js/pages.js pauses it while
        # the socket is open).
        assert 'hx-trigger="every 2s" data-poll-unless-socket' in html
        assert "data-watch-socket" in html

    @IN_MEMORY_LAYER
    def test_a_job_run_by_another_process_on_the_in_memory_layer_is_polled(
        self, coordinator: User, coordinator_client: Client
    ) -> None:
        html = self._page(coordinator_client, self._running(coordinator, "elsewhere:1"))
        assert "ws-connect" not in html
        assert 'hx-trigger="every 2s' in html and "hx-get=" in html

    @IN_MEMORY_LAYER
    def test_a_job_not_yet_claimed_by_a_worker_is_polled(
        self, coordinator: User, coordinator_client: Client
    ) -> None:
        job = jobs.create("testing.count", {"total": 2}, user=coordinator)
        html = self._page(coordinator_client, job)
        assert "ws-connect" not in html and 'hx-trigger="every 2s' in html

    @override_settings(
        CHANNEL_LAYERS={
            "default": {
                "BACKEND": "channels_redis.core.RedisChannelLayer",
                "CONFIG": {"hosts": ["redis://127.0.0.1:1/0"]},
            }
        }
    )
    def test_a_shared_layer_brings_a_job_run_elsewhere_to_the_socket(
        self, coordinator: User, coordinator_client: Client
    ) -> None:
        job = self._running(coordinator, "elsewhere:1")
        htmx = coordinator_client.get(reverse("job_detail", args=[job.pk]), HTTP_HX_REQUEST="true")
        assert f'ws-connect="/ws/jobs/{job.pk}/?lang=en"' in htmx.content.decode()

    def test_a_finished_job_is_neither_watched_nor_polled(
        self, coordinator: User, coordinator_client: Client
    ) -> None:
        job = jobs.run(jobs.create("testing.count", {"total": 2}, user=coordinator))
        html = self._page(coordinator_client, job)
        assert "ws-connect" not in html and "hx-trigger" not in html
        assert 'data-status="done"' in html


# Tasks queued by the recovery are only noted, so that the test can read what was queued.
NOTED_TASKS = override_settings(
    TASKS={"default": {"BACKEND": "django_tasks.backends.dummy.DummyBackend"}}
)


@pytest.mark.django_db
class TestRecoveryOfSplitJobs:
    @pytest.fixture(autouse=True)
    def _noted_tasks(self) -> Iterator[None]:
        with NOTED_TASKS:
            yield

    def _split(self) -> Job:
        return Job.objects.create(
            kind="annotation.llm_score",
            status=Job.Status.RUNNING,
            parts=2,
            heartbeat_at=timezone.now() - timedelta(hours=1),
        )

    def test_a_part_whose_worker_died_is_queued_again_and_its_job_is_not_reaped(self) -> None:
        import socket

        from django_tasks import default_task_backend

        job = self._split()
        dead = JobPart.objects.create(
            job=job,
            index=0,
            status=JobPart.Status.RUNNING,
            worker=f"{socket.gethostname()}:999999",
            attempts=1,
            heartbeat_at=timezone.now(),
            checkpoint={"done": [[1, 3]]},
        )
        JobPart.objects.create(job=job, index=1, status=JobPart.Status.DONE, worker="x:1")

        assert job_parts.requeue_stopped() == 1

        dead.refresh_from_db()
        assert dead.status == JobPart.Status.PENDING and dead.checkpoint == {"done": [[1, 3]]}
        queued = [(r.task.name, r.args) for r in default_task_backend.results]  # type: ignore[attr-defined]
        assert queued == [("run_part_task", [job.pk, 0])]
        # Its part waits in the queue: the job is behind other work, not gone.
        assert jobs.reap_interrupted() == 0

    def test_a_part_stopped_too_often_fails_its_job(self) -> None:
        job = self._split()
        JobPart.objects.create(
            job=job,
            index=0,
            status=JobPart.Status.RUNNING,
            worker="elsewhere:1",
            attempts=jobs.MAX_ATTEMPTS,
            heartbeat_at=timezone.now() - timedelta(hours=1),
        )
        JobPart.objects.create(job=job, index=1, status=JobPart.Status.DONE, worker="x:1")

        assert job_parts.requeue_stopped() == 0

        job.refresh_from_db()
        assert job.status == Job.Status.FAILED
        assert job.errors == [f"part 1 stopped {jobs.MAX_ATTEMPTS} times"]


@pytest.mark.django_db
class TestMessagesInTheReadersLanguage:
    """A job's progress is written once, by a worker in any language; each reader reads it in
    their own."""

    def test_a_phrase_is_shown_in_the_readers_language_on_the_job_page(
        self, coordinator: User
    ) -> None:
        job = jobs.create("testing.count", {"total": 3}, user=coordinator)
        job.status = Job.Status.RUNNING
        job.set_message(Phrase(gettext_noop("Agreement on %(dimension)s"), dimension="fluency"))
        job.save()
        with translation.override("zh-hans"):
            chinese = gettext("Agreement on %(dimension)s") % {"dimension": "fluency"}
        assert chinese != "Agreement on fluency"
        client = Client()
        client.force_login(coordinator)
        for lang, words in (("zh-hans", chinese), ("en", "Agreement on fluency")):
            client.cookies["django_language"] = lang
            page = client.get(reverse("job_detail", args=[job.pk])).content.decode()
            assert words in page, lang

    def test_plain_text_stays_as_written(self) -> None:
        job = jobs.create("testing.count", {"total": 3})
        job.set_message(Phrase(gettext_noop("Writing the report")))
        job.set_message("Reading rows.csv")
        assert job.message_phrase == {}
        with translation.override("zh-hans"):
            assert job.shown_message == "Reading rows.csv"

    def test_a_part_s_message_reads_in_the_readers_language_on_its_job(self) -> None:
        job = Job.objects.create(kind="annotation.llm_score", status=Job.Status.RUNNING, parts=4)
        part = JobPart.objects.create(job=job, index=1, status=JobPart.Status.RUNNING)
        message = Phrase(gettext_noop("Writing the report"))
        refreshed = job_parts.refresh_progress(job.pk, part, message)
        assert refreshed is not None
        assert refreshed.shown_message == "Part 2 of 4: Writing the report"
        with translation.override("zh-hans"):
            expected = gettext("Part %(part)s of %(parts)s: %(message)s") % {
                "part": 2,
                "parts": 4,
                "message": gettext("Writing the report"),
            }
            assert "Writing" not in expected
            assert refreshed.shown_message == expected

    def test_a_failure_reads_in_the_readers_language(self) -> None:
        job = jobs.run(jobs.create("testing.count", {"total": 10, "fail_at": 7}))
        assert job.shown_message == "Failed: step 7 failed on purpose"
        with translation.override("zh-hans"):
            failed = gettext("Failed: %(error)s") % {"error": "step 7 failed on purpose"}
            assert failed != "Failed: step 7 failed on purpose"
            assert job.shown_message == failed


@pytest.mark.django_db
def test_an_import_s_progress_reads_in_the_readers_language(tmp_path: Path) -> None:
    rows = tmp_path / "rows.jsonl"
    rows.write_text("\n".join(json.dumps(dialogue(f"d{n}")) for n in range(3)), encoding="utf-8")
    seen: list[Job] = []
    params = {"path": str(rows), "campaign": "Progress", "format": "jsonl"}
    job = jobs.create("annotation.import_transcripts", params)
    finished = jobs.run(job, on_progress=lambda j: seen.append(Job.objects.get(pk=j.pk)))
    assert finished.status == Job.Status.DONE, finished.errors
    writing = [j for j in seen if j.message == "Writing 3 transcripts"]
    assert writing, [j.message for j in seen]
    with translation.override("zh-hans"):
        expected = gettext("Writing %(count)s transcripts") % {"count": 3}
        assert "Writing" not in expected
        assert writing[0].shown_message == expected
        assert finished.shown_message == gettext("Imported %(count)s transcripts") % {"count": 3}


@pytest.mark.django_db
def test_a_new_phase_is_stored_at_once_however_soon_after_the_last_write() -> None:
    job = jobs.create("testing.count", {"total": 100})
    context = jobs.JobContext(job)
    context.progress(1, 100, Phrase(gettext_noop("Checking line %(line)s"), line=1))
    context.progress(2, 100, Phrase(gettext_noop("Checking line %(line)s"), line=2))
    assert Job.objects.get(pk=job.pk).message == "Checking line 1"  # throttled
    context.progress(3, 100, Phrase(gettext_noop("Writing %(count)s transcripts"), count=3))
    assert Job.objects.get(pk=job.pk).message == "Writing 3 transcripts"


@pytest.mark.django_db(transaction=True)
def test_a_heartbeat_that_cannot_be_written_once_beats_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A locked database costs one beat: the heartbeat goes on, so the running job is not taken
    for dead and resumed by another worker while this one still runs it."""
    from django.db import OperationalError
    from django.db.models.query import QuerySet

    job = Job.objects.create(
        kind="counting", status=Job.Status.RUNNING, heartbeat_at=timezone.now() - timedelta(hours=1)
    )
    update = QuerySet.update
    calls = {"n": 0}

    def locked_once(self: QuerySet[Job], **fields: object) -> int:
        calls["n"] += 1
        if calls["n"] == 1:
            raise OperationalError("database is locked")
        return update(self, **fields)

    class TwoBeats:
        beats = 2

        def wait(self, timeout: float) -> bool:
            self.beats -= 1
            return self.beats < 0

    monkeypatch.setattr(QuerySet, "update", locked_once)
    jobs._beat(job.pk, TwoBeats())  # type: ignore[arg-type]
    job.refresh_from_db()
    assert calls["n"] == 2
    assert job.heartbeat_at is not None
    assert timezone.now() - job.heartbeat_at < timedelta(minutes=1)
