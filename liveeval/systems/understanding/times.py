"""Departure times: clock times, limits ("10点以前", "after 6pm") and windows ("上午",
"evening"), as spans of minutes after midnight."""

from __future__ import annotations

import re
from collections.abc import Iterable

from liveeval.systems.understanding.numbers import number_value
from liveeval.systems.understanding.scanner import Found, Scanner, words_pattern

Span = tuple[int, int]
"""Departure minutes after midnight, both ends inclusive."""


END_OF_DAY = 23 * 60 + 59
"""24:00 is stored as 23:59 because a departure time cannot be 24:00."""


ANY_TIME: list[Span] = [(0, END_OF_DAY)]


WINDOWS: dict[str, Span] = {
    "凌晨": (0, 6 * 60),
    "早上": (6 * 60, 9 * 60),
    "上午": (6 * 60, 12 * 60),
    "中午": (11 * 60, 13 * 60),
    "下午": (12 * 60, 18 * 60),
    "傍晚": (17 * 60, 19 * 60),
    "晚上": (18 * 60, END_OF_DAY),
}
"""The published time-window table; synonyms below map onto these seven windows."""


WINDOW_SYNONYMS: dict[str, str] = {
    "早晨": "早上",
    "清晨": "早上",
    "一早": "早上",
    "午间": "中午",
    "午后": "下午",
    "晚间": "晚上",
    "夜里": "晚上",
    "夜间": "晚上",
    "深夜": "晚上",
    "early morning": "早上",
    "morning": "上午",
    "noon": "中午",
    "midday": "中午",
    "lunchtime": "中午",
    "afternoon": "下午",
    "evening": "晚上",
    "night": "晚上",
}


_AFTERNOON_WINDOWS = {"下午", "傍晚", "晚上"}


def merge_spans(spans: Iterable[Span]) -> list[Span]:
    """The union of time spans, as sorted disjoint spans."""
    merged: list[Span] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def combine_spans(spans: Iterable[Span]) -> list[Span]:
    """The spans of one request: "after 9 but before noon" is the window 09:00–12:00.

    A lower and an upper limit together narrow each other down; anything else ("上午或者晚上",
    "before 8 or after 8pm") is a union.
    """
    given = list(spans)
    after = [start for start, end in given if end == END_OF_DAY and start > 0]
    before = [end for start, end in given if start == 0 and end < END_OF_DAY]
    if after and before and len(after) + len(before) == len(given):
        start, end = max(after), min(before)
        if start < end:
            return [(start, end)]
    return merge_spans(given)


def clock_minutes(hour: int, minute: int, window: str | None, meridiem: str | None) -> int | None:
    """Minutes after midnight for a clock time as people say it.

    A window or am/pm decides the half of the day (下午3点 is 15:00, 中午1点 is 13:00). A bare
    hour from 1 to 5 is read as the afternoon, since nobody asks for a 3 a.m. departure
    without saying so (凌晨3点); other bare hours are read on the 24-hour clock.
    """
    if not 0 <= minute < 60:
        return None
    if meridiem is not None:
        if meridiem.startswith("p") and hour < 12:
            hour += 12
        elif meridiem.startswith("a") and hour == 12:
            hour = 0
    elif (
        (window in _AFTERNOON_WINDOWS and hour < 12)
        or (window == "中午" and hour < 6)
        or (window is None and 1 <= hour <= 5)
    ):
        hour += 12
    if window == "晚上" and hour == 12:
        hour = 24
    minutes = hour * 60 + minute
    if minutes == 24 * 60:
        return END_OF_DAY
    return minutes if minutes < 24 * 60 else None


def _limit_span(minutes: int, limit: str) -> Span:
    if limit == "before":
        return (0, minutes)
    if limit == "after":
        return (minutes, END_OF_DAY)
    return (max(0, minutes - 60), min(END_OF_DAY, minutes + 60))


