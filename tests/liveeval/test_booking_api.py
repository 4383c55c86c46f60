"""The booking API that outside systems call: auth, searches, bookings, every error code.

The world here is a handful of hand-made rows (``tiny_world``), so every expected
list and price below can be checked by reading it. Other modules that need a
small bookable world (the ``http`` and ``openai`` system kinds) use it too.
"""

from __future__ import annotations

import datetime as dt
import json
import threading
from collections import Counter
from dataclasses import dataclass
from typing import Any

import pytest
from django.db import connections
from django.test import Client
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from liveeval.api.errors import STATUS_BY_CODE
from liveeval.booking.goals import goal_met
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
from liveeval.models import ChatSession, DialogueSystem

TODAY = dt.date(2026, 12, 1)
TOMORROW = dt.date(2026, 12, 2)
API = "/api/booking/"
FLIGHT_GOAL = {
    "intents": [
        {
            "domain": "flight",
            "constraints": {
                "from_city": "北京",
                "to_city": "上海",
                "date": "+1",
                "depart_before": "12:00",
            },
        }
    ]
}


@dataclass(frozen=True)
class TinyWorld:
    morning: Flight  # CA1501 08:00, economy 800 (5 left), business 2400
    noon: Flight  # MU5101 12:10, economy 910 sold out, business 2600
    evening: Flight  # CZ3901 19:00, economy 600 (9 left)
    train: Train  # G1 09:00, second 553, first 930
    bund: Hotel  # 4★, king 500 then 600 a night (2 then 1 left)
    home_inn: Hotel  # 2★, king 200 a night


def _flight(
    number: str, airline: str, depart: dt.time, arrive: dt.time, day: dt.date, **cabins: Any
) -> Flight:
    beijing, shanghai = City.objects.get(code="BJS"), City.objects.get(code="SHA")
    flight = Flight.objects.create(
        number=number,
        airline=airline,
        airline_en=f"{airline} Airlines",
        from_city=beijing,
        to_city=shanghai,
        date=day,
        depart=depart,
        arrive=arrive,
    )
    for cabin, (price, discount, seats) in cabins.items():
        FlightCabin.objects.create(
            flight=flight, cabin=cabin, price=price, discount=discount, seats_left=seats
        )
    return flight


def tiny_world() -> TinyWorld:
    """Beijing and Shanghai on 1–3 December 2026: three flights, a train and two hotels."""
    beijing = City.objects.create(name="北京", name_en="Beijing", code="BJS")
    shanghai = City.objects.create(name="上海", name_en="Shanghai", code="SHA")
    City.objects.create(name="天津", name_en="Tianjin", code="TSN")
    morning = _flight(
        "CA1501",
        "国航",
        dt.time(8),
        dt.time(10, 15),
        TOMORROW,
        economy=(800, 0.74, 5),
        business=(2400, 0.74, 2),
    )
    noon = _flight(
        "MU5101",
        "东航",
        dt.time(12, 10),
        dt.time(14, 20),
        TOMORROW,
        economy=(910, 0.73, 0),
        business=(2600, 0.8, 3),
    )
    evening = _flight(
        "CZ3901", "南航", dt.time(19), dt.time(21, 10), TOMORROW, economy=(600, 0.5, 9)
    )
    # Today has a little of everything too, so that `talk` accepts the date.
    _flight("HU7601", "海航", dt.time(18), dt.time(20, 10), TODAY, economy=(700, 0.6, 9))
    trains = {}
    for number, day in (("G1", TOMORROW), ("G3", TODAY)):
        trains[number] = Train.objects.create(
            number=number,
            train_type="G",
            from_city=beijing,
            to_city=shanghai,
            date=day,
            depart=dt.time(9),
            arrive=dt.time(13, 30),
            duration_minutes=270,
        )
        TrainSeat.objects.create(train=trains[number], seat="second", price=553, seats_left=100)
        TrainSeat.objects.create(train=trains[number], seat="first", price=930, seats_left=20)
    bund = Hotel.objects.create(
        city=shanghai, name="外滩酒店", name_en="Bund Hotel", district="黄浦区", stars=4, rating=4.6
    )
    home_inn = Hotel.objects.create(
        city=shanghai,
        name="如家人民广场店",
        name_en="Home Inn",
        district="黄浦区",
        stars=2,
        rating=4.1,
    )
    for night, price, rooms in (
        (TODAY, 480, 3),
        (TOMORROW, 500, 2),
        (dt.date(2026, 12, 3), 600, 1),
    ):
        HotelRoom.objects.create(
            hotel=bund, room_type="king", date=night, price=price, rooms_left=rooms
        )
        HotelRoom.objects.create(
            hotel=home_inn, room_type="king", date=night, price=200, rooms_left=9
        )
    return TinyWorld(morning, noon, evening, trains["G1"], bund, home_inn)


