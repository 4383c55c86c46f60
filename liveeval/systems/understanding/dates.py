"""Dates: absolute ("5月15日", "15 May"), relative ("后天", "in 3 days"), weekdays, and
check-out days."""

from __future__ import annotations

import datetime as dt
import re

from liveeval.systems.understanding.numbers import EN_NUM, NUM, SMALL_NUM, number_value
from liveeval.systems.understanding.scanner import Found, HitValue, Scanner, words_pattern
from liveeval.systems.understanding.times import WINDOWS

_EN_MONTHS = {
    "jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6,
    "jul": 7, "aug": 8, "sep": 9, "oct": 10, "nov": 11, "dec": 12,
}  # fmt: skip


_EN_WEEKDAYS = {
    "monday": 0, "mon": 0, "tuesday": 1, "tue": 1, "tues": 1, "wednesday": 2, "wed": 2,
    "thursday": 3, "thu": 3, "thur": 3, "thurs": 3, "friday": 4, "fri": 4,
    "saturday": 5, "sunday": 6,
}  # fmt: skip


_ZH_WEEKDAYS = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6, "七": 6}


def resolve_month_day(
    today: dt.date, month: int, day: int, year: int | None = None
) -> dt.date | None:
    """A month and day without a year: this year's, unless that is more than a month past."""
    try:
        if year is not None:
            return dt.date(year, month, day)
        candidate = dt.date(today.year, month, day)
        if candidate < today and (today - candidate).days > 31:
            candidate = dt.date(today.year + 1, month, day)
    except ValueError:
        return None
    return candidate


def resolve_day_of_month(today: dt.date, day: int) -> dt.date | None:
    """The day "3号" names: the next 3rd counting today (this month's, else next month's)."""
    year, month = today.year, today.month
    for _ in range(3):
        try:
            candidate: dt.date | None = dt.date(year, month, day)
        except ValueError:
            candidate = None
        if candidate is not None and candidate >= today:
            return candidate
        year, month = (year + 1, 1) if month == 12 else (year, month + 1)
    return None


def resolve_weekday(today: dt.date, weekday: int, weeks_ahead: int) -> dt.date:
    """0 weeks ahead: the next such day counting today; 1: that day in next Monday's week."""
    if weeks_ahead == 0:
        return today + dt.timedelta(days=(weekday - today.weekday()) % 7)
    monday = today - dt.timedelta(days=today.weekday())
    return monday + dt.timedelta(days=7 * weeks_ahead + weekday)


_CHECK_OUT_BEFORE = re.compile(
    r"(?:到|至|住到|退房|\buntil|\btill|\bto|\bthrough|\bcheck(?:ing)?[- ]?out(?: on)?)\s*$"
)


_CHECK_OUT_AFTER = re.compile(r"^\s*(?:退房|离店|离开)")


_MONTH = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)"


_RELATIVE_DAYS: dict[str, tuple[int, str | None]] = {
    "大后天": (3, None), "后天": (2, None), "明天": (1, None), "明日": (1, None),
    "明早": (1, "早上"), "明晚": (1, "晚上"), "今天": (0, None), "今日": (0, None),
    "今早": (0, "早上"), "今晚": (0, "晚上"), "昨天": (-1, None),
    "the day after tomorrow": (2, None), "day after tomorrow": (2, None),
    "tomorrow": (1, None), "today": (0, None), "tonight": (0, "晚上"), "yesterday": (-1, None),
    # What people type in a hurry.
    "the day after tmrw": (2, None), "day after tmrw": (2, None), "tmrw": (1, None),
    "tmr": (1, None), "tmrrw": (1, None), "2moro": (1, None), "2morrow": (1, None),
    "tomorow": (1, None), "tommorow": (1, None), "tommorrow": (1, None), "tomorro": (1, None),
    "tonite": (0, "晚上"), "tdy": (0, None),
}  # fmt: skip


