from __future__ import annotations

from channels.db import database_sync_to_async
from django.template.loader import render_to_string

from evalsite import jobs, roles
from evalsite.models import Job, JobEvent, JobProgressMessage
from evalsite.socket_revocation import ClosedOnRevocation


class JobProgressConsumer(ClosedOnRevocation):
    """Pushes a job's progress bar to the pages watching it, as htmx out-of-band swaps.

    Once the job has finished there is nothing more to push: the consumer sends the last
    bar and closes, and the page's polling fetches what the finished job shows.
    """

    group: str

    async def connect(self) -> None:
        job_id = int(self.scope["url_route"]["kwargs"]["job_id"])
        job = await self._visible_job(job_id)
        if job is None:
            await self.close(code=4403)
            return
        self.group = jobs.group_name(job_id)
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()
        await self.watch_user()
        await self._push(job.as_event())

    async def disconnect(self, code: int) -> None:
        if hasattr(self, "group"):
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def job_progress(self, event: JobProgressMessage) -> None:
        await self._push(event["job"])

    async def _push(self, job_event: JobEvent) -> None:
        await self.send(text_data=await self._render(job_event))
        if Job.finished_status(job_event["status"]):
            await self.close()

    @database_sync_to_async
    def _visible_job(self, job_id: int) -> Job | None:
        user = self.scope.get("user")
        if user is None or not user.is_authenticated:
            return None
        job = Job.objects.filter(pk=job_id).first()
        if job is None:
            return None
        if job.created_by_id != user.pk and not roles.has_role(user, roles.COORDINATORS):
            return None
        return job

    @database_sync_to_async
    def _render(self, event: JobEvent) -> str:
        return render_to_string("jobs/_bar.html", {"event": event, "oob": True})