def open_session(status: str = ChatSession.Status.OPEN, kind: str = "http") -> ChatSession:
    system, _ = DialogueSystem.objects.get_or_create(
        slug="outside-bot", defaults={"name": "Outside bot", "alias": "System O", "kind": kind}
    )
    return ChatSession.objects.create(
        system=system, kind=ChatSession.Kind.SANDBOX, today=TODAY, status=status, lang="zh"
    )


@pytest.fixture
def world(db: None) -> TinyWorld:
    return tiny_world()


@pytest.fixture
def session(db: None) -> ChatSession:
    return open_session()


def get(session: ChatSession, endpoint: str, **params: Any) -> Any:
    return Client().get(
        API + endpoint, params, headers={"Authorization": f"Bearer {session.token}"}
    )


def post(session: ChatSession, endpoint: str, body: Any) -> Any:
    return Client().post(
        API + endpoint,
        json.dumps(body),
        content_type="application/json",
        headers={"Authorization": f"Bearer {session.token}"},
    )


def error_of(response: Any) -> dict[str, Any]:
    assert response["Content-Type"] == "application/json"
    error: dict[str, Any] = response.json()["error"]
    assert set(error) == {"code", "message", "field"}
    return error


# Authentication.


@pytest.mark.django_db
def test_it_needs_a_token(world: TinyWorld) -> None:
    response = Client().get(API + "cities")
    assert response.status_code == 401
    assert error_of(response)["code"] == "bad_token"
    assert response["WWW-Authenticate"].startswith("Bearer")


@pytest.mark.django_db
def test_it_refuses_a_token_no_conversation_holds(world: TinyWorld) -> None:
    response = Client().get(API + "cities", headers={"Authorization": "Bearer not-a-token"})
    assert response.status_code == 401
    assert error_of(response) == {
        "code": "bad_token",
        "message": "no conversation holds this token",
        "field": None,
    }


@pytest.mark.django_db
def test_it_takes_the_token_as_a_bearer_or_in_x_session_token(
    world: TinyWorld, session: ChatSession
) -> None:
    for headers in (
        {"Authorization": f"Bearer {session.token}"},
        {"X-Session-Token": session.token},
    ):
        response = Client().get(API + "cities", headers=headers)
        assert response.status_code == 200
        assert response.json()["cities"][:2] == [
            {"name": "北京", "name_en": "Beijing", "code": "BJS"},
            {"name": "上海", "name_en": "Shanghai", "code": "SHA"},
        ]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("status", "message"),
    [(ChatSession.Status.ENDED, "has ended"), (ChatSession.Status.PENDING, "has not started")],
)
def test_it_refuses_a_conversation_that_is_not_open(
    world: TinyWorld, status: str, message: str
) -> None:
    closed = open_session(status)
    response = post(
        closed, "book", {"domain": "flight", "item_id": world.morning.pk, "option": "economy"}
    )
    assert response.status_code == 403
    error = error_of(response)
    assert error["code"] == "session_not_open" and message in error["message"]
    assert not Booking.objects.exists()


@pytest.mark.django_db
def test_its_index_answers_without_a_token() -> None:
    response = Client().get(API)
    assert response.status_code == 200
    assert set(response.json()["endpoints"]) == {
        "cities",
        "flights",
        "trains",
        "hotels",
        "bookings",
        "book",
        "cancel",
    }


