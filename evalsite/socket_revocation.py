"""Closing a person's open sockets the moment their access changes.

Consumers check who may connect in ``connect()``; a socket that is already open would
otherwise outlive a deactivation. Every consumer that mixes in
:class:`ClosedOnRevocation` joins its user's group on connect. When a user is deactivated,
deleted, or loses or gains a role, :func:`revoke` tells that group, and each of the user's
sockets closes with code 4403. A page that still may connect reconnects and passes
``connect()``'s checks again; one that may not stays closed.
"""

from __future__ import annotations

from typing import Any

from asgiref.sync import async_to_sync
from channels.generic.websocket import AsyncWebsocketConsumer
from channels.layers import get_channel_layer
from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models.signals import m2m_changed, post_delete, post_save

REVOKED_CODE = 4403


def user_group(user_id: int) -> str:
    return f"user-{user_id}"


def revoke(user_id: int) -> None:
    """Close every open socket of the user, once the current transaction commits."""

    def send() -> None:
        layer = get_channel_layer()
        if layer is not None:
            async_to_sync(layer.group_send)(user_group(user_id), {"type": "user.revoked"})

    transaction.on_commit(send)


class ClosedOnRevocation(AsyncWebsocketConsumer):
    """A consumer whose sockets close when their user's access changes."""

    groups: list[str] = []

    async def watch_user(self) -> None:
        """Join the user's group; call after the connect checks passed."""
        user = self.scope.get("user")
        if user is None or not user.is_authenticated:
            return
        group = user_group(user.pk)
        await self.channel_layer.group_add(group, self.channel_name)
        # AsyncWebsocketConsumer leaves every group of ``groups`` on disconnect.
        self.groups = [*self.groups, group]

    async def user_revoked(self, event: dict[str, Any]) -> None:
        await self.close(code=REVOKED_CODE)


def _saved(sender: Any, instance: Any, created: bool, **kwargs: Any) -> None:
    if not created and not instance.is_active:
        revoke(instance.pk)


def _deleted(sender: Any, instance: Any, **kwargs: Any) -> None:
    revoke(instance.pk)


_CLEARED_MEMBERS = "_socket_revocation_cleared_members"


def _roles_changed(sender: Any, instance: Any, action: str, reverse: bool, **kwargs: Any) -> None:
    if reverse and action == "pre_clear":
        # A group's ``clear()`` names no one afterwards: note its members while they are there.
        members = instance.user_set.values_list("pk", flat=True)
        setattr(instance, _CLEARED_MEMBERS, list(members))
        return
    if action not in {"post_add", "post_remove", "post_clear"}:
        return
    user_model = get_user_model()
    if not reverse:
        revoke(instance.pk)
        return
    # A group's member list changed from the group's side: the users are the ``pk_set``, or,
    # for ``clear()``, the members noted before it.
    if action == "post_clear":
        users = getattr(instance, _CLEARED_MEMBERS, [])
        setattr(instance, _CLEARED_MEMBERS, [])
    else:
        users = kwargs.get("pk_set") or []
    for pk in users:
        if user_model.objects.filter(pk=pk).exists():
            revoke(pk)


def connect_signals() -> None:
    user_model = get_user_model()
    post_save.connect(_saved, sender=user_model, dispatch_uid="socket_revocation_saved")
    post_delete.connect(_deleted, sender=user_model, dispatch_uid="socket_revocation_deleted")
    m2m_changed.connect(
        _roles_changed, sender=user_model.groups.through, dispatch_uid="socket_revocation_roles"
    )
