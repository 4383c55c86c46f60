"""The security headers of every response, whether ``DEBUG`` is on or not.

- ``Content-Security-Policy``: scripts only from this site, never inline (templates keep
  their behaviour in ``static/js``); no plugins, no framing, forms post only here; sockets
  only to this site's own host (``ws://`` and ``wss://`` of the host the request named, which
  ``ALLOWED_HOSTS`` has already checked). Styles only from this site's stylesheet, never
  inline: no style block and no ``style`` attribute in any template (tests hold this);
  bars and charts size themselves with SVG attributes and colour themselves by class.
- ``Permissions-Policy``: no camera, microphone, location, payment or other device access.
- ``Cache-Control: private, no-store`` on every page a signed-in person gets, so that a
  shared computer's back button or a proxy never shows one person's page to another.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from asgiref.sync import iscoroutinefunction
from django.core.exceptions import DisallowedHost
from django.http import HttpRequest, HttpResponse
from django.utils.cache import patch_cache_control
from django.utils.decorators import sync_and_async_middleware


def content_security_policy(host: str | None) -> str:
    """The policy for a response to a request for ``host`` (None: no socket is allowed)."""
    sockets = f" ws://{host} wss://{host}" if host else ""
    return "; ".join(
        [
            "default-src 'self'",
            "script-src 'self'",
            "style-src 'self'",
            "img-src 'self' data:",
            "font-src 'self'",
            f"connect-src 'self'{sockets}",
            "object-src 'none'",
            "base-uri 'self'",
            "form-action 'self'",
            "frame-ancestors 'none'",
        ]
    )


def _host(request: HttpRequest) -> str | None:
    try:
        return request.get_host()
    except DisallowedHost:
        return None


PERMISSIONS_POLICY = ", ".join(
    f"{feature}=()"
    for feature in (
        "accelerometer",
        "camera",
        "geolocation",
        "gyroscope",
        "magnetometer",
        "microphone",
        "payment",
        "usb",
        "interest-cohort",
    )
)


def _add_headers(response: HttpResponse, signed_in: bool, host: str | None) -> HttpResponse:
    response.setdefault("Content-Security-Policy", content_security_policy(host))
    response.setdefault("Permissions-Policy", PERMISSIONS_POLICY)
    if signed_in:
        patch_cache_control(response, private=True, no_store=True)
    return response


@sync_and_async_middleware
def security_headers(get_response: Callable[[HttpRequest], Any]) -> Callable[[HttpRequest], Any]:
    """Adds the headers above to every response, served over WSGI or ASGI."""
    if iscoroutinefunction(get_response):

        async def async_middleware(request: HttpRequest) -> HttpResponse:
            response = await get_response(request)
            user = await request.auser() if hasattr(request, "auser") else None
            return _add_headers(response, bool(user and user.is_authenticated), _host(request))

        return async_middleware

    def middleware(request: HttpRequest) -> HttpResponse:
        response = get_response(request)
        user = getattr(request, "user", None)
        return _add_headers(response, bool(user and user.is_authenticated), _host(request))

    return middleware