_WIN_ZH = "凌晨|早上|早晨|清晨|上午|中午|午间|下午|午后|傍晚|晚上|晚间|夜里|夜间|深夜"


_MINUTE_WORDS = {"半": 30, "一刻": 15, "三刻": 45}


def _zh_clock(n: int, hour_required_mark: bool = True) -> str:
    mark = r"(?:点钟|点|點|时|:)" if hour_required_mark else r"(?:点钟|点|點|时|:)?"
    # Without a window, "一点" after 便宜/早/晚... is "a little", not one o'clock.
    return (
        rf"(?:(?P<w{n}>{_WIN_ZH})\s*|(?<![便宜快慢多少大小好高低贵近远差\d])(?<!(?<!最)[早晚]))"
        rf"(?P<h{n}>\d{{1,2}}|[零一二两三四五六七八九十]{{1,3}})\s*{mark}\s*"
        rf"(?P<m{n}>半|一刻|三刻|\d{{1,2}}(?!\s*[号日月天晚])|[零一二三四五六七八九十]{{1,3}}(?=分))?\s*分?"
    )


def _zh_minutes(m: re.Match[str], n: int, fallback_window: str | None = None) -> int | None:
    hour = number_value(m[f"h{n}"])
    minute_text = m[f"m{n}"]
    minute = 0
    if minute_text:
        minute = _MINUTE_WORDS.get(minute_text, number_value(minute_text) or 0)
    if hour is None:
        return None
    window = m[f"w{n}"] or fallback_window
    return clock_minutes(hour, minute, WINDOW_SYNONYMS.get(window or "", window), None)


_EN_LIMITS = {
    "no earlier than": "after", "not earlier than": "after", "not before": "after",
    "later than": "after", "after": "after", "from": "after", "leaving after": "after",
    "no later than": "before", "not later than": "before", "not after": "before",
    "earlier than": "before", "before": "before", "by": "before",
    "around": "around", "about": "around", "at": "around", "approximately": "around",
    "roughly": "around",
}  # fmt: skip


_ZH_LIMITS = {
    "以前": "before", "之前": "before", "前": "before", "以后": "after", "之后": "after",
    "以後": "after", "后": "after", "左右": "around", "前后": "around",
    "不早于": "after", "晚于": "after", "最早": "after", "不要早于": "after", "不能早于": "after",
    "不晚于": "before", "早于": "before", "最晚": "before", "不要晚于": "before",
    "不能晚于": "before",
}  # fmt: skip


_NOT_A_TIME = r"(?!\s*(?:stars?|nights?|days?|yuan|rmb|kuai|people|persons?|tickets?|rooms?|%))"


def _en_clock(n: int) -> str:
    return (
        rf"(?:(?P<h{n}>\d{{1,2}})(?::(?P<m{n}>\d{{2}}))?\s*(?P<a{n}>a\.?m\.?|p\.?m\.?)?"
        rf"(?:\s*o'?clock)?|(?P<x{n}>noon|midday|midnight))(?![\w:]){_NOT_A_TIME}"
    )


def _en_minutes(m: re.Match[str], n: int, meridiem: str | None = None) -> int | None:
    word = m[f"x{n}"]
    if word:
        return END_OF_DAY if word == "midnight" else 12 * 60
    minute_text = m[f"m{n}"]
    return clock_minutes(
        int(m[f"h{n}"]), int(minute_text) if minute_text else 0, None, m[f"a{n}"] or meridiem
    )


