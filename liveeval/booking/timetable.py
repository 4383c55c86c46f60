"""The timetable of the booking world, generated deterministically from a seed (pure).

The world is made in two steps. A *timetable* depends on the seed alone: which
flights and trains run between every two cities, at what time, at what fare, and
which hotels each city has. Each *day* then draws what varies from day to day
(flight discounts, seats and rooms left, nightly prices) from a random generator
seeded by the seed, the date and the route or city. So the same seed always
gives the same world, and a given date looks the same whichever start date or
number of days the world was built with.

Guarantees that task cards rely on, for every ordered pair of cities and every
day: at least one flight and at least one G train leave in each of the windows
06:00-11:59, 12:00-17:59 and 18:00-23:59. Every class starts with seats left.
"""

from __future__ import annotations

import datetime as dt
import functools
import itertools
import math
import random
from dataclasses import dataclass

from liveeval.booking.brands import AIRLINES, EXTRA_STARS_BY_TIER, HOTEL_BRANDS, Airline
from liveeval.booking.cities import CITIES, CityInfo, great_circle_km, rail_km

WINDOWS: tuple[tuple[int, int], ...] = ((6 * 60, 12 * 60), (12 * 60, 18 * 60), (18 * 60, 24 * 60))
"""Departure windows in minutes after midnight, end exclusive."""


FLIGHT_SPEED_KMH = 750


TAXI_MINUTES = 30


G_SECOND_PER_KM = 0.46


D_SECOND_PER_KM = 0.37


FIRST_FACTOR = 1.6


BUSINESS_FACTOR = 3.1


CLASSIC_PER_KM = {"hard_seat": 0.14, "hard_sleeper": 0.25, "soft_sleeper": 0.39}


CLASSIC_MINIMUM = {"hard_seat": 12, "hard_sleeper": 40, "soft_sleeper": 60}


TRAIN_SPEEDS_KMH: dict[str, tuple[int, int]] = {
    "G": (250, 300),
    "D": (180, 210),
    "Z": (100, 120),
    "T": (90, 110),
    "K": (80, 100),
}


KING_PRICES: dict[int, tuple[int, int]] = {
    2: (150, 300),
    3: (250, 450),
    4: (400, 750),
    5: (800, 1800),
}


WEEKEND_NIGHTS = (4, 5)
"""Friday and Saturday nights cost more, as in most city hotels."""


@dataclass(frozen=True)
class FlightService:
    """A flight number that flies the same route at the same time on its days."""

    number: str
    airline: Airline
    origin: CityInfo
    destination: CityInfo
    depart: int
    minutes: int
    full_fare: int
    has_first: bool
    weekdays: frozenset[int]


@dataclass(frozen=True)
class TrainService:
    number: str
    train_type: str
    origin: CityInfo
    destination: CityInfo
    depart: int
    minutes: int
    fares: tuple[tuple[str, int], ...]


@dataclass(frozen=True)
class HotelPlan:
    city: CityInfo
    name: str
    name_en: str
    district: str
    stars: int
    rating: float
    king_price: int
    twin_factor: float
    suite_factor: float | None


@dataclass(frozen=True)
class Timetable:
    flights: tuple[FlightService, ...]
    trains: tuple[TrainService, ...]
    hotels: tuple[HotelPlan, ...]


def world_dates(start: dt.date, days: int) -> list[dt.date]:
    return [start + dt.timedelta(days=offset) for offset in range(days)]


def round_to(value: float, step: int) -> int:
    return int(step * math.floor(value / step + 0.5))


def _departure(rng: random.Random, first: int, last: int) -> int:
    """A departure time on the five-minute grid between ``first`` and ``last`` inclusive."""
    return rng.randrange(first, last + 1, 5)


def _busyness(a: CityInfo, b: CityInfo) -> int:
    return (4 - a.tier) + (4 - b.tier)


def full_economy_fare(distance_km: float) -> int:
    """The published full economy fare, from the great-circle distance."""
    return max(700, round_to(350 + 0.68 * distance_km, 10))


def _pick_airline(rng: random.Random, a: CityInfo, b: CityInfo) -> Airline:
    weights = [1 + 4 * ((a.name in line.hubs) + (b.name in line.hubs)) for line in AIRLINES]
    return rng.choices(AIRLINES, weights=weights)[0]


