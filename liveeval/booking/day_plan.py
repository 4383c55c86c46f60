"""What varies from day to day in the booking world: flight discounts, seats and rooms left,
nightly prices. Each day draws them from a random generator seeded by the seed, the date and
the route or city, so a given date looks the same whatever the world was built with.
"""

from __future__ import annotations

import datetime as dt
import random
from dataclasses import dataclass
from typing import NamedTuple

from liveeval.booking.timetable import (
    KING_PRICES,
    WEEKEND_NIGHTS,
    FlightService,
    HotelPlan,
    Timetable,
    TrainService,
    round_to,
)


class CabinFare(NamedTuple):
    cabin: str
    price: int
    discount: float
    seats_left: int


class FlightDay(NamedTuple):
    service: FlightService
    date: dt.date
    cabins: tuple[CabinFare, ...]


class SeatFare(NamedTuple):
    seat: str
    price: int
    seats_left: int


class TrainDay(NamedTuple):
    service: TrainService
    date: dt.date
    seats: tuple[SeatFare, ...]


class RoomNight(NamedTuple):
    hotel: HotelPlan
    room_type: str
    date: dt.date
    price: int
    rooms_left: int


@dataclass(frozen=True)
class DayPlan:
    flights: list[FlightDay]
    trains: list[TrainDay]
    rooms: list[RoomNight]


def _day_rng(seed: int, date: dt.date, key: str) -> random.Random:
    return random.Random(f"{seed}/{date.isoformat()}/{key}")


def _flight_cabins(rng: random.Random, service: FlightService) -> tuple[CabinFare, ...]:
    economy_discount = round(rng.triangular(0.4, 1.0, 0.7), 2)
    business_discount = round(rng.uniform(0.75, 1.0), 2)
    fare = service.full_fare
    cabins = [
        CabinFare(
            "economy", round_to(fare * economy_discount, 10), economy_discount, rng.randint(20, 150)
        ),
        CabinFare(
            "business",
            round_to(fare * 3 * business_discount, 10),
            business_discount,
            rng.randint(2, 20),
        ),
    ]
    if service.has_first:
        first_discount = round(rng.uniform(0.85, 1.0), 2)
        cabins.append(
            CabinFare(
                "first",
                round_to(fare * 4.5 * first_discount, 10),
                first_discount,
                rng.randint(1, 8),
            )
        )
    return tuple(cabins)


SEATS_LEFT: dict[str, tuple[int, int]] = {
    "second": (30, 300),
    "first": (5, 50),
    "business": (1, 10),
    "hard_seat": (20, 200),
    "hard_sleeper": (10, 120),
    "soft_sleeper": (2, 30),
}


def _route_key(service: FlightService | TrainService) -> str:
    return f"{service.origin.code}-{service.destination.code}"


def plan_day(table: Timetable, date: dt.date, seed: int) -> DayPlan:
    """What the world holds on ``date``: that day's flights, trains and hotel nights."""
    rngs: dict[str, random.Random] = {}

    def rng_for(key: str) -> random.Random:
        if key not in rngs:
            rngs[key] = _day_rng(seed, date, key)
        return rngs[key]

    flights: list[FlightDay] = []
    for flight in table.flights:
        if date.weekday() not in flight.weekdays:
            continue
        rng = rng_for("flights/" + _route_key(flight))
        flights.append(FlightDay(flight, date, _flight_cabins(rng, flight)))
    trains: list[TrainDay] = []
    for train in table.trains:
        rng = rng_for("trains/" + _route_key(train))
        seats = tuple(
            SeatFare(seat, price, rng.randint(*SEATS_LEFT[seat])) for seat, price in train.fares
        )
        trains.append(TrainDay(train, date, seats))
    rooms: list[RoomNight] = []
    weekend = 1.12 if date.weekday() in WEEKEND_NIGHTS else 1.0
    for hotel in table.hotels:
        rng = rng_for("hotels/" + hotel.city.code)
        low, high = KING_PRICES[hotel.stars]
        king = min(
            high, max(low, round_to(hotel.king_price * weekend * rng.uniform(0.96, 1.04), 5))
        )
        prices = {"king": king, "twin": round_to(king * hotel.twin_factor, 5)}
        if hotel.suite_factor is not None:
            prices["suite"] = round_to(king * hotel.suite_factor, 5)
        for room_type, price in prices.items():
            rooms.append(RoomNight(hotel, room_type, date, price, rng.randint(3, 20)))
    return DayPlan(flights, trains, rooms)


def clock(minutes: int) -> dt.time:
    minutes %= 24 * 60
    return dt.time(minutes // 60, minutes % 60)