# Searching.


@pytest.mark.django_db
def test_it_finds_flights_with_every_class_and_its_seats(
    world: TinyWorld, session: ChatSession
) -> None:
    response = get(session, "flights", from_city="北京", to_city="上海", date="2026-12-02")
    assert response.status_code == 200
    flights = response.json()["flights"]
    # MU5101's economy is sold out, but its business class still has seats.
    assert [flight["number"] for flight in flights] == ["CA1501", "MU5101", "CZ3901"]
    assert flights[0] == {
        "id": world.morning.pk,
        "number": "CA1501",
        "airline": "国航",
        "airline_en": "国航 Airlines",
        "from_city": "北京",
        "to_city": "上海",
        "date": "2026-12-02",
        "depart": "08:00",
        "arrive": "10:15",
        "cabins": {
            "economy": {"price": 800, "seats_left": 5, "discount": 0.74},
            "business": {"price": 2400, "seats_left": 2, "discount": 0.74},
        },
    }


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("params", "numbers"),
    [
        ({"cabin": "economy"}, ["CA1501", "CZ3901"]),
        ({"max_price": "700"}, ["CZ3901"]),
        ({"depart_after": "10:00", "depart_before": "19:00"}, ["MU5101", "CZ3901"]),
        ({"from_city": "beijing", "to_city": "SHANGHAI"}, ["CA1501", "MU5101", "CZ3901"]),
        ({"date": "2026-12-03"}, []),
        ({"to_city": "天津"}, []),
    ],
)
def test_it_filters_flights(
    world: TinyWorld, session: ChatSession, params: dict[str, str], numbers: list[str]
) -> None:
    query = {"from_city": "北京", "to_city": "上海", "date": "2026-12-02", **params}
    flights = get(session, "flights", **query).json()["flights"]
    assert [flight["number"] for flight in flights] == numbers


@pytest.mark.django_db
def test_it_finds_trains(world: TinyWorld, session: ChatSession) -> None:
    response = get(
        session,
        "trains",
        from_city="北京",
        to_city="上海",
        date="2026-12-02",
        seat="first",
        train_type="g",
    )
    assert response.json()["trains"] == [
        {
            "id": world.train.pk,
            "number": "G1",
            "train_type": "G",
            "from_city": "北京",
            "to_city": "上海",
            "date": "2026-12-02",
            "depart": "09:00",
            "arrive": "13:30",
            "duration_minutes": 270,
            "seats": {
                "second": {"price": 553, "seats_left": 100},
                "first": {"price": 930, "seats_left": 20},
            },
        }
    ]


@pytest.mark.django_db
def test_it_finds_hotels_best_stars_first_at_their_mean_nightly_price(
    world: TinyWorld, session: ChatSession
) -> None:
    hotels = get(session, "hotels", city="Shanghai", check_in="2026-12-02", nights="2").json()[
        "hotels"
    ]
    assert [hotel["name_en"] for hotel in hotels] == ["Bund Hotel", "Home Inn"]
    # (500 + 600) / 2 = 550 a night; the fewest rooms left on either night is 1.
    assert hotels[0]["rooms"] == {"king": {"price": 550, "rooms_left": 1}}
    assert (hotels[0]["check_in"], hotels[0]["nights"], hotels[0]["stars"]) == ("2026-12-02", 2, 4)
    cheap = get(session, "hotels", city="上海", check_in="2026-12-02", nights=2, max_price=300)
    assert [hotel["name_en"] for hotel in cheap.json()["hotels"]] == ["Home Inn"]


# Booking and cancelling.


