"""Who may chat in a session, and what the chat page and its live frames show.

The page and the WebSocket frames are built from the same context, so a
reload shows exactly what the live page showed. A judge's context names the
system by its alias only.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction
from django.db.models import Q
from django.template.loader import render_to_string
from django.utils import translation
from django.utils.dateparse import parse_datetime

from evalsite import roles
from liveeval import aliases
from liveeval.conversation import ui_language
from liveeval.models import Campaign, ChatSession, Message
from liveeval.systems import adapter_for
from liveeval.systems.base import SyncAdapter

CHAT_ROLES = {
    ChatSession.Kind.JUDGED: roles.JUDGES,
    ChatSession.Kind.SANDBOX: roles.COORDINATORS,
}


def may_chat(user: Any, session: ChatSession) -> bool:
    """Only the session's own judge (or, in the sandbox, its coordinator) may talk in it."""
    if user is None or not user.is_authenticated:
        return False
    role = CHAT_ROLES.get(ChatSession.Kind(session.kind))
    if role is None or (session.campaign is not None and session.campaign.is_archived):
        return False
    return session.user_id == user.pk and roles.has_role(user, role)


def limits(session: ChatSession) -> tuple[int | None, float]:
    """The turn limit and reply timeout that apply to a session."""
    if session.campaign is not None:
        return session.campaign.max_turns, session.campaign.reply_timeout
    return None, 10.0


def system_label(session: ChatSession) -> str:
    """What the person in the chat may know the system as: in a campaign, its campaign alias."""
    if session.kind == ChatSession.Kind.SANDBOX:
        return f"{session.system.name} ({session.system.alias})"
    if session.campaign is not None:
        return aliases.public_name(aliases.code_for(session.campaign, session.system))
    return session.system.alias


def takes_ratings(session: ChatSession) -> bool:
    """Whether the session's campaign still takes ratings: open, or closed with late rating."""
    campaign = session.campaign
    return campaign is None or campaign.status != campaign.Status.CLOSED or campaign.late_rating


def visible_messages(session: ChatSession, ids: list[int] | None = None) -> list[Message]:
    queryset = session.messages.all()
    if ids is not None:
        queryset = queryset.filter(Q(pk__in=ids))
    return list(queryset.order_by("position"))


def chat_context(session: ChatSession) -> dict[str, Any]:
    max_turns, _timeout = limits(session)
    rating = getattr(session, "rating", None) if session.status == session.Status.ENDED else None
    return {
        "session": session,
        "system_label": system_label(session),
        "turns": session.turn_count(),
        "max_turns": max_turns,
        "is_open": session.is_open,
        "needs_rating": (
            session.kind == ChatSession.Kind.JUDGED
            and session.status == ChatSession.Status.ENDED
            and rating is None
            and takes_ratings(session)
        ),
        "rating": rating,
    }


def page_context(session: ChatSession) -> dict[str, Any]:
    """The whole chat page: the frame's context, the history and the task card.

    The task card is shown in the dialogue's language, not the interface's: a judge in a
    Chinese campaign reads a Chinese card in any interface, and talks in Chinese.
    """
    context = chat_context(session)
    context["chat_messages"] = visible_messages(session)
    context["task"] = session.task
    context["dialogue_lang"] = ui_language(session.lang)
    if session.task is not None:
        context["task_title"] = session.task.title(session.lang)
        context["task_description"] = session.task.description(session.lang)
    return context


def frame_context(session: ChatSession, what: str, ids: list[int] | None) -> dict[str, Any]:
    context = chat_context(session)
    context["what"] = what
    if what == "history":
        context["chat_messages"] = visible_messages(session)
    elif what == "messages":
        context["chat_messages"] = visible_messages(session, ids)
    if context["needs_rating"]:
        from liveeval.forms import RatingForm

        context["rating_form"] = RatingForm()
    return context


@dataclass(frozen=True)
class SessionRef:
    """The two fields of a session that the live frames' templates read."""

    pk: int
    kind: str


@dataclass(frozen=True)
class ShownMessage:
    """A stored message as a frame shows it, and as it crosses the channel layer."""

    pk: int
    position: int
    role: str
    text: str
    created_at: datetime

    @classmethod
    def of(cls, message: Message) -> ShownMessage:
        return cls(message.pk, message.position, message.role, message.text, message.created_at)

    def as_event(self) -> list[Any]:
        return [self.pk, self.position, self.role, self.text, self.created_at.isoformat()]

    @classmethod
    def from_event(cls, row: list[Any]) -> ShownMessage:
        created = parse_datetime(row[4])
        assert created is not None
        return cls(int(row[0]), int(row[1]), str(row[2]), str(row[3]), created)


@dataclass(frozen=True)
class LiveView:
    """What the live frames show of a session, read once when its socket opens, in the language
    of the page that opened it (the system's alias reads "System 042" or "系统 042")."""

    session: SessionRef
    system_label: str
    max_turns: int | None
    timeout: float
    in_process: bool
    """Whether the system runs in EvalSite, answering in the trip that stores the message."""

    @classmethod
    def of(cls, session: ChatSession, lang: str) -> LiveView:
        max_turns, timeout = limits(session)
        in_process = isinstance(adapter_for(session.system), SyncAdapter)
        with translation.override(lang):
            label = system_label(session)
        return cls(
            SessionRef(session.pk, session.kind),
            label,
            max_turns,
            timeout,
            in_process,
        )


def render_messages_frame(
    view: LiveView,
    messages: list[ShownMessage],
    turns: int,
    lang: str,
    *,
    replying: bool,
    ended: bool,
    alert: str = "",
) -> str:
    """New messages with the status line, and the ended state when the dialogue ended.

    Everything comes from the exchange that stored the messages: nothing is read again.
    ``alert`` names the line shown under the log ("overloaded"); by default it is cleared.
    """
    needs_rating = ended and view.session.kind == ChatSession.Kind.JUDGED
    context: dict[str, Any] = {
        "what": "messages",
        "session": view.session,
        "system_label": view.system_label,
        "chat_messages": messages,
        "turns": turns,
        "max_turns": view.max_turns,
        "is_open": not ended,
        "replying": replying,
        "needs_rating": needs_rating,
        "rating": None,
        "alert": alert,
    }
    if needs_rating:
        from liveeval.forms import RatingForm

        context["rating_form"] = RatingForm()
    with translation.override(lang):
        return render_to_string("liveeval/_frame.html", context)


def announce_ended(session_ids: list[int]) -> None:
    """Tell every open chat page of these sessions that they have ended (e.g. on close)."""
    _announce(session_ids, "chat.ended")


def announce_resync(session_id: int) -> None:
    """Have every open tab of the session show its stored history again: something was
    stored outside the exchanges its sockets run (a dead process's claim released)."""
    _announce([session_id], "chat.resync")


def close_archived_pages(campaign: Campaign) -> None:
    """Once the archiving is stored, close the chat pages open in ``campaign``'s dialogues.

    Their judges may no longer talk there (``may_chat``): an open page says why and stops. The
    dialogues stay open, and go on if the campaign is restored.
    """
    open_ids = list(
        campaign.sessions.filter(
            kind=ChatSession.Kind.JUDGED, status=ChatSession.Status.OPEN
        ).values_list("pk", flat=True)
    )
    transaction.on_commit(lambda: _announce(open_ids, "chat.archived"))


def _announce(session_ids: list[int], event: str) -> None:
    from liveeval.consumers import group_name

    layer = get_channel_layer()
    if layer is None:
        return
    for session_id in session_ids:
        async_to_sync(layer.group_send)(group_name(session_id), {"type": event})
