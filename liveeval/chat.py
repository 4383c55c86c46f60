"""Who may chat in a session, and what the chat page and its live frames show.

The page and the WebSocket frames are built from the same context, so a
reload shows exactly what the live page showed. A judge's context names the
system by its alias only.
"""

from __future__ import annotations

from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db.models import Q

from evalsite import roles
from liveeval.models import ChatSession, Message

CHAT_ROLES = {
    ChatSession.Kind.JUDGED: roles.JUDGES,
    ChatSession.Kind.SANDBOX: roles.COORDINATORS,
}


def may_chat(user: Any, session: ChatSession) -> bool:
    """Only the session's own judge (or, in the sandbox, its coordinator) may talk in it."""
    if user is None or not user.is_authenticated:
        return False
    role = CHAT_ROLES.get(ChatSession.Kind(session.kind))
    if role is None:
        return False
    return session.user_id == user.pk and roles.has_role(user, role)


def limits(session: ChatSession) -> tuple[int | None, float]:
    """The turn limit and reply timeout that apply to a session."""
    if session.campaign is not None:
        return session.campaign.max_turns, session.campaign.reply_timeout
    return None, 10.0


def system_label(session: ChatSession) -> str:
    """What the person in the chat may know the system as."""
    if session.kind == ChatSession.Kind.SANDBOX:
        return f"{session.system.name} ({session.system.alias})"
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


def frame_context(session: ChatSession, what: str, ids: list[int] | None) -> dict[str, Any]:
    context = chat_context(session)
    context["what"] = what
    if what == "history":
        context["messages"] = visible_messages(session)
    elif what == "messages":
        context["messages"] = visible_messages(session, ids)
    if context["needs_rating"]:
        from liveeval.forms import RatingForm

        context["rating_form"] = RatingForm()
    return context


def announce_ended(session_ids: list[int]) -> None:
    """Tell every open chat page of these sessions that they have ended (e.g. on close)."""
    from liveeval.consumers import group_name

    layer = get_channel_layer()
    if layer is None:
        return
    for session_id in session_ids:
        async_to_sync(layer.group_send)(group_name(session_id), {"type": "chat.ended"})
