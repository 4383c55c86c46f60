"""A django-tasks backend that runs each task in a thread of the process that queues it.

``JOB_RUNNER=thread`` selects it: for the test suite, and for one process serving alone. The
thread knows the server's event loop, so that a job's progress reaches the pages of this very
process over the in-memory channel layer.
"""

from __future__ import annotations

import threading
from typing import Any

from django.db import connection
from django_tasks.backends.immediate import ImmediateBackend
from django_tasks.base import Task, TaskResult, TaskResultStatus
from django_tasks.utils import get_random_id

from evalsite import jobs


class ThreadBackend(ImmediateBackend):
    """Like django-tasks' immediate backend, but the task runs in a new thread."""

    def enqueue(self, task: Task[Any, Any], args: Any, kwargs: Any) -> TaskResult[Any]:
        self.validate_task(task)
        result: TaskResult[Any] = TaskResult(
            task=task,
            id=get_random_id(),
            status=TaskResultStatus.READY,
            enqueued_at=None,
            started_at=None,
            last_attempted_at=None,
            finished_at=None,
            args=args,
            kwargs=kwargs,
            backend=self.alias,
            errors=[],
            worker_ids=[],
        )
        loop = jobs.server_loop()
        thread = threading.Thread(
            target=self._run, args=(result, loop), name=f"task-{result.id}", daemon=True
        )
        thread.start()
        return result

    def _run(self, result: TaskResult[Any], loop: Any) -> None:
        from evalsite import job_queue

        job_queue.set_loop(loop)
        try:
            self._execute_task(result)
        finally:
            # This thread ends here; a persistent connection left open would outlive it.
            connection.close()
