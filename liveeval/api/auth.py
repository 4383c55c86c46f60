"""Who is calling the booking API: the conversation whose secret token the request carries."""

from __future__ import annotations

from django.http import HttpRequest

from liveeval.api.errors import ApiError
from liveeval.booking.world import SessionWorld, world_for_token
from liveeval.models import ChatSession


def token_of(request: HttpRequest) -> str:
    authorization = request.headers.get("Authorization", "")
    scheme, _, credentials = authorization.partition(" ")
    if scheme.lower() == "bearer" and credentials.strip():
        return credentials.strip()
    return request.headers.get("X-Session-Token", "").strip()


def authenticate(request: HttpRequest) -> SessionWorld:
    token = token_of(request)
    if not token:
        raise ApiError(
            "bad_token",
            "send the conversation's token as 'Authorization: Bearer <token>' "
            "or 'X-Session-Token: <token>'",
        )
    world = world_for_token(token)
    if world is None:
        raise ApiError("bad_token", "no conversation holds this token")
    session = world.session
    if session.status != ChatSession.Status.OPEN:
        state = "has ended" if session.status == ChatSession.Status.ENDED else "has not started"
        raise ApiError("session_not_open", f"conversation {session.pk} {state}")
    return world
