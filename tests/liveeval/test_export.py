"""Exporting the booking world for outside teams, read back from the files."""

from __future__ import annotations

import csv
import datetime as dt
import json
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.core.management import CommandError, call_command

from liveeval.booking.export import TABLES
from liveeval.booking.models import FlightCabin, Hotel, HotelRoom, Train, TrainSeat
from liveeval.booking.store import build_world
from liveeval.booking.timetable import world_dates

pytestmark = pytest.mark.django_db

START = dt.date(2026, 12, 1)


def read_csv(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8-sig", newline="") as handle:
        return list(csv.DictReader(handle))


def read_json(path: Path) -> list[dict[str, Any]]:
    rows = json.loads(path.read_text(encoding="utf-8"))
    assert isinstance(rows, list)
    return rows


@pytest.fixture
def exported(tmp_path: Path) -> Path:
    build_world(world_dates(START, 1))
    out = tmp_path / "world"
    stdout = StringIO()
    call_command("export_booking_world", "--out", str(out), stdout=stdout)
    assert f"Booking world written to {out}" in stdout.getvalue()
    return out


def test_it_writes_csv_and_json_for_every_table_and_a_readme(exported: Path) -> None:
    names = sorted(path.name for path in exported.iterdir())
    expected = [f"{table.name}.{ext}" for table in TABLES for ext in ("csv", "json")]
    assert names == sorted([*expected, "README.txt"])


def test_csv_files_open_in_excel_as_utf8(exported: Path) -> None:
    raw = (exported / "cities.csv").read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf")
    assert "北京" in raw.decode("utf-8-sig")


def test_every_bookable_class_is_one_row_in_both_formats(exported: Path) -> None:
    counts = {
        "cities": 20,
        "flights": FlightCabin.objects.count(),
        "trains": TrainSeat.objects.count(),
        "hotels": Hotel.objects.count(),
        "hotel_rooms": HotelRoom.objects.count(),
    }
    for table in TABLES:
        from_csv = read_csv(exported / f"{table.name}.csv")
        from_json = read_json(exported / f"{table.name}.json")
        assert len(from_csv) == len(from_json) == counts[table.name], table.name
        assert list(from_csv[0]) == [name for name, _ in table.columns]
        assert list(from_json[0]) == list(from_csv[0])
        assert {key: str(value) for key, value in from_json[0].items()} == from_csv[0]


def test_a_row_carries_what_is_stored(exported: Path) -> None:
    cabin = FlightCabin.objects.select_related("flight__from_city", "flight__to_city").get(
        flight__number=read_csv(exported / "flights.csv")[0]["number"], cabin="economy"
    )
    depart = dt.datetime.combine(START, cabin.flight.depart)
    arrive = dt.datetime.combine(START, cabin.flight.arrive)
    if arrive < depart:
        arrive += dt.timedelta(days=1)
    minutes = int((arrive - depart).total_seconds() // 60)
    rows = [
        row
        for row in read_json(exported / "flights.json")
        if row["flight_id"] == cabin.flight_id and row["cabin"] == "economy"
    ]
    assert rows == [
        {
            "flight_id": cabin.flight_id,
            "number": cabin.flight.number,
            "airline": cabin.flight.airline,
            "airline_en": cabin.flight.airline_en,
            "from_city": cabin.flight.from_city.name,
            "from_city_en": cabin.flight.from_city.name_en,
            "to_city": cabin.flight.to_city.name,
            "to_city_en": cabin.flight.to_city.name_en,
            "date": "2026-12-01",
            "depart": cabin.flight.depart.strftime("%H:%M"),
            "arrive": cabin.flight.arrive.strftime("%H:%M"),
            "arrive_date": arrive.date().isoformat(),
            "duration_minutes": minutes,
            "cabin": "economy",
            "price": cabin.price,
            "discount": cabin.discount,
            "seats_left": cabin.seats_left,
        }
    ]


def test_overnight_trains_arrive_on_a_later_date(exported: Path) -> None:
    train = Train.objects.filter(duration_minutes__gt=12 * 60, depart__gte=dt.time(18)).first()
    assert train is not None
    row = next(r for r in read_csv(exported / "trains.csv") if r["train_id"] == str(train.pk))
    assert row["date"] == "2026-12-01"
    assert row["arrive_date"] == "2026-12-02"
    assert int(row["duration_minutes"]) == train.duration_minutes


def test_the_readme_describes_every_column(exported: Path) -> None:
    readme = (exported / "README.txt").read_text(encoding="utf-8")
    assert "days 2026-12-01 to 2026-12-01" in readme
    for table in TABLES:
        assert f"{table.name}.csv / {table.name}.json" in readme
        for name, meaning in table.columns:
            assert f"{name}  " in readme and meaning in readme


def test_it_refuses_when_there_is_no_world(tmp_path: Path) -> None:
    with pytest.raises(CommandError, match="build_booking_world"):
        call_command("export_booking_world", "--out", str(tmp_path / "none"))
    assert not (tmp_path / "none").exists()


def test_it_refuses_a_file_as_the_folder(tmp_path: Path) -> None:
    target = tmp_path / "a-file"
    target.write_text("taken", encoding="utf-8")
    with pytest.raises(CommandError, match="not a folder"):
        call_command("export_booking_world", "--out", str(target))