def time_hits(scanner: Scanner) -> None:
    def zh_range(m: re.Match[str]) -> Found:
        second = _zh_minutes(m, 2, m["w1"])
        first = _zh_minutes(m, 1)
        if m["w1"] is None and m["w2"]:
            # "9到11点" vs "下午1到3点": the first hour shares the window when that keeps the order.
            shared = _zh_minutes(m, 1, m["w2"])
            if shared is not None and second is not None and shared <= second:
                first = shared
        if first is None or second is None or second < first:
            return None
        return [("spans", [(first, second)])]

    def zh_limit(m: re.Match[str]) -> Found:
        minutes = _zh_minutes(m, 1)
        if minutes is None:
            return None
        limit = _ZH_LIMITS.get(m["pre"] or "") or _ZH_LIMITS.get(m["lim"] or "", "around")
        return [("spans", [_limit_span(minutes, limit)])]

    def en_range(m: re.Match[str], explicit: bool) -> Found:
        if not explicit and not any(m[f"{key}{n}"] for key in "amx" for n in (1, 2)):
            return None
        second = _en_minutes(m, 2)
        first = _en_minutes(m, 1)
        if m["h1"] and not m["a1"] and m["a2"]:
            # "9-11am": the first hour shares the second's am/pm when that keeps the order.
            shared = _en_minutes(m, 1, m["a2"])
            if shared is not None and second is not None and shared <= second:
                first = shared
        if first is None or second is None or second < first:
            return None
        return [("spans", [(first, second)])]

    def en_limit(m: re.Match[str]) -> Found:
        minutes = _en_minutes(m, 1)
        if minutes is None:
            return None
        return [("spans", [_limit_span(minutes, _EN_LIMITS[m["pre"]])])]

    def en_clock(m: re.Match[str]) -> Found:
        if not (m["m1"] or m["a1"]):
            return None
        minutes = _en_minutes(m, 1)
        return None if minutes is None else [("spans", [_limit_span(minutes, "around")])]

    scanner.take(
        r"\bbetween\s+" + _en_clock(1) + r"\s+and\s+" + _en_clock(2),
        lambda m: en_range(m, explicit=True),
    )
    scanner.take(
        r"\bfrom\s+" + _en_clock(1) + r"\s+(?:to|till|until)\s+" + _en_clock(2),
        lambda m: en_range(m, explicit=True),
    )
    scanner.take(
        r"\b" + _en_clock(1) + r"\s*(?:-|–|to)\s*" + _en_clock(2),
        lambda m: en_range(m, explicit=False),
    )
    scanner.take(rf"\b(?P<pre>{words_pattern(_EN_LIMITS)})\s+" + _en_clock(1), en_limit)
    scanner.take(
        _zh_clock(1, hour_required_mark=False)
        + r"\s*(?:到|至|-|~|—)\s*"
        + _zh_clock(2)
        + r"\s*(?:之间|中间)?",
        zh_range,
    )
    scanner.take(
        r"(?:(?P<pre>不要早于|不能早于|不要晚于|不能晚于|不早于|不晚于|早于|晚于|最早|最晚)\s*)?"
        + _zh_clock(1)
        + r"\s*(?P<lim>以前|之前|以后|之后|以後|前后|左右|前|后|出发|起飞|发车)?",
        zh_limit,
    )
    scanner.take(r"\b" + _en_clock(1), en_clock)


_ANY_TIME = (
    r"几点都(?:可以|行|好)|什么时(?:候|间)都(?:可以|行)|时间(?:上)?(?:都)?(?:不限|随意|随便|都行|都可以|无所谓)"
    r"|不限时间|全天|\bany ?time\b|\bwhenever\b|\btime doesn'?t matter\b|\bany departure time\b"
)


# "per night" and "2 nights" are about a hotel stay, not an evening departure.
_WINDOW_PATTERN = (
    words_pattern([*WINDOWS, *(word for word in WINDOW_SYNONYMS if word != "night")])
    + r"|(?<!per )(?<!each )(?<!every )(?<!a )\bnight\b(?!s)"
)


def window_hits(scanner: Scanner) -> None:
    def window(m: re.Match[str]) -> Found:
        name = WINDOW_SYNONYMS.get(m[0], m[0])
        return [("spans", [WINDOWS[name]])]

    scanner.take(_ANY_TIME, lambda m: [("any_time", True)])
    scanner.take(_WINDOW_PATTERN, window)
