from __future__ import annotations

import io

import pytest
from django.core.management import CommandError, call_command

from evalsite.models import Job

pytestmark = pytest.mark.django_db


def run(*args: str) -> str:
    out = io.StringIO()
    call_command("jobs", *args, stdout=out)
    return out.getvalue()


def test_it_runs_a_job_inline_with_a_progress_bar() -> None:
    output = run("run", "testing.count", "--param", "total=10")
    assert "[" + "#" * 30 + "] 100% 10/10" in output
    assert "[" + "#" * 15 + "." * 15 + "]  50% 5/10" in output
    assert 'done: {"counted": 10, "sum": 45}' in output
    assert Job.objects.get().status == Job.Status.DONE


def test_a_failing_job_exits_non_zero_and_resumes() -> None:
    with pytest.raises(CommandError, match="failed: step 3 failed on purpose"):
        run("run", "testing.count", "--param", "total=6", "--param", "fail_at=3")
    job = Job.objects.get()
    output = run("resume", str(job.pk))
    assert '"counted": 6' in output
    job.refresh_from_db()
    assert job.status == Job.Status.DONE and job.checkpoint["counted"] == list(range(6))


def test_it_names_what_is_wrong() -> None:
    with pytest.raises(CommandError, match="unknown job kind 'nope'"):
        run("run", "nope")
    with pytest.raises(CommandError, match="NAME=VALUE"):
        run("run", "testing.count", "--param", "oops")
    with pytest.raises(CommandError, match="no job 999"):
        run("resume", "999")


def test_it_lists_jobs() -> None:
    run("run", "testing.count", "--param", "total=2")
    assert "testing.count" in run("list") and "done" in run("list")