class _NumberPool:
    """Hands out service numbers in pairs: odd one way, the next even number back."""

    def __init__(self, rng: random.Random, prefix: str, low: int, high: int) -> None:
        """Odd numbers from ``low`` (odd) up to ``high``, in a seeded random order."""
        self.prefix = prefix
        self.free = list(range(low, high, 2))
        rng.shuffle(self.free)

    def pair(self) -> tuple[str, str]:
        odd = self.free.pop()
        return f"{self.prefix}{odd}", f"{self.prefix}{odd + 1}"


def _flight_departures(rng: random.Random, count: int) -> list[int]:
    """One departure in each window, then the rest anywhere in the flying day."""
    guaranteed = [
        _departure(rng, 6 * 60, 11 * 60 + 55),
        _departure(rng, 12 * 60, 17 * 60 + 55),
        _departure(rng, 18 * 60, 23 * 60),
    ]
    return guaranteed + [_departure(rng, 7 * 60, 22 * 60) for _ in range(count - 3)]


def _flight_count(a: CityInfo, b: CityInfo, distance: float) -> int:
    if distance < 400:
        return 3
    trunk_route = 1 if a.tier == 1 and b.tier == 1 else 0
    return 3 + _busyness(a, b) - 2 + trunk_route


def _plan_flights(rng: random.Random) -> list[FlightService]:
    pools: dict[str, _NumberPool] = {
        line.code: _NumberPool(rng, line.code, 1001, 9999) for line in AIRLINES
    }
    services: list[FlightService] = []
    for a, b in itertools.combinations(CITIES, 2):
        distance = great_circle_km(a, b)
        minutes = round_to(distance / FLIGHT_SPEED_KMH * 60 + TAXI_MINUTES, 5)
        fare = full_economy_fare(distance)
        count = _flight_count(a, b, distance)
        out_times = _flight_departures(rng, count)
        back_times = _flight_departures(rng, count)
        for index in range(count):
            line = _pick_airline(rng, a, b)
            out_number, back_number = pools[line.code].pair()
            has_first = distance >= 900 and a.tier + b.tier <= 3 and rng.random() < 0.5
            # The three window flights run daily; some of the others only on some weekdays.
            if index < 3 or rng.random() < 0.8:
                weekdays = frozenset(range(7))
            else:
                weekdays = frozenset(rng.sample(range(7), rng.randint(3, 6)))
            for number, origin, destination, depart in (
                (out_number, a, b, out_times[index]),
                (back_number, b, a, back_times[index]),
            ):
                services.append(
                    FlightService(
                        number,
                        line,
                        origin,
                        destination,
                        depart,
                        minutes,
                        fare,
                        has_first,
                        weekdays,
                    )
                )
    return services


def _fares(train_type: str, distance: int, rng: random.Random) -> tuple[tuple[str, int], ...]:
    # Lines are priced by their operators, so fares of one route differ by a few per cent.
    spread = rng.uniform(0.97, 1.03)
    if train_type in ("G", "D"):
        per_km = G_SECOND_PER_KM if train_type == "G" else D_SECOND_PER_KM
        second = max(10, round(per_km * distance * spread))
        fares = [("second", second), ("first", round(second * FIRST_FACTOR))]
        if train_type == "G":
            fares.append(("business", round(second * BUSINESS_FACTOR)))
        return tuple(fares)
    return tuple(
        (seat, max(CLASSIC_MINIMUM[seat], round(per_km * distance * spread)))
        for seat, per_km in CLASSIC_PER_KM.items()
    )


def _train_minutes(train_type: str, distance: int, rng: random.Random) -> int:
    low, high = TRAIN_SPEEDS_KMH[train_type]
    stops = {"G": 8, "D": 10}.get(train_type, 0)
    return round(distance / rng.uniform(low, high) * 60) + stops


def _g_count(a: CityInfo, b: CityInfo, distance: int) -> int:
    busy = _busyness(a, b)
    if distance < 400:
        return 3 + busy
    if distance < 1000:
        return 3 + busy // 2
    if distance < 1600:
        return 3 + busy // 3
    return 3


def _classic_type(rng: random.Random, a: CityInfo, b: CityInfo, overnight: bool) -> str:
    if overnight and a.tier <= 2 and b.tier <= 2:
        return "Z"
    return "T" if rng.random() < 0.3 else "K"


