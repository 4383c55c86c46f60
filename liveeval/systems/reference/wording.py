"""Everything the reference system says, in Chinese and in English."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Any

from liveeval.systems.reference.state import Intent, Option
from liveeval.systems.understanding.cities import CITY_EN
from liveeval.systems.understanding.times import END_OF_DAY, Span

CABIN_ZH = {"economy": "经济舱", "business": "商务舱", "first": "头等舱"}


CABIN_EN = {"economy": "economy", "business": "business class", "first": "first class"}


SEAT_ZH = {
    "second": "二等座", "first": "一等座", "business": "商务座",
    "hard_seat": "硬座", "hard_sleeper": "硬卧", "soft_sleeper": "软卧",
}  # fmt: skip


SEAT_EN = {
    "second": "second class", "first": "first class", "business": "business class",
    "hard_seat": "hard seat", "hard_sleeper": "hard sleeper", "soft_sleeper": "soft sleeper",
}  # fmt: skip


ROOM_ZH = {"king": "大床房", "twin": "双床房", "suite": "套房"}


ROOM_EN = {"king": "king room", "twin": "twin room", "suite": "suite"}


DOMAIN_ZH = {"flight": "机票", "train": "火车票", "hotel": "酒店"}


DOMAIN_EN = {"flight": "flight", "train": "train ticket", "hotel": "hotel"}


WEEKDAY_ZH = "一二三四五六日"


WEEKDAY_EN = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")


MONTH_EN = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


UNSUPPORTED_ZH = {
    "bus": "汽车票", "ferry": "船票", "car": "租车", "taxi": "打车",
    "attraction": "景点门票", "visa": "签证",
}  # fmt: skip


UNSUPPORTED_EN = {
    "bus": "bus tickets", "ferry": "ferry tickets", "car": "car rental", "taxi": "taxis",
    "attraction": "attraction tickets", "visa": "visas",
}  # fmt: skip


def clock(minutes: int) -> str:
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


def date_text(iso: str, lang: str) -> str:
    day = dt.date.fromisoformat(iso)
    if lang == "zh":
        return f"{day.month}月{day.day}日（周{WEEKDAY_ZH[day.weekday()]}）"
    return f"{WEEKDAY_EN[day.weekday()]} {day.day} {MONTH_EN[day.month - 1]}"


def city_text(city: str, lang: str) -> str:
    return city if lang == "zh" else CITY_EN.get(city, city)


def spans_text(spans: Sequence[Span], lang: str) -> str:
    parts = []
    for start, end in spans:
        if lang == "zh":
            if start == 0:
                parts.append(f"{clock(end)}以前")
            elif end == END_OF_DAY:
                parts.append(f"{clock(start)}以后")
            else:
                parts.append(f"{clock(start)}–{clock(end)}")
        elif start == 0:
            parts.append(f"before {clock(end)}")
        elif end == END_OF_DAY:
            parts.append(f"after {clock(start)}")
        else:
            parts.append(f"between {clock(start)} and {clock(end)}")
    return ("或" if lang == "zh" else " or ").join(parts)


def class_text(domain: str, option: str, lang: str) -> str:
    if domain == "flight":
        return (CABIN_ZH if lang == "zh" else CABIN_EN).get(option, option)
    if domain == "train":
        return (SEAT_ZH if lang == "zh" else SEAT_EN).get(option, option)
    return (ROOM_ZH if lang == "zh" else ROOM_EN).get(option, option)


def option_text(option: Option, lang: str) -> str:
    """One line describing a shown option, with its number, times and price."""
    kind = class_text(option["domain"], option["option"], lang)
    if option["domain"] == "flight":
        discount = option.get("discount")
        if lang == "zh":
            off = f"{discount * 10:.1f}折" if discount and discount < 1 else "全价"
            return (
                f"{option['number']}（{option['airline']}）{option['depart']}–{option['arrive']}，"
                f"{kind}{off}，{option['price']}元"
            )
        off = f"{round(discount * 100)}% of full fare" if discount and discount < 1 else "full fare"
        return (
            f"{option['number']} ({option['airline_en']}) {option['depart']}–{option['arrive']}, "
            f"{kind}, {off}, {option['price']} yuan"
        )
    if option["domain"] == "train":
        hours, minutes = divmod(int(option["duration"]), 60)
        if lang == "zh":
            return (
                f"{option['number']} {option['depart']}–{option['arrive']}"
                f"（{hours}小时{minutes}分），{kind}，{option['price']}元"
            )
        return (
            f"{option['number']} {option['depart']}–{option['arrive']} ({hours}h{minutes:02d}), "
            f"{kind}, {option['price']} yuan"
        )
    nights = int(option["nights"])
    total = int(option["price"]) * nights
    if lang == "zh":
        return (
            f"{option['name']}（{option['stars']}星，评分{option['rating']}，{option['district']}），"
            f"{kind}每晚{option['price']}元，{nights}晚共{total}元"
        )
    return (
        f"{option['name_en']} ({option['stars']}-star, rated {option['rating']}, "
        f"{option['district']}), {kind}, {option['price']} yuan a night, "
        f"{total} yuan for {nights} night{'s' if nights > 1 else ''}"
    )


def short_text(option: Option, lang: str) -> str:
    if option["domain"] == "hotel":
        name = option["name"] if lang == "zh" else option["name_en"]
        if lang == "zh":
            return f"{name}，{option['price']}元/晚"
        return f"{name}, {option['price']} yuan a night"
    if lang == "zh":
        return f"{option['number']}，{option['depart']}出发，{option['price']}元"
    return f"{option['number']} at {option['depart']}, {option['price']} yuan"


def request_text(intent: Intent, slots: dict[str, Any], lang: str) -> str:
    """What is known of a request, e.g. "5月15日（周四）从北京到上海的航班"."""
    zh = lang == "zh"
    if intent.is_trip:
        noun = (
            ("航班" if zh else "flights")
            if intent.domain == "flight"
            else ("火车票" if zh else "trains")
        )
        pieces = []
        if "date" in slots:
            pieces.append(
                date_text(slots["date"], lang) if zh else f"on {date_text(slots['date'], lang)}"
            )
        if "from_city" in slots:
            pieces.append(("从" if zh else "from ") + city_text(slots["from_city"], lang))
        if "to_city" in slots:
            pieces.append(("到" if zh else "to ") + city_text(slots["to_city"], lang))
        if zh:
            return "".join(pieces) + ("的" if pieces else "") + noun
        return " ".join([noun, *pieces])
    pieces = []
    if "check_in" in slots:
        day = date_text(slots["check_in"], lang)
        pieces.append(f"{day}入住" if zh else f"from {day}")
    if "nights" in slots:
        nights = int(slots["nights"])
        pieces.append(f"{nights}晚" if zh else f"for {nights} night{'s' if nights > 1 else ''}")
    if zh:
        return (
            (f"{city_text(slots['city'], lang)}的" if "city" in slots else "")
            + "酒店"
            + (f"（{'，'.join(pieces)}）" if pieces else "")
        )
    if "city" in slots:
        pieces.insert(0, f"in {city_text(slots['city'], lang)}")
    return " ".join(["a hotel", *pieces])


QUESTIONS_ZH = {
    "from_city": "请问您从哪个城市出发？",
    "to_city": "请问您要去哪个城市？",
    "date": "请问哪天出发？",
    "time": "请问您希望几点出发？（可以说上午、下午、晚上、10点以前，或者几点都可以）",
    "city": "请问您要住哪个城市的酒店？",
    "check_in": "请问哪天入住？",
    "nights": "请问住几晚？",
    "domain": "请问您要订机票、火车票还是酒店？",
    "more": "请问还需要别的帮助吗？",
}


QUESTIONS_EN = {
    "from_city": "Which city are you leaving from?",
    "to_city": "Where are you going?",
    "date": "Which day would you like to travel?",
    "time": (
        "What time would you like to leave? (e.g. morning, afternoon, evening, "
        "before 10, or any time)"
    ),
    "city": "Which city do you need a hotel in?",
    "check_in": "Which day will you check in?",
    "nights": "How many nights will you stay?",
    "domain": "Would you like a flight, a train ticket or a hotel?",
    "more": "Is there anything else I can do for you?",
}


CAPABILITIES_ZH = (
    "我可以帮您查询和预订机票、火车票和酒店，例如：“明天上午从北京到上海的机票”、"
    "“后天去杭州的高铁”、“上海的酒店住两晚，每晚800以内”。"
)


CAPABILITIES_EN = (
    "I can search and book flights, train tickets and hotels, for example: "
    '"a flight from Beijing to Shanghai tomorrow morning", "a high-speed train to Hangzhou '
    'the day after tomorrow" or "a hotel in Shanghai for two nights under 800 a night".'
)
