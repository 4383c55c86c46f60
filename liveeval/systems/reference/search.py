"""Searching the booking world for a request: the options that meet it, or else the closest
ones, relaxing as few constraints as possible; up to three are shown and one recommended.
"""

from __future__ import annotations

import datetime as dt
import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from liveeval.booking.offers import (
    FlightOffer,
    HotelOffer,
    TrainOffer,
    World,
)
from liveeval.systems.reference.state import Option, spans_of
from liveeval.systems.understanding.times import ANY_TIME, Span

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
