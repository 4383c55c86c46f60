"""The generated booking world: deterministic, complete in every window, realistic in numbers."""

from __future__ import annotations

import datetime as dt
import itertools
import re
from collections import defaultdict
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from liveeval.booking.brands import AIRLINES
from liveeval.booking.cities import CITIES, CITY_BY_NAME, great_circle_km, rail_km
from liveeval.booking.day_plan import DayPlan, plan_day
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
from liveeval.booking.store import WorldInUse, build_world
from liveeval.booking.timetable import KING_PRICES, timetable, world_dates
from liveeval.models import ChatSession, DialogueSystem

START = dt.date(2026, 12, 1)
SEED = 42
PAIRS = list(itertools.permutations([city.name for city in CITIES], 2))
WINDOWS = (
    (dt.time(6), dt.time(11, 59)),
    (dt.time(12), dt.time(17, 59)),
    (dt.time(18), dt.time(23, 59)),
)


@pytest.fixture(scope="module")
def month() -> list[DayPlan]:
    """Thirty days of the default world, planned without a database."""
    table = timetable(SEED)
    return [plan_day(table, date, SEED) for date in world_dates(START, 30)]


def window_of(minutes: int) -> int | None:
    hour = minutes // 60
    return 0 if 6 <= hour < 12 else 1 if 12 <= hour < 18 else 2 if 18 <= hour < 24 else None


class TestDeterminism:
    def test_the_same_seed_gives_the_same_world(self) -> None:
        first, second = timetable.__wrapped__(SEED), timetable.__wrapped__(SEED)
        assert first == second
        assert plan_day(first, START, SEED) == plan_day(second, START, SEED)

    def test_another_seed_gives_another_world(self) -> None:
        assert timetable(SEED).flights != timetable(7).flights
        assert plan_day(timetable(SEED), START, SEED) != plan_day(timetable(SEED), START, 7)

    def test_days_differ_from_each_other(self, month: list[DayPlan]) -> None:
        prices = [[fare.price for row in day.flights for fare in row.cabins] for day in month[:2]]
        assert prices[0] != prices[1]


class TestCoverage:
    def test_every_pair_has_a_flight_and_a_g_train_in_every_window_every_day(
        self, month: list[DayPlan]
    ) -> None:
        for day in month:
            flights: dict[tuple[str, str], set[int | None]] = defaultdict(set)
            g_trains: dict[tuple[str, str], set[int | None]] = defaultdict(set)
            for flight in day.flights:
                route = (flight.service.origin.name, flight.service.destination.name)
                flights[route].add(window_of(flight.service.depart))
            for train in day.trains:
                if train.service.train_type == "G":
                    route = (train.service.origin.name, train.service.destination.name)
                    g_trains[route].add(window_of(train.service.depart))
            for pair in PAIRS:
                assert {0, 1, 2} <= flights[pair], (day.flights[0].date, pair, "flight")
                assert {0, 1, 2} <= g_trains[pair], (day.flights[0].date, pair, "G train")

    def test_d_trains_run_guangzhou_shenzhen_and_sleepers_beijing_xian_every_day(
        self, month: list[DayPlan]
    ) -> None:
        for day in month:
            routes = {
                (t.service.origin.name, t.service.destination.name, t.service.train_type): t
                for t in day.trains
            }
            assert ("广州", "深圳", "D") in routes
            sleepers = [
                routes[key]
                for key in routes
                if key[:2] == ("北京", "西安") and key[2] in ("K", "Z", "T")
            ]
            assert sleepers
            night_train = sleepers[0]
            assert dict(night_train.service.fares)["hard_sleeper"] > 0
            # Leaves in the evening and arrives the next morning.
            assert night_train.service.depart >= 17 * 60
            assert night_train.service.depart + night_train.service.minutes > 24 * 60

    def test_every_city_has_hotels_of_every_star_level(self) -> None:
        by_city: dict[str, list[int]] = defaultdict(list)
        for hotel in timetable(SEED).hotels:
            by_city[hotel.city.name].append(hotel.stars)
        assert set(by_city) == set(CITY_BY_NAME)
        for stars in by_city.values():
            assert len(stars) >= 5
            assert {2, 3, 4, 5} <= set(stars)

    def test_some_flights_have_first_class(self) -> None:
        flights = timetable(SEED).flights
        with_first = sum(flight.has_first for flight in flights)
        assert 0 < with_first < len(flights) / 2


