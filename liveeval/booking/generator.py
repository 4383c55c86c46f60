"""Deterministic generation of the booking world.

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
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from django.core.management.color import no_style
from django.db import connection, transaction
from django.db.models import Max, Model

from liveeval.booking.cities import CITIES, CityInfo, great_circle_km, rail_km
from liveeval.booking.models import (
    Booking,
    City,
    Flight,
    FlightCabin,
    Hotel,
    HotelRoom,
    Train,
    TrainSeat,
)

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
class Airline:
    code: str
    name: str
    name_en: str
    hubs: tuple[str, ...]


AIRLINES: tuple[Airline, ...] = (
    Airline("CA", "中国国际航空", "Air China", ("北京", "成都", "重庆", "天津")),
    Airline(
        "MU", "中国东方航空", "China Eastern Airlines", ("上海", "昆明", "西安", "南京", "武汉")
    ),
    Airline(
        "CZ",
        "中国南方航空",
        "China Southern Airlines",
        ("广州", "深圳", "沈阳", "大连", "哈尔滨", "郑州", "长沙"),
    ),
    Airline("HU", "海南航空", "Hainan Airlines", ("北京", "西安", "大连")),
    Airline("3U", "四川航空", "Sichuan Airlines", ("成都", "重庆")),
    Airline("ZH", "深圳航空", "Shenzhen Airlines", ("深圳",)),
    Airline("MF", "厦门航空", "XiamenAir", ("厦门", "杭州")),
    Airline("FM", "上海航空", "Shanghai Airlines", ("上海",)),
    Airline("SC", "山东航空", "Shandong Airlines", ("青岛",)),
    Airline("GS", "天津航空", "Tianjin Airlines", ("天津",)),
    Airline("9C", "春秋航空", "Spring Airlines", ("上海",)),
    Airline("HO", "吉祥航空", "Juneyao Air", ("上海",)),
    Airline("8L", "祥鹏航空", "Lucky Air", ("昆明",)),
    Airline("KN", "中国联合航空", "China United Airlines", ("北京",)),
    Airline("JD", "首都航空", "Beijing Capital Airlines", ("北京", "杭州")),
)

HOTEL_BRANDS: dict[int, tuple[tuple[str, str], ...]] = {
    5: (
        ("希尔顿酒店", "Hilton"),
        ("万豪酒店", "Marriott"),
        ("洲际酒店", "InterContinental"),
        ("香格里拉大酒店", "Shangri-La"),
        ("君悦酒店", "Grand Hyatt"),
        ("喜来登酒店", "Sheraton"),
        ("威斯汀酒店", "The Westin"),
        ("索菲特酒店", "Sofitel"),
    ),
    4: (
        ("皇冠假日酒店", "Crowne Plaza"),
        ("假日酒店", "Holiday Inn"),
        ("诺富特酒店", "Novotel"),
        ("万怡酒店", "Courtyard by Marriott"),
        ("希尔顿逸林酒店", "DoubleTree by Hilton"),
        ("福朋喜来登酒店", "Four Points by Sheraton"),
        ("美居酒店", "Mercure"),
    ),
    3: (
        ("全季酒店", "JI Hotel"),
        ("亚朵酒店", "Atour Hotel"),
        ("桔子酒店", "Orange Hotel"),
        ("维也纳酒店", "Vienna Hotel"),
        ("智选假日酒店", "Holiday Inn Express"),
        ("麗枫酒店", "Lavande Hotel"),
    ),
    2: (
        ("如家酒店", "Home Inn"),
        ("汉庭酒店", "Hanting Hotel"),
        ("7天酒店", "7 Days Inn"),
        ("锦江之星", "Jinjiang Inn"),
        ("格林豪泰酒店", "GreenTree Inn"),
    ),
}

EXTRA_STARS_BY_TIER: dict[int, tuple[int, ...]] = {
    1: (5, 4, 4, 3, 3),
    2: (5, 4, 3, 3),
    3: (4, 3, 3),
}
"""Beyond one hotel of each star level, bigger cities have more hotels."""


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


@dataclass(frozen=True)
class WorldSummary:
    dates: tuple[dt.date, ...]
    seed: int
    cities: int
    flights: int
    flight_cabins: int
    trains: int
    train_seats: int
    hotels: int
    hotel_rooms: int
    seconds: float

    def __str__(self) -> str:
        if self.dates:
            span = f"{len(self.dates)} day(s) from {self.dates[0]} to {self.dates[-1]}"
        else:
            span = "no days"
        return (
            f"{span} (seed {self.seed}): {self.cities} cities, {self.flights:,} flights "
            f"({self.flight_cabins:,} cabins), {self.trains:,} trains ({self.train_seats:,} "
            f"seat classes), {self.hotels} hotels ({self.hotel_rooms:,} room-nights) "
            f"in {self.seconds:.1f} s"
        )


class WorldInUse(Exception):
    """The world has bookings, and replacing it would leave them pointing at nothing."""


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


def bookings_in_world() -> int:
    """Bookings made against the items of the world now in the database."""
    return (
        Booking.objects.filter(domain="flight", item_id__in=Flight.objects.values("id")).count()
        + Booking.objects.filter(domain="train", item_id__in=Train.objects.values("id")).count()
        + Booking.objects.filter(domain="hotel", item_id__in=Hotel.objects.values("id")).count()
    )


def delete_world() -> None:
    """Remove every city, flight, train and hotel; bookings stay, with their details."""
    # Plain DELETEs, children first: Django's cascading delete would load every row.
    with connection.cursor() as cursor:
        for model in (FlightCabin, TrainSeat, HotelRoom, Flight, Train, Hotel, City):
            cursor.execute(f"DELETE FROM {connection.ops.quote_name(model._meta.db_table)}")


def _first_free_id(model: type[Flight] | type[Train], domain: str) -> int:
    """An id above every id the table or a booking has used, so that ids are never reused.

    Bookings keep the id of what they booked; a rebuilt world must not hand that id
    to another flight or train, or cancelling an old booking would free a stranger's seat.
    """
    used = [
        model.objects.aggregate(top=Max("id"))["top"],
        Booking.objects.filter(domain=domain).aggregate(top=Max("item_id"))["top"],
    ]
    return max((value for value in used if value is not None), default=0) + 1


Row = tuple[Any, ...]


class _Inserter:
    """Writes rows with explicit ids, many times faster than ``bulk_create``.

    PostgreSQL gets ``COPY``. Elsewhere ``executemany`` is used, which is also the one
    call that Django's debug cursor does not re-render with its parameters (that
    would double the time under DEBUG).
    """

    def __init__(self, model: type[Model], fields: Sequence[str]) -> None:
        quote = connection.ops.quote_name
        table = quote(model._meta.db_table)
        column_of = {field.name: field.column for field in model._meta.concrete_fields}
        columns = ", ".join(quote(column_of[name]) for name in ("id", *fields))
        placeholders = ", ".join(["%s"] * (len(fields) + 1))
        self.insert_sql = f"INSERT INTO {table} ({columns}) VALUES ({placeholders})"
        self.copy_sql = f"COPY {table} ({columns}) FROM STDIN"
        self.count = 0

    def insert(self, rows: Sequence[Row]) -> None:
        with connection.cursor() as cursor:
            if connection.vendor == "postgresql":
                with cursor.cursor.copy(self.copy_sql) as copy:
                    for row in rows:
                        copy.write_row(row)
            else:
                cursor.executemany(self.insert_sql, rows)
        self.count += len(rows)


class _Store:
    """Writes day plans to the database."""

    def __init__(self, table: Timetable, next_flight: int, next_train: int) -> None:
        cities = City.objects.bulk_create(
            City(name=city.name, name_en=city.name_en, code=city.code) for city in CITIES
        )
        self.city_ids = {city.name: city.pk for city in cities}
        hotels = Hotel.objects.bulk_create(
            Hotel(
                city_id=self.city_ids[plan.city.name],
                name=plan.name,
                name_en=plan.name_en,
                district=plan.district,
                stars=plan.stars,
                rating=plan.rating,
            )
            for plan in table.hotels
        )
        self.hotel_ids = {
            (plan.city.name, plan.name): hotel.pk
            for plan, hotel in zip(table.hotels, hotels, strict=True)
        }
        self.next_flight = next_flight
        self.next_train = next_train
        self.flights = _Inserter(
            Flight,
            ("number", "airline", "airline_en", "from_city", "to_city", "date", "depart", "arrive"),
        )
        self.cabins = _Inserter(FlightCabin, ("flight", "cabin", "price", "discount", "seats_left"))
        self.trains = _Inserter(
            Train,
            (
                "number",
                "train_type",
                "from_city",
                "to_city",
                "date",
                "depart",
                "arrive",
                "duration_minutes",
            ),
        )
        self.seats = _Inserter(TrainSeat, ("train", "seat", "price", "seats_left"))
        self.rooms = _Inserter(HotelRoom, ("hotel", "room_type", "date", "price", "rooms_left"))
        # Nothing outside the world refers to these rows, so their ids start afresh.
        self.next_child = {self.cabins: 1, self.seats: 1, self.rooms: 1}

    def add(self, day: DayPlan) -> None:
        self._add_flights(day.flights)
        self._add_trains(day.trains)
        self.rooms.insert(
            [
                (
                    self._child_id(self.rooms),
                    self.hotel_ids[night.hotel.city.name, night.hotel.name],
                    night.room_type,
                    connection.ops.adapt_datefield_value(night.date),
                    night.price,
                    night.rooms_left,
                )
                for night in day.rooms
            ]
        )

    def _add_flights(self, days: list[FlightDay]) -> None:
        ops = connection.ops
        flights: list[Row] = []
        cabins: list[Row] = []
        for row in days:
            flight = row.service
            flight_id = self.next_flight
            self.next_flight += 1
            flights.append(
                (
                    flight_id,
                    flight.number,
                    flight.airline.name,
                    flight.airline.name_en,
                    self.city_ids[flight.origin.name],
                    self.city_ids[flight.destination.name],
                    ops.adapt_datefield_value(row.date),
                    ops.adapt_timefield_value(clock(flight.depart)),
                    ops.adapt_timefield_value(clock(flight.depart + flight.minutes)),
                )
            )
            cabins.extend((self._child_id(self.cabins), flight_id, *fare) for fare in row.cabins)
        self.flights.insert(flights)
        self.cabins.insert(cabins)

    def _add_trains(self, days: list[TrainDay]) -> None:
        ops = connection.ops
        trains: list[Row] = []
        seats: list[Row] = []
        for row in days:
            train = row.service
            train_id = self.next_train
            self.next_train += 1
            trains.append(
                (
                    train_id,
                    train.number,
                    train.train_type,
                    self.city_ids[train.origin.name],
                    self.city_ids[train.destination.name],
                    ops.adapt_datefield_value(row.date),
                    ops.adapt_timefield_value(clock(train.depart)),
                    ops.adapt_timefield_value(clock(train.depart + train.minutes)),
                    train.minutes,
                )
            )
            seats.extend((self._child_id(self.seats), train_id, *fare) for fare in row.seats)
        self.trains.insert(trains)
        self.seats.insert(seats)

    def _child_id(self, inserter: _Inserter) -> int:
        value = self.next_child[inserter]
        self.next_child[inserter] = value + 1
        return value

    def finish(self) -> dict[str, int]:
        """Move PostgreSQL's id sequences past the explicit ids, and count what was written."""
        models = [Flight, FlightCabin, Train, TrainSeat, HotelRoom]
        with connection.cursor() as cursor:
            for sql in connection.ops.sequence_reset_sql(no_style(), models):
                cursor.execute(sql)
        return {
            "cities": len(self.city_ids),
            "hotels": len(self.hotel_ids),
            "flights": self.flights.count,
            "flight_cabins": self.cabins.count,
            "trains": self.trains.count,
            "train_seats": self.seats.count,
            "hotel_rooms": self.rooms.count,
        }


def build_world(dates: Sequence[dt.date], *, seed: int = 42, force: bool = False) -> WorldSummary:
    """Replace the booking world with the one of ``seed`` on ``dates``, all or nothing.

    Refuses with ``WorldInUse`` when conversations have booked in the current world,
    unless ``force``: their bookings keep their details but no longer hold seats.
    """
    started = time.perf_counter()
    days = sorted(set(dates))
    table = timetable(seed)
    with transaction.atomic():
        in_use = bookings_in_world()
        if in_use and not force:
            raise WorldInUse(
                f"{in_use} booking(s) were made in the current world; "
                "replacing it would orphan them (use force to replace it anyway)"
            )
        next_flight = _first_free_id(Flight, "flight")
        next_train = _first_free_id(Train, "train")
        delete_world()
        store = _Store(table, next_flight, next_train)
        for date in days:
            store.add(plan_day(table, date, seed))
        counts = store.finish()
    return WorldSummary(
        dates=tuple(days), seed=seed, seconds=time.perf_counter() - started, **counts
    )
