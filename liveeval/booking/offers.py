"""Plain values that the booking world hands to dialogue systems.

These types are the contract between the booking world (Django models and
``liveeval.booking.world``) and every system that books in it: the built-in
reference system, the booking HTTP API and the LLM tool layer. They carry no
database state, so a policy can be tested against an in-memory world.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Literal, Protocol

Domain = Literal["flight", "train", "hotel"]

CABINS = ("economy", "business", "first")
HIGH_SPEED_SEATS = ("second", "first", "business")
CLASSIC_SEATS = ("hard_seat", "hard_sleeper", "soft_sleeper")
TRAIN_SEATS = HIGH_SPEED_SEATS + CLASSIC_SEATS
ROOM_TYPES = ("king", "twin", "suite")
TRAIN_TYPES = ("G", "D", "K", "Z", "T")


@dataclass(frozen=True)
class Fare:
    """One bookable class of an item: a cabin, a seat class or a room type."""

    price: int
    seats_left: int
    discount: float | None = None


@dataclass(frozen=True)
class FlightOffer:
    id: int
    number: str
    airline: str
    airline_en: str
    from_city: str
    to_city: str
    date: dt.date
    depart: dt.time
    arrive: dt.time
    cabins: dict[str, Fare] = field(default_factory=dict)

    domain: Domain = "flight"


@dataclass(frozen=True)
class TrainOffer:
    id: int
    number: str
    train_type: str
    from_city: str
    to_city: str
    date: dt.date
    depart: dt.time
    arrive: dt.time
    duration_minutes: int
    seats: dict[str, Fare] = field(default_factory=dict)

    domain: Domain = "train"


@dataclass(frozen=True)
class HotelOffer:
    """A hotel for a stay; each room's ``seats_left`` is the minimum over the nights."""

    id: int
    city: str
    name: str
    name_en: str
    district: str
    stars: int
    rating: float
    check_in: dt.date
    nights: int
    rooms: dict[str, Fare] = field(default_factory=dict)

    domain: Domain = "hotel"


Offer = FlightOffer | TrainOffer | HotelOffer


@dataclass(frozen=True)
class BookingReceipt:
    reference: str
    domain: Domain
    item_id: int
    option: str
    price: int
    details: dict[str, object]


class BookingError(Exception):
    """A booking request that the world refuses, with a stable machine-readable code."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class World(Protocol):
    """The booking world as seen by one conversation.

    ``today`` is the conversation's date; relative dates are resolved against it.
    Searches return offers sorted by departure time (hotels: by stars, then price).
    ``max_price`` applies to the requested class, or to the cheapest class when none
    is requested; for hotels it is the nightly price. Times are inclusive bounds on
    the departure time. City names are the Chinese names (北京, 上海, ...).
    """

    today: dt.date

    def search_flights(
        self,
        from_city: str,
        to_city: str,
        date: dt.date,
        *,
        depart_after: dt.time | None = None,
        depart_before: dt.time | None = None,
        cabin: str | None = None,
        max_price: int | None = None,
    ) -> list[FlightOffer]: ...

    def search_trains(
        self,
        from_city: str,
        to_city: str,
        date: dt.date,
        *,
        depart_after: dt.time | None = None,
        depart_before: dt.time | None = None,
        seat: str | None = None,
        train_type: str | None = None,
        max_price: int | None = None,
    ) -> list[TrainOffer]: ...

    def search_hotels(
        self,
        city: str,
        check_in: dt.date,
        nights: int,
        *,
        min_stars: int | None = None,
        max_price: int | None = None,
        room_type: str | None = None,
    ) -> list[HotelOffer]: ...

    def book(
        self,
        domain: Domain,
        item_id: int,
        option: str,
        *,
        check_in: dt.date | None = None,
        nights: int | None = None,
    ) -> BookingReceipt: ...

    def cancel(self, reference: str) -> None: ...
