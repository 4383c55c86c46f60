"""Closing a person's open sockets the moment their access changes.

Consumers check who may connect in ``connect()``; a socket that is already open would
otherwise outlive a deactivation. Every consumer that mixes in
:class:`ClosedOnRevocation` joins its user's group on connect. When a user is deactivated,
deleted, loses or gains a role, changes their password, loses or gains staff or superuser
status, or signs out, :func:`revoke` tells that group, and each of the user's sockets closes
with code 4403. A page that still may connect reconnects and passes
``connect()``'s checks again; one that may not stays closed.
"""

from __future__ import annotations

from typing import Any

from asgiref.sync import async_to_sync
from channels.generic.websocket import AsyncWebsocketConsumer
from channels.layers import get_channel_layer
from django.contrib.auth import get_user_model
from django.contrib.auth.signals import user_logged_out
from django.db import transaction
from django.db.models.signals import m2m_changed, post_delete, post_save, pre_save

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

    async def layer_resubscribed(self, event: dict[str, Any]) -> None:
        """The channel layer lost Redis and subscribed again (`evalsite.channel_layer`): what
        was published meanwhile never reached this socket. A consumer whose page cannot wait
        for the next push sends its state again here; by default nothing is done."""


# The fields whose change ends a user's open sockets, beside ``is_active``.
_WATCHED = ("password", "is_staff", "is_superuser")
_BEFORE = "_socket_revocation_before"


def _before_save(sender: Any, instance: Any, update_fields: Any = None, **kwargs: Any) -> None:
    setattr(instance, _BEFORE, None)
    if instance.pk is None:
        return
    if update_fields is not None and not set(update_fields) & set(_WATCHED):
        return  # such as the last_login of every sign-in: no query
    setattr(instance, _BEFORE, sender.objects.filter(pk=instance.pk).values(*_WATCHED).first())


def _saved(sender: Any, instance: Any, created: bool, **kwargs: Any) -> None:
    if created:
        return
    before = getattr(instance, _BEFORE, None)
    changed = before is not None and any(
        before[name] != getattr(instance, name) for name in _WATCHED
    )
    if not instance.is_active or changed:
        revoke(instance.pk)


def _logged_out(sender: Any, request: Any, user: Any, **kwargs: Any) -> None:
    if user is not None and user.pk is not None:
        revoke(user.pk)


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
    pre_save.connect(_before_save, sender=user_model, dispatch_uid="socket_revocation_before")
    post_save.connect(_saved, sender=user_model, dispatch_uid="socket_revocation_saved")
    user_logged_out.connect(_logged_out, dispatch_uid="socket_revocation_logged_out")
    post_delete.connect(_deleted, sender=user_model, dispatch_uid="socket_revocation_deleted")
    m2m_changed.connect(
        _roles_changed, sender=user_model.groups.through, dispatch_uid="socket_revocation_roles"
    )
