"""The built-in reference booking system: a rule-based slot-filling dialogue policy.

It books flights, trains and hotels in the booking world through the ``World`` protocol
only, and keeps everything it needs between messages in a JSON-serialisable ``state``
(another server process may handle the next message). ``docs/booking.md`` describes the
behaviour; in short:

* intents are taken in the order the user names them, slots from any utterance;
* missing required slots are asked one at a time;
* when everything is known it searches, shows up to three options and recommends one,
  offering the closest alternative when nothing matches;
* it books only on a confirmation of a shown option, so a second "yes" cannot book twice.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import itertools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from liveeval.booking.offers import (
    BookingError,
    Domain,
    FlightOffer,
    HotelOffer,
    TrainOffer,
    World,
)
from liveeval.systems.understanding import (
    ANY_TIME,
    CITY_EN,
    END_OF_DAY,
    Hit,
    Reading,
    Slots,
    Span,
    detect_lang,
    read,
)

Option = dict[str, Any]

TRIP_REQUIRED = ("from_city", "to_city", "date", "time")
HOTEL_REQUIRED = ("city", "check_in", "nights")
HOTEL_ONLY_HITS = {"nights", "min_stars", "room_type", "check_out"}
TRIP_ONLY_HITS = {"spans", "any_time", "cabin", "seat", "train_type"}

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

# When a requested class is not available, the nearest ones to offer instead.
CLASS_FALLBACK = {
    "economy": ("business", "first"),
    "business": ("first", "economy"),
    "first": ("business", "economy"),
    "second": ("first", "business"),
    "hard_seat": ("hard_sleeper", "second", "soft_sleeper"),
    "hard_sleeper": ("soft_sleeper", "hard_seat"),
    "soft_sleeper": ("hard_sleeper", "first"),
    "king": ("twin", "suite"),
    "twin": ("king", "suite"),
    "suite": ("king", "twin"),
}
SHOWN = 3
WHERE_AND_WHEN = {"date", "city", "from_city", "to_city", "stay_city"}
"""Hits that an off-topic question can carry ("the weather in Beijing tomorrow")."""
BOOKING_WORDS = r"订|票|预定|\bbook|\bticket|\breserv"
"""A wish to book without saying what: answered by asking for the domain."""


@dataclass
class PolicyTurn:
    text: str
    end: bool
    state: dict[str, Any]
    lang: str


# ---------------------------------------------------------------------------- state


@dataclass
class Intent:
    """One booking the user wants; ``slots`` hold JSON values (ISO dates, [start, end] spans)."""

    domain: str
    slots: dict[str, Any] = field(default_factory=dict)
    status: str = "open"
    options: list[Option] = field(default_factory=list)
    proposed: int = 0
    skip: list[int] = field(default_factory=list)
    booking: dict[str, Any] | None = None
    replaces: dict[str, Any] | None = None

    @property
    def is_trip(self) -> bool:
        return self.domain in ("flight", "train")


@dataclass
class Dialogue:
    lang: str = ""
    intents: list[Intent] = field(default_factory=list)
    pending: str | None = None
    asked: int | None = None
    draft: list[str] = field(default_factory=list)
    ended: bool = False

    @classmethod
    def load(cls, state: dict[str, Any]) -> Dialogue:
        data = dict(state)
        intents = [Intent(**intent) for intent in data.pop("intents", [])]
        return cls(intents=intents, **data)

    def dump(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    def current(self) -> Intent | None:
        return next((intent for intent in self.intents if intent.status == "open"), None)

    def open_of(self, domain: str) -> Intent | None:
        return next((i for i in self.intents if i.status == "open" and i.domain == domain), None)

    def last_booked(self, domain: str | None = None) -> Intent | None:
        booked = [
            intent
            for intent in self.intents
            if intent.status == "booked" and domain in (None, intent.domain)
        ]
        return booked[-1] if booked else None


def respond(
    world: World, state: dict[str, Any], user_text: str, *, default_lang: str = "zh"
) -> PolicyTurn:
    """Answer one user message; ``state`` is ``{}`` on the first turn."""
    dialogue = Dialogue.load(state)
    lang = detect_lang(user_text, dialogue.lang or default_lang)
    dialogue.lang = lang
    turn = _Turn(world, dialogue, read(user_text, world.today), lang)
    turn.run()
    return PolicyTurn(
        text="".join(turn.parts).strip(), end=dialogue.ended, state=dialogue.dump(), lang=lang
    )


# ---------------------------------------------------------------------------- wording


def spans_of(value: Any) -> list[Span]:
    return [(int(start), int(end)) for start, end in value]


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


# ---------------------------------------------------------------------------- searching


@dataclass(frozen=True)
class Proposal:
    options: list[Option]
    proposed: int
    relaxed: tuple[str, ...]


def minutes_of(time: dt.time | str) -> int:
    if isinstance(time, str):
        hours, minutes = time.split(":")
        return int(hours) * 60 + int(minutes)
    return time.hour * 60 + time.minute


def distance(minute: int, spans: Sequence[Span]) -> int:
    """How far a departure lies outside the wanted spans, in minutes."""
    return min(0 if start <= minute <= end else min(abs(minute - start), abs(minute - end))
               for start, end in spans)  # fmt: skip


def effective_slots(dialogue: Dialogue, intent: Intent) -> dict[str, Any]:
    """The intent's slots with the defaults a hotel takes from the trip before it."""
    slots = dict(intent.slots)
    if intent.domain != "hotel":
        return slots
    index = dialogue.intents.index(intent)
    trip = next(
        (i for i in reversed(dialogue.intents[:index]) if i.is_trip and i.status != "dropped"),
        None,
    )
    if trip is not None:
        if "city" not in slots and "to_city" in trip.slots:
            slots["city"] = trip.slots["to_city"]
        if "check_in" not in slots and "date" in trip.slots:
            slots["check_in"] = trip.slots["date"]
    if "nights" not in slots and "check_out" in slots and "check_in" in slots:
        nights = (
            dt.date.fromisoformat(slots["check_out"]) - dt.date.fromisoformat(slots["check_in"])
        ).days
        if nights > 0:
            slots["nights"] = nights
    return slots


