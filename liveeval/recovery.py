"""Releasing a reply claim whose holder is gone, so no user message is left unanswered.

While a system answers, its session carries a claim: since when, until when at
the latest, and which server process holds it. A process killed mid-reply
leaves that claim behind. A claim is released when its deadline has passed
(the reply timeout is bounded, so the deadline is never far), or at once when
its process ran on this machine and no longer runs. Releasing stores a notice
after the unanswered message, in the dialogue's language, so a stored user
message always ends up with a reply or a notice, whatever was killed.

Claims are released where someone looks: on the next message, when a chat
page or socket opens, and by :func:`release_all_stale`, which the chat socket
runs now and then for sessions nobody returns to. Every tab still open on the
session is then told to show the stored history again, notice included.
"""

from __future__ import annotations

import os
import socket
import time
from datetime import datetime, timedelta
from functools import partial

from django.db import transaction
from django.db.models import Q
from django.utils import timezone, translation
from django.utils.translation import gettext_lazy as _

from evalsite.language import is_chinese
from liveeval.models import ChatSession, Message
from liveeval.systems.base import CLAIM_GRACE_S, MAX_REPLY_TIMEOUT

NO_ANSWER = _("The system did not answer; please send your message again.")

SWEEP_EVERY_S = 30.0
_last_sweep = 0.0


def _process_start(pid: int) -> str | None:
    """The start time of a process in clock ticks since boot, or None if it does not run."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return fields[19]


def _identity() -> str:
    return f"{socket.gethostname()}:{os.getpid()}:{_process_start(os.getpid()) or '?'}"


WORKER = _identity()
"""This process, as a claim names it: host, pid and start time (a reused pid differs)."""


def worker_is_gone(worker: str) -> bool:
    """Whether the process named by a claim is known to have stopped.

    Only a process on this machine can be checked; elsewhere the deadline decides.
    """
    parts = worker.rsplit(":", 2)
    if len(parts) != 3:
        return False
    host, pid, started = parts
    if host != socket.gethostname() or not pid.isdigit() or started == "?":
        return False
    return _process_start(int(pid)) != started


def _needs_release(session: ChatSession, now: datetime) -> bool:
    if session.replying_since is None:
        return False
    deadline = session.reply_deadline or session.replying_since + timedelta(
        seconds=MAX_REPLY_TIMEOUT + CLAIM_GRACE_S
    )
    if deadline < now:
        return True
    return bool(session.replying_worker) and worker_is_gone(session.replying_worker)


def release_if_stale(session_id: int) -> bool:
    """Release the session's claim if its holder is gone, with a notice if a message waits."""
    now = timezone.now()
    seen = ChatSession.objects.filter(pk=session_id).first()
    if seen is None or not _needs_release(seen, now):
        return False  # the common case, without taking the write lock
    with transaction.atomic():
        session = ChatSession.objects.select_for_update().filter(pk=session_id).first()
        if session is None or not _needs_release(session, now):
            return False
        session.replying_since = None
        session.reply_deadline = None
        session.replying_worker = ""
        session.save(update_fields=["replying_since", "reply_deadline", "replying_worker"])
        last = session.messages.order_by("-position").first()
        if last is not None and last.role == Message.Role.USER:
            with translation.override("zh-hans" if is_chinese(session.lang) else "en"):
                text = str(NO_ANSWER)
            Message.objects.create(
                session=session, position=last.position + 1, role=Message.Role.NOTICE, text=text
            )
            # The tabs still open on this session (on another process) are told at once.
            transaction.on_commit(partial(_show_every_tab, session_id))
    return True


def _show_every_tab(session_id: int) -> None:
    from liveeval.chat import announce_resync  # chat imports this module through conversation

    announce_resync(session_id)


def release_all_stale(force: bool = False) -> int:
    """Release every stale claim; at most once per ``SWEEP_EVERY_S`` unless forced."""
    global _last_sweep
    if not force and time.monotonic() - _last_sweep < SWEEP_EVERY_S:
        return 0
    _last_sweep = time.monotonic()
    now = timezone.now()
    claimed = ChatSession.objects.filter(replying_since__isnull=False)
    oldest = now - timedelta(seconds=MAX_REPLY_TIMEOUT + CLAIM_GRACE_S)
    candidates = claimed.filter(
        Q(reply_deadline__lt=now) | Q(replying_since__lt=oldest) | ~Q(replying_worker=WORKER)
    )
    released = 0
    for session_id in candidates.values_list("pk", flat=True):
        released += release_if_stale(session_id)
    return released
