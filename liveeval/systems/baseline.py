"""The baseline booking system: keyword lookup without dialogue state.

It reads the current message only. When that message names a domain with everything a
search needs (two cities and a date for a trip; a city, a date and the nights for a hotel),
it searches with the constraints it can find in the same message, proposes the first
result and books it on the next confirmation. Anything else gets one fixed prompt. The
only state it keeps is the option it has just proposed, so that a user who says it all in
one sentence and then confirms gets a booking: a leaderboard then shows real, lower,
contrast with the reference system instead of zero.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from evalsite.language import is_chinese
from liveeval.booking.offers import BookingError, World
from liveeval.systems.reference.search import hotel_option, trip_option
from liveeval.systems.reference.state import Option, PolicyTurn
from liveeval.systems.reference.wording import option_text
from liveeval.systems.understanding.language import detect_lang
from liveeval.systems.understanding.reading import Reading, Slots, read
from liveeval.systems.understanding.times import ANY_TIME

PROMPT_ZH = (
    "请在一句话里告诉我完整的需求，例如：“明天上午从北京到上海的机票”、"
    "“后天从上海到杭州的火车票”或“上海的酒店，明天入住，住两晚”。"
)
PROMPT_EN = (
    "Please tell me everything in one sentence, for example: "
    '"a flight from Beijing to Shanghai tomorrow morning" or '
    '"a hotel in Shanghai from tomorrow for two nights".'
)


def respond(
    world: World, state: dict[str, Any], user_text: str, *, default_lang: str = "zh"
) -> PolicyTurn:
    lang = detect_lang(user_text, state.get("lang") or default_lang)
    reading = read(user_text, world.today)
    if reading.goodbye or (reading.farewell and not reading.has_content()):
        return _turn(lang, "再见！", "Goodbye!", end=True)
    proposal = state.get("proposal")
    if proposal and reading.confirm and not reading.mentions:
        return _book(world, proposal, lang)
    option = _lookup(world, reading)
    if option is None:
        return _turn(lang, PROMPT_ZH, PROMPT_EN)
    if not option:
        return _turn(lang, "没有找到符合条件的结果。", "Nothing matches that request.")
    return _turn(
        lang,
        f"找到：{option_text(option, 'zh')}。要预订吗？",
        f"Found: {option_text(option, 'en')}. Shall I book it?",
        proposal=option,
    )


def _turn(
    lang: str, zh_text: str, en_text: str, *, end: bool = False, proposal: Option | None = None
) -> PolicyTurn:
    state: dict[str, Any] = {"lang": lang}
    if proposal:
        state["proposal"] = proposal
    return PolicyTurn(zh_text if is_chinese(lang) else en_text, end, state, lang)


def _book(world: World, option: Option, lang: str) -> PolicyTurn:
    try:
        if option["domain"] == "hotel":
            receipt = world.book(
                "hotel",
                option["id"],
                option["option"],
                check_in=dt.date.fromisoformat(option["check_in"]),
                nights=int(option["nights"]),
            )
        else:
            receipt = world.book(option["domain"], option["id"], option["option"])
    except BookingError as error:
        return _turn(lang, f"预订失败：{error.message}。", f"Booking failed: {error.message}.")
    return _turn(
        lang,
        f"已预订，订单号：{receipt.reference}。",
        f"Booked. Your booking reference is {receipt.reference}.",
    )


def _lookup(world: World, reading: Reading) -> Option | None:
    """The first matching option; ``{}`` when the request was complete but nothing matched."""
    if not reading.domains:
        return None
    domain = reading.domains[0]
    slots = reading.slots()
    if domain == "hotel":
        return _hotel(world, slots)
    return _trip(world, domain, slots)


def _trip(world: World, domain: str, slots: Slots) -> Option | None:
    loose = iter(slots.cities)
    from_city = slots.from_city or next(loose, None)
    to_city = slots.to_city or next(loose, None)
    if not (from_city and to_city and slots.dates):
        return None
    spans = slots.spans or ANY_TIME
    after = dt.time(spans[0][0] // 60, spans[0][0] % 60)
    before = dt.time(spans[-1][1] // 60, spans[-1][1] % 60)
    wanted: dict[str, Any] = {
        "time": [list(span) for span in spans],
        "cabin": slots.cabin,
        "seat": slots.seat,
        "train_type": slots.train_type,
        "max_price": slots.max_price,
    }
    offers: list[Any]
    if domain == "flight":
        offers = list(
            world.search_flights(
                from_city, to_city, slots.dates[0], depart_after=after, depart_before=before
            )
        )
    else:
        offers = list(
            world.search_trains(
                from_city,
                to_city,
                slots.dates[0],
                depart_after=after,
                depart_before=before,
                train_type=slots.train_type,
            )
        )
    return next((option for offer in offers if (option := trip_option(offer, wanted, set()))), {})


def _hotel(world: World, slots: Slots) -> Option | None:
    city = slots.stay_city or slots.to_city or next(iter(slots.cities), None)
    if not (city and slots.dates and slots.nights):
        return None
    offers = world.search_hotels(
        city,
        slots.dates[0],
        slots.nights,
        min_stars=slots.min_stars,
        max_price=slots.max_price,
        room_type=slots.room_type,
    )
    wanted = {
        "min_stars": slots.min_stars,
        "max_price": slots.max_price,
        "room_type": slots.room_type,
    }
    return next((option for offer in offers if (option := hotel_option(offer, wanted, set()))), {})
