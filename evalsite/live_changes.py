"""Pages that follow a campaign as it runs: a socket tells them that something changed.

An app registers a *topic* (``annotation.campaign``, ``liveeval.campaign``) with the check of
who may watch one of its records (:func:`register`), and calls :func:`changed` when such a
record changes (an answer submitted, a conversation rated). Every socket watching that record
(``/ws/changes/<topic>/<id>/``, ``evalsite.consumers.ChangesConsumer``) then receives one short
notice, at most once a second however many changes arrive; the page (``static/js/pages.js``,
``data-refresh-on-change``) fetches the parts it shows again, over HTTP, through the same views
and permission checks as a first visit. The socket carries no data of its own.

Notices reach every server only through a shared channel layer (Redis). With the in-memory
layer (``make demo``: one daphne) the socket still carries every change that people make
through the pages, but a change made by another process, such as a job worker's simulated
judges, does not reach it; pages then keep polling, more slowly, while their socket is open
(:func:`pushes_are_shared` is false). With Redis they stop polling while it is open.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, Literal, TypedDict

from asgiref.sync import async_to_sync
from channels.layers import InMemoryChannelLayer, get_channel_layer
from django.db import transaction

logger = logging.getLogger(__name__)

# Whether a user may watch the record with this id: a coordinator, and the record exists.
MayWatch = Callable[[Any, int], bool]

_TOPICS: dict[str, MayWatch] = {}

# Notices closer together than this are sent as one.
COALESCE_SECONDS = 1.0


class ChangeMessage(TypedDict):
    """The channel-layer message, handled by ``ChangesConsumer.changes_changed``."""

    type: Literal["changes.changed"]


def register(topic: str, may_watch: MayWatch) -> None:
    _TOPICS[topic] = may_watch


def may_watch(topic: str, user: Any, record_id: int) -> bool:
    """Whether ``user`` may watch record ``record_id`` of ``topic`` (False for an unknown one)."""
    check = _TOPICS.get(topic)
    return check is not None and user.is_authenticated and user.is_active and check(user, record_id)


def group_name(topic: str, record_id: int) -> str:
    return f"changes-{topic}-{record_id}"


def pushes_are_shared() -> bool:
    """Whether a change made by any process reaches the sockets of this one (Redis)."""
    layer = get_channel_layer()
    return layer is not None and not isinstance(layer, InMemoryChannelLayer)


def changed(topic: str, record_id: int | None) -> None:
    """Tell the pages watching the record that it changed, once the transaction commits."""
    if record_id is None:
        return

    def send() -> None:
        layer = get_channel_layer()
        if layer is None:
            return
        message: ChangeMessage = {"type": "changes.changed"}
        try:
            async_to_sync(layer.group_send)(group_name(topic, record_id), message)
        except Exception:
            logger.warning("could not tell the watchers of %s %s", topic, record_id, exc_info=True)

    transaction.on_commit(send)