@pytest.mark.django_db
def test_a_booking_is_recorded_against_the_conversation_and_meets_its_goal(
    world: TinyWorld, session: ChatSession
) -> None:
    response = post(
        session, "book", {"domain": "flight", "item_id": world.morning.pk, "option": "Economy"}
    )
    assert response.status_code == 201
    booking = response.json()["booking"]
    assert booking["reference"].startswith("FL-") and len(booking["reference"]) == 9
    assert (booking["domain"], booking["item_id"], booking["option"], booking["price"]) == (
        "flight",
        world.morning.pk,
        "economy",
        800,
    )
    assert booking["details"]["number"] == "CA1501" and booking["details"]["depart"] == "08:00"
    stored = Booking.objects.get()
    assert (stored.session_id, stored.reference) == (session.pk, booking["reference"])
    assert FlightCabin.objects.get(flight=world.morning, cabin="economy").seats_left == 4
    assert goal_met(FLIGHT_GOAL, session.bookings.all(), TODAY)


@pytest.mark.django_db
def test_a_hotel_stay_is_booked_for_every_night(world: TinyWorld, session: ChatSession) -> None:
    response = post(
        session,
        "book",
        {
            "domain": "hotel",
            "item_id": world.bund.pk,
            "option": "king",
            "check_in": "2026-12-02",
            "nights": 2,
        },
    )
    assert response.status_code == 201
    booking = response.json()["booking"]
    assert (booking["price"], booking["details"]["check_out"]) == (1100, "2026-12-04")
    left = HotelRoom.objects.filter(hotel=world.bund, date__gte=TOMORROW).order_by("date")
    assert list(left.values_list("rooms_left", flat=True)) == [1, 0]


@pytest.mark.django_db
def test_it_lists_and_cancels_the_conversations_bookings(
    world: TinyWorld, session: ChatSession
) -> None:
    reference = post(
        session, "book", {"domain": "train", "item_id": world.train.pk, "option": "second"}
    ).json()["booking"]["reference"]
    listed = get(session, "bookings").json()
    assert listed["today"] == "2026-12-01"
    assert [(b["reference"], b["status"], b["price"]) for b in listed["bookings"]] == [
        (reference, "active", 553)
    ]

    cancelled = post(session, "cancel", {"reference": reference.lower()})

    assert cancelled.status_code == 200
    assert cancelled.json() == {"booking": {"reference": reference, "status": "cancelled"}}
    assert TrainSeat.objects.get(train=world.train, seat="second").seats_left == 100
    again = post(session, "cancel", {"reference": reference})
    assert (again.status_code, error_of(again)["code"]) == (409, "already_cancelled")


@pytest.mark.django_db
def test_a_conversation_cannot_cancel_another_ones_booking(
    world: TinyWorld, session: ChatSession
) -> None:
    reference = post(
        session, "book", {"domain": "flight", "item_id": world.evening.pk, "option": "economy"}
    ).json()["booking"]["reference"]
    response = post(open_session(), "cancel", {"reference": reference})
    assert (response.status_code, error_of(response)["code"]) == (404, "not_found")
    assert Booking.objects.get().status == "active"


# Every error, as JSON with a code, a message and the parameter at fault.

