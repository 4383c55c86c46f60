"""Storing the booking world: the timetable and its day plans written to the database in bulk
(COPY on PostgreSQL, executemany elsewhere), replacing any previous world.
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.core.management.color import no_style
from django.db import connection, transaction
from django.db.models import Max, Model

from liveeval.booking.cities import CITIES
from liveeval.booking.day_plan import DayPlan, FlightDay, TrainDay, clock, plan_day
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
from liveeval.booking.timetable import Timetable, timetable


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
