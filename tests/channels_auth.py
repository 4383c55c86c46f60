"""Log a user in for WebSocket tests, the way a browser would: with a session cookie."""

from __future__ import annotations

from channels.db import database_sync_to_async
from django.conf import settings
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
from django.contrib.auth.models import User
from django.contrib.sessions.backends.db import SessionStore


@database_sync_to_async
def _session_key(user: User) -> str:
    session = SessionStore()
    session[SESSION_KEY] = str(user.pk)
    session[BACKEND_SESSION_KEY] = settings.AUTHENTICATION_BACKENDS[0]
    session[HASH_SESSION_KEY] = user.get_session_auth_hash()
    session.create()
    assert session.session_key is not None
    return session.session_key


async def session_headers(
    user: User, *, origin: bytes = b"http://localhost"
) -> list[tuple[bytes, bytes]]:
    key = await _session_key(user)
    return [
        (b"origin", origin),
        (b"host", b"localhost"),
        (b"cookie", f"{settings.SESSION_COOKIE_NAME}={key}".encode()),
    ]
