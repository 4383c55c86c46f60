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
from typing import NamedTuple

from asgiref.sync import sync_to_async
from django.db import close_old_connections, transaction
from django.db.models import Value
from django.db.models.functions import Coalesce
from django.utils import timezone, translation
from django.utils.translation import gettext_lazy as _

from evalsite.language import is_chinese
from evalsite.storable_text import storable
from liveeval import recovery
from liveeval.booking.world import SessionWorld
from liveeval.models import ChatSession, Message
from liveeval.systems import adapter_for
from liveeval.systems.base import (
    CLAIM_GRACE_S,
    DEFAULT_REPLY_TIMEOUT,
    Reply,
    SyncAdapter,
    SystemAdapter,
    SystemContext,
    SystemUnavailable,
)
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
    failure: str | None = None
    """Why the system gave no reply, in English for the operator; never shown to judges."""
    latency_ms: int = 0


def _claim(
    session_id: int, text: str, timeout: float, wait_s: float = 0.0
) -> tuple[ChatSession, Message, SystemContext]:
    """Mark the session as awaiting a reply, store the user's message, and gather the context.

    A claim in the way that a process left when it died, or that is past its deadline, is
    released (with a notice after its unanswered message), so a crash never keeps a session
    busy for long. ``wait_s`` lengthens the claim of a message kept to be answered later.
    """
    for attempt in range(2):
        now = timezone.now()
        with transaction.atomic():
            claimed = ChatSession.objects.filter(
                pk=session_id, status=ChatSession.Status.OPEN, replying_since__isnull=True
            ).update(
                replying_since=now,
                reply_deadline=now + timedelta(seconds=timeout + CLAIM_GRACE_S + wait_s),
                replying_worker=recovery.WORKER,
                started_at=Coalesce("started_at", Value(now)),
            )
            session = ChatSession.objects.select_related("system", "campaign").get(pk=session_id)
            if claimed and session.kind == ChatSession.Kind.JUDGED and _archived(session):
                # Rolls the claim back: a judge no longer talks in an archived campaign.
                raise ConversationClosed(f"session {session_id}: its campaign is archived")
            if claimed:
                # Holding the claim, this exchange is the session's only writer.
                rows = list(
                    session.messages.order_by("position").values_list("position", "role", "text")
                )
                message = Message.objects.create(
                    session=session,
                    position=rows[-1][0] + 1 if rows else 0,
                    role=Message.Role.USER,
                    text=text,
                )
                history = [
                    {"role": role, "text": said}
                    for _position, role, said in rows
                    if role in (Message.Role.USER, Message.Role.SYSTEM)
                ]
                history.append({"role": Message.Role.USER, "text": text})
                return session, message, _context(session, history)
        if session.status != ChatSession.Status.OPEN:
            raise ConversationClosed(f"session {session_id} is {session.status}")
        if attempt == 0 and not recovery.release_if_stale(session_id):
            break
    raise SystemBusy(f"session {session_id} is waiting for a reply")


def _archived(session: ChatSession) -> bool:
    return session.campaign is not None and session.campaign.is_archived


def _context(session: ChatSession, history: list[dict[str, str]]) -> SystemContext:
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
    position: int,
    context: SystemContext,
    reply: Reply | None,
    failure: SystemUnavailable | None,
    latency_ms: int,
    max_turns: int | None,
) -> tuple[Message | None, Message | None, bool, int]:
    """Store the reply or the notice and free the session, if this exchange still holds it.

    A claim released meanwhile (its deadline passed and the notice is stored) keeps its
    notice: a reply arriving after that is dropped, so the dialogue stays as the judge saw it.
    """
    reply_message = notice = None
    turns = len(context.history)
    with transaction.atomic():
        fields: dict[str, object] = {
            "replying_since": None,
            "reply_deadline": None,
            "replying_worker": "",
        }
        if reply is not None:
            fields["state"] = context.state
        held = ChatSession.objects.filter(
            pk=session.pk, replying_since=session.replying_since
        ).update(**fields)
        if not held:
            logger.warning("session %s: a late answer was dropped", session.pk)
            return None, None, False, turns
        if reply is not None:
            reply_message = Message.objects.create(
                session=session,
                position=position,
                role=Message.Role.SYSTEM,
                text=storable(reply.text),
                latency_ms=latency_ms,
            )
            turns += 1
        else:
            assert failure is not None
            with translation.override(ui_language(session.lang)):
                text = str(failure.message)
            notice = Message.objects.create(
                session=session,
                position=position,
                role=Message.Role.NOTICE,
                text=text,
                latency_ms=latency_ms,
            )
        ended = False
        if reply is not None and reply.end:
            session.end(ChatSession.EndReason.SYSTEM)
            ended = True
        elif max_turns is not None and turns >= max_turns:
            session.end(ChatSession.EndReason.TURN_LIMIT)
            ended = True
    return reply_message, notice, ended, turns


