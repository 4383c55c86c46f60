"""The booking world as files for outside teams, as SMP gave its database to participants.

Every table is written twice, as CSV and as JSON, with the same columns. The CSV
files start with a byte-order mark so that Excel reads the Chinese names as UTF-8.
Flights and trains have one row per cabin or seat class, so that each row is one
bookable thing with its price and seats left. ``README.txt`` describes every column.
"""

from __future__ import annotations

import csv
import datetime as dt
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.db.models import Max, Min
from django.utils import timezone

from liveeval.booking.cities import CITY_BY_NAME
from liveeval.booking.models import City, Flight, Hotel, HotelRoom, Train

CHUNK = 5000


@dataclass(frozen=True)
class Table:
    name: str
    description: str
    columns: tuple[tuple[str, str], ...]


CITY_COLUMNS = (
    ("from_city", "departure city, Chinese name"),
    ("from_city_en", "departure city, English name"),
    ("to_city", "arrival city, Chinese name"),
    ("to_city_en", "arrival city, English name"),
    ("date", "departure date, YYYY-MM-DD"),
    ("depart", "departure time, HH:MM"),
    ("arrive", "arrival time, HH:MM"),
    ("arrive_date", "arrival date, YYYY-MM-DD (later than date for overnight journeys)"),
    ("duration_minutes", "journey time in minutes"),
)

TABLES: tuple[Table, ...] = (
    Table(
        "cities",
        "The cities of the world.",
        (
            ("city_id", "identifier"),
            ("name", "Chinese name, as used in searches and task goals"),
            ("name_en", "English name"),
            ("code", "three-letter city code"),
            ("latitude", "degrees north"),
            ("longitude", "degrees east"),
        ),
    ),
    Table(
        "flights",
        "One row per flight and cabin.",
        (
            ("flight_id", "identifier of the flight (the item_id to book)"),
            ("number", "flight number, e.g. CA1501"),
            ("airline", "airline, Chinese name"),
            ("airline_en", "airline, English name"),
            *CITY_COLUMNS,
            ("cabin", "economy, business or first"),
            ("price", "ticket price in yuan"),
            ("discount", "price as a share of the cabin's full fare (0.4 to 1.0)"),
            ("seats_left", "seats still for sale in this cabin"),
        ),
    ),
    Table(
        "trains",
        "One row per train and seat class.",
        (
            ("train_id", "identifier of the train (the item_id to book)"),
            ("number", "train number, e.g. G101"),
            ("train_type", "G high-speed, D bullet, Z/T/K classic"),
            *CITY_COLUMNS,
            (
                "seat",
                "second and first (G and D), business (G); hard_seat, hard_sleeper, soft_sleeper "
                "(Z/T/K)",
            ),
            ("price", "ticket price in yuan"),
            ("seats_left", "seats or berths still for sale in this class"),
        ),
    ),
    Table(
        "hotels",
        "The hotels of every city.",
        (
            ("hotel_id", "identifier of the hotel (the item_id to book)"),
            ("city", "city, Chinese name"),
            ("city_en", "city, English name"),
            ("name", "hotel name, Chinese"),
            ("name_en", "hotel name, English"),
            ("district", "district of the city"),
            ("stars", "star level, 2 to 5"),
            ("rating", "guest rating out of 5"),
        ),
    ),
    Table(
        "hotel_rooms",
        "One row per hotel, room type and night: the price and the rooms left that night.",
        (
            ("hotel_id", "identifier of the hotel"),
            ("hotel", "hotel name, Chinese"),
            ("city", "city, Chinese name"),
            ("room_type", "king, twin or suite"),
            ("date", "the night of this date, YYYY-MM-DD"),
            ("price", "price of the night in yuan"),
            ("rooms_left", "rooms of this type still free that night"),
        ),
    ),
)


class EmptyWorld(Exception):
    """There is no booking world to export."""


def _clock(value: dt.time) -> str:
    return value.strftime("%H:%M")


def _journey(date: dt.date, depart: dt.time, minutes: int) -> dict[str, Any]:
    start = dt.datetime.combine(date, depart)
    end = start + dt.timedelta(minutes=minutes)
    return {
        "date": date.isoformat(),
        "depart": _clock(depart),
        "arrive": _clock(end.time()),
        "arrive_date": end.date().isoformat(),
        "duration_minutes": minutes,
    }


def _flight_minutes(depart: dt.time, arrive: dt.time) -> int:
    # Flights are stored without a duration; none lasts a day, so the clock difference suffices.
    return (arrive.hour * 60 + arrive.minute - depart.hour * 60 - depart.minute) % (24 * 60)


class _Cities:
    def __init__(self) -> None:
        self.names = {
            pk: (name, name_en)
            for pk, name, name_en in City.objects.values_list("id", "name", "name_en")
        }

    def route(self, from_id: int, to_id: int) -> dict[str, str]:
        (from_city, from_city_en), (to_city, to_city_en) = self.names[from_id], self.names[to_id]
        return {
            "from_city": from_city,
            "from_city_en": from_city_en,
            "to_city": to_city,
            "to_city_en": to_city_en,
        }


def _city_rows() -> Iterator[dict[str, Any]]:
    for pk, name, name_en, code in City.objects.order_by("id").values_list(
        "id", "name", "name_en", "code"
    ):
        info = CITY_BY_NAME.get(name)
        yield {
            "city_id": pk,
            "name": name,
            "name_en": name_en,
            "code": code,
            "latitude": info.latitude if info else None,
            "longitude": info.longitude if info else None,
        }


