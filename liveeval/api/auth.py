"""Who is calling the booking API: the conversation whose secret token the request carries.

Guessing tokens is throttled: after ``BOOKING_API_BAD_TOKENS_PER_MINUTE`` calls with a token
no conversation holds, an address is answered 429 (with ``Retry-After``) for the rest of
the minute, before any token it sends is looked up.
"""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest

from evalsite import rate_limits
from evalsite.sign_in import client_address
from liveeval.api.errors import ApiError
from liveeval.booking.world import SessionWorld, world_for_token
from liveeval.models import ChatSession


def token_of(request: HttpRequest) -> str:
    authorization = request.headers.get("Authorization", "")
    scheme, _, credentials = authorization.partition(" ")
    if scheme.lower() == "bearer" and credentials.strip():
        return credentials.strip()
    return request.headers.get("X-Session-Token", "").strip()


BAD_TOKEN_SCOPE = "booking-api-bad-token"


def authenticate(request: HttpRequest) -> SessionWorld:
    address = client_address(request)
    limit = settings.BOOKING_API_BAD_TOKENS_PER_MINUTE
    wait = rate_limits.over(BAD_TOKEN_SCOPE, address, limit, 60)
    if wait is not None:
        raise ApiError(
            "too_many_requests",
            f"more than {limit} calls a minute from this address with a token no conversation "
            f"holds; try again in {wait} s",
            retry_after=wait,
        )
    token = token_of(request)
    if not token:
        raise ApiError(
            "bad_token",
            "send the conversation's token as 'Authorization: Bearer <token>' "
            "or 'X-Session-Token: <token>'",
        )
    world = world_for_token(token)
    if world is None:
        rate_limits.hit(BAD_TOKEN_SCOPE, address, limit, 60)
        raise ApiError("bad_token", "no conversation holds this token")
    session = world.session
    if session.status != ChatSession.Status.OPEN:
        state = "has ended" if session.status == ChatSession.Status.ENDED else "has not started"
        raise ApiError("session_not_open", f"conversation {session.pk} {state}")
    campaign = session.campaign
    if campaign is not None and campaign.is_archived:
        # Archiving hides a campaign and takes no new work; its open conversations stay as
        # they are, to be resumed if it is restored, but their systems cannot book meanwhile.
        raise ApiError(
            "campaign_archived", f"the campaign of conversation {session.pk} is archived"
        )
    return world