def constraints_of(domain: str, slots: dict[str, Any]) -> list[str]:
    """The optional constraints a search can relax, most negotiable first."""
    present = []
    if domain == "hotel":
        present += ["price"] if slots.get("max_price") else []
        present += ["stars"] if slots.get("min_stars") else []
        present += ["room"] if slots.get("room_type") else []
        return present
    if spans_of(slots["time"]) != ANY_TIME:
        present.append("time")
    if slots.get("max_price"):
        present.append("price")
    if slots.get("cabin" if domain == "flight" else "seat"):
        present.append("class")
    if domain == "train" and slots.get("train_type"):
        present.append("type")
    return present


def _fare_choice(
    fares: dict[str, Any], wanted: str | None, relax_class: bool, max_price: int | None
) -> tuple[str, Any] | None:
    if wanted is None:
        order: tuple[str, ...] = tuple(sorted(fares, key=lambda name: fares[name].price))
    else:
        order = (wanted, *CLASS_FALLBACK.get(wanted, ())) if relax_class else (wanted,)
    for name in order:
        fare = fares.get(name)
        if fare is None or fare.seats_left <= 0:
            continue
        if max_price is not None and fare.price > max_price:
            continue
        return name, fare
    return None


def trip_option(
    offer: FlightOffer | TrainOffer, slots: dict[str, Any], relaxed: set[str]
) -> Option | None:
    if "time" not in relaxed:
        minute = minutes_of(offer.depart)
        if not any(start <= minute <= end for start, end in spans_of(slots["time"])):
            return None
    max_price = None if "price" in relaxed else slots.get("max_price")
    option: Option = {
        "domain": offer.domain,
        "id": offer.id,
        "number": offer.number,
        "from_city": offer.from_city,
        "to_city": offer.to_city,
        "date": offer.date.isoformat(),
        "depart": offer.depart.strftime("%H:%M"),
        "arrive": offer.arrive.strftime("%H:%M"),
    }
    if isinstance(offer, FlightOffer):
        wanted = slots.get("cabin") or "economy"
        choice = _fare_choice(offer.cabins, wanted, "class" in relaxed, max_price)
        option |= {"airline": offer.airline, "airline_en": offer.airline_en}
    else:
        wanted_type = slots.get("train_type")
        if wanted_type and "type" not in relaxed and offer.train_type != wanted_type:
            return None
        choice = _fare_choice(offer.seats, slots.get("seat"), "class" in relaxed, max_price)
        option |= {"train_type": offer.train_type, "duration": offer.duration_minutes}
    if choice is None:
        return None
    name, fare = choice
    return option | {"option": name, "price": fare.price, "discount": fare.discount}


def hotel_option(offer: HotelOffer, slots: dict[str, Any], relaxed: set[str]) -> Option | None:
    min_stars = slots.get("min_stars")
    if min_stars and "stars" not in relaxed and offer.stars < int(min_stars):
        return None
    max_price = None if "price" in relaxed else slots.get("max_price")
    choice = _fare_choice(
        offer.rooms, slots.get("room_type") or "king", "room" in relaxed, max_price
    )
    if choice is None:
        return None
    name, fare = choice
    return {
        "domain": "hotel",
        "id": offer.id,
        "name": offer.name,
        "name_en": offer.name_en,
        "district": offer.district,
        "stars": offer.stars,
        "rating": offer.rating,
        "city": offer.city,
        "check_in": offer.check_in.isoformat(),
        "nights": offer.nights,
        "option": name,
        "price": fare.price,
    }