TRAVEL = {"from_city": "北京", "to_city": "上海", "date": "2026-12-02"}
HOTEL = {"city": "上海", "check_in": "2026-12-02", "nights": "2"}


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("endpoint", "params", "field"),
    [
        ("flights", {"to_city": "上海", "date": "2026-12-02"}, "from_city"),
        ("flights", {**TRAVEL, "from_city": "拉萨"}, "from_city"),
        ("flights", {**TRAVEL, "date": "2026-13-01"}, "date"),
        ("flights", {**TRAVEL, "date": "tomorrow"}, "date"),
        ("flights", {**TRAVEL, "depart_after": "25:00"}, "depart_after"),
        ("flights", {**TRAVEL, "cabin": "premium"}, "cabin"),
        ("flights", {**TRAVEL, "max_price": "-5"}, "max_price"),
        ("flights", {**TRAVEL, "max_price": "cheap"}, "max_price"),
        ("flights", {**TRAVEL, "airline": "CA"}, "airline"),
        ("trains", {**TRAVEL, "train_type": "X"}, "train_type"),
        ("trains", {**TRAVEL, "seat": "sofa"}, "seat"),
        ("hotels", {**HOTEL, "nights": "0"}, "nights"),
        ("hotels", {**HOTEL, "min_stars": "6"}, "min_stars"),
        ("hotels", {**HOTEL, "room_type": "dorm"}, "room_type"),
        ("bookings", {"all": "1"}, "all"),
    ],
)
def test_a_bad_search_parameter_is_named(
    world: TinyWorld, session: ChatSession, endpoint: str, params: dict[str, str], field: str
) -> None:
    response = get(session, endpoint, **params)
    assert response.status_code == 400
    error = error_of(response)
    assert (error["code"], error["field"]) == ("bad_parameter", field)
    assert field in error["message"]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"domain": "boat", "item_id": 1, "option": "economy"}, "domain"),
        ({"domain": "flight", "item_id": "CA1501", "option": "economy"}, "item_id"),
        ({"domain": "flight", "item_id": True, "option": "economy"}, "item_id"),
        ({"domain": "flight", "item_id": 1}, "option"),
        ({"domain": "flight", "item_id": 1, "option": "economy", "nights": 2}, "nights"),
        ({"domain": "hotel", "item_id": 1, "option": "king", "nights": 2}, "check_in"),
        (
            {
                "domain": "hotel",
                "item_id": 1,
                "option": "king",
                "check_in": "2026-11-30",
                "nights": 1,
            },
            "check_in",
        ),
        ({"domain": "flight", "item_id": 1, "option": "economy", "seat": "12A"}, "seat"),
    ],
)
def test_a_bad_booking_parameter_is_named(
    world: TinyWorld, session: ChatSession, body: dict[str, Any], field: str
) -> None:
    response = post(session, "book", body)
    assert response.status_code == 400
    assert (error_of(response)["code"], error_of(response)["field"]) == ("bad_parameter", field)
    assert not Booking.objects.exists()


@pytest.mark.django_db
def test_the_worlds_refusals_keep_their_codes(world: TinyWorld, session: ChatSession) -> None:
    unknown_item = post(
        session, "book", {"domain": "flight", "item_id": 999999, "option": "economy"}
    )
    unknown_option = post(
        session, "book", {"domain": "flight", "item_id": world.evening.pk, "option": "first"}
    )
    sold_out = post(
        session, "book", {"domain": "flight", "item_id": world.noon.pk, "option": "economy"}
    )
    not_found = post(session, "cancel", {"reference": "FL-ZZZZZZ"})
    outcomes = [
        (response.status_code, error_of(response)["code"])
        for response in (unknown_item, unknown_option, sold_out, not_found)
    ]
    assert outcomes == [
        (404, "unknown_item"),
        (404, "unknown_option"),
        (409, "sold_out"),
        (404, "not_found"),
    ]
    assert "MU5101" in error_of(sold_out)["message"]


@pytest.mark.django_db
@pytest.mark.parametrize("body", [b"{not json", b"[1, 2]", b"\xff\xfe"])
def test_a_body_that_is_not_a_json_object_is_refused(session: ChatSession, body: bytes) -> None:
    response = Client().post(
        API + "book",
        body,
        content_type="application/json",
        headers={"Authorization": f"Bearer {session.token}"},
    )
    assert response.status_code == 400
    assert error_of(response) == {
        "code": "bad_parameter",
        "message": "the request body must be a JSON object",
        "field": None,
    }


@pytest.mark.django_db
def test_a_wrong_method_or_path_is_answered_in_json(world: TinyWorld, session: ChatSession) -> None:
    wrong_method = get(session, "book")
    assert (wrong_method.status_code, error_of(wrong_method)["code"]) == (405, "method_not_allowed")
    assert wrong_method["Allow"] == "POST"
    assert post(session, "flights", {}).status_code == 405
    index = Client(enforce_csrf_checks=True).post(API)
    assert (index.status_code, error_of(index)["code"]) == (405, "method_not_allowed")
    unknown = get(session, "planes")
    assert (unknown.status_code, error_of(unknown)["code"]) == (404, "unknown_endpoint")
    assert get(session, "flights/", **TRAVEL).status_code == 200


