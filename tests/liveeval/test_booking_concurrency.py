"""Concurrent bookings from separate database connections never oversell.

Each thread gets its own connection from Django; each process is a separate
Python with its own connection to the same test database. Both run on SQLite and
on PostgreSQL (``DATABASE_URL=postgres://...``).
"""

from __future__ import annotations

import datetime as dt
import json
import os
import subprocess
import sys
import threading
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from urllib.parse import quote

import pytest
from django.db import connection, connections

from liveeval.booking.models import Booking, City, Flight, FlightCabin, Hotel, HotelRoom
from liveeval.booking.offers import BookingError
from liveeval.booking.reservations import book, cancel
from liveeval.models import ChatSession, DialogueSystem

pytestmark = pytest.mark.django_db(transaction=True)

BASE_DIR = Path(__file__).resolve().parents[2]
DAY = dt.date(2026, 12, 2)


def a_session() -> ChatSession:
    system, _ = DialogueSystem.objects.get_or_create(
        slug="concurrency-test",
        defaults={"name": "Concurrency test", "alias": "System Q", "kind": "reference"},
    )
    return ChatSession.objects.create(
        system=system, kind=ChatSession.Kind.SANDBOX, today=dt.date(2026, 12, 1)
    )


def a_flight(seats_left: int) -> Flight:
    beijing = City.objects.create(name="北京", name_en="Beijing", code="BJS")
    shanghai = City.objects.create(name="上海", name_en="Shanghai", code="SHA")
    flight = Flight.objects.create(
        number="CA1501",
        airline="中国国际航空",
        airline_en="Air China",
        from_city=beijing,
        to_city=shanghai,
        date=DAY,
        depart=dt.time(8),
        arrive=dt.time(10, 15),
    )
    FlightCabin.objects.create(
        flight=flight, cabin="economy", price=800, discount=0.74, seats_left=seats_left
    )
    return flight


def race(attempts: int, attempt: Callable[[], str]) -> list[str]:
    """Run ``attempt`` in ``attempts`` threads released at the same moment."""
    barrier = threading.Barrier(attempts)
    outcomes: list[str] = []
    lock = threading.Lock()

    def run() -> None:
        try:
            barrier.wait()
            try:
                outcome = attempt()
            except BookingError as error:
                outcome = error.code
            with lock:
                outcomes.append(outcome)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run) for _ in range(attempts)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return outcomes


def test_threads_never_sell_more_seats_than_are_left() -> None:
    flight = a_flight(seats_left=3)
    sessions = [a_session() for _ in range(8)]
    queue = iter(sessions)
    lock = threading.Lock()

    def attempt() -> str:
        with lock:
            session = next(queue)
        return book(session, "flight", flight.pk, "economy").reference

    outcomes = race(8, attempt)
    assert len(outcomes) == 8
    assert Counter(outcome == "sold_out" for outcome in outcomes) == {True: 5, False: 3}
    assert FlightCabin.objects.get(flight=flight).seats_left == 0
    assert Booking.objects.filter(item_id=flight.pk, status="active").count() == 3


def test_threads_booking_a_stay_share_the_last_room_all_or_nothing() -> None:
    city = City.objects.create(name="上海", name_en="Shanghai", code="SHA")
    hotel = Hotel.objects.create(
        city=city, name="外滩酒店", name_en="Bund Hotel", district="黄浦区", stars=4, rating=4.6
    )
    for date, rooms in ((DAY, 2), (DAY + dt.timedelta(days=1), 1)):
        HotelRoom.objects.create(
            hotel=hotel, room_type="king", date=date, price=500, rooms_left=rooms
        )
    session = a_session()

    def attempt() -> str:
        return book(session, "hotel", hotel.pk, "king", check_in=DAY, nights=2).reference

    outcomes = race(6, attempt)
    assert Counter(outcome == "sold_out" for outcome in outcomes) == {True: 5, False: 1}
    left = (
        HotelRoom.objects.filter(hotel=hotel).order_by("date").values_list("rooms_left", flat=True)
    )
    # The one stay took a room on both nights; the refused ones took none.
    assert list(left) == [1, 0]


def test_racing_cancellations_give_the_seat_back_once() -> None:
    flight = a_flight(seats_left=1)
    session = a_session()
    reference = book(session, "flight", flight.pk, "economy").reference

    def attempt() -> str:
        return cancel(session, reference).status

    outcomes = race(5, attempt)
    assert sorted(outcomes) == ["already_cancelled"] * 4 + ["cancelled"]
    assert FlightCabin.objects.get(flight=flight).seats_left == 1


BOOKER = """
import json, os, sys
import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "evalsite.settings")
django.setup()
from liveeval.booking.offers import BookingError
from liveeval.booking.reservations import book
from liveeval.models import ChatSession

session = ChatSession.objects.get(pk=int(sys.argv[1]))
print("ready", flush=True)
sys.stdin.readline()
outcomes = []
for _ in range(int(sys.argv[3])):
    try:
        outcomes.append(book(session, "flight", int(sys.argv[2]), "economy").reference)
    except BookingError as error:
        outcomes.append(error.code)
print(json.dumps(outcomes), flush=True)
"""


def database_url_for_processes() -> str:
    """The URL of the test database, for processes of their own."""
    settings = connection.settings_dict
    if connection.vendor == "sqlite":
        return f"sqlite:///{settings['NAME']}"
    credentials = quote(settings["USER"] or "")
    if settings["PASSWORD"]:
        credentials += ":" + quote(settings["PASSWORD"])
    host = settings["HOST"] or "127.0.0.1"
    port = settings["PORT"] or 5432
    return f"postgres://{credentials}@{host}:{port}/{settings['NAME']}"


@pytest.mark.processes
def test_separate_processes_never_sell_more_seats_than_are_left() -> None:
    flight = a_flight(seats_left=5)
    env = {**os.environ, "DATABASE_URL": database_url_for_processes(), "DEBUG": "1"}
    processes = [
        subprocess.Popen(
            [sys.executable, "-c", BOOKER, str(a_session().pk), str(flight.pk), "3"],
            cwd=BASE_DIR,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(4)
    ]
    try:
        for process in processes:
            assert process.stdout is not None and process.stderr is not None
            if process.stdout.readline().strip() != "ready":
                process.kill()
                pytest.fail(f"a booking process did not start:\n{process.stderr.read()}")
        # Every process is connected and waiting: release them together.
        for process in processes:
            assert process.stdin is not None
            process.stdin.write("go\n")
            process.stdin.flush()
        outcomes: list[str] = []
        for process in processes:
            stdout, stderr = process.communicate(timeout=60)
            assert process.returncode == 0, stderr
            outcomes.extend(json.loads(stdout))
    finally:
        for process in processes:
            if process.poll() is None:
                process.kill()
    assert Counter(outcome == "sold_out" for outcome in outcomes) == {True: 7, False: 5}
    assert FlightCabin.objects.get(flight=flight).seats_left == 0
    assert sorted(Booking.objects.values_list("reference", flat=True)) == sorted(
        outcome for outcome in outcomes if outcome != "sold_out"
    )
