"""Counting attempts in sliding windows, in the shared cache: the one rate limiter.

A fixed window let twice the limit through around its edge (the limit just before it ends,
the limit again just after). Each count is kept per fixed window, but a call is judged on the
estimate of a sliding one: this window's count plus the last window's, weighted by the share
of the last window that the sliding one still covers.

The booking API limits calls per conversation token; sign-in limits failed attempts per
account and per address, and password-reset mails per address. With ``REDIS_URL`` set the
cache is Redis, so every server process counts against the same limit; otherwise each
process counts on its own.
"""

from __future__ import annotations

import hashlib
import time

from django.core.cache import cache


def _key(scope: str, who: str, window: int, now: float) -> str:
    digest = hashlib.sha256(who.encode("utf-8", "surrogatepass")).hexdigest()[:32]
    return f"rate:{scope}:{digest}:{int(now // window)}"


def _earlier(scope: str, who: str, window: int, now: float) -> float:
    """The last window's count, weighted by the share of it a sliding window still covers."""
    count = int(cache.get(_key(scope, who, window, now - window), 0))
    return count * (1 - (now % window) / window)


def hit(scope: str, who: str, limit: int, window: int) -> int | None:
    """Count one attempt; the seconds to wait when it is beyond ``limit`` per ``window`` s."""
    now = time.time()
    key = _key(scope, who, window, now)
    # Kept for two windows: the next one weighs it.
    cache.add(key, 0, timeout=2 * window + 1)
    try:
        count = cache.incr(key)
    except ValueError:  # expired between add and incr
        cache.set(key, 1, timeout=2 * window + 1)
        count = 1
    if count + _earlier(scope, who, window, now) > limit:
        return max(1, int(window - now % window))
    return None


def give_back(scope: str, who: str, window: int) -> None:
    """Take back one attempt counted by `hit`, such as a sign-in that turned out right."""
    key = _key(scope, who, window, time.time())
    try:
        if int(cache.get(key, 0)) > 0:
            cache.decr(key)
    except ValueError:  # expired meanwhile: nothing left to take back
        pass


def over(scope: str, who: str, limit: int, window: int) -> int | None:
    """Whether ``who`` is already beyond ``limit``, without counting; the seconds to wait."""
    now = time.time()
    count = int(cache.get(_key(scope, who, window, now), 0))
    if count + _earlier(scope, who, window, now) >= limit:
        return max(1, int(window - now % window))
    return None