def _ranking(domain: str, slots: dict[str, Any], relaxed: set[str]) -> Callable[[Option], Any]:
    prefer = slots.get("prefer")
    if domain == "hotel":
        if "stars" in relaxed:
            return lambda o: (-o["stars"], o["price"])
        if "price" in relaxed or prefer == "cheapest":
            return lambda o: (o["price"], -o["stars"])
        if prefer == "best":
            return lambda o: (-o["rating"], o["price"])
        if slots.get("min_stars"):
            return lambda o: (o["stars"], o["price"])
        return lambda o: (o["price"], -o["rating"])
    if "time" in relaxed:
        spans = spans_of(slots["time"])
        return lambda o: (distance(minutes_of(o["depart"]), spans), minutes_of(o["depart"]))
    if prefer == "cheapest" or "price" in relaxed:
        return lambda o: (o["price"], minutes_of(o["depart"]))
    if prefer == "latest":
        return lambda o: -minutes_of(o["depart"])
    return lambda o: minutes_of(o["depart"])


def _shown(domain: str, ranked: list[Option], relaxed: set[str]) -> list[Option]:
    """The recommended option plus the earliest, cheapest... so every "the X one" is on show."""
    if domain == "hotel":
        extremes = [
            min(ranked, key=lambda o: (o["price"], -o["rating"])),
            max(ranked, key=lambda o: (o["rating"], -o["price"])),
        ]
    elif "time" in relaxed:
        extremes = []
    else:
        extremes = [
            min(ranked, key=lambda o: minutes_of(o["depart"])),
            min(ranked, key=lambda o: (o["price"], minutes_of(o["depart"]))),
            max(ranked, key=lambda o: minutes_of(o["depart"])),
        ]
    chosen: list[Option] = []
    for option in [ranked[0], *extremes, *ranked]:
        if all(option["id"] != other["id"] for other in chosen):
            chosen.append(option)
    chosen = chosen[:SHOWN]
    if domain == "hotel":
        return sorted(chosen, key=lambda o: (o["stars"], o["price"]))
    return sorted(chosen, key=lambda o: minutes_of(o["depart"]))


def search(
    world: World, domain: str, slots: dict[str, Any], skip: Sequence[int]
) -> Proposal | None:
    """Options that meet the request, or else the closest ones, relaxing as little as possible."""
    offers: Sequence[FlightOffer | TrainOffer | HotelOffer]
    if domain == "hotel":
        offers = world.search_hotels(
            slots["city"], dt.date.fromisoformat(slots["check_in"]), int(slots["nights"])
        )
    else:
        finder = world.search_flights if domain == "flight" else world.search_trains
        offers = finder(slots["from_city"], slots["to_city"], dt.date.fromisoformat(slots["date"]))
    offers = [offer for offer in offers if offer.id not in skip]
    constraints = constraints_of(domain, slots)
    for size in range(len(constraints) + 1):
        for relaxed_names in itertools.combinations(constraints, size):
            relaxed = set(relaxed_names)
            options = [
                option
                for offer in offers
                if (
                    option := hotel_option(offer, slots, relaxed)
                    if isinstance(offer, HotelOffer)
                    else trip_option(offer, slots, relaxed)
                )
                is not None
            ]
            if options:
                ranked = sorted(options, key=_ranking(domain, slots, relaxed))
                shown = _shown(domain, ranked, relaxed)
                proposed = next(i for i, o in enumerate(shown) if o["id"] == ranked[0]["id"])
                return Proposal(shown, proposed, relaxed_names)
    return None


# ---------------------------------------------------------------------------- the turn


