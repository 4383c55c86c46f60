"""One exchange of a dialogue: store the user's message, ask the system, store its reply.

Every way of talking to a system goes through :func:`exchange`: the judge's
WebSocket, the sandbox, the ``talk`` command and the user simulator. Nothing
is shown that is not stored first, and a system that fails leaves a notice in
the dialogue instead of breaking it.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import timedelta

from asgiref.sync import sync_to_async
from django.db import IntegrityError, transaction
from django.db.models import Max, Q
from django.utils import timezone, translation
from django.utils.translation import gettext_lazy as _

from evalsite.language import is_chinese
from evalsite.storable_text import storable
from liveeval.booking.world import SessionWorld
from liveeval.models import ChatSession, Message
from liveeval.systems import adapter_for
from liveeval.systems.base import DEFAULT_REPLY_TIMEOUT, Reply, SystemContext, SystemUnavailable
from liveeval.systems.failures import failure_from

logger = logging.getLogger(__name__)


def ui_language(lang: str) -> str:
    """The interface language code for a dialogue language."""
    return "zh-hans" if is_chinese(lang) else "en"


class ConversationClosed(Exception):
    """The session is not open: it has ended, or it has not started."""


class SystemBusy(Exception):
    """The system is still answering the previous message of this session."""


@dataclass
class Exchange:
    user_message: Message
    reply: Message | None
    notice: Message | None
    ended: bool
    turns: int


def _append(session: ChatSession, role: str, text: str, **fields: object) -> Message:
    """Store a message at the session's next position; retries if two writers race."""
    for _attempt in range(5):
        try:
            with transaction.atomic():
                last = session.messages.aggregate(last=Max("position"))["last"]
                return Message.objects.create(
                    session=session,
                    position=0 if last is None else last + 1,
                    role=role,
                    text=text,
                    **fields,
                )
        except IntegrityError:
            continue
    raise RuntimeError(f"could not store a message in session {session.pk}")


def _claim(
    session_id: int, text: str, lock_for: float
) -> tuple[ChatSession, Message, SystemContext]:
    """Mark the session as awaiting a reply, store the user's message, and gather the context."""
    now = timezone.now()
    stale = now - timedelta(seconds=lock_for)
    with transaction.atomic():
        session = ChatSession.objects.select_related("system").get(pk=session_id)
        if session.status != ChatSession.Status.OPEN:
            raise ConversationClosed(f"session {session_id} is {session.status}")
        claimed = (
            ChatSession.objects.filter(pk=session_id, status=ChatSession.Status.OPEN)
            .filter(Q(replying_since__isnull=True) | Q(replying_since__lt=stale))
            .update(replying_since=now)
        )
        if not claimed:
            raise SystemBusy(f"session {session_id} is waiting for a reply")
        if session.started_at is None:
            session.started_at = now
            session.save(update_fields=["started_at"])
        message = _append(session, Message.Role.USER, text)
    return session, message, _context(session)


def _context(session: ChatSession) -> SystemContext:
    history = session.history()
    return SystemContext(
        session_id=session.pk,
        token=session.token,
        lang=session.lang,
        today=session.today,
        turn=len(history),
        history=history,
        world=SessionWorld(session),
        state=dict(session.state),
    )


def _finish(
    session: ChatSession,
    context: SystemContext,
    reply: Reply | None,
    failure: SystemUnavailable | None,
    latency_ms: int,
    max_turns: int | None,
) -> tuple[Message | None, Message | None, bool, int]:
    reply_message = notice = None
    with transaction.atomic():
        if reply is not None:
            text = storable(reply.text)
            reply_message = _append(session, Message.Role.SYSTEM, text, latency_ms=latency_ms)
            session.state = context.state
        else:
            assert failure is not None
            with translation.override(ui_language(session.lang)):
                text = str(failure.message)
            notice = _append(session, Message.Role.NOTICE, text, latency_ms=latency_ms)
        session.replying_since = None
        session.save(update_fields=["state", "replying_since"])
        turns = session.turn_count()
        ended = False
        if reply is not None and reply.end:
            session.end(ChatSession.EndReason.SYSTEM)
            ended = True
        elif max_turns is not None and turns >= max_turns:
            session.end(ChatSession.EndReason.TURN_LIMIT)
            ended = True
    return reply_message, notice, ended, turns


async def exchange(
    session_id: int,
    text: str,
    *,
    timeout: float = DEFAULT_REPLY_TIMEOUT,
    max_turns: int | None = None,
    on_user_message: Callable[[Message], Awaitable[None]] | None = None,
) -> Exchange:
    """Store ``text`` as the user's turn, get the system's reply, store it, and return both.

    Raises :class:`ConversationClosed` or :class:`SystemBusy` before storing
    anything when the message cannot be taken. A failing system never raises:
    the exchange then holds a stored notice and no reply.
    """
    session, user_message, context = await sync_to_async(_claim)(session_id, text, timeout * 2 + 5)
    if on_user_message is not None:
        await on_user_message(user_message)
    adapter = adapter_for(session.system)
    started = time.monotonic()
    reply: Reply | None = None
    failure: SystemUnavailable | None = None
    try:
        reply = await asyncio.wait_for(adapter.respond(context, text), timeout=timeout)
        if not reply.text.strip():
            raise SystemUnavailable("empty reply", _("The system sent an empty reply."))
    except TimeoutError:
        failure = SystemUnavailable(
            f"no reply within {timeout:g} s",
            _("The system did not answer in time."),
        )
    except Exception as exc:
        failure = failure_from(exc)
    if failure is not None:
        reply = None
        logger.warning(
            "session %s: system %s unavailable: %s", session_id, session.system.slug, failure.reason
        )
    latency_ms = int((time.monotonic() - started) * 1000)
    reply_message, notice, ended, turns = await sync_to_async(_finish)(
        session, context, reply, failure, latency_ms, max_turns
    )
    return Exchange(user_message, reply_message, notice, ended, turns)
