"""Everything the reference system says, in Chinese and in English.

One phrase table: every sentence, word and list separator the system uses is a ``Phrase``
holding both wordings, named for what it says, with ``str.format`` fields for the values.
The policy (``turn``, ``filling``) holds no text of its own: it names a phrase and the
conversation's language picks the wording. The functions below put the phrases together
for values that take several (an option, a request, a date, time spans).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from evalsite.language import is_chinese
from liveeval.booking.cities import district_en
from liveeval.systems.reference.state import Intent, Option, spans_of
from liveeval.systems.understanding.cities import CITY_EN
from liveeval.systems.understanding.times import END_OF_DAY, Span


@dataclass(frozen=True)
class Phrase:
    """One thing the system says, in Chinese and in English; ``{name}`` fields are filled in."""

    zh: str
    en: str

    def text(self, lang: str, **values: object) -> str:
        """The wording for ``lang`` (Chinese, else English) with its fields filled in."""
        return (self.zh if is_chinese(lang) else self.en).format(**values)


# ---------------------------------------------------------------------------- words

CABIN = {
    "economy": Phrase("经济舱", "economy"),
    "business": Phrase("商务舱", "business class"),
    "first": Phrase("头等舱", "first class"),
}
SEAT = {
    "second": Phrase("二等座", "second class"),
    "first": Phrase("一等座", "first class"),
    "business": Phrase("商务座", "business class"),
    "hard_seat": Phrase("硬座", "hard seat"),
    "hard_sleeper": Phrase("硬卧", "hard sleeper"),
    "soft_sleeper": Phrase("软卧", "soft sleeper"),
}
ROOM = {
    "king": Phrase("大床房", "king room"),
    "twin": Phrase("双床房", "twin room"),
    "suite": Phrase("套房", "suite"),
}
DOMAIN = {
    "flight": Phrase("机票", "flight"),
    "train": Phrase("火车票", "train ticket"),
    "hotel": Phrase("酒店", "hotel"),
}
TRIPS = {"flight": Phrase("航班", "flights"), "train": Phrase("火车票", "trains")}
"""What a trip request searches for: "5月15日从北京到上海的航班", "flights on ..."."""
NOT_FOUND_NOUN = {
    "flight": Phrase("航班", "flight"),
    "train": Phrase("车次", "train"),
    "hotel": Phrase("酒店", "hotel"),
}
UNSUPPORTED = {
    "bus": Phrase("汽车票", "bus tickets"),
    "ferry": Phrase("船票", "ferry tickets"),
    "car": Phrase("租车", "car rental"),
    "taxi": Phrase("打车", "taxis"),
    "attraction": Phrase("景点门票", "attraction tickets"),
    "visa": Phrase("签证", "visas"),
}
WEEKDAY_ZH = "一二三四五六日"
WEEKDAY_EN = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
MONTH_EN = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")

SENTENCE_GAP = Phrase("", " ")
"""Between two sentences of a reply (none before a sentence that starts a new line)."""
LIST = Phrase("、", ", ")
AND = Phrase("、", " and ")
OR = Phrase("或", " or ")
PIECES = Phrase("", " ")
"""Between the pieces of a trip request ("5月15日从北京到上海", "on Thu 15 May from Beijing")."""
HOTEL_PIECES = Phrase("，", " ")

# ---------------------------------------------------------------------------- questions

QUESTIONS = {
    "from_city": Phrase("请问您从哪个城市出发？", "Which city are you leaving from?"),
    "to_city": Phrase("请问您要去哪个城市？", "Where are you going?"),
    "date": Phrase("请问哪天出发？", "Which day would you like to travel?"),
    "time": Phrase(
        "请问您希望几点出发？（可以说上午、下午、晚上、10点以前，或者几点都可以）",
        "What time would you like to leave? (e.g. morning, afternoon, evening, "
        "before 10, or any time)",
    ),
    "city": Phrase("请问您要住哪个城市的酒店？", "Which city do you need a hotel in?"),
    "check_in": Phrase("请问哪天入住？", "Which day will you check in?"),
    "nights": Phrase("请问住几晚？", "How many nights will you stay?"),
    "domain": Phrase(
        "请问您要订机票、火车票还是酒店？", "Would you like a flight, a train ticket or a hotel?"
    ),
    "more": Phrase("请问还需要别的帮助吗？", "Is there anything else I can do for you?"),
}
CAPABILITIES = Phrase(
    "我可以帮您查询和预订机票、火车票和酒店，例如：“明天上午从北京到上海的机票”、"
    "“后天去杭州的高铁”、“上海的酒店住两晚，每晚800以内”。",
    "I can search and book flights, train tickets and hotels, for example: "
    '"a flight from Beijing to Shanghai tomorrow morning", "a high-speed train to Hangzhou '
    'the day after tomorrow" or "a hotel in Shanghai for two nights under 800 a night".',
)
WHAT_CAN_I_DO = Phrase("请问有什么可以帮您？", "What can I do for you?")

# ---------------------------------------------------------------------------- replies

ENDED = Phrase("本次对话已经结束，感谢使用。", "This conversation has ended. Thank you.")
GOODBYE = Phrase(
    "好的，感谢您的使用，祝您旅途愉快，再见！", "You're welcome. Have a good trip, goodbye!"
)
HELLO = Phrase("您好！", "Hello!")
HELLO_AND_CAPABILITIES = Phrase("您好！{capabilities}", "Hello! {capabilities}")
NOT_UNDERSTOOD = Phrase("抱歉，我没有听明白。", "Sorry, I didn't catch that.")
NOT_COVERED = Phrase(
    "抱歉，{places}不在可预订的城市范围内。可预订的城市有：{cities}。",
    "Sorry, {places} is not covered. I can book for {cities}.",
)
HOW_TO_CHANGE = Phrase(
    "如需改签，请先说“取消”取消原订单，再告诉我新的行程。",
    "To change a booking, say 'cancel' and then tell me the new trip.",
)
UNSUPPORTED_REQUEST = Phrase(
    "抱歉，暂不支持{what}。{capabilities}", "Sorry, I can't help with {what}. {capabilities}"
)
OFF_TOPIC = Phrase(
    "抱歉，这个我帮不上忙。{capabilities}", "Sorry, I can't help with that. {capabilities}"
)

DAY_PASSED = Phrase("{day}已经过去了，无法预订。", "{day} is in the past and cannot be booked.")
SAME_CITIES = Phrase(
    "出发城市和到达城市不能相同。", "The departure and arrival cities must differ."
)
CHECK_OUT_TOO_EARLY = Phrase("退房日期要晚于入住日期。", "Check-out must be after check-in.")
RECAP = Phrase("好的，{request}。", "OK, {request}.")

LOOKED_UP = Phrase("帮您查询了{request}{relaxed}{lead}", "I looked up {request}.{relaxed} {lead}")
FOUND_SEVERAL = Phrase("，有以下选择：", "Here is what I found:")
FOUND_ONE = Phrase("，为您找到：", "Here is what I found:")
CLOSEST_SEVERAL = Phrase("最接近的选择：", "The closest options are:")
CLOSEST_ONE = Phrase("最接近的是：", "The closest is:")
NOTHING_MATCHES = Phrase("，没有{wanted}的{noun}。", " There is no {noun} {wanted}.")
"""What a search had to give up; ``wanted`` lists the ``RELAXED_*`` phrases."""
RELAXED_TIME = Phrase("{spans}出发", "leaving {spans}")
RELAXED_PRICE = Phrase("{max_price}元以内", "at or under {max_price} yuan")
RELAXED_PRICE_PER_NIGHT = Phrase("每晚{max_price}元以内", "at or under {max_price} yuan a night")
RELAXED_CLASS = Phrase("{kind}", "in {kind}")
RELAXED_TRAIN_TYPE = Phrase("{train_type}字头", "on {train_type} trains")
RELAXED_STARS = Phrase("{min_stars}星及以上", "with {min_stars} stars or more")
RELAXED_ROOM = Phrase("{kind}", "with a {kind}")
OPTION_LINE = Phrase("\n{n}. {option}", "\n{n}. {option}")
RECOMMENDATION = Phrase(
    "{lines}\n推荐第{n}个（{option}），要预订吗？也可以说“第二个”或“最便宜的”。",
    "{lines}\nI recommend option {n} ({option}). Shall I book it? You can also say "
    '"the second one" or "the cheapest".',
)
ONLY_OPTION = Phrase("{option}。要预订吗？", "{option}. Shall I book it?")
NO_OTHER_OPTIONS = Phrase(
    "抱歉，{request}没有其他可预订的选择了。", "Sorry, there are no other {request} available."
)
NO_OPTIONS = Phrase(
    "抱歉，{request}没有可预订的选择（可查询的日期约为一个月内）。",
    "Sorry, there are no {request} available (dates within about a month).",
)
TRY_ANOTHER_DAY = Phrase("您可以换一个日期试试。", "You could try another day.")

SHALL_I_BOOK = Phrase("请问要预订{option}吗？", "Shall I book {option}?")
ALREADY_CHEAPEST = Phrase("这已经是最便宜的选择了。", "That is already the cheapest option.")
ONLY_SO_MANY = Phrase(
    "目前只有{count}个选择，请说“第一个”到“第{count}个”。",
    "There {be} only {count} option{s} on the list.",
)
BOOK_LATER = Phrase("好的，稍后为您预订{domains}。", "OK, I'll book the {domains} next.")
BOOKED = Phrase(
    "已为您预订：{option}，订单号：{reference}。",
    "Booked: {option}. Your booking reference is {reference}.",
)
BOOKING_FAILED = Phrase(
    "抱歉，{option}预订失败：{reason}。", "Sorry, {option} could not be booked: {reason}."
)
ALREADY_BOOKED = Phrase(
    "已经为您预订好了（订单号：{reference}），不会重复预订。",
    "That is already booked (reference {reference}); I won't book it twice.",
)
NEXT = Phrase("接下来为您预订{domain}。", "Next, the {domain}.")

CANCELLED = Phrase(
    "已为您取消订单{reference}（{option}）。", "Booking {reference} ({option}) is cancelled."
)
CANCEL_FAILED = Phrase(
    "抱歉，订单{reference}取消失败：{reason}。",
    "Sorry, booking {reference} could not be cancelled: {reason}.",
)
NOTHING_TO_CANCEL = Phrase("您目前没有可以取消的预订。", "You have no booking to cancel.")
REQUEST_DROPPED = Phrase("好的，已取消本次{domain}预订。", "OK, I've dropped the {domain} request.")
DECLINED = Phrase("好的，不订{domain}了。", "OK, I won't book the {domain}.")
REPLACED_CANCELLED = Phrase(
    "原订单{reference}已取消。", "The earlier booking {reference} is cancelled."
)
REPLACED_CANCEL_FAILED = Phrase(
    "原订单{reference}取消失败：{reason}。",
    "The earlier booking {reference} could not be cancelled: {reason}.",
)

# ---------------------------------------------------------------------------- values

DATE = Phrase("{month}月{day}日（周{weekday_zh}）", "{weekday_en} {day} {month_en}")
BEFORE = Phrase("{end}以前", "before {end}")
AFTER = Phrase("{start}以后", "after {start}")
BETWEEN = Phrase("{start}–{end}", "between {start} and {end}")
DISCOUNT = Phrase("{tenths:.1f}折", "{percent}% of full fare")
FULL_FARE = Phrase("全价", "full fare")
FLIGHT_OPTION = Phrase(
    "{number}（{airline}）{depart}–{arrive}，{kind}{fare}，{price}元",
    "{number} ({airline_en}) {depart}–{arrive}, {kind}, {fare}, {price} yuan",
)
TRAIN_OPTION = Phrase(
    "{number} {depart}–{arrive}（{hours}小时{minutes}分），{kind}，{price}元",
    "{number} {depart}–{arrive} ({hours}h{minutes:02d}), {kind}, {price} yuan",
)
HOTEL_OPTION = Phrase(
    "{name}（{stars}星，评分{rating}，{district}），{kind}每晚{price}元，{nights}晚共{total}元",
    "{name_en} ({stars}-star, rated {rating}, {district_en}), {kind}, {price} yuan a night, "
    "{total} yuan for {nights} night{s}",
)
HOTEL_SHORT = Phrase("{name}，{price}元/晚", "{name_en}, {price} yuan a night")
TRIP_SHORT = Phrase("{number}，{depart}出发，{price}元", "{number} at {depart}, {price} yuan")
TRIP_REQUEST = Phrase("{pieces}的{trips}", "{trips} {pieces}")
ON_DAY = Phrase("{day}", "on {day}")
FROM_CITY = Phrase("从{city}", "from {city}")
TO_CITY = Phrase("到{city}", "to {city}")
HOTEL_REQUEST = Phrase("酒店", "a hotel")
HOTEL_REQUEST_IN = Phrase("{city}的酒店", "a hotel in {city}")
HOTEL_REQUEST_DETAILED = Phrase("酒店（{pieces}）", "a hotel {pieces}")
HOTEL_REQUEST_IN_DETAILED = Phrase("{city}的酒店（{pieces}）", "a hotel in {city} {pieces}")
CHECK_IN_ON = Phrase("{day}入住", "from {day}")
FOR_NIGHTS = Phrase("{nights}晚", "for {nights} night{s}")


def clock(minutes: int) -> str:
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


def date_text(iso: str, lang: str) -> str:
    day = dt.date.fromisoformat(iso)
    weekday = day.weekday()
    return DATE.text(
        lang,
        month=day.month,
        day=day.day,
        weekday_zh=WEEKDAY_ZH[weekday],
        weekday_en=WEEKDAY_EN[weekday],
        month_en=MONTH_EN[day.month - 1],
    )


def city_text(city: str, lang: str) -> str:
    """A city of the booking world by its name in ``lang`` (cities are kept by Chinese name)."""
    return city if is_chinese(lang) else CITY_EN.get(city, city)


def cities_text(lang: str) -> str:
    """Every city of the booking world, as a list."""
    return LIST.text(lang).join(city_text(city, lang) for city in CITY_EN)


def places_text(places: Sequence[str], lang: str) -> str:
    """Places outside the booking world as the user wrote them; capitalised in English."""
    listed = LIST.text(lang).join(places)
    return listed if is_chinese(lang) else listed.title()


def spans_text(spans: Sequence[Span], lang: str) -> str:
    parts = []
    for start, end in spans:
        if start == 0:
            parts.append(BEFORE.text(lang, end=clock(end)))
        elif end == END_OF_DAY:
            parts.append(AFTER.text(lang, start=clock(start)))
        else:
            parts.append(BETWEEN.text(lang, start=clock(start), end=clock(end)))
    return OR.text(lang).join(parts)


def class_text(domain: str, option: str, lang: str) -> str:
    table = CABIN if domain == "flight" else SEAT if domain == "train" else ROOM
    phrase = table.get(option)
    return option if phrase is None else phrase.text(lang)


def domains_text(domains: Sequence[str], lang: str) -> str:
    return AND.text(lang).join(DOMAIN[domain].text(lang) for domain in domains)


def option_text(option: Option, lang: str) -> str:
    """One line describing a shown option, with its number, times and price."""
    kind = class_text(option["domain"], option["option"], lang)
    if option["domain"] == "flight":
        discount = option.get("discount")
        fare = (
            DISCOUNT.text(lang, tenths=discount * 10, percent=round(discount * 100))
            if discount and discount < 1
            else FULL_FARE.text(lang)
        )
        return FLIGHT_OPTION.text(lang, **{**option, "kind": kind, "fare": fare})
    if option["domain"] == "train":
        hours, minutes = divmod(int(option["duration"]), 60)
        values = {**option, "kind": kind, "hours": hours, "minutes": minutes}
        return TRAIN_OPTION.text(lang, **values)
    nights = int(option["nights"])
    total = int(option["price"]) * nights
    values = {**option, "kind": kind, "nights": nights, "total": total, "s": plural(nights)}
    values["district_en"] = district_en(str(option.get("district", "")))
    return HOTEL_OPTION.text(lang, **values)


def short_text(option: Option, lang: str) -> str:
    if option["domain"] == "hotel":
        return HOTEL_SHORT.text(lang, **option)
    return TRIP_SHORT.text(lang, **option)


def request_text(intent: Intent, slots: dict[str, Any], lang: str) -> str:
    """What is known of a request, e.g. "5月15日（周四）从北京到上海的航班"."""
    if intent.is_trip:
        trips = TRIPS["flight" if intent.domain == "flight" else "train"].text(lang)
        pieces = []
        if "date" in slots:
            pieces.append(ON_DAY.text(lang, day=date_text(slots["date"], lang)))
        if "from_city" in slots:
            pieces.append(FROM_CITY.text(lang, city=city_text(slots["from_city"], lang)))
        if "to_city" in slots:
            pieces.append(TO_CITY.text(lang, city=city_text(slots["to_city"], lang)))
        if not pieces:
            return trips
        return TRIP_REQUEST.text(lang, trips=trips, pieces=PIECES.text(lang).join(pieces))
    pieces = []
    if "check_in" in slots:
        pieces.append(CHECK_IN_ON.text(lang, day=date_text(slots["check_in"], lang)))
    if "nights" in slots:
        nights = int(slots["nights"])
        pieces.append(FOR_NIGHTS.text(lang, nights=nights, s=plural(nights)))
    joined = HOTEL_PIECES.text(lang).join(pieces)
    if "city" in slots:
        city = city_text(slots["city"], lang)
        if pieces:
            return HOTEL_REQUEST_IN_DETAILED.text(lang, city=city, pieces=joined)
        return HOTEL_REQUEST_IN.text(lang, city=city)
    return HOTEL_REQUEST_DETAILED.text(lang, pieces=joined) if pieces else HOTEL_REQUEST.text(lang)


def relaxed_text(domain: str, slots: dict[str, Any], names: Sequence[str], lang: str) -> str:
    """What a search had to give up to find anything, e.g. "，没有10点以前出发的航班。"."""
    wanted = []
    for name in names:
        if name == "time":
            wanted.append(RELAXED_TIME.text(lang, spans=spans_text(spans_of(slots["time"]), lang)))
        elif name == "price":
            phrase = RELAXED_PRICE_PER_NIGHT if domain == "hotel" else RELAXED_PRICE
            wanted.append(phrase.text(lang, max_price=slots["max_price"]))
        elif name == "class":
            kind = class_text(domain, slots["cabin" if domain == "flight" else "seat"], lang)
            wanted.append(RELAXED_CLASS.text(lang, kind=kind))
        elif name == "type":
            wanted.append(RELAXED_TRAIN_TYPE.text(lang, train_type=slots["train_type"]))
        elif name == "stars":
            wanted.append(RELAXED_STARS.text(lang, min_stars=slots["min_stars"]))
        elif name == "room":
            kind = class_text("hotel", slots["room_type"], lang)
            wanted.append(RELAXED_ROOM.text(lang, kind=kind))
    return NOTHING_MATCHES.text(
        lang, wanted=AND.text(lang).join(wanted), noun=NOT_FOUND_NOUN[domain].text(lang)
    )


def plural(count: int) -> str:
    """The English plural ending for ``count`` things."""
    return "s" if count > 1 else ""