class TestRealism:
    def test_beijing_shanghai_fares_and_times_follow_the_distance(
        self, month: list[DayPlan]
    ) -> None:
        # 1067.4 km: full fare 350 + 0.68 x 1067.4 = 1075.8 -> 1080 yuan;
        # 1067.4 km / 750 km/h = 85.4 min, + 30 min taxiing = 115 min on the five-minute grid.
        assert round(great_circle_km(CITY_BY_NAME["北京"], CITY_BY_NAME["上海"]), 1) == 1067.4
        rows = [
            row
            for row in month[0].flights
            if (row.service.origin.name, row.service.destination.name) == ("北京", "上海")
        ]
        assert len(rows) >= 3
        for row in rows:
            assert (row.service.full_fare, row.service.minutes) == (1080, 115)
            fares = {fare.cabin: fare for fare in row.cabins}
            economy, business = fares["economy"], fares["business"]
            assert economy.price == 10 * round(1080 * economy.discount / 10)
            assert business.price == 10 * round(3240 * business.discount / 10)

    def test_flight_prices_and_seats_are_realistic(self, month: list[DayPlan]) -> None:
        for day in month:
            for row in day.flights:
                assert re.fullmatch(r"[A-Z0-9]{2}\d{4}", row.service.number)
                fares = {fare.cabin: fare for fare in row.cabins}
                assert {"economy", "business"} <= set(fares) <= {"economy", "business", "first"}
                assert 280 <= fares["economy"].price <= 2500
                assert 0.4 <= fares["economy"].discount <= 1.0
                assert 20 <= fares["economy"].seats_left <= 150
                assert fares["business"].price > fares["economy"].price
                assert all(fare.seats_left > 0 for fare in row.cabins)

    def test_train_fares_and_speeds_follow_the_rail_distance(self) -> None:
        for train in timetable(SEED).trains:
            distance = rail_km(train.origin, train.destination)
            fares = dict(train.fares)
            hours = train.minutes / 60
            if train.train_type == "G":
                assert 0.44 <= fares["second"] / distance <= 0.48 or distance < 150
                assert fares["first"] == round(fares["second"] * 1.6)
                assert fares["business"] == round(fares["second"] * 3.1)
                assert 245 <= distance / (hours - 8 / 60) <= 305
            elif train.train_type == "D":
                assert set(fares) == {"second", "first"}
                assert 175 <= distance / (hours - 10 / 60) <= 215
            else:
                assert set(fares) == {"hard_seat", "hard_sleeper", "soft_sleeper"}
                assert fares["hard_seat"] < fares["hard_sleeper"] < fares["soft_sleeper"]
                assert 78 <= distance / hours <= 122

    def test_hotel_prices_and_rooms_are_realistic(self, month: list[DayPlan]) -> None:
        for day in month:
            nights: dict[str, dict[str, int]] = defaultdict(dict)
            for night in day.rooms:
                assert 3 <= night.rooms_left <= 20
                nights[night.hotel.name + night.hotel.city.name][night.room_type] = night.price
                if night.room_type == "king":
                    low, high = KING_PRICES[night.hotel.stars]
                    assert low <= night.price <= high
            for prices in nights.values():
                assert 1.0 <= prices["twin"] / prices["king"] <= 1.16
                if "suite" in prices:
                    assert 1.78 <= prices["suite"] / prices["king"] <= 2.52

    def test_names_are_real_airlines_and_hotels(self) -> None:
        table = timetable(SEED)
        codes = {airline.code for airline in AIRLINES}
        assert {flight.number[:2] for flight in table.flights} <= codes
        assert {"CA", "MU", "CZ", "HU", "3U", "ZH", "MF"} <= codes
        for hotel in table.hotels:
            assert hotel.city.name in hotel.name and hotel.city.name_en in hotel.name_en
        names = [(hotel.city.name, hotel.name) for hotel in table.hotels]
        assert len(names) == len(set(names))
        numbers = [train.number for train in table.trains] + [f.number for f in table.flights]
        assert len(numbers) == len(set(numbers))


def stored_rows() -> dict[str, set[tuple[object, ...]]]:
    """The world's content without its ids."""
    return {
        "cabins": set(
            FlightCabin.objects.values_list(
                "flight__number", "flight__date", "flight__depart", "cabin", "price", "seats_left"
            )
        ),
        "seats": set(
            TrainSeat.objects.values_list(
                "train__number", "train__date", "seat", "price", "seats_left"
            )
        ),
        "rooms": set(
            HotelRoom.objects.values_list("hotel__name", "room_type", "date", "price", "rooms_left")
        ),
    }


def on(
    rows: dict[str, set[tuple[object, ...]]], date: dt.date
) -> dict[str, set[tuple[object, ...]]]:
    return {name: {row for row in found if date in row} for name, found in rows.items()}


def a_session() -> ChatSession:
    system = DialogueSystem.objects.create(
        slug="generator-test", name="Generator test", alias="System G", kind="reference"
    )
    return ChatSession.objects.create(system=system, kind=ChatSession.Kind.SANDBOX, today=START)


