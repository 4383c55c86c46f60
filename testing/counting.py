"""A job kind that counts to ``total``: it proves progress, failure and resuming in tests.

Importing this module registers the kind ``testing.count`` with the job runner of the
importing process. The test suite imports it from its conftest; a daphne process serving
``testing.asgi:application`` has it too. The served site never does.

Parameters: ``total`` (default 10), ``delay`` seconds per step, and ``fail_at``, a step
at which the first run fails; a resumed run passes it. The result is the number of steps
counted and their sum.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from evalsite.job_descriptions import JobDescription
from evalsite.jobs import JobContext, JobError, job_kind
from evalsite.models import Job

if TYPE_CHECKING:
    from testing.servers import TemporaryDatabase

KIND = "testing.count"


def describe_count(job: Job) -> JobDescription:
    """The counting job in words (tests only, so not translated)."""
    if job.status != Job.Status.DONE:
        return JobDescription("Counting job")
    counted, total = job.result.get("counted", 0), job.result.get("sum", 0)
    return JobDescription("Counting job", f"Counted {counted} steps; their sum is {total}.")


@job_kind(KIND, describe=describe_count)
def count_job(context: JobContext) -> dict[str, Any]:
    """Count from the checkpoint to ``total``, saving the checkpoint every five steps."""
    total = int(context.params.get("total", 10))
    delay = float(context.params.get("delay", 0.0))
    fail_at = context.params.get("fail_at")
    start_at = int(context.checkpoint.get("next", 0))
    counted: list[int] = list(context.checkpoint.get("counted", []))
    # Where each run started: a resumed run starts from the checkpoint, not from 0.
    context.checkpoint["starts"] = [*context.checkpoint.get("starts", []), start_at]
    context.progress(start_at, total, "Counting", force=True)
    for step in range(start_at, total):
        if fail_at is not None and step == int(fail_at) and not context.resumed:
            raise JobError(f"step {step} failed on purpose")
        if delay:
            time.sleep(delay)
        counted.append(step)
        context.checkpoint["counted"] = counted
        context.checkpoint["next"] = step + 1
        if (step + 1) % 5 == 0:
            context.save_checkpoint(done=step + 1)
        else:
            context.progress(step + 1)
    return {"counted": len(counted), "sum": sum(counted)}


def store_interrupted(database: TemporaryDatabase, env: dict[str, str], **params: Any) -> int:
    """Store an interrupted counting job in ``database`` and return its id.

    A page's Resume button then runs it in the server that receives the click, which is
    how browser and scale-out tests start a counting job through the site's own views.
    """
    code = (
        "from evalsite.models import Job; "
        f"print(Job.objects.create(kind={KIND!r}, params={params!r}, status='interrupted').pk)"
    )
    return int(database.manage("shell", "-c", code, env=env).split()[-1])