def date_hits(scanner: Scanner, today: dt.date) -> None:
    def dated(date: dt.date | None, match: re.Match[str], window: str | None = None) -> Found:
        if date is None:
            return None
        before = scanner.text[: match.start()]
        after = scanner.text[match.end() :]
        leaving = _CHECK_OUT_BEFORE.search(before) or _CHECK_OUT_AFTER.search(after)
        found: list[tuple[str, HitValue]] = [("check_out" if leaving else "date", date)]
        if window is not None:
            found.append(("spans", [WINDOWS[window]]))
        return found

    def iso(m: re.Match[str]) -> Found:
        try:
            return dated(dt.date(int(m[1]), int(m[2]), int(m[3])), m)
        except ValueError:
            return None

    def month_day_zh(m: re.Match[str]) -> Found:
        month, day = number_value(m["month"]), number_value(m["day"])
        if month is None or day is None:
            return None
        year = int(m["year"]) if m["year"] else None
        return dated(resolve_month_day(today, month, day, year), m)

    def month_day_en(m: re.Match[str]) -> Found:
        month = _EN_MONTHS[m["m1"] or m["m2"]]
        day = int(m["d1"] or m["d2"])
        year_text = m["y1"] or m["y2"]
        return dated(resolve_month_day(today, month, day, int(year_text) if year_text else None), m)

    def relative_word(m: re.Match[str]) -> Found:
        days, window = _RELATIVE_DAYS[m[0]]
        return dated(today + dt.timedelta(days=days), m, window)

    def days_later(m: re.Match[str]) -> Found:
        count_text = m["a"] or m["b"]
        count = 1 if count_text == "a" else number_value(count_text)
        if count is None:
            return None
        groups = m.groupdict()
        unit = groups.get("u") or groups.get("v") or "天"
        weeks = unit.startswith(("周", "星期", "week"))
        return dated(today + dt.timedelta(days=count * (7 if weeks else 1)), m)

    def weekday_zh(m: re.Match[str]) -> Found:
        weeks = {"下下": 2, "下": 1, "下个": 1}.get(m[1] or "", 0)
        return dated(resolve_weekday(today, _ZH_WEEKDAYS[m[2]], weeks), m)

    def weekday_en(m: re.Match[str]) -> Found:
        weeks = 1 if m[1] == "next" else 0
        return dated(resolve_weekday(today, _EN_WEEKDAYS[m[2]], weeks), m)

    def next_month_day(m: re.Match[str]) -> Found:
        day = number_value(m[1])
        first = (today.replace(day=1) + dt.timedelta(days=32)).replace(day=1)
        if day is None:
            return None
        try:
            return dated(first.replace(day=day), m)
        except ValueError:
            return None

    def slashed(m: re.Match[str]) -> Found:
        return dated(resolve_month_day(today, int(m[1]), int(m[2])), m)

    def day_of_month(m: re.Match[str]) -> Found:
        day = number_value(m[1])
        if day is None or not 1 <= day <= 31:
            return None
        return dated(resolve_day_of_month(today, day), m)

    scanner.take(r"(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})", iso)
    scanner.take(
        rf"(?:(?P<year>\d{{4}})\s*年\s*)?(?P<month>{SMALL_NUM})\s*月\s*(?P<day>{SMALL_NUM})\s*(?:日|号|號)?",
        month_day_zh,
    )
    scanner.take(
        rf"\b(?:(?P<m1>{_MONTH})[a-z]*\.?\s+(?P<d1>\d{{1,2}})(?:st|nd|rd|th)?\b(?:,?\s*(?P<y1>\d{{4}}))?"
        rf"|(?P<d2>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<m2>{_MONTH})[a-z]*\b\.?"
        rf"(?:,?\s*(?P<y2>\d{{4}}))?)",
        month_day_en,
    )
    scanner.take(words_pattern(_RELATIVE_DAYS), relative_word)
    scanner.take(
        rf"过\s*(?P<a>{NUM})\s*天|(?P<b>{NUM})\s*个?\s*(?P<u>天|日|周|星期)\s*(?:之后|以后|后)",
        days_later,
    )
    scanner.take(
        rf"\bin\s+(?P<a>\d+|{EN_NUM}|a)\s+(?P<u>days?|weeks?)\b"
        rf"|\b(?P<b>\d+|{EN_NUM})\s+(?P<v>days?|weeks?)\s+"
        r"(?:from\s+(?:now|today)|later|after\s+today)\b",
        days_later,
    )
    scanner.take(
        r"(下下|下个|下|这个|这|本)?\s*(?:周|星期|礼拜)\s*([一二三四五六日天七])", weekday_zh
    )
    scanner.take(
        r"\b(?:(next|this|coming|this coming|on)\s+)?"
        r"(monday|mon|tuesday|tues|tue|wednesday|wed|thursday|thurs|thur|thu|friday|fri"
        r"|saturday|sunday)\b",
        weekday_en,
    )
    scanner.take(rf"下个?月\s*({SMALL_NUM})\s*(?:号|號|日)", next_month_day)
    scanner.take(r"(?<![\d/.])(1[0-2]|0?[1-9])/([12]\d|3[01]|0?[1-9])(?![\d/])", slashed)
    scanner.take(rf"(?<![\d月第])({SMALL_NUM})\s*(?:号|號|日)(?!\s*[晚天后])", day_of_month)
    scanner.take(
        r"\b(?:on\s+)?the\s+(\d{1,2})(?:st|nd|rd|th)\b(?!\s+(?:one|option|flight|train|hotel))",
        day_of_month,
    )