@pytest.mark.django_db
class TestBuildWorld:
    def test_it_stores_the_planned_days(self) -> None:
        summary = build_world(world_dates(START, 2))
        assert summary.dates == (START, START + dt.timedelta(days=1))
        assert summary.cities == City.objects.count() == 20
        assert summary.flights == Flight.objects.count() > 2 * 380 * 3
        assert summary.flight_cabins == FlightCabin.objects.count()
        assert summary.trains == Train.objects.count() > 2 * 380 * 3
        assert summary.train_seats == TrainSeat.objects.count()
        assert summary.hotels == Hotel.objects.count() >= 100
        assert summary.hotel_rooms == HotelRoom.objects.count()
        assert "2 day(s) from 2026-12-01 to 2026-12-02 (seed 42)" in str(summary)

    def test_the_stored_world_keeps_the_window_guarantee(self) -> None:
        build_world(world_dates(START, 2))
        names = dict(City.objects.values_list("id", "name"))
        for model, extra in ((Flight, {}), (Train, {"train_type": "G"})):
            seen = {
                (names[a], names[b], date, window)
                for a, b, date, depart in model.objects.filter(**extra).values_list(
                    "from_city_id", "to_city_id", "date", "depart"
                )
                for window, (first, last) in enumerate(WINDOWS)
                if first <= depart <= last
            }
            for date in world_dates(START, 2):
                for pair in PAIRS:
                    for window in range(3):
                        assert (*pair, date, window) in seen, (model.__name__, pair, date, window)

    def test_building_again_gives_the_same_world(self) -> None:
        build_world(world_dates(START, 1))
        first = stored_rows()
        build_world(world_dates(START, 1))
        assert stored_rows() == first
        build_world(world_dates(START, 1), seed=7)
        assert stored_rows() != first

    def test_a_day_is_the_same_whichever_days_are_built_with_it(self) -> None:
        second_day = START + dt.timedelta(days=1)
        build_world(world_dates(START, 2))
        early = on(stored_rows(), second_day)
        build_world(world_dates(second_day, 2))
        assert on(stored_rows(), second_day) == early
        assert early["cabins"] and early["rooms"]

    def test_it_refuses_to_replace_a_world_with_bookings_unless_forced(self) -> None:
        build_world(world_dates(START, 1))
        flight = Flight.objects.first()
        assert flight is not None
        Booking.objects.create(
            session=a_session(),
            reference="FL-TEST22",
            domain="flight",
            item_id=flight.pk,
            option="economy",
            price=800,
        )
        with pytest.raises(WorldInUse, match="1 booking"):
            build_world(world_dates(START, 1))
        assert Flight.objects.filter(pk=flight.pk).exists()
        build_world(world_dates(START, 1), force=True)
        assert Booking.objects.filter(reference="FL-TEST22").exists()
        # A new world never hands an old booking's id to another flight.
        assert not Flight.objects.filter(pk=flight.pk).exists()
        assert min(Flight.objects.values_list("id", flat=True)) > flight.pk
        # Its booking now belongs to no world, so it no longer holds the next rebuild back.
        build_world(world_dates(START, 1))


@pytest.mark.django_db
class TestCommand:
    def test_it_builds_and_reports(self) -> None:
        out = StringIO()
        call_command(
            "build_booking_world", "--start", "2026-12-01", "--days", "1", "--seed", "7", stdout=out
        )
        assert "1 day(s) from 2026-12-01 to 2026-12-01 (seed 7)" in out.getvalue()
        assert set(Flight.objects.values_list("date", flat=True)) == {START}

    def test_it_rejects_a_bad_start_or_length(self) -> None:
        with pytest.raises(CommandError, match="YYYY-MM-DD"):
            call_command("build_booking_world", "--start", "1/12/2026")
        with pytest.raises(CommandError, match="between 1 and 366"):
            call_command("build_booking_world", "--days", "0")
        assert not City.objects.exists()

    def test_it_asks_for_force_when_conversations_booked(self) -> None:
        build_world(world_dates(START, 1))
        hotel = Hotel.objects.first()
        assert hotel is not None
        Booking.objects.create(
            session=a_session(),
            reference="HT-TEST22",
            domain="hotel",
            item_id=hotel.pk,
            option="king",
            price=500,
        )
        with pytest.raises(CommandError, match="--force"):
            call_command("build_booking_world", "--start", "2026-12-01", "--days", "1")
        call_command(
            "build_booking_world",
            "--start",
            "2026-12-01",
            "--days",
            "1",
            "--force",
            stdout=StringIO(),
        )
        assert not Hotel.objects.filter(pk=hotel.pk).exists()