class _Turn:
    """Handles one user message: updates the dialogue and collects the reply."""

    def __init__(self, world: World, dialogue: Dialogue, reading: Reading, lang: str) -> None:
        self.world = world
        self.d = dialogue
        self.r = reading
        self.lang = lang
        self.zh = lang == "zh"
        self.parts: list[str] = []
        self.changed: list[Intent] = []
        self.created: list[Intent] = []

    def say(self, zh: str, en: str) -> None:
        joined = en if not self.parts or en.startswith("\n") else " " + en
        self.parts.append(zh if self.zh else joined)

    # -- the order in which a message is understood

    def run(self) -> None:
        if self.d.ended:
            self.say("本次对话已经结束，感谢使用。", "This conversation has ended. Thank you.")
            return
        if self._ends() or self._cancels() or self._declines() or self._guides():
            return
        if self.r.unknown_places and not any(hit.kind.endswith("city") for hit in self.r.hits):
            places = "、".join(self.r.unknown_places)
            self.say(
                f"抱歉，{places}不在可预订的城市范围内。可预订的城市有：{'、'.join(CITY_EN)}。",
                f"Sorry, {', '.join(self.r.unknown_places).title()} is not covered. I can book "
                f"for {', '.join(CITY_EN.values())}.",
            )
        self._open_intents()
        self._route()
        current = self.d.current()
        if current is None:
            self._idle()
        else:
            self._act(current)

    def _ends(self) -> bool:
        r, d = self.r, self.d
        # "没有了"/"谢谢" close the dialogue only once nothing is in progress; "再见" always does.
        done = d.current() is None and not r.has_content()
        if not (r.goodbye or (done and (r.farewell or (r.thanks and bool(d.intents))))):
            return False
        d.ended = True
        d.pending = None
        self.say(
            "好的，感谢您的使用，祝您旅途愉快，再见！", "You're welcome. Have a good trip, goodbye!"
        )
        return True

    def _cancels(self) -> bool:
        if not self.r.cancel:
            return False
        domain = self.r.domains[0] if self.r.domains else None
        current = self.d.current()
        if current is not None and current.replaces is not None:
            self._drop(current)
            current = None
        target = self.d.last_booked(domain)
        if target is not None and target.booking is not None:
            reference = target.booking["reference"]
            try:
                self.world.cancel(reference)
            except BookingError as error:
                self.say(
                    f"抱歉，订单{reference}取消失败：{error.message}。",
                    f"Sorry, booking {reference} could not be cancelled: {error.message}.",
                )
                return True
            target.status = "cancelled"
            self.say(
                f"已为您取消订单{reference}（{option_text(target.booking['option'], 'zh')}）。",
                f"Booking {reference} ({option_text(target.booking['option'], 'en')}) "
                "is cancelled.",
            )
        elif current is not None:
            self._drop(current)
            self.say(
                f"好的，已取消本次{DOMAIN_ZH[current.domain]}预订。",
                f"OK, I've dropped the {DOMAIN_EN[current.domain]} request.",
            )
        else:
            self.say("您目前没有可以取消的预订。", "You have no booking to cancel.")
        self._advance(intro=False)
        return True

    def _declines(self) -> bool:
        current = self.d.current()
        if current is None or not self.r.decline or self.r.has_content():
            return False
        self._drop(current)
        self.say(
            f"好的，不订{DOMAIN_ZH[current.domain]}了。",
            f"OK, I won't book the {DOMAIN_EN[current.domain]}.",
        )
        self._advance(intro=False)
        return True

    def _guides(self) -> bool:
        """Guidance for what the booking world does not cover; True when that is the answer."""
        r = self.r
        if r.unsupported and not r.mentions:
            if r.unsupported == "change":
                self.say(
                    "如需改签，请先说“取消”取消原订单，再告诉我新的行程。",
                    "To change a booking, say 'cancel' and then tell me the new trip.",
                )
            else:
                self.say(
                    f"抱歉，暂不支持{UNSUPPORTED_ZH[r.unsupported]}。{CAPABILITIES_ZH}",
                    f"Sorry, I can't help with {UNSUPPORTED_EN[r.unsupported]}. {CAPABILITIES_EN}",
                )
        elif r.off_topic and not r.mentions and all(hit.kind in WHERE_AND_WHEN for hit in r.hits):
            self.say(
                f"抱歉，这个我帮不上忙。{CAPABILITIES_ZH}",
                f"Sorry, I can't help with that. {CAPABILITIES_EN}",
            )
        elif (r.help or r.greeting) and not r.has_content():
            if r.greeting:
                self.say("您好！", "Hello!")
            if r.help or not self.d.intents:
                self.say(CAPABILITIES_ZH, CAPABILITIES_EN)
        else:
            return False
        self._reask()
        return True

    # -- intents and slots

    def _reopen(self, intent: Intent) -> None:
        """A correction after booking: propose again, and replace the booking once confirmed."""
        intent.status = "open"
        intent.replaces = intent.booking
        intent.booking = None
        intent.options = []
        intent.skip = []

    def _drop(self, intent: Intent) -> None:
        """Give up a request; a correction given up leaves the original booking in place."""
        intent.options = []
        if intent.replaces is not None:
            intent.status = "booked"
            intent.booking = intent.replaces
            intent.replaces = None
        else:
            intent.status = "dropped"

    def _new(self, domain: str, slots: dict[str, Any] | None = None) -> Intent:
        intent = Intent(domain=domain, slots=dict(slots or {}))
        self.d.intents.append(intent)
        self.created.append(intent)
        return intent

    def _open_intents(self) -> None:
        r, d = self.r, self.d
        for domain in r.domains:
            if d.open_of(domain) is not None:
                continue
            booked = d.last_booked(domain)
            if r.correction and booked is not None:
                self._reopen(booked)
            else:
                self._new(domain)
        slot_hits = [hit for hit in r.hits if hit.kind != "prefer" or d.pending != "confirm"]
        if not r.domains and d.current() is None and slot_hits:
            slots = r.slots()
            last = d.intents[-1] if d.intents else None
            booked = d.last_booked()
            if last is None:
                d.draft.append(r.text)
            elif r.again or (slots.from_city and slots.to_city and not r.correction):
                self._new(last.domain, last.slots if r.again else None)
            elif booked is not None:
                self._reopen(booked)
        if self.created and d.draft:
            for text in d.draft:
                self._apply(self.created[0], read(text, self.world.today).slots())
            d.draft = []

    def _target(self, hit: Hit) -> Intent | None:
        d = self.d
        domain = self.r.domain_near(self.r.clause_of(hit.start))
        base = (d.open_of(domain) if domain else None) or d.current()
        if hit.kind in ("from_city", "to_city") and base is not None and not base.is_trip:
            # "from Beijing to Shanghai" describes a journey even next to a hotel.
            base = next((i for i in d.intents if i.status == "open" and i.is_trip), base)
        if hit.kind in HOTEL_ONLY_HITS:
            if base is not None and base.domain == "hotel":
                return base
            hotel = d.open_of("hotel")
            if hotel is not None:
                return hotel
            booked = d.last_booked("hotel")
            if booked is not None:
                self._reopen(booked)
                return booked
            return self._new("hotel")
        if hit.kind in TRIP_ONLY_HITS:
            if base is not None and base.is_trip:
                return base
            return next((i for i in d.intents if i.status == "open" and i.is_trip), None)
        return base

    def _route(self) -> None:
        grouped: list[tuple[Intent, list[Hit]]] = []
        for hit in self.r.hits:
            if hit.kind == "prefer" and self.d.pending == "confirm":
                continue  # "the cheapest" picks among the shown options instead
            target = self._target(hit)
            if target is None:
                continue
            for intent, hits in grouped:
                if intent is target:
                    hits.append(hit)
                    break
            else:
                grouped.append((target, [hit]))
        for intent, hits in grouped:
            if self._apply(intent, Slots.from_hits(hits)) and intent not in self.changed:
                self.changed.append(intent)

    def _pending_for(self, intent: Intent) -> str | None:
        asked = self.d.asked
        if asked is not None and asked < len(self.d.intents) and self.d.intents[asked] is intent:
            return self.d.pending
        return None

    def _valid_day(self, day: dt.date) -> bool:
        if day < self.world.today:
            self.say(
                f"{date_text(day.isoformat(), 'zh')}已经过去了，无法预订。",
                f"{date_text(day.isoformat(), 'en')} is in the past and cannot be booked.",
            )
            return False
        return True

    def _apply(self, intent: Intent, slots: Slots) -> bool:
        before = dict(intent.slots)
        if intent.is_trip:
            self._apply_trip(intent, slots)
        else:
            self._apply_hotel(intent, slots)
        if slots.max_price:
            intent.slots["max_price"] = slots.max_price
        if slots.prefer:
            intent.slots["prefer"] = slots.prefer
        return intent.slots != before

    def _apply_trip(self, intent: Intent, slots: Slots) -> None:
        s = intent.slots
        pending = self._pending_for(intent)
        previous = (s.get("from_city"), s.get("to_city"))
        if slots.from_city:
            s["from_city"] = slots.from_city
        if slots.to_city:
            s["to_city"] = slots.to_city
        for city in [*slots.cities, *([slots.stay_city] if slots.stay_city else [])]:
            if pending == "from_city" and not slots.from_city:
                key = "from_city"
            elif (pending == "to_city" and not slots.to_city) or "to_city" not in s:
                key = "to_city"
            elif "from_city" not in s:
                key = "from_city"
            else:
                key = "to_city"
            s[key] = city
            pending = None
        if s.get("from_city") and s.get("from_city") == s.get("to_city"):
            self.say(
                "出发城市和到达城市不能相同。", "The departure and arrival cities must differ."
            )
            for key, old in zip(("from_city", "to_city"), previous, strict=True):
                if old is None:
                    s.pop(key, None)
                else:
                    s[key] = old
        day = slots.dates[0] if slots.dates else slots.check_out
        if day is not None and self._valid_day(day):
            s["date"] = day.isoformat()
        if slots.spans:
            s["time"] = [list(span) for span in slots.spans]
        elif slots.any_time:
            s["time"] = [list(span) for span in ANY_TIME]
        if intent.domain == "flight" and slots.cabin:
            s["cabin"] = slots.cabin
        if intent.domain == "train":
            if slots.seat:
                s["seat"] = slots.seat
            if slots.train_type:
                s["train_type"] = slots.train_type
        if slots.prefer in ("earliest", "latest", "cheapest") and "time" not in s:
            s["time"] = [list(span) for span in ANY_TIME]

    def _apply_hotel(self, intent: Intent, slots: Slots) -> None:
        s = intent.slots
        city = slots.stay_city or slots.to_city or next(iter(slots.cities), None)
        city = city or slots.from_city
        if city:
            s["city"] = city
        if slots.dates and self._valid_day(slots.dates[0]):
            s["check_in"] = slots.dates[0].isoformat()
            if s.get("check_out", "") <= s["check_in"]:
                s.pop("check_out", None)
        if slots.check_out is not None:
            check_in = effective_slots(self.d, intent).get("check_in")
            if check_in is None:
                s["check_out"] = slots.check_out.isoformat()
            elif (slots.check_out - dt.date.fromisoformat(check_in)).days > 0:
                s["nights"] = (slots.check_out - dt.date.fromisoformat(check_in)).days
            else:
                self.say("退房日期要晚于入住日期。", "Check-out must be after check-in.")
        if slots.nights:
            s["nights"] = slots.nights
        if slots.min_stars:
            s["min_stars"] = slots.min_stars
        if slots.room_type:
            s["room_type"] = slots.room_type

    # -- acting on the current intent

    def _missing(self, intent: Intent) -> str | None:
        slots = effective_slots(self.d, intent)
        required = TRIP_REQUIRED if intent.is_trip else HOTEL_REQUIRED
        return next((name for name in required if name not in slots), None)

    def _act(self, current: Intent) -> None:
        r, d = self.r, self.d
        changed = current in self.changed
        pending = self._pending_for(current)
        if pending == "confirm" and current.options:
            self._answer_proposal(current, changed)
            return
        if pending == "time" and r.open_answer and "time" not in current.slots:
            current.slots["time"] = [list(span) for span in ANY_TIME]
            changed = True
        if pending == "nights" and r.number_only and not changed and 0 < r.number_only <= 30:
            current.slots["nights"] = r.number_only
            changed = True
        missing = self._missing(current)
        if missing is not None:
            if not (changed or self.created or r.confirm or r.thanks or self.parts):
                self.say("抱歉，我没有听明白。", "Sorry, I didn't catch that.")
            self._ask(current, missing, recap=changed or bool(self.created))
            return
        if d.pending == "more" and not (changed or self.created):
            self._idle()
            return
        self._propose(current)

    def _answer_proposal(self, current: Intent, changed: bool) -> None:
        r = self.r
        if changed:
            self._propose(current)
            return
        picked = self._picked(current)
        if picked is not None:
            self._book(current, picked)
        elif r.confirm or r.open_answer:
            self._book(current, current.proposed)
        elif r.cheaper:
            proposed = current.options[current.proposed]
            current.slots["prefer"] = "cheapest"
            slots = effective_slots(self.d, current)
            found = search(self.world, current.domain, slots, current.skip)
            cheapest = found.options[found.proposed] if found else proposed
            if cheapest["price"] < proposed["price"]:
                self._propose(current)
            else:
                self.say("这已经是最便宜的选择了。", "That is already the cheapest option.")
                self._ask_confirm(current)
        elif r.deny:
            current.skip.append(current.options[current.proposed]["id"])
            self._propose(current)
        elif r.ordinal is not None:
            count = len(current.options)
            self.say(
                f"目前只有{count}个选择，请说“第一个”到“第{count}个”。",
                f"There {'is' if count == 1 else 'are'} only {count} "
                f"option{'' if count == 1 else 's'} on the list.",
            )
            self._ask_confirm(current)
        else:
            if self.created:
                later = "、".join(DOMAIN_ZH[i.domain] for i in self.created)
                later_en = " and ".join(DOMAIN_EN[i.domain] for i in self.created)
                self.say(f"好的，稍后为您预订{later}。", f"OK, I'll book the {later_en} next.")
            elif not self.parts:
                self.say("抱歉，我没有听明白。", "Sorry, I didn't catch that.")
            self._ask_confirm(current)

    def _picked(self, current: Intent) -> int | None:
        r, options = self.r, current.options
        for index, option in enumerate(options):
            names = [option.get("number"), option.get("name"), option.get("name_en")]
            # Word edges keep "G11" from matching "G113".
            if any(
                name and re.search(rf"(?<![a-z0-9]){re.escape(str(name).lower())}(?![0-9])", r.text)
                for name in names
            ):
                return index
        position = r.ordinal or (r.number_only if r.number_only and not r.hits else None)
        if position is not None:
            index = len(options) - 1 if position == -1 else position - 1
            return index if 0 <= index < len(options) else None
        by: dict[str, Callable[[Option], Any]] = {
            "earliest": lambda o: minutes_of(o["depart"]) if "depart" in o else 0,
            "latest": lambda o: -minutes_of(o["depart"]) if "depart" in o else 0,
            "cheapest": lambda o: o["price"],
            "best": lambda o: -o.get("rating", 0),
        }
        superlative = r.superlative
        if superlative in by:
            best = min(options, key=by[superlative])
            return options.index(best)
        return None

    def _book(self, current: Intent, index: int) -> None:
        option = current.options[index]
        try:
            if current.domain == "hotel":
                receipt = self.world.book(
                    "hotel",
                    option["id"],
                    option["option"],
                    check_in=dt.date.fromisoformat(option["check_in"]),
                    nights=int(option["nights"]),
                )
            else:
                domain: Domain = "flight" if current.domain == "flight" else "train"
                receipt = self.world.book(domain, option["id"], option["option"])
        except BookingError as error:
            current.skip.append(option["id"])
            self.say(
                f"抱歉，{short_text(option, 'zh')}预订失败：{error.message}。",
                f"Sorry, {short_text(option, 'en')} could not be booked: {error.message}.",
            )
            self._propose(current)
            return
        current.status = "booked"
        current.booking = {"reference": receipt.reference, "option": option}
        current.options = []
        self.say(
            f"已为您预订：{option_text(option, 'zh')}，订单号：{receipt.reference}。",
            f"Booked: {option_text(option, 'en')}. Your booking reference is {receipt.reference}.",
        )
        if current.replaces is not None:
            self._cancel_replaced(current.replaces["reference"])
            current.replaces = None
        self._advance(intro=True)

    def _cancel_replaced(self, reference: str) -> None:
        try:
            self.world.cancel(reference)
        except BookingError as error:
            self.say(
                f"原订单{reference}取消失败：{error.message}。",
                f"The earlier booking {reference} could not be cancelled: {error.message}.",
            )
            return
        self.say(f"原订单{reference}已取消。", f"The earlier booking {reference} is cancelled.")

    def _advance(self, *, intro: bool) -> None:
        following = self.d.current()
        if following is None:
            self.d.pending = "more"
            self.d.asked = None
            self.say(QUESTIONS_ZH["more"], QUESTIONS_EN["more"])
            return
        if intro:
            self.say(
                f"接下来为您预订{DOMAIN_ZH[following.domain]}。",
                f"Next, the {DOMAIN_EN[following.domain]}.",
            )
        missing = self._missing(following)
        if missing is None:
            self._propose(following)
        else:
            self._ask(following, missing, recap=True)

    def _ask(self, intent: Intent, slot: str, *, recap: bool) -> None:
        self.d.pending = slot
        self.d.asked = self.d.intents.index(intent)
        known = effective_slots(self.d, intent)
        if recap and any(key in known for key in (*TRIP_REQUIRED, *HOTEL_REQUIRED)):
            self.say(
                f"好的，{request_text(intent, known, 'zh')}。",
                f"OK, {request_text(intent, known, 'en')}.",
            )
        self.say(QUESTIONS_ZH[slot], QUESTIONS_EN[slot])

    def _ask_confirm(self, current: Intent) -> None:
        option = current.options[current.proposed]
        self.say(
            f"请问要预订{short_text(option, 'zh')}吗？",
            f"Shall I book {short_text(option, 'en')}?",
        )

    def _reask(self) -> None:
        current = self.d.current()
        if current is None:
            if self.d.intents:
                self.d.pending = "more"
                self.say(QUESTIONS_ZH["more"], QUESTIONS_EN["more"])
            return
        if self._pending_for(current) == "confirm" and current.options:
            self._ask_confirm(current)
            return
        missing = self._missing(current)
        if missing is None:
            self._propose(current)
        else:
            self._ask(current, missing, recap=False)

    def _idle(self) -> None:
        d, r = self.d, self.r
        if d.draft and not d.intents:
            d.pending = "domain"
            self.say(QUESTIONS_ZH["domain"], QUESTIONS_EN["domain"])
            return
        if not d.intents and re.search(BOOKING_WORDS, r.text):
            d.pending = "domain"
            self.say(QUESTIONS_ZH["domain"], QUESTIONS_EN["domain"])
            return
        if not d.intents:
            if not self.parts:
                self.say(f"您好！{CAPABILITIES_ZH}", f"Hello! {CAPABILITIES_EN}")
            self.say("请问有什么可以帮您？", "What can I do for you?")
            return
        booked = d.last_booked()
        if r.confirm and booked is not None and booked.booking is not None:
            reference = booked.booking["reference"]
            self.say(
                f"已经为您预订好了（订单号：{reference}），不会重复预订。",
                f"That is already booked (reference {reference}); I won't book it twice.",
            )
        elif not self.parts:
            self.say("抱歉，我没有听明白。", "Sorry, I didn't catch that.")
        d.pending = "more"
        d.asked = None
        self.say(QUESTIONS_ZH["more"], QUESTIONS_EN["more"])

    # -- proposing

    def _relaxed_text(self, intent: Intent, slots: dict[str, Any], names: Sequence[str]) -> str:
        zh, en = [], []
        for name in names:
            if name == "time":
                spans = spans_of(slots["time"])
                zh.append(f"{spans_text(spans, 'zh')}出发")
                en.append(f"leaving {spans_text(spans, 'en')}")
            elif name == "price":
                per_night = intent.domain == "hotel"
                zh.append(f"{'每晚' if per_night else ''}{slots['max_price']}元以内")
                en.append(f"at or under {slots['max_price']} yuan{' a night' if per_night else ''}")
            elif name == "class":
                wanted = slots["cabin" if intent.domain == "flight" else "seat"]
                zh.append(class_text(intent.domain, wanted, "zh"))
                en.append(f"in {class_text(intent.domain, wanted, 'en')}")
            elif name == "type":
                zh.append(f"{slots['train_type']}字头")
                en.append(f"on {slots['train_type']} trains")
            elif name == "stars":
                zh.append(f"{slots['min_stars']}星及以上")
                en.append(f"with {slots['min_stars']} stars or more")
            elif name == "room":
                zh.append(class_text("hotel", slots["room_type"], "zh"))
                en.append(f"with a {class_text('hotel', slots['room_type'], 'en')}")
        noun_zh = {"flight": "航班", "train": "车次", "hotel": "酒店"}[intent.domain]
        return (
            f"，没有{'、'.join(zh)}的{noun_zh}。"
            if self.zh
            else f" There is no {intent.domain} {' and '.join(en)}."
        )

    def _propose(self, intent: Intent) -> None:
        missing = self._missing(intent)
        if missing is not None:
            intent.options = []
            self._ask(intent, missing, recap=True)
            return
        slots = effective_slots(self.d, intent)
        found = search(self.world, intent.domain, slots, intent.skip)
        index = self.d.intents.index(intent)
        if found is None:
            self._nothing_found(intent, slots)
            return
        intent.options = found.options
        intent.proposed = found.proposed
        self.d.pending = "confirm"
        self.d.asked = index
        request_zh = request_text(intent, slots, "zh")
        request_en = request_text(intent, slots, "en")
        relaxed = self._relaxed_text(intent, slots, found.relaxed) if found.relaxed else ""
        several = len(found.options) > 1
        if found.relaxed:
            lead_zh = "最接近的选择：" if several else "最接近的是："
            lead_en = "The closest options are:" if several else "The closest is:"
        else:
            lead_zh = "，有以下选择：" if several else "，为您找到："
            lead_en = "Here is what I found:"
        self.say(
            f"帮您查询了{request_zh}{relaxed}{lead_zh}",
            f"I looked up {request_en}.{relaxed} {lead_en}",
        )
        recommended = found.options[found.proposed]
        if several:
            lines_zh = "".join(
                f"\n{n}. {option_text(option, 'zh')}" for n, option in enumerate(found.options, 1)
            )
            lines_en = "".join(
                f"\n{n}. {option_text(option, 'en')}" for n, option in enumerate(found.options, 1)
            )
            self.say(
                f"{lines_zh}\n推荐第{found.proposed + 1}个（{short_text(recommended, 'zh')}），"
                "要预订吗？也可以说“第二个”或“最便宜的”。",
                f"{lines_en}\nI recommend option {found.proposed + 1} "
                f"({short_text(recommended, 'en')}). Shall I book it? You can also say "
                '"the second one" or "the cheapest".',
            )
        else:
            self.say(
                f"{option_text(recommended, 'zh')}。要预订吗？",
                f"{option_text(recommended, 'en')}. Shall I book it?",
            )

    def _nothing_found(self, intent: Intent, slots: dict[str, Any]) -> None:
        retried = bool(intent.skip)
        intent.options = []
        intent.skip = []
        request_zh = request_text(intent, slots, "zh")
        request_en = request_text(intent, slots, "en")
        if retried:
            self.say(
                f"抱歉，{request_zh}没有其他可预订的选择了。",
                f"Sorry, there are no other {request_en} available.",
            )
        else:
            self.say(
                f"抱歉，{request_zh}没有可预订的选择（可查询的日期约为一个月内）。",
                f"Sorry, there are no {request_en} available (dates within about a month).",
            )
        day_slot = "check_in" if intent.domain == "hotel" else "date"
        intent.slots.pop(day_slot, None)
        self.say("您可以换一个日期试试。", "You could try another day.")
        self._ask(intent, day_slot, recap=False)
