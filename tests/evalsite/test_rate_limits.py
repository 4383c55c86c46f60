"""The rate limiter judges a sliding window: no twice-the-limit burst around a window's edge."""

from __future__ import annotations

import pytest
from django.core.cache import cache

from evalsite import rate_limits


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    now = [6000.0]
    monkeypatch.setattr(rate_limits.time, "time", lambda: now[0])
    cache.clear()
    return now


def hits(count: int) -> list[bool]:
    return [rate_limits.hit("test", "who", 10, 60) is None for _ in range(count)]


def test_the_limit_holds_within_a_window(clock: list[float]) -> None:
    assert hits(12) == [True] * 10 + [False] * 2


def test_the_edge_of_a_window_lets_no_second_burst_through(clock: list[float]) -> None:
    clock[0] = 6000.0 + 59.9  # the end of one window
    assert hits(10) == [True] * 10
    clock[0] = 6000.0 + 60.1  # just into the next: a fixed window would allow 10 more
    assert hits(3) == [False, False, False]


def test_the_last_window_weighs_less_as_the_sliding_one_moves_on(clock: list[float]) -> None:
    clock[0] = 6000.0 + 30
    assert hits(10) == [True] * 10
    clock[0] = 6000.0 + 60 + 30  # half of the last window is still covered: 5 of its 10
    allowed = hits(10)
    assert allowed.count(True) == 5  # 5 + 5 = 10 ≤ 10 < 5 + 6
    clock[0] = 6000.0 + 180  # two windows on, nothing is left of it
    assert hits(10) == [True] * 10


def test_over_and_give_back_see_the_same_estimate(clock: list[float]) -> None:
    clock[0] = 6000.0 + 59.0
    hits(10)
    clock[0] = 6000.0 + 61.0  # the last window still weighs 59/60 of its 10
    assert rate_limits.over("test", "who", 10, 60) is None
    assert hits(1) == [False]  # 1 + 9.8 > 10
    assert rate_limits.over("test", "who", 10, 60) is not None
    rate_limits.give_back("test", "who", 60)
    assert rate_limits.over("test", "who", 10, 60) is None