@pytest.mark.django_db
def test_a_failure_inside_the_api_is_logged_and_answered_in_json(
    world: TinyWorld,
    session: ChatSession,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    def broken(*args: Any) -> dict[str, object]:
        raise RuntimeError("the disk is on fire")

    monkeypatch.setattr("liveeval.api.views.search_flights", broken)
    response = get(session, "flights", **TRAVEL)
    assert response.status_code == 500
    assert error_of(response)["code"] == "internal_error"
    assert "the disk is on fire" in caplog.text


@pytest.mark.django_db
def test_the_api_needs_no_csrf_token(world: TinyWorld, session: ChatSession) -> None:
    client = Client(enforce_csrf_checks=True)
    response = client.post(
        API + "book",
        json.dumps({"domain": "flight", "item_id": world.evening.pk, "option": "economy"}),
        content_type="application/json",
        headers={"X-Session-Token": session.token},
    )
    assert response.status_code == 201


PARAMETER_VALUES = st.one_of(
    st.text(max_size=12),
    st.integers(min_value=-(2**40), max_value=2**40).map(str),
    st.sampled_from(
        ["北京", "Shanghai", "2026-12-02", "2026-02-30", "08:00", "economy", "king", "0"]
    ),
)
PARAMETER_NAMES = st.sampled_from(
    [
        "from_city",
        "to_city",
        "date",
        "city",
        "check_in",
        "nights",
        "max_price",
        "min_stars",
        "depart_after",
        "depart_before",
        "cabin",
        "seat",
        "train_type",
        "room_type",
        "x",
    ]
)


@pytest.mark.django_db
@settings(
    max_examples=60,
    deadline=None,
    # Drawing inputs is slow only when the machine is loaded; what is checked is the answers.
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    endpoint=st.sampled_from(["flights", "trains", "hotels"]),
    params=st.dictionaries(PARAMETER_NAMES, PARAMETER_VALUES, max_size=6),
)
def test_no_search_parameters_make_it_fail(
    world: TinyWorld, session: ChatSession, endpoint: str, params: dict[str, str]
) -> None:
    response = get(session, endpoint, **params)
    assert response.status_code in {200, 400}
    if response.status_code == 400:
        assert error_of(response)["code"] == "bad_parameter"


@pytest.mark.django_db
@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    body=st.dictionaries(
        st.sampled_from(["domain", "item_id", "option", "check_in", "nights", "reference"]),
        st.one_of(
            st.none(),
            st.booleans(),
            st.integers(),
            st.floats(),
            PARAMETER_VALUES,
            st.lists(st.integers(), max_size=2),
        ),
        max_size=5,
    )
)
def test_no_booking_body_makes_it_fail(
    world: TinyWorld, session: ChatSession, body: dict[str, Any]
) -> None:
    response = post(session, "book", body)
    assert response.status_code in {201, 400, 404, 409}
    if response.status_code != 201:
        assert STATUS_BY_CODE[error_of(response)["code"]] == response.status_code


# Concurrency: several outside systems booking the last seats at once.


@pytest.mark.django_db(transaction=True)
def test_concurrent_bookings_through_the_api_never_oversell() -> None:
    world = tiny_world()
    sessions = [open_session() for _ in range(8)]
    FlightCabin.objects.filter(flight=world.morning, cabin="economy").update(seats_left=3)
    barrier = threading.Barrier(len(sessions))
    codes: list[str] = []
    lock = threading.Lock()

    def attempt(session: ChatSession) -> None:
        try:
            barrier.wait()
            response = post(
                session,
                "book",
                {"domain": "flight", "item_id": world.morning.pk, "option": "economy"},
            )
            code = "booked" if response.status_code == 201 else error_of(response)["code"]
            with lock:
                codes.append(code)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=attempt, args=(session,)) for session in sessions]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)

    assert Counter(codes) == {"booked": 3, "sold_out": 5}
    assert FlightCabin.objects.get(flight=world.morning, cabin="economy").seats_left == 0
    assert Booking.objects.filter(status="active").count() == 3
