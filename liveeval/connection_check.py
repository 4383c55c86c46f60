"""One real exchange with a system, to see whether it answers before a campaign relies on it.

The check holds a sandbox conversation (it never counts in a campaign) through
:func:`liveeval.conversation.exchange`, the same path a judge's message takes,
and reports the reply and its latency, or the exact cause of the failure:
refused, timed out after N s, HTTP 500, not JSON, reply too large.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from asgiref.sync import async_to_sync
from django.utils import timezone

from liveeval.conversation import exchange
from liveeval.models import ChatSession, DialogueSystem
from liveeval.systems.base import DEFAULT_REPLY_TIMEOUT
from liveeval.systems.configuration import reply_timeout

GREETINGS = {"zh": "你好", "en": "Hello"}


@dataclass(frozen=True)
class ConnectionCheck:
    """What one test exchange gave: the reply, or why there was none."""

    session_id: int
    latency_ms: int
    reply: str = ""
    failure: str = ""

    @property
    def ok(self) -> bool:
        return not self.failure


def check_connection(
    system: DialogueSystem, *, lang: str = "en", user: Any = None
) -> ConnectionCheck:
    """Send one greeting to ``system`` in a new sandbox conversation and report what came back."""
    session = ChatSession.objects.create(
        system=system,
        kind=ChatSession.Kind.SANDBOX,
        user=user,
        lang=lang,
        today=timezone.localdate(),
        status=ChatSession.Status.OPEN,
    )
    # A second more than the system's own timeout, so that its adapter names the cause.
    timeout = reply_timeout(system.kind, system.config, DEFAULT_REPLY_TIMEOUT) + 1
    result = async_to_sync(exchange)(session.pk, GREETINGS.get(lang, "Hello"), timeout=timeout)
    session.refresh_from_db()
    if session.is_open:
        session.end(ChatSession.EndReason.USER)
    if result.reply is None:
        return ConnectionCheck(session.pk, result.latency_ms, failure=result.failure or "")
    return ConnectionCheck(session.pk, result.latency_ms, reply=result.reply.text)