def _answer_and_finish(
    adapter: SyncAdapter,
    session: ChatSession,
    position: int,
    context: SystemContext,
    text: str,
    timeout: float,
    max_turns: int | None,
) -> tuple[Reply | None, Message | None, Message | None, bool, int]:
    """An in-process system's answer and its storing, in one trip to the database thread."""
    started = time.monotonic()
    reply: Reply | None = None
    failure: SystemUnavailable | None = None
    try:
        reply = adapter.respond_in_thread(context, text)
    except SystemUnavailable as exc:
        failure = exc
    except Exception as exc:
        failure = failure_from(exc)
    elapsed = time.monotonic() - started
    if failure is None and elapsed > timeout:
        failure = _timed_out(timeout)
    reply, failure = _checked(reply, failure, session)
    result = _finish(session, position, context, reply, failure, int(elapsed * 1000), max_turns)
    return (reply, *result)


def _timed_out(timeout: float) -> SystemUnavailable:
    return SystemUnavailable(
        f"timed out after {timeout:g} s", _("The system did not answer in time.")
    )


def _checked(
    reply: Reply | None, failure: SystemUnavailable | None, session: ChatSession
) -> tuple[Reply | None, SystemUnavailable | None]:
    """An empty reply is a failure; every failure is logged with its reason."""
    if failure is None and reply is not None and not reply.text.strip():
        failure = SystemUnavailable("empty reply", _("The system sent an empty reply."))
    if failure is None:
        return reply, None
    logger.warning(
        "session %s: system %s unavailable: %s", session.pk, session.system.slug, failure.reason
    )
    return None, failure


class _Claimed(NamedTuple):
    """A claimed session with its stored user message, waiting for an outside system's reply."""

    session: ChatSession
    user_message: Message
    context: SystemContext
    adapter: SystemAdapter


def _claim_and_answer(
    session_id: int,
    text: str,
    timeout: float,
    max_turns: int | None,
    answer_here: bool,
    fresh_connection: bool,
) -> Exchange | _Claimed:
    """Claim and store the message; when the system runs in process, answer it in this trip too.

    With ``fresh_connection``, the trip starts as channels' database trips do: a connection
    that is broken, or past its age (on PostgreSQL, due back to the pool), is dropped first.
    """
    if fresh_connection:
        close_old_connections()
    session, user_message, context = _claim(session_id, text, timeout)
    adapter = adapter_for(session.system)
    if not (answer_here and isinstance(adapter, SyncAdapter)):
        return _Claimed(session, user_message, context, adapter)
    _reply, reply_message, notice, ended, turns = _answer_and_finish(
        adapter, session, user_message.position + 1, context, text, timeout, max_turns
    )
    return Exchange(user_message, reply_message, notice, ended, turns)


async def exchange(
    session_id: int,
    text: str,
    *,
    timeout: float = DEFAULT_REPLY_TIMEOUT,
    max_turns: int | None = None,
    on_user_message: Callable[[Message, int], Awaitable[None]] | None = None,
    fresh_connection: bool = False,
) -> Exchange:
    """Store ``text`` as the user's turn, get the system's reply, store it, and return both.

    Raises :class:`ConversationClosed` or :class:`SystemBusy` before storing
    anything when the message cannot be taken. A failing system never raises:
    the exchange then holds a stored notice and no reply.

    A built-in system answers in the same trip to the database thread that claims the session
    and stores the message, and the reply is stored in that trip too: one trip per message.
    ``on_user_message`` gets the stored message and the turns counted with it, before the
    system is asked; a built-in system is then asked in a second trip, after it. An outside
    system is asked on the event loop, between the trip that stores the message and the one
    that stores the reply. ``fresh_connection`` starts the first trip with a usable connection
    (see :func:`_claim_and_answer`), for callers outside a request, such as a socket.
    """
    claimed = await sync_to_async(_claim_and_answer)(
        session_id, text, timeout, max_turns, on_user_message is None, fresh_connection
    )
    if isinstance(claimed, Exchange):
        return claimed
    if on_user_message is not None:
        await on_user_message(claimed.user_message, len(claimed.context.history))
    return await _ask(claimed, text, timeout, max_turns)


