"""Reading booking requests in Chinese and English.

Everything here is a pure function of the text (and of "today" for dates), so that the
reference and baseline systems read a message in exactly the same way and every rule can
be tested case by case. ``docs/booking.md`` publishes the tables used here.

A message is read in three layers:

* *hits*: slot values with their position (dates, time spans, cities with their role,
  prices, stars, nights, classes...). Each extractor masks the text it used, so one
  number is never read twice ("3号下午3点以后800以内" yields a date, a limit and a price).
* *clauses*: the message split at punctuation and conjunctions, each with the first
  booking domain it names, so that "a train to Shanghai and a hotel there for two nights"
  can route the nights to the hotel and the city to the train.
* *acts*: confirmations, refusals, corrections, cancellations, farewells and requests the
  booking world does not cover.
"""

from __future__ import annotations

import datetime as dt
import re
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from liveeval.booking.offers import Domain

Span = tuple[int, int]
"""Departure minutes after midnight, both ends inclusive."""

END_OF_DAY = 23 * 60 + 59
"""24:00 is stored as 23:59 because a departure time cannot be 24:00."""

ANY_TIME: list[Span] = [(0, END_OF_DAY)]

CITIES: tuple[tuple[str, str], ...] = (
    ("北京", "Beijing"),
    ("上海", "Shanghai"),
    ("广州", "Guangzhou"),
    ("深圳", "Shenzhen"),
    ("成都", "Chengdu"),
    ("杭州", "Hangzhou"),
    ("南京", "Nanjing"),
    ("武汉", "Wuhan"),
    ("西安", "Xi'an"),
    ("重庆", "Chongqing"),
    ("天津", "Tianjin"),
    ("苏州", "Suzhou"),
    ("长沙", "Changsha"),
    ("郑州", "Zhengzhou"),
    ("青岛", "Qingdao"),
    ("厦门", "Xiamen"),
    ("昆明", "Kunming"),
    ("哈尔滨", "Harbin"),
    ("大连", "Dalian"),
    ("沈阳", "Shenyang"),
)
CITY_EN: dict[str, str] = dict(CITIES)

# Well-known places outside the booking world: naming one earns guidance instead of silence.
OTHER_PLACES_ZH = (
    "拉萨|三亚|桂林|乌鲁木齐|南宁|贵阳|兰州|合肥|福州|南昌|济南|太原|石家庄|呼和浩特|海口|银川|"
    "西宁|长春|宁波|无锡|珠海|香港|澳门|台北|丽江|大理|洛阳|东京|首尔|纽约|伦敦|巴黎|新加坡|曼谷"
)
OTHER_PLACES_EN = (
    "lhasa|sanya|guilin|urumqi|nanning|guiyang|lanzhou|hefei|fuzhou|nanchang|jinan|taiyuan|"
    "shijiazhuang|hohhot|haikou|changchun|ningbo|wuxi|zhuhai|hong kong|macau|macao|taipei|lijiang|"
    "dali|luoyang|tokyo|seoul|new york|london|paris|singapore|bangkok"
)

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

CABIN_WORDS_ZH = {
    "经济舱": "economy",
    "商务舱": "business",
    "公务舱": "business",
    "头等舱": "first",
}
SEAT_WORDS_ZH = {
    "二等座": "second",
    "一等座": "first",
    "商务座": "business",
    "硬座": "hard_seat",
    "硬卧": "hard_sleeper",
    "软卧": "soft_sleeper",
    "卧铺": "hard_sleeper",
    "二等": "second",
    "一等": "first",
}
ROOM_WORDS = {
    "大床房": "king",
    "大床": "king",
    "单人间": "king",
    "双床房": "twin",
    "双床": "twin",
    "标准间": "twin",
    "标间": "twin",
    "双人间": "twin",
    "双人房": "twin",
    "套房": "suite",
    "套间": "suite",
    "king": "king",
    "queen": "king",
    "double bed": "king",
    "double room": "king",
    "twin": "twin",
    "two beds": "twin",
    "suite": "suite",
}
TRAIN_TYPE_WORDS = {
    "高铁": "G",
    "动车": "D",
    "普通列车": "K",
    "普通火车": "K",
    "普快": "K",
    "绿皮": "K",
    "特快": "T",
    "直达": "Z",
    "high-speed": "G",
    "high speed": "G",
    "bullet train": "G",
    "regular train": "K",
    "slow train": "K",
}