def _flight_rows(cities: _Cities) -> Iterator[dict[str, Any]]:
    rows = Flight.objects.order_by("date", "depart", "number", "cabins__id").values_list(
        "id",
        "number",
        "airline",
        "airline_en",
        "from_city_id",
        "to_city_id",
        "date",
        "depart",
        "arrive",
        "cabins__cabin",
        "cabins__price",
        "cabins__discount",
        "cabins__seats_left",
    )
    for row in rows.iterator(chunk_size=CHUNK):
        pk, number, airline, airline_en, from_id, to_id, date, depart, arrive, *cabin = row
        yield {
            "flight_id": pk,
            "number": number,
            "airline": airline,
            "airline_en": airline_en,
            **cities.route(from_id, to_id),
            **_journey(date, depart, _flight_minutes(depart, arrive)),
            **dict(zip(("cabin", "price", "discount", "seats_left"), cabin, strict=True)),
        }


def _train_rows(cities: _Cities) -> Iterator[dict[str, Any]]:
    rows = Train.objects.order_by("date", "depart", "number", "seats__id").values_list(
        "id",
        "number",
        "train_type",
        "from_city_id",
        "to_city_id",
        "date",
        "depart",
        "duration_minutes",
        "seats__seat",
        "seats__price",
        "seats__seats_left",
    )
    for row in rows.iterator(chunk_size=CHUNK):
        pk, number, train_type, from_id, to_id, date, depart, minutes, *seat = row
        yield {
            "train_id": pk,
            "number": number,
            "train_type": train_type,
            **cities.route(from_id, to_id),
            **_journey(date, depart, minutes),
            **dict(zip(("seat", "price", "seats_left"), seat, strict=True)),
        }


def _hotel_rows() -> Iterator[dict[str, Any]]:
    rows = Hotel.objects.order_by("city_id", "-stars", "name").values_list(
        "id", "city__name", "city__name_en", "name", "name_en", "district", "stars", "rating"
    )
    names = ("hotel_id", "city", "city_en", "name", "name_en", "district", "stars", "rating")
    for row in rows.iterator(chunk_size=CHUNK):
        yield dict(zip(names, row, strict=True))


def _room_rows() -> Iterator[dict[str, Any]]:
    rows = HotelRoom.objects.order_by("hotel_id", "room_type", "date").values_list(
        "hotel_id", "hotel__name", "hotel__city__name", "room_type", "date", "price", "rooms_left"
    )
    for hotel_id, hotel, city, room_type, date, price, rooms_left in rows.iterator(
        chunk_size=CHUNK
    ):
        yield {
            "hotel_id": hotel_id,
            "hotel": hotel,
            "city": city,
            "room_type": room_type,
            "date": date.isoformat(),
            "price": price,
            "rooms_left": rooms_left,
        }


def _write_table(out: Path, table: Table, rows: Iterator[dict[str, Any]]) -> int:
    header = [name for name, _ in table.columns]
    count = 0
    with (
        (out / f"{table.name}.csv").open("w", encoding="utf-8-sig", newline="") as csv_file,
        (out / f"{table.name}.json").open("w", encoding="utf-8") as json_file,
    ):
        writer = csv.DictWriter(csv_file, fieldnames=header)
        writer.writeheader()
        json_file.write("[")
        for row in rows:
            writer.writerow(row)
            json_file.write(",\n" if count else "\n")
            json.dump(row, json_file, ensure_ascii=False)
            count += 1
        json_file.write("\n]\n" if count else "]\n")
    return count


def _write_readme(out: Path, counts: dict[str, int]) -> None:
    span = HotelRoom.objects.aggregate(first=Min("date"), last=Max("date"))
    lines = [
        "EvalSite booking world",
        "=======================",
        "",
        f"Exported {timezone.localtime().strftime('%Y-%m-%d %H:%M %Z')}; "
        f"days {span['first']} to {span['last']}.",
        "Every table is given as CSV (UTF-8 with byte-order mark, for Excel) and as JSON",
        "(a list of objects with the same keys as the CSV columns). Prices are in yuan.",
        "Times are local (China Standard Time). Task goals name cities by their Chinese names.",
        "",
    ]
    for table in TABLES:
        lines.append(f"{table.name}.csv / {table.name}.json ({counts[table.name]:,} rows)")
        lines.append(f"  {table.description}")
        width = max(len(name) for name, _ in table.columns)
        lines.extend(f"  {name:<{width}}  {meaning}" for name, meaning in table.columns)
        lines.append("")
    (out / "README.txt").write_text("\n".join(lines), encoding="utf-8")


def export_world(out: Path) -> dict[str, int]:
    """Write every table of the world into ``out``; returns the rows written per table."""
    if not City.objects.exists():
        raise EmptyWorld("there is no booking world to export; run build_booking_world first")
    out.mkdir(parents=True, exist_ok=True)
    cities = _Cities()
    sources: dict[str, Iterator[dict[str, Any]]] = {
        "cities": _city_rows(),
        "flights": _flight_rows(cities),
        "trains": _train_rows(cities),
        "hotels": _hotel_rows(),
        "hotel_rooms": _room_rows(),
    }
    counts = {table.name: _write_table(out, table, sources[table.name]) for table in TABLES}
    _write_readme(out, counts)
    return counts