def _plan_trains(rng: random.Random) -> list[TrainService]:
    pools = {
        "G": _NumberPool(rng, "G", 1, 9999),
        "D": _NumberPool(rng, "D", 1, 9999),
        "K": _NumberPool(rng, "K", 1, 9999),
        "T": _NumberPool(rng, "T", 1, 399),
        "Z": _NumberPool(rng, "Z", 1, 399),
    }
    services: list[TrainService] = []

    def add_pair(
        train_type: str, a: CityInfo, b: CityInfo, distance: int, departs: list[int]
    ) -> None:
        out_number, back_number = pools[train_type].pair()
        minutes = _train_minutes(train_type, distance, rng)
        fares = _fares(train_type, distance, rng)
        for number, origin, destination, depart in (
            (out_number, a, b, departs[0]),
            (back_number, b, a, departs[1]),
        ):
            services.append(
                TrainService(number, train_type, origin, destination, depart, minutes, fares)
            )

    for a, b in itertools.combinations(CITIES, 2):
        distance = rail_km(a, b)
        for index in range(_g_count(a, b, distance)):
            if index < len(WINDOWS):
                first, end = WINDOWS[index]
                last = min(end - 5, 21 * 60 + 30)
            else:
                first, last = 6 * 60 + 30, 20 * 60 + 30
            add_pair("G", a, b, distance, [_departure(rng, first, last) for _ in range(2)])
        if distance <= 900:
            for _ in range(rng.randint(2, 3)):
                departs = [_departure(rng, 6 * 60 + 30, 21 * 60) for _ in range(2)]
                add_pair("D", a, b, distance, departs)
        if 450 <= distance <= 2600:
            # The first classic train of a long route is an overnight sleeper.
            slowest = distance / TRAIN_SPEEDS_KMH["K"][0] * 60
            overnight = slowest >= 7 * 60
            train_type = _classic_type(rng, a, b, overnight)
            if overnight:
                departs = [_departure(rng, 17 * 60, 22 * 60 + 30) for _ in range(2)]
            else:
                departs = [_departure(rng, 7 * 60, 15 * 60) for _ in range(2)]
            add_pair(train_type, a, b, distance, departs)
            if rng.random() < 0.5:
                departs = [_departure(rng, 6 * 60, 22 * 60) for _ in range(2)]
                add_pair(_classic_type(rng, a, b, False), a, b, distance, departs)
    return services


def _plan_hotels(rng: random.Random) -> list[HotelPlan]:
    hotels: list[HotelPlan] = []
    for city in CITIES:
        stars_list = [5, 4, 3, 2, *EXTRA_STARS_BY_TIER[city.tier]]
        taken: set[tuple[str, str]] = set()
        for stars in stars_list:
            brand, area = rng.choice(
                [
                    (brand, area)
                    for brand in HOTEL_BRANDS[stars]
                    for area in city.areas
                    if (brand[0], area.name) not in taken
                ]
            )
            taken.add((brand[0], area.name))
            brand_zh, brand_en = brand
            if stars >= 4:
                name = f"{city.name}{area.name}{brand_zh}"
                name_en = f"{brand_en} {city.name_en} {area.name_en}"
            else:
                name = f"{brand_zh}({city.name}{area.name}店)"
                name_en = f"{brand_en} ({city.name_en} {area.name_en})"
            low, high = KING_PRICES[stars]
            # Bigger cities sit higher in each star level's price range.
            share = rng.uniform(0.0, 0.6) + (3 - city.tier) * 0.2
            king = round_to(low + (high - low) * share, 10)
            has_suite = stars >= 4 or (stars == 3 and rng.random() < 0.3)
            hotels.append(
                HotelPlan(
                    city=city,
                    name=name,
                    name_en=name_en,
                    district=area.district,
                    stars=stars,
                    rating=round(rng.uniform(3.8 + 0.15 * stars, min(4.9, 4.0 + 0.2 * stars)), 1),
                    king_price=king,
                    twin_factor=rng.uniform(1.0, 1.15),
                    suite_factor=rng.uniform(1.8, 2.5) if has_suite else None,
                )
            )
    return hotels


@functools.lru_cache(maxsize=4)
def timetable(seed: int) -> Timetable:
    """Every service and hotel of the world of ``seed``, whatever the dates."""
    rng = random.Random(f"evalsite-booking-world/{seed}")
    return Timetable(
        flights=tuple(_plan_flights(rng)),
        trains=tuple(_plan_trains(rng)),
        hotels=tuple(_plan_hotels(rng)),
    )