_CN_DIGITS = {
    "零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4,
    "五": 5, "六": 6, "七": 7, "八": 8, "九": 9,
}  # fmt: skip
_CN_UNITS = {"十": 10, "百": 100, "千": 1000, "万": 10000}
EN_NUMBERS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
    "fourteen": 14, "fifteen": 15, "twenty": 20, "thirty": 30,
}  # fmt: skip
_EN_ORDINALS = {
    "first": 1, "1st": 1, "second": 2, "2nd": 2, "third": 3, "3rd": 3,
    "fourth": 4, "4th": 4, "fifth": 5, "5th": 5, "last": -1,
}  # fmt: skip
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

CN_NUM = r"[零〇一二两三四五六七八九十百千万]+"
EN_NUM = "|".join(sorted(EN_NUMBERS, key=len, reverse=True))
NUM = rf"\d+(?:,\d{{3}})*|{CN_NUM}"
_SMALL = r"\d{1,2}|[一二两三四五六七八九十]{1,3}"


def number_value(token: str) -> int | None:
    """The integer written as Arabic digits, Chinese numerals or an English word.

    Colloquial Chinese tails count in the unit below the last one: 一千二 is 1200 and
    三百五 is 350, as people say prices.
    """
    token = token.strip().replace(",", "")
    if not token:
        return None
    if token.isdigit():
        return int(token)
    if token in EN_NUMBERS:
        return EN_NUMBERS[token]
    total = section = 0
    digit: int | None = None
    last_unit = 1
    after_zero = False
    for char in token:
        if char in _CN_DIGITS:
            if digit is not None:
                return None
            digit = _CN_DIGITS[char]
            if digit == 0:
                after_zero = True
                digit = None
        elif char in _CN_UNITS:
            unit = _CN_UNITS[char]
            if unit == 10000:
                total = (total + section + (digit or 0)) * 10000
                section = 0
            else:
                section += (1 if digit is None else digit) * unit
            digit = None
            last_unit = unit
            after_zero = False
        else:
            return None
    if digit is not None:
        section += digit * (last_unit // 10 if last_unit >= 100 and not after_zero else 1)
    return total + section


def normalise(text: str) -> str:
    """Full-width digits and punctuation folded to ASCII, lower case, curly quotes straightened."""
    return unicodedata.normalize("NFKC", text).lower().replace("’", "'").replace("‘", "'")


_CJK = re.compile(r"[\u4e00-\u9fff]")
_NEUTRAL_TOKEN = re.compile(r"^(?:ok|[a-z]{0,2}\d+[a-z]?)$")


def detect_lang(text: str, fallback: str = "zh") -> str:
    """``zh`` when the message has Chinese characters, ``en`` when it has English words.

    Flight and train numbers and a bare "OK" say nothing about the language, so a message
    made only of them keeps the fallback (the previous message's language).
    """
    normal = normalise(text)
    if _CJK.search(normal):
        return "zh"
    words = re.findall(r"[a-z0-9']+", normal)
    if any(re.search(r"[a-z]", word) and not _NEUTRAL_TOKEN.match(word) for word in words):
        return "en"
    return fallback if fallback in ("zh", "en") else "zh"


# ---------------------------------------------------------------------------- hits

HitValue = str | int | dt.date | list[Span] | bool
Found = list[tuple[str, HitValue]] | None


@dataclass(frozen=True)
class Hit:
    """One value read from the message, with where it was written."""

    kind: str
    value: HitValue
    start: int
    end: int


class _Scanner:
    """Runs extractors over a copy of the text in which characters already used are blanked."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.masked = text
        self.hits: list[Hit] = []

    def take(self, pattern: str, handler: Callable[[re.Match[str]], Found]) -> None:
        for match in list(re.finditer(pattern, self.masked)):
            if not match.group(0).strip():
                continue
            found = handler(match)
            if found is None:
                continue
            self.hits.extend(Hit(kind, value, match.start(), match.end()) for kind, value in found)
            self.mask(match.start(), match.end())

    def mask(self, start: int, end: int) -> None:
        self.masked = self.masked[:start] + " " * (end - start) + self.masked[end:]


def _words(table: Iterable[str]) -> str:
    """An alternation that tries longer words first, with word boundaries around English."""
    parts = []
    for word in sorted(table, key=len, reverse=True):
        escaped = re.escape(word)
        parts.append(rf"\b{escaped}\b" if word.isascii() else escaped)
    return "|".join(parts)


# ---------------------------------------------------------------------------- dates


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
}  # fmt: skip


def _date_hits(scanner: _Scanner, today: dt.date) -> None:
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
        rf"(?:(?P<year>\d{{4}})\s*年\s*)?(?P<month>{_SMALL})\s*月\s*(?P<day>{_SMALL})\s*(?:日|号|號)?",
        month_day_zh,
    )
    scanner.take(
        rf"\b(?:(?P<m1>{_MONTH})[a-z]*\.?\s+(?P<d1>\d{{1,2}})(?:st|nd|rd|th)?\b(?:,?\s*(?P<y1>\d{{4}}))?"
        rf"|(?P<d2>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<m2>{_MONTH})[a-z]*\b\.?"
        rf"(?:,?\s*(?P<y2>\d{{4}}))?)",
        month_day_en,
    )
    scanner.take(_words(_RELATIVE_DAYS), relative_word)
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
    scanner.take(rf"下个?月\s*({_SMALL})\s*(?:号|號|日)", next_month_day)
    scanner.take(r"(?<![\d/.])(1[0-2]|0?[1-9])/([12]\d|3[01]|0?[1-9])(?![\d/])", slashed)
    scanner.take(rf"(?<![\d月第])({_SMALL})\s*(?:号|號|日)(?!\s*[晚天后])", day_of_month)
    scanner.take(
        r"\b(?:on\s+)?the\s+(\d{1,2})(?:st|nd|rd|th)\b(?!\s+(?:one|option|flight|train|hotel))",
        day_of_month,
    )


# ---------------------------------------------------------------------------- times


def merge_spans(spans: Iterable[Span]) -> list[Span]:
    """The union of time spans, as sorted disjoint spans."""
    merged: list[Span] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


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


def _time_hits(scanner: _Scanner) -> None:
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
    scanner.take(rf"\b(?P<pre>{_words(_EN_LIMITS)})\s+" + _en_clock(1), en_limit)
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
    _words([*WINDOWS, *(word for word in WINDOW_SYNONYMS if word != "night")])
    + r"|(?<!per )(?<!each )(?<!every )(?<!a )\bnight\b(?!s)"
)


def _window_hits(scanner: _Scanner) -> None:
    def window(m: re.Match[str]) -> Found:
        name = WINDOW_SYNONYMS.get(m[0], m[0])
        return [("spans", [WINDOWS[name]])]

    scanner.take(_ANY_TIME, lambda m: [("any_time", True)])
    scanner.take(_WINDOW_PATTERN, window)


# ---------------------------------------------------------------------------- numbers


_PRICE_NUM = rf"\d+(?:,\d{{3}})*(?:\.\d+)?\s*k\b|\d+(?:,\d{{3}})*|{CN_NUM}"
_PER_NIGHT = r"(?:\s*(?:per|a|each|/)\s*night)?"
_PER_NIGHT_ZH = r"(?:\s*(?:一晚|每晚|/晚|一天|每天))?"
_NOT_A_PRICE = r"(?!\s*(?:晚|天|星|点|号|个|夜|日|月|:|折|间|张|位|stars?|nights?|days?|%))"
MIN_PRICE = 50
"""Smaller numbers after a price word are something else ("最多3晚" is nights)."""


def price_value(token: str) -> int | None:
    token = token.strip().replace(",", "")
    if token.endswith("k"):
        try:
            return round(float(token[:-1].strip()) * 1000)
        except ValueError:
            return None
    if re.fullmatch(r"\d+\.\d+", token):
        return round(float(token))
    return number_value(token)


def _number_hits(scanner: _Scanner) -> None:
    def price(m: re.Match[str]) -> Found:
        value = price_value(m["n"])
        if value is None or value < MIN_PRICE:
            return None
        return [("max_price", value)]

    def stars(m: re.Match[str]) -> Found:
        value = number_value(m["n"])
        if value is None or not 1 <= value <= 5:
            return None
        return [("min_stars", value)]

    def nights(m: re.Match[str]) -> Found:
        text = m["n"]
        value = 1 if text in ("a", "an") else number_value(text)
        if value is None or not 1 <= value <= 30:
            return None
        return [("nights", value)]

    scanner.take(
        r"(?:每晚|一晚|每天|一天|单价|价格|票价|房价)?\s*(?:要|在)?\s*"
        r"(?:不超过|不高于|不要超过|别超过|不能超过|不超出|低于|少于|小于|最多|最高|顶多|预算|控制在)"
        rf"\s*(?:¥|rmb)?\s*(?P<n>{_PRICE_NUM})\s*(?:元|块钱|块|rmb)?\s*(?:以内|以下|之内|内)?"
        + _PER_NIGHT_ZH
        + _NOT_A_PRICE,
        price,
    )
    scanner.take(
        rf"(?:每晚|一晚|每天)?\s*(?:¥)?(?<![\d.])(?P<n>{_PRICE_NUM})\s*(?:元|块钱|块|rmb)?\s*"
        r"(?:以内|以下|之内|内|封顶)" + _PER_NIGHT_ZH,
        price,
    )
    scanner.take(
        r"\b(?:under|below|less than|at most|no more than|not more than|no higher than|not over"
        r"|not exceeding|max(?:imum)?(?: of)?|up to|within|cheaper than|priced under"
        r"|budget(?: of| is)?)\s*(?:¥|rmb|cny)?\s*"
        r"(?P<n>\d+(?:,\d{3})*(?:\.\d+)?\s*k\b|\d+(?:,\d{3})*)\s*(?:yuan|rmb|cny|kuai|元)?"
        + _PER_NIGHT
        + _NOT_A_PRICE,
        price,
    )
    scanner.take(
        r"(?:¥\s*)?(?<![\d.])(?P<n>\d+(?:\.\d+)?\s*k\b|\d+(?:,\d{3})*)\s*(?:yuan|rmb|cny|kuai)?"
        + _PER_NIGHT
        + r"\s*(?:or less|or under|or below|or cheaper|max|at most|tops)\b",
        price,
    )
    scanner.take(
        r"(?:至少|最少|不低于|起码)?\s*(?P<n>[1-5一二两三四五])\s*(?:星级|星|钻)"
        r"\s*(?:及以上|或以上|以上|起|及更高)?",
        stars,
    )
    scanner.take(
        r"\b(?:at least\s+)?(?P<n>[1-5]|one|two|three|four|five)\s*[- ]?\s*stars?\b"
        r"(?:\s*(?:or|and)\s*(?:above|more|higher|better|up))?\+?",
        stars,
    )
    scanner.take(r"\b(?P<n>[1-5])\+\s*stars?\b", stars)
    scanner.take(rf"(?P<d>{NUM})\s*天\s*(?P<n>{NUM})\s*晚", nights)
    scanner.take(rf"(?:住|入住|待|呆)?\s*(?P<n>{NUM})\s*个?\s*(?:晚上|晚|夜)", nights)
    scanner.take(rf"住\s*(?P<n>{NUM})\s*天", nights)
    scanner.take(rf"\b(?P<n>\d+|{EN_NUM}|a|an)\s*[- ]?nights?\b(?!\s*(?:trains?|flights?))", nights)
    scanner.take(rf"\bstay(?:ing)?\s+(?:for\s+)?(?P<n>\d+|{EN_NUM})\s+(?:days|nights)\b", nights)


# ---------------------------------------------------------------------------- words


def _both_classes(cabin: str, seat: str) -> Callable[[re.Match[str]], Found]:
    return lambda m: [("cabin", cabin), ("seat", seat)]


def _word_hits(scanner: _Scanner) -> None:
    def table(kind: str, words: dict[str, str]) -> None:
        scanner.take(_words(words), lambda m: [(kind, words[m[0]])])

    table("cabin", CABIN_WORDS_ZH)
    table("seat", SEAT_WORDS_ZH)
    # English class words name a cabin and a seat class at once; the domain picks one.
    english_classes = (
        (r"\b(?:economy|coach)(?:[- ]class)?\b", "economy", "second"),
        (
            r"\bbusiness(?:[- ]class| cabin| seats?)\b|\b(?:in|fly|flying) business\b",
            "business",
            "business",
        ),
        (r"\bfirst[- ]class\b|\bfirst cabin\b", "first", "first"),
        (r"\bsecond[- ]class\b|\bstandard class\b", "economy", "second"),
    )
    for pattern, cabin, seat in english_classes:
        scanner.take(pattern, _both_classes(cabin, seat))
    sleepers = {"hard seat": "hard_seat", "hard sleeper": "hard_sleeper",
                "soft sleeper": "soft_sleeper", "sleeper": "hard_sleeper"}  # fmt: skip
    table("seat", sleepers)
    table("room_type", ROOM_WORDS)
    table("train_type", TRAIN_TYPE_WORDS)
    scanner.take(
        r"(?<![a-z])(?P<t>[gdkzt])\s*(?:字头|开头|打头|字)|\b(?P<u>[gdkzt])[- ]?(?:trains?|type)\b",
        lambda m: [("train_type", (m["t"] or m["u"]).upper())],
    )
    superlatives = {
        "最早": "earliest", "最晚": "latest", "最便宜": "cheapest", "最实惠": "cheapest",
        "价格最低": "cheapest", "评分最高": "best", "评价最高": "best",
        "earliest": "earliest", "latest": "latest", "cheapest": "cheapest",
        "lowest price": "cheapest", "best rated": "best", "highest rated": "best",
        "top rated": "best", "best": "best",
    }  # fmt: skip
    table("prefer", superlatives)


# ---------------------------------------------------------------------------- cities

_FROM_BEFORE = re.compile(
    r"(?:从|由|自|离开|\bleaving(?: from)?|\bdeparting(?: from)?|\bout of|\bfrom)\s*$"
)
_TO_BEFORE = re.compile(
    r"(?:到|去|至|往|飞|回|抵达|前往|->|→|-|—|~|\bto|\binto|\btowards?|\bfor"
    r"|\barriv(?:e|ing) (?:in|at))\s*$"
)
_STAY_BEFORE = re.compile(r"(?:在|住|入住|\bin|\bat|\bnear)\s*$")
_FROM_AFTER = re.compile(r"^\s*(?:出发|始发|起飞|发车|上车|走)")
_STAY_AFTER = re.compile(r"^\s*(?:的?(?:酒店|宾馆|旅馆|住宿)|hotels?\b)")
_CITY_PATTERN = "|".join(
    [zh for zh, _ in CITIES] + [r"\bxi'?\s?an\b"] + [rf"\b{en.lower()}\b" for _, en in CITIES]
)
_CITY_BY_SPELLING = {zh: zh for zh, _ in CITIES} | {en.lower(): zh for zh, en in CITIES}


def _city_name(spelling: str) -> str:
    if spelling.startswith("xi"):
        return _CITY_BY_SPELLING.get(spelling, "西安")
    return _CITY_BY_SPELLING[spelling]


def _city_hits(scanner: _Scanner) -> list[str]:
    """Cities with their role; returns the places named that the booking world lacks."""
    found: list[tuple[str, str | None, int, int]] = []
    text = scanner.text
    for match in re.finditer(_CITY_PATTERN, text):
        before, after = text[: match.start()], text[match.end() :]
        role: str | None = None
        if _FROM_BEFORE.search(before) or _FROM_AFTER.search(after):
            role = "from_city"
        elif _TO_BEFORE.search(before):
            role = "to_city"
        elif _STAY_BEFORE.search(before) or _STAY_AFTER.search(after):
            role = "stay_city"
        found.append((_city_name(match[0]), role, match.start(), match.end()))
    for index, (name, role, start, end) in enumerate(found):
        following = found[index + 1] if index + 1 < len(found) else None
        # "北京到上海", "Beijing to Shanghai": an unmarked city just before a destination.
        if (
            role is None
            and following is not None
            and following[1] == "to_city"
            and len(text[end : following[2]]) <= 6
        ):
            role = "from_city"
        scanner.hits.append(Hit(role or "city", name, start, end))
        scanner.mask(start, end)
    other = re.finditer(OTHER_PLACES_ZH + rf"|\b(?:{OTHER_PLACES_EN})\b", scanner.masked)
    return [match[0] for match in other]


# ---------------------------------------------------------------------------- choices


def _ordinal(scanner: _Scanner) -> int | None:
    """ "第二个", "the second one", "option 2": a 1-based position, -1 for the last one."""
    chosen: list[int] = []

    def position(value: int | None) -> Found:
        if value is None or value == 0:
            return None
        chosen.append(value)
        return []

    scanner.take(
        r"第\s*(?P<n>[一二三四五六七八九十]|\d)\s*(?:个|家|班|趟|项|种|条|列|号)?",
        lambda m: position(number_value(m["n"])),
    )
    scanner.take(r"最后(?:一|那)(?:个|家|班|趟)", lambda m: position(-1))
    scanner.take(
        r"\b(?:the\s+)?(?P<o>first|second|third|fourth|fifth|1st|2nd|3rd|4th|5th|last)\s+"
        r"(?:one|option|flight|train|hotel|choice)\b",
        lambda m: position(_EN_ORDINALS[m["o"]]),
    )
    scanner.take(
        r"\b(?:option|number|no\.?)\s*(?P<n>\d)\b|#\s*(?P<h>\d)\b",
        lambda m: position(int(m["n"] or m["h"])),
    )
    scanner.take(
        r"^\s*(?:the\s+)?(?P<o>first|second|third|last)(?:\s+one)?\s*(?:please)?[\s.!]*$",
        lambda m: position(_EN_ORDINALS[m["o"]]),
    )
    return chosen[0] if chosen else None


# ---------------------------------------------------------------------------- domains

DOMAIN_PATTERNS: dict[Domain, str] = {
    "flight": (
        r"机票|航班|飞机|班机|飞|\bflights?\b|\bfly(?:ing)?\b|\bplanes?\b|\bairlines?\b"
        r"|\bair tickets?\b|\bairfare\b"
    ),
    "train": (
        r"火车|高铁|动车|列车|(?<!汽)车票|铁路|\btrains?\b|\brail(?:way)?\b|\bhigh[- ]speed\b"
    ),
    "hotel": (
        r"酒店|宾馆|旅馆|饭店|住宿|订房|房间|客房|民宿|(?<![记居])住|\bhotels?\b|\brooms?\b"
        r"|\bstay(?:ing)?\b|\baccommodation\b|\binn\b|\bhostel\b"
    ),
}

_CLAUSE_BREAK = re.compile(
    r"[,;.!?\n、。]+(?!\d)|然后|接着|(?<![一])再(?!见)|还有|以及|另外|并且|同时|顺便|和|跟"
    r"|\band then\b|\bthen\b|\balso\b|\bplus\b|\bas well as\b|\band\b(?!\s*\d)"
)


def domain_mentions(text: str) -> list[tuple[int, Domain]]:
    """Every word naming a booking domain, by position."""
    mentions = [
        (match.start(), domain)
        for domain, pattern in DOMAIN_PATTERNS.items()
        for match in re.finditer(pattern, text)
    ]
    return sorted(mentions)


def clause_bounds(text: str) -> list[tuple[int, int]]:
    bounds: list[tuple[int, int]] = []
    start = 0
    for match in _CLAUSE_BREAK.finditer(text):
        if match.start() > start:
            bounds.append((start, match.start()))
        start = match.end()
    if start < len(text) or not bounds:
        bounds.append((start, len(text)))
    return bounds


# ---------------------------------------------------------------------------- acts


def _clauses(text: str) -> list[str]:
    return [part.strip() for part in re.split(r"[,;.!?\n、。~]+", text) if part.strip()]


_PARTICLES = r"(?:吧|啊|呀|的|了|哈|嘛|哦|呢|滴)*"
_CONFIRM_ALONE_ZH = (
    r"好|好的|行|可以|是|对|嗯+|确认|确定|要|订|没问题|ok|也行|都行|都可以|就这个|这个|好嘞|妥"
)
_CONFIRM_ANYWHERE_ZH = (
    r"确认|就这个|就订|订吧|订这|就它|就要这|没问题|可以的|预订吧|订了吧|就这样|也行"
    r"|(?<![最不你您])好的|(?<!不)是的|(?<!不)对的"
)
_CONFIRM_ALONE_EN = (
    r"yes|yeah|yep|yup|ok|okay|sure|fine|great|perfect|alright|all right|correct|right|good"
    r"|yes please|ok please|sounds good|that works|that's fine|go ahead|please do|do it|confirm"
)
_CONFIRM_ANYWHERE_EN = (
    r"\b(?:book it|book that|book this|go ahead|confirm|sounds good|that works|i'll take it"
    r"|i will take it|let's do it|yes please|that one)\b|^(?:yes|yeah|yep|ok|okay|sure)\b"
)
_DENY_ALONE = (
    r"不|不行|不要|不好|不对|不是|否|不可以|不太好|不太行|不合适|no|nope|nah|not really|no way"
)
_DENY_ANYWHERE = (
    r"不要这|不行|不可以|不合适|不满意|换一个|换个|还有别的|(?<!没)有别的吗|(?<!没)有其他|别的吗"
    r"|\bnot that one\b|\bdon't book\b|\bdo not book\b|\banother one\b|\bsomething else\b"
    r"|\bother options?\b|\bnext one\b|\bnone of (?:them|these)\b|\banything else available\b"
)
_DECLINE = r"不用了|算了|不需要了|不订了|不要了|\bno thanks\b|\bnever mind\b|\bforget it\b"
_FAREWELL = (
    r"没有了|没了|不用了|不需要了|没有别的|就这些|就这样吧|没其他|再见|拜拜|\bbye\b|\bgoodbye\b"
    r"|没有其他|\bthat's all\b|\bthat is all\b|\bthat(?: will|'ll) be all\b|\bi'm good\b"
    r"|\bnothing else\b|\bno thanks\b|\bno,? thank you\b"
    r"|\bi'm done\b|\ball set\b|\bthat's it\b"
)
_GOODBYE = r"再见|拜拜|\bbye\b|\bgoodbye\b"
_THANKS = r"谢谢|多谢|感谢|\bthanks?\b|\bthank you\b"
_CANCEL = r"取消|退订|退掉|退票|\bcancel\b|\bcall off\b"
_CORRECTION = (
    r"不对|不是|错了|搞错|改成|改为|改到|换成|改一下|更正|\bactually\b|\bmake it\b"
    r"|\bchange (?:it|that|the)\b|\binstead\b|\bi meant?\b|\bsorry\b|\bwrong\b|\brather\b"
)
_AGAIN = (
    r"再订|再来|再买|再要|还要订|还要一|再帮我订|还想订|\bone more\b|\balso (?:need|want|book)\b"
    r"|\banother (?:flight|train|hotel|room|ticket)\b"
)
_CHEAPER = (
    r"便宜点|便宜一点|便宜些|更便宜|太贵|贵了|\bcheaper\b|\btoo expensive\b|\bless expensive\b"
)
_GREETING = (
    r"^(?:你好|您好|hi\b|hello|hey\b|嗨|哈喽|在吗|早上好|下午好|晚上好"
    r"|good (?:morning|afternoon|evening))"
)
_GREETING_WORDS = r"早上好|下午好|晚上好|早安|晚安|\bgood (?:morning|afternoon|evening)\b"
_HELP = (
    r"你能做什么|能做什么|能干什么|你会什么|怎么用|帮助|\bhelp\b|\bwhat can you do\b"
    r"|\bhow does this work\b|有什么功能"
)
_OPEN_ANSWER = (
    r"随便|都行|都可以|不限|无所谓|没要求|没有要求|都好|任意|\bwhatever\b|\bany\b|\banything\b"
    r"|\bdoesn'?t matter\b|\bdoes not matter\b|\bdon'?t care\b|\bno preference\b|\beither\b"
    r"|\bflexible\b"
)
_OFF_TOPIC = (
    r"天气|笑话|新闻|股票|音乐|唱歌|唱首|电影|外卖|餐厅|美食|吃什么|翻译|快递|彩票|讲个故事|游戏|星座"
    r"|\bweather\b|\bjokes?\b|\bnews\b|\bstocks?\b|\bmusic\b|\bsongs?\b|\bmovies?\b"
    r"|\brestaurants?\b|\btranslate\b|\bstory\b|\bgames?\b"
)
UNSUPPORTED = {
    "汽车票": "bus", "长途汽车": "bus", "大巴": "bus", "巴士": "bus", "船票": "ferry",
    "轮渡": "ferry", "游轮": "ferry", "租车": "car", "打车": "taxi", "出租车": "taxi",
    "网约车": "taxi", "门票": "attraction", "景点": "attraction", "签证": "visa", "改签": "change",
    "bus": "bus", "coach": "bus", "ferry": "ferry", "boat": "ferry", "cruise": "ferry",
    "car rental": "car", "rent a car": "car", "taxi": "taxi", "visa": "visa",
}  # fmt: skip


def _alone(pattern: str, clauses: list[str]) -> bool:
    return any(re.fullmatch(rf"(?:{pattern}){_PARTICLES}(?:please|thanks|thank you)?", c)
               for c in clauses)  # fmt: skip


def _anywhere(pattern: str, text: str) -> bool:
    return re.search(pattern, text) is not None


# ---------------------------------------------------------------------------- reading


@dataclass
class Slots:
    """Slot values read from (part of) a message; lists keep the order they were written in."""

    from_city: str | None = None
    to_city: str | None = None
    stay_city: str | None = None
    cities: list[str] = field(default_factory=list)
    dates: list[dt.date] = field(default_factory=list)
    check_out: dt.date | None = None
    spans: list[Span] | None = None
    any_time: bool = False
    cabin: str | None = None
    seat: str | None = None
    train_type: str | None = None
    max_price: int | None = None
    min_stars: int | None = None
    nights: int | None = None
    room_type: str | None = None
    prefer: str | None = None

    @classmethod
    def from_hits(cls, hits: Iterable[Hit]) -> Slots:
        slots = cls()
        for hit in hits:
            value = hit.value
            if hit.kind == "city" and isinstance(value, str):
                slots.cities.append(value)
            elif hit.kind == "date" and isinstance(value, dt.date):
                slots.dates.append(value)
            elif hit.kind == "spans" and isinstance(value, list):
                slots.spans = merge_spans([*(slots.spans or []), *value])
            elif hit.kind == "any_time":
                slots.any_time = True
            elif hasattr(slots, hit.kind):
                setattr(slots, hit.kind, value)
        return slots


@dataclass
class Reading:
    """Everything understood from one message."""

    text: str
    hits: list[Hit]
    mentions: list[tuple[int, Domain]]
    clauses: list[tuple[int, int]]
    unknown_places: list[str]
    ordinal: int | None
    number_only: int | None
    confirm: bool
    deny: bool
    decline: bool
    cancel: bool
    farewell: bool
    goodbye: bool
    thanks: bool
    greeting: bool
    help: bool
    open_answer: bool
    correction: bool
    again: bool
    cheaper: bool
    off_topic: bool
    unsupported: str | None

    @property
    def domains(self) -> list[Domain]:
        """The domains named, each once, in the order first named."""
        ordered: list[Domain] = []
        for _, domain in self.mentions:
            if domain not in ordered:
                ordered.append(domain)
        return ordered

    @property
    def superlative(self) -> str | None:
        return next((str(hit.value) for hit in self.hits if hit.kind == "prefer"), None)

    def slots(self) -> Slots:
        return Slots.from_hits(self.hits)

    def clause_of(self, position: int) -> int:
        for index, (start, end) in enumerate(self.clauses):
            if start <= position < end:
                return index
        return max(0, len(self.clauses) - 1)

    def clause_domain(self, index: int) -> Domain | None:
        start, end = self.clauses[index]
        return next((domain for pos, domain in self.mentions if start <= pos < end), None)

    def domain_near(self, index: int) -> Domain | None:
        """The domain a clause is about: its own, else the nearest one named before it, else after.

        "a train to Wuhan in 8 days, under 800 yuan": the price follows the train it modifies.
        """
        own = self.clause_domain(index)
        if own is not None:
            return own
        before = (self.clause_domain(i) for i in range(index - 1, -1, -1))
        after = (self.clause_domain(i) for i in range(index + 1, len(self.clauses)))
        return next((d for d in before if d), None) or next((d for d in after if d), None)

    def has_content(self) -> bool:
        return bool(self.hits or self.mentions or self.ordinal is not None)


_NUMBER_ONLY = re.compile(
    rf"\s*(?P<n>\d+|[一二两三四五六七八九十]+|{EN_NUM})\s*(?:个|晚|间|位|张|天|nights?)?"
    rf"\s*{_PARTICLES}\s*[.!。]*\s*"
)


def read(text: str, today: dt.date) -> Reading:
    """Read one message; ``today`` resolves relative dates."""
    normal = normalise(text).strip()
    scanner = _Scanner(normal)
    scanner.take(_GREETING_WORDS, lambda m: [])
    unknown = _city_hits(scanner)
    only = _NUMBER_ONLY.fullmatch(normal)
    ordinal = _ordinal(scanner)
    _date_hits(scanner, today)
    _time_hits(scanner)
    _number_hits(scanner)
    _window_hits(scanner)
    _word_hits(scanner)
    clauses = _clauses(normal)
    unsupported = next((UNSUPPORTED[m[0]] for m in re.finditer(_words(UNSUPPORTED), normal)), None)
    return Reading(
        text=normal,
        hits=sorted(scanner.hits, key=lambda hit: hit.start),
        mentions=[] if unsupported else domain_mentions(normal),
        clauses=clause_bounds(normal),
        unknown_places=unknown,
        ordinal=ordinal,
        number_only=number_value(only["n"]) if only else None,
        confirm=_alone(_CONFIRM_ALONE_ZH + "|" + _CONFIRM_ALONE_EN, clauses)
        or _anywhere(_CONFIRM_ANYWHERE_ZH + "|" + _CONFIRM_ANYWHERE_EN, normal),
        deny=_alone(_DENY_ALONE, clauses) or _anywhere(_DENY_ANYWHERE, normal),
        decline=_anywhere(_DECLINE, normal),
        cancel=_anywhere(_CANCEL, normal),
        farewell=_anywhere(_FAREWELL, normal) or _alone(r"没有|no|nope|不用|不需要", clauses),
        goodbye=_anywhere(_GOODBYE, normal),
        thanks=_anywhere(_THANKS, normal),
        greeting=_anywhere(_GREETING, normal),
        help=_anywhere(_HELP, normal),
        open_answer=_anywhere(_OPEN_ANSWER, normal),
        correction=_anywhere(_CORRECTION, normal),
        again=_anywhere(_AGAIN, normal),
        cheaper=_anywhere(_CHEAPER, normal),
        off_topic=_anywhere(_OFF_TOPIC, normal),
        unsupported=unsupported,
    )


def read_slots(text: str, today: dt.date) -> Slots:
    """All slot values in a message, whatever the domain."""
    return read(text, today).slots()
