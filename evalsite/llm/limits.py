"""How hard an endpoint is pressed: the concurrency limit per endpoint, and the backoff.

A 429, a 5xx, a timeout or a lost connection is retried with exponential backoff
(``backoff``, doubled each time, at most ``max_wait`` seconds), waiting what the server's
``Retry-After`` asks for instead when it sends one.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import email.utils
import threading
import weakref
from collections.abc import Mapping

from evalsite.llm.config import LLMConfig

_limits: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[str, asyncio.Semaphore]] = (
    weakref.WeakKeyDictionary()
)
_limits_lock = threading.Lock()


def endpoint_limit(base_url: str, size: int) -> asyncio.Semaphore:
    """The semaphore shared by every client of ``base_url`` in the running event loop.

    The first client to ask for it sets its size. A semaphore belongs to one event
    loop, so each loop (a server's, or the one a management command runs) has its own.
    """
    loop = asyncio.get_running_loop()
    with _limits_lock:
        per_loop = _limits.setdefault(loop, {})
        if base_url not in per_loop:
            per_loop[base_url] = asyncio.Semaphore(size)
        return per_loop[base_url]


def retry_after(headers: Mapping[str, str], now: dt.datetime | None = None) -> float | None:
    """Seconds to wait from ``Retry-After`` (seconds or an HTTP date) or ``retry-after-ms``."""
    millis = headers.get("retry-after-ms")
    if millis is not None:
        try:
            return max(0.0, float(millis) / 1000)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=dt.UTC)
    return max(0.0, (when - (now or dt.datetime.now(dt.UTC))).total_seconds())


def wait_before(config: LLMConfig, attempt: int, error: Exception) -> float:
    """Seconds to wait after failed attempt number ``attempt`` (1 for the first)."""
    import openai  # imported by the client before any call is made

    asked = None
    if isinstance(error, openai.APIStatusError):
        asked = retry_after(error.response.headers)
    wait = asked if asked is not None else config.backoff * 2 ** (attempt - 1)
    return min(wait, config.max_wait)
