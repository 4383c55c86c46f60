from __future__ import annotations

import asyncio
from urllib.parse import parse_qs

from channels.db import database_sync_to_async
from django.conf import settings
from django.template.loader import render_to_string
from django.utils import translation

from evalsite import jobs, live_changes, roles
from evalsite.models import Job, JobEvent, JobProgressMessage, message_in_language
from evalsite.socket_revocation import REVOKED_CODE, ClosedOnRevocation


class JobProgressConsumer(ClosedOnRevocation):
    """Pushes a job's progress bar to the pages watching it, as htmx out-of-band swaps.

    Once the job has finished there is nothing more to push: the consumer sends the last
    bar and closes, and the page's polling fetches what the finished job shows. The first bar
    is read after joining the job's group, so that a job finishing while the socket connects
    is either in that bar or in a push that follows it, never lost between the two (the page
    pauses its polling while the socket is open).

    Bars are drawn in the language of the page that opened the socket (``?lang=``), whatever
    language the worker that sent the progress wrote in.
    """

    group: str
    lang: str = settings.LANGUAGE_CODE

    async def connect(self) -> None:
        job_id = int(self.scope["url_route"]["kwargs"]["job_id"])
        query = parse_qs(self.scope.get("query_string", b"").decode())
        chosen = (query.get("lang") or [""])[0]
        if chosen and translation.check_for_language(chosen):
            self.lang = chosen
        event = await self._visible_job(job_id)
        if event is None:
            await self.close(code=4403)
            return
        self.group = jobs.group_name(job_id)
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()
        await self.watch_user()
        await self._push(await self._visible_job(job_id) or event)

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
    def _visible_job(self, job_id: int) -> JobEvent | None:
        """The job's bar as it stands, if the user may watch it. Built in the database thread:
        describing a job may read what it names (a report job its campaign)."""
        user = self.scope.get("user")
        if user is None or not user.is_authenticated:
            return None
        job = Job.objects.filter(pk=job_id).first()
        if job is None:
            return None
        if job.created_by_id != user.pk and not roles.has_role(user, roles.COORDINATORS):
            return None
        return job.as_event()

    @database_sync_to_async
    def _render(self, event: JobEvent) -> str:
        with translation.override(self.lang):
            shown: JobEvent = {
                **event,
                "status_label": str(Job.Status(event["status"]).label),
                "message": message_in_language(event["message"], event["message_phrase"]),
            }
            return render_to_string("jobs/_bar.html", {"event": shown, "oob": True})


class ChangesConsumer(ClosedOnRevocation):
    """Tells a page that the record it follows changed (``evalsite.live_changes``).

    Only people the topic allows (coordinators) connect; a deactivated user's socket closes at
    once. Notices arriving together are sent as one, ``COALESCE_SECONDS`` after the first.
    """

    group: str
    _pending: asyncio.Task[None] | None = None

    async def connect(self) -> None:
        kwargs = self.scope["url_route"]["kwargs"]
        topic, record_id = str(kwargs["topic"]), int(kwargs["record_id"])
        if not await self._may_watch(topic, record_id):
            await self.close(code=REVOKED_CODE)
            return
        self.group = live_changes.group_name(topic, record_id)
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()
        await self.watch_user()

    async def disconnect(self, code: int) -> None:
        if self._pending is not None:
            self._pending.cancel()
        if hasattr(self, "group"):
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def changes_changed(self, event: live_changes.ChangeMessage) -> None:
        if self._pending is None or self._pending.done():
            self._pending = asyncio.create_task(self._notify())

    async def _notify(self) -> None:
        await asyncio.sleep(live_changes.COALESCE_SECONDS)
        await self.send(text_data="changed")

    @database_sync_to_async
    def _may_watch(self, topic: str, record_id: int) -> bool:
        user = self.scope.get("user")
        return user is not None and live_changes.may_watch(topic, user, record_id)
