"""The ``http`` kind: a system run by an outside team behind an HTTP endpoint.

For every user message EvalSite sends ``POST endpoint`` with::

    {"session": 12, "token": "...", "booking_api": "https://evalsite.example/api/booking/",
     "turn": 3, "lang": "zh", "today": "2026-12-01", "message": "好的",
     "history": [{"role": "user", "text": "..."}, {"role": "system", "text": "..."}]}

and the system answers ``{"reply": "...", "end": false}``. ``history`` holds the
dialogue before this message; ``turn`` counts the utterances of both sides,
this message included. The system books through the booking API with ``token``,
so its bookings count for the task (``docs/system-protocol.md``).

Whatever goes wrong on the team's side (a timeout, a refused connection, an
HTTP error, a body that is too large or is not the JSON above) becomes a
:class:`SystemUnavailable` whose reason names the cause for the log; the judge
only reads that the system did not answer.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import httpx
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from evalsite.endpoint_url import EndpointURLError, endpoint_url
from liveeval.systems.base import DEFAULT_REPLY_TIMEOUT, Reply, SystemContext, SystemUnavailable
from liveeval.systems.failures import nested_too_deeply

DEFAULT_MAX_BYTES = 64 * 1024
DEFAULT_BASE_URL = "http://127.0.0.1:8000"
CONFIG_KEYS = ("endpoint", "timeout", "max_bytes")


class HttpConfigError(ValueError):
    """An ``http`` system configuration that cannot work."""


@dataclass(frozen=True)
class HttpConfig:
    endpoint: str
    timeout: float = DEFAULT_REPLY_TIMEOUT
    max_bytes: int = DEFAULT_MAX_BYTES

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> HttpConfig:
        unknown = sorted(set(config) - set(CONFIG_KEYS))
        if unknown:
            raise HttpConfigError(
                f"unknown setting(s) {', '.join(unknown)}; known: {', '.join(CONFIG_KEYS)}"
            )
        try:
            endpoint = endpoint_url(config.get("endpoint"))
        except EndpointURLError as error:
            raise HttpConfigError(
                f"endpoint must be an http(s) URL, not {config.get('endpoint')!r}: {error}"
            ) from None
        timeout = config.get("timeout", DEFAULT_REPLY_TIMEOUT)
        if isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout <= 0:
            raise HttpConfigError(f"timeout must be a number of seconds above 0, not {timeout!r}")
        max_bytes = config.get("max_bytes", DEFAULT_MAX_BYTES)
        if isinstance(max_bytes, bool) or not isinstance(max_bytes, int) or max_bytes < 1:
            raise HttpConfigError(f"max_bytes must be a whole number above 0, not {max_bytes!r}")
        return cls(endpoint=str(endpoint), timeout=float(timeout), max_bytes=max_bytes)


def booking_api_url() -> str:
    """The absolute URL of the booking API, as outside systems reach this site.

    ``EVALSITE_BASE_URL`` is the site's public address (scheme, host and any path
    prefix); the API's own path comes from the URL configuration.
    """
    base = os.environ.get("EVALSITE_BASE_URL", DEFAULT_BASE_URL).rstrip("/")
    return base + reverse("booking_api:index")


def payload(context: SystemContext, user_text: str) -> dict[str, Any]:
    """What the system receives for one user message."""
    history = list(context.history)
    # The conversation stores the user's message before asking the system, so the
    # stored history ends with it; the protocol sends it once, as ``message``.
    if history and history[-1] == {"role": "user", "text": user_text}:
        history = history[:-1]
    return {
        "session": context.session_id,
        "token": context.token,
        "booking_api": booking_api_url(),
        "turn": context.turn,
        "lang": context.lang,
        "today": context.today.isoformat(),
        "message": user_text,
        "history": history,
    }


def unavailable(reason: str) -> SystemUnavailable:
    return SystemUnavailable(reason, _("The system failed to answer."))


def read_reply(status: int, body: bytes, endpoint: str) -> Reply:
    """The system's reply from its HTTP answer, or SystemUnavailable saying what is wrong."""
    if status >= 300:
        raise unavailable(f"HTTP {status} from {endpoint}")
    try:
        answer = json.loads(body)
    except RecursionError:
        raise nested_too_deeply(endpoint) from None
    except (ValueError, UnicodeDecodeError):
        raise unavailable(f"not JSON: {endpoint} answered with something else") from None
    if not isinstance(answer, dict):
        raise unavailable(f"{endpoint} answered with JSON that is not an object")
    reply = answer.get("reply")
    if not isinstance(reply, str):
        raise unavailable(f"{endpoint} answered without a 'reply' string")
    if not reply.strip():
        raise unavailable(f"{endpoint} answered with an empty 'reply'")
    end = answer.get("end", False)
    if not isinstance(end, bool):
        raise unavailable(f"{endpoint} answered with an 'end' that is not true or false")
    return Reply(reply, end)


def connect_failure(endpoint: str, error: httpx.ConnectError) -> str:
    """The cause of a failed connection, its first words plain English: refused, or why not."""
    cause: BaseException | None = error
    while cause is not None:
        if isinstance(cause, ConnectionRefusedError) or "refused" in str(cause).lower():
            return f"connection refused by {endpoint}"
        cause = cause.__cause__ or cause.__context__
    return f"cannot connect to {endpoint}: {error or error.__class__.__name__}"


class HttpSystem:
    """Asks the team's endpoint; the configuration is checked at each message, never fatally."""

    def __init__(self, settings: Mapping[str, Any]) -> None:
        self.settings = settings

    async def respond(self, context: SystemContext, user_text: str) -> Reply:
        try:
            config = HttpConfig.from_config(self.settings)
        except HttpConfigError as error:
            raise unavailable(f"the system's configuration is invalid: {error}") from None
        try:
            async with asyncio.timeout(config.timeout):
                status, body = await self._post(config, payload(context, user_text))
        except (TimeoutError, httpx.TimeoutException):
            raise SystemUnavailable(
                f"timed out after {config.timeout:g} s waiting for {config.endpoint}",
                _("The system did not answer in time."),
            ) from None
        except httpx.ConnectError as error:
            raise SystemUnavailable(connect_failure(config.endpoint, error)) from None
        except httpx.HTTPError as error:
            raise SystemUnavailable(
                f"cannot reach {config.endpoint}: {error.__class__.__name__}: {error}"
            ) from None
        return read_reply(status, body, config.endpoint)

    @staticmethod
    async def _post(config: HttpConfig, message: dict[str, Any]) -> tuple[int, bytes]:
        """POST the message and read at most ``max_bytes`` of the answer."""
        async with (
            httpx.AsyncClient(timeout=config.timeout) as client,
            client.stream("POST", config.endpoint, json=message) as response,
        ):
            body = bytearray()
            async for chunk in response.aiter_bytes():
                body.extend(chunk)
                if len(body) > config.max_bytes:
                    raise unavailable(
                        f"reply too large: {config.endpoint} sent over {config.max_bytes} bytes"
                    )
            return response.status_code, bytes(body)


def http_adapter(config: dict[str, Any]) -> HttpSystem:
    return HttpSystem(config)