async def _ask(claimed: _Claimed, text: str, timeout: float, max_turns: int | None) -> Exchange:
    """Ask the system of a claimed session about its stored message, and store the answer."""
    session, user_message, context, adapter = claimed
    if isinstance(adapter, SyncAdapter):
        _reply, reply_message, notice, ended, turns = await sync_to_async(_answer_and_finish)(
            adapter, session, user_message.position + 1, context, text, timeout, max_turns
        )
        return Exchange(user_message, reply_message, notice, ended, turns)
    started = time.monotonic()
    reply: Reply | None = None
    failure: SystemUnavailable | None = None
    try:
        reply = await asyncio.wait_for(adapter.respond(context, text), timeout=timeout)
    except TimeoutError:
        failure = _timed_out(timeout)
    except SystemUnavailable as exc:
        failure = exc
    except Exception as exc:
        failure = failure_from(exc)
    except asyncio.CancelledError:
        # The server is closing this connection: the message still gets its notice.
        failure = SystemUnavailable("cancelled", recovery.NO_ANSWER)
        await asyncio.shield(
            sync_to_async(_finish)(
                session, user_message.position + 1, context, None, failure, 0, max_turns
            )
        )
        raise
    reply, failure = _checked(reply, failure, session)
    latency_ms = int((time.monotonic() - started) * 1000)
    reply_message, notice, ended, turns = await sync_to_async(_finish)(
        session, user_message.position + 1, context, reply, failure, latency_ms, max_turns
    )
    return Exchange(
        user_message,
        reply_message,
        notice,
        ended,
        turns,
        failure=failure.reason if failure is not None else None,
        latency_ms=latency_ms,
    )


@dataclass(frozen=True)
class Kept:
    """A judge's message stored under its session's claim, to be answered when a slot frees."""

    session: ChatSession
    user_message: Message
    turns: int


def _keep(session_id: int, text: str, timeout: float, wait_s: float) -> Kept:
    close_old_connections()
    session, user_message, context = _claim(session_id, text, timeout, wait_s)
    return Kept(session, user_message, len(context.history))


async def keep(session_id: int, text: str, *, timeout: float, wait_s: float) -> Kept:
    """Store ``text`` as the user's turn and claim the session for ``timeout + wait_s`` (plus
    the grace), without asking the system: :func:`answer_kept` asks it later.

    Raises :class:`ConversationClosed` or :class:`SystemBusy`, as :func:`exchange` does, before
    storing anything. Stored under a claim that names this process, the message gets a notice
    if the process dies or the claim runs out (``liveeval/recovery.py``).
    """
    return await sync_to_async(_keep)(session_id, text, timeout, wait_s)


def _renew_and_answer(
    kept: Kept, timeout: float, max_turns: int | None
) -> Exchange | _Claimed | None:
    """Renew a kept message's claim for one reply; answer here if the system is built in.

    None when the claim is gone: it ran out and was released with a notice meanwhile.
    """
    close_old_connections()
    session = kept.session
    now = timezone.now()
    renewed = ChatSession.objects.filter(
        pk=session.pk, status=ChatSession.Status.OPEN, replying_since=session.replying_since
    ).update(reply_deadline=now + timedelta(seconds=timeout + CLAIM_GRACE_S))
    if not renewed:
        logger.warning(
            "session %s: a kept message's claim was released before its turn", session.pk
        )
        return None
    rows = session.messages.filter(
        role__in=(Message.Role.USER, Message.Role.SYSTEM), position__lte=kept.user_message.position
    ).order_by("position")
    history = [{"role": role, "text": said} for role, said in rows.values_list("role", "text")]
    context = _context(session, history)
    adapter = adapter_for(session.system)
    text = kept.user_message.text
    if not isinstance(adapter, SyncAdapter):
        return _Claimed(session, kept.user_message, context, adapter)
    _reply, reply_message, notice, ended, turns = _answer_and_finish(
        adapter, session, kept.user_message.position + 1, context, text, timeout, max_turns
    )
    return Exchange(kept.user_message, reply_message, notice, ended, turns)


async def answer_kept(kept: Kept, *, timeout: float, max_turns: int | None) -> Exchange | None:
    """Ask the system about a kept message and store its reply or a notice, as
    :func:`exchange` does; None if the claim was released meanwhile (its notice is stored)."""
    claimed = await sync_to_async(_renew_and_answer)(kept, timeout, max_turns)
    if claimed is None or isinstance(claimed, Exchange):
        return claimed
    return await _ask(claimed, kept.user_message.text, timeout, max_turns)
