"""Searching, booking and cancelling in a small hand-made world whose numbers are known."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import cast

import pytest

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
from liveeval.booking.offers import BookingError, Domain, FlightOffer, TrainOffer
from liveeval.booking.reservations import book, cancel
from liveeval.booking.search import search_flights, search_hotels, search_trains
from liveeval.booking.world import SessionWorld, world_covers, world_for_token
from liveeval.models import ChatSession, DialogueSystem

TODAY = dt.date(2026, 12, 1)
DAY = dt.date(2026, 12, 2)
NEXT = dt.date(2026, 12, 3)


def at(text: str) -> dt.time:
    return dt.time.fromisoformat(text)


@dataclass
class TinyWorld:
    flights: dict[str, Flight]
    trains: dict[str, Train]
    hotels: dict[str, Hotel]


def add_flight(
    number: str, depart: str, cabins: dict[str, tuple[int, int]], date: dt.date = DAY
) -> Flight:
    flight = Flight.objects.create(
        number=number,
        airline="中国国际航空",
        airline_en="Air China",
        from_city=City.objects.get(name="北京"),
        to_city=City.objects.get(name="上海"),
        date=date,
        depart=at(depart),
        arrive=at("23:59"),
    )
    for cabin, (price, seats_left) in cabins.items():
        FlightCabin.objects.create(
            flight=flight, cabin=cabin, price=price, discount=0.8, seats_left=seats_left
        )
    return flight


def add_train(number: str, depart: str, seats: dict[str, tuple[int, int]]) -> Train:
    train = Train.objects.create(
        number=number,
        train_type=number[0],
        from_city=City.objects.get(name="北京"),
        to_city=City.objects.get(name="上海"),
        date=DAY,
        depart=at(depart),
        arrive=at("23:00"),
        duration_minutes=300,
    )
    for seat, (price, seats_left) in seats.items():
        TrainSeat.objects.create(train=train, seat=seat, price=price, seats_left=seats_left)
    return train


def add_hotel(name: str, stars: int, rooms: dict[str, list[tuple[int, int]]]) -> Hotel:
    """``rooms`` maps a room type to (price, rooms left) for DAY and NEXT."""
    hotel = Hotel.objects.create(
        city=City.objects.get(name="上海"),
        name=name,
        name_en=name,
        district="黄浦区",
        stars=stars,
        rating=4.5,
    )
    for room_type, nights in rooms.items():
        for date, (price, rooms_left) in zip((DAY, NEXT), nights, strict=True):
            HotelRoom.objects.create(
                hotel=hotel, room_type=room_type, date=date, price=price, rooms_left=rooms_left
            )
    return hotel


@pytest.fixture
def tiny(db: None) -> TinyWorld:
    City.objects.create(name="北京", name_en="Beijing", code="BJS")
    City.objects.create(name="上海", name_en="Shanghai", code="SHA")
    flights = {
        "CA1501": add_flight("CA1501", "08:00", {"economy": (800, 5), "business": (3000, 2)}),
        "MU5101": add_flight("MU5101", "06:00", {"economy": (500, 0), "business": (2400, 1)}),
        "CZ3901": add_flight(
            "CZ3901",
            "13:00",
            {"economy": (1200, 10), "business": (3600, 0), "first": (5000, 1)},
        ),
        "HO1001": add_flight("HO1001", "09:00", {"economy": (600, 9)}, date=NEXT),
    }
    trains = {
        "K99": add_train("K99", "22:00", {"hard_seat": (160, 9), "hard_sleeper": (270, 9)}),
        "G101": add_train(
            "G101", "07:00", {"second": (553, 10), "first": (885, 4), "business": (1748, 0)}
        ),
        "D311": add_train("D311", "19:00", {"second": (400, 0), "first": (640, 3)}),
        "Z21": add_train("Z21", "20:00", {"hard_seat": (150, 5), "hard_sleeper": (260, 2)}),
        "T109": add_train("T109", "21:00", {"hard_seat": (140, 0), "hard_sleeper": (250, 6)}),
    }
    hotels = {
        "H5": add_hotel(
            "外滩五星",
            5,
            {
                "king": [(1000, 4), (1200, 1)],
                "twin": [(1100, 5), (1300, 5)],
                "suite": [(2300, 2), (2500, 2)],
            },
        ),
        "H4a": add_hotel(
            "人民广场四星", 4, {"king": [(500, 3), (531, 3)], "twin": [(560, 3), (600, 3)]}
        ),
        "H4b": add_hotel(
            "徐家汇四星", 4, {"king": [(450, 3), (450, 3)], "twin": [(480, 3), (480, 3)]}
        ),
        "H2": add_hotel(
            "虹桥二星", 2, {"king": [(200, 3), (200, 0)], "twin": [(220, 3), (220, 3)]}
        ),
    }
    return TinyWorld(flights, trains, hotels)


@pytest.fixture
def session(db: None) -> ChatSession:
    system = DialogueSystem.objects.create(
        slug="world-test", name="World test", alias="System W", kind="reference"
    )
    return ChatSession.objects.create(system=system, kind=ChatSession.Kind.SANDBOX, today=TODAY)


def numbers(offers: Sequence[FlightOffer | TrainOffer]) -> list[str]:
    return [offer.number for offer in offers]


class TestSearchFlights:
    def test_it_sorts_by_departure_and_keeps_only_the_route_and_date(self, tiny: TinyWorld) -> None:
        assert numbers(search_flights("北京", "上海", DAY)) == ["MU5101", "CA1501", "CZ3901"]
        assert numbers(search_flights("北京", "上海", NEXT)) == ["HO1001"]

    def test_time_bounds_are_inclusive(self, tiny: TinyWorld) -> None:
        found = search_flights(
            "北京", "上海", DAY, depart_after=at("08:00"), depart_before=at("13:00")
        )
        assert numbers(found) == ["CA1501", "CZ3901"]

    def test_a_requested_cabin_must_have_seats_left(self, tiny: TinyWorld) -> None:
        assert numbers(search_flights("北京", "上海", DAY, cabin="economy")) == ["CA1501", "CZ3901"]
        assert numbers(search_flights("北京", "上海", DAY, cabin="first")) == ["CZ3901"]
        assert search_flights("北京", "上海", DAY, cabin="premium") == []

    def test_max_price_applies_to_the_requested_cabin(self, tiny: TinyWorld) -> None:
        found = search_flights("北京", "上海", DAY, cabin="business", max_price=3000)
        # MU5101 business 2400 and CA1501 business 3000 (inclusive); CZ3901 business is sold out.
        assert numbers(found) == ["MU5101", "CA1501"]

    def test_max_price_without_a_cabin_applies_to_the_cheapest_cabin_with_seats(
        self, tiny: TinyWorld
    ) -> None:
        # MU5101's 500 economy is sold out, so its cheapest bookable fare is 2400.
        assert numbers(search_flights("北京", "上海", DAY, max_price=900)) == ["CA1501"]
        assert numbers(search_flights("北京", "上海", DAY, max_price=2400)) == [
            "MU5101",
            "CA1501",
            "CZ3901",
        ]

    def test_offers_carry_every_cabin_in_a_fixed_order(self, tiny: TinyWorld) -> None:
        offer = search_flights("北京", "上海", DAY, cabin="first")[0]
        assert list(offer.cabins) == ["economy", "business", "first"]
        assert offer.cabins["business"].seats_left == 0
        assert offer.cabins["economy"].price == 1200
        assert offer.cabins["economy"].discount == 0.8
        assert (offer.id, offer.from_city, offer.to_city) == (
            tiny.flights["CZ3901"].pk,
            "北京",
            "上海",
        )

    def test_an_unknown_city_finds_nothing_instead_of_failing(self, tiny: TinyWorld) -> None:
        assert search_flights("拉萨", "上海", DAY) == []
        assert search_flights("北京", "Shanghai", DAY) == []


class TestSearchTrains:
    def test_type_k_finds_every_classic_train(self, tiny: TinyWorld) -> None:
        assert numbers(search_trains("北京", "上海", DAY, train_type="K")) == ["Z21", "T109", "K99"]

    def test_other_types_find_only_themselves(self, tiny: TinyWorld) -> None:
        assert numbers(search_trains("北京", "上海", DAY, train_type="Z")) == ["Z21"]
        assert numbers(search_trains("北京", "上海", DAY, train_type="g")) == ["G101"]

    def test_a_sold_out_seat_class_is_not_offered(self, tiny: TinyWorld) -> None:
        assert search_trains("北京", "上海", DAY, seat="business") == []
        assert numbers(search_trains("北京", "上海", DAY, seat="first")) == ["G101", "D311"]

    def test_max_price_without_a_seat_uses_the_cheapest_class_with_seats(
        self, tiny: TinyWorld
    ) -> None:
        # G101 second 553; D311 first 640 (second sold out); T109 hard sleeper 250 (hard seat
        # sold out); Z21 hard seat 150; K99 hard seat 160.
        assert numbers(search_trains("北京", "上海", DAY, max_price=250)) == ["Z21", "T109", "K99"]
        assert numbers(search_trains("北京", "上海", DAY, max_price=600)) == [
            "G101",
            "Z21",
            "T109",
            "K99",
        ]

    def test_offers_list_seats_in_class_order(self, tiny: TinyWorld) -> None:
        offer = search_trains("北京", "上海", DAY, train_type="G")[0]
        assert list(offer.seats) == ["second", "first", "business"]
        assert offer.duration_minutes == 300


class TestSearchHotels:
    def test_it_ranks_by_stars_then_price(self, tiny: TinyWorld) -> None:
        found = search_hotels("上海", DAY, 2)
        assert [offer.name for offer in found] == [
            "外滩五星",
            "徐家汇四星",
            "人民广场四星",
            "虹桥二星",
        ]

    def test_a_room_price_is_the_mean_night_rounded_up_and_rooms_left_the_fewest(
        self, tiny: TinyWorld
    ) -> None:
        offers = {offer.name: offer for offer in search_hotels("上海", DAY, 2)}
        # (500 + 531) / 2 = 515.5 -> 516; (1000 + 1200) / 2 = 1100; rooms left min(4, 1).
        assert offers["人民广场四星"].rooms["king"].price == 516
        assert offers["外滩五星"].rooms["king"].price == 1100
        assert offers["外滩五星"].rooms["king"].seats_left == 1
        assert list(offers["外滩五星"].rooms) == ["king", "twin", "suite"]
        assert (offers["外滩五星"].check_in, offers["外滩五星"].nights) == (DAY, 2)

    def test_max_price_holds_exactly_for_the_rounded_mean(self, tiny: TinyWorld) -> None:
        def names(limit: int) -> list[str]:
            found = search_hotels("上海", DAY, 2, min_stars=4, room_type="king", max_price=limit)
            return [offer.name for offer in found]

        assert names(515) == ["徐家汇四星"]
        assert names(516) == ["徐家汇四星", "人民广场四星"]

    def test_without_a_room_type_the_cheapest_room_with_space_counts(self, tiny: TinyWorld) -> None:
        # 虹桥二星's king is full on the second night; its twin (220) still counts.
        found = search_hotels("上海", DAY, 2, max_price=300)
        assert [offer.name for offer in found] == ["虹桥二星"]
        assert found[0].rooms["king"].seats_left == 0
        assert search_hotels("上海", DAY, 2, max_price=300, room_type="king") == []

    def test_room_type_and_min_stars_filter(self, tiny: TinyWorld) -> None:
        assert [o.name for o in search_hotels("上海", DAY, 1, room_type="suite")] == ["外滩五星"]
        assert [o.stars for o in search_hotels("上海", DAY, 1, min_stars=4)] == [5, 4, 4]

    def test_a_stay_beyond_the_world_or_of_no_nights_finds_nothing(self, tiny: TinyWorld) -> None:
        assert search_hotels("上海", DAY, 3) == []
        assert search_hotels("上海", DAY, 0) == []
        assert search_hotels("北京", DAY, 1) == []
        assert search_hotels("乌鲁木齐", DAY, 1) == []


REFERENCE = re.compile(r"^(FL|TR|HT)-[2-9A-HJ-NP-Z]{6}$")


def seats_left(flight: Flight, cabin: str) -> int:
    return FlightCabin.objects.get(flight=flight, cabin=cabin).seats_left


def rooms_left(hotel: Hotel, room_type: str) -> list[int]:
    return list(
        HotelRoom.objects.filter(hotel=hotel, room_type=room_type)
        .order_by("date")
        .values_list("rooms_left", flat=True)
    )


class TestBook:
    def test_it_takes_a_seat_and_records_the_booking(
        self, tiny: TinyWorld, session: ChatSession
    ) -> None:
        flight = tiny.flights["CA1501"]
        receipt = book(session, "flight", flight.pk, "economy")
        assert REFERENCE.match(receipt.reference) and receipt.reference.startswith("FL-")
        assert (receipt.price, receipt.option, receipt.item_id) == (800, "economy", flight.pk)
        assert receipt.details["number"] == "CA1501"
        assert (
            receipt.details["from_city"] == "北京" and receipt.details["to_city_en"] == "Shanghai"
        )
        assert (receipt.details["date"], receipt.details["depart"]) == ("2026-12-02", "08:00")
        assert seats_left(flight, "economy") == 4
        stored = Booking.objects.get(reference=receipt.reference)
        assert (stored.session_id, stored.domain, stored.price) == (session.pk, "flight", 800)
        assert stored.status == Booking.Status.ACTIVE
        assert stored.details == receipt.details

    def test_it_books_a_train_seat(self, tiny: TinyWorld, session: ChatSession) -> None:
        train = tiny.trains["Z21"]
        receipt = book(session, "train", train.pk, "hard_sleeper")
        assert receipt.reference.startswith("TR-")
        assert (receipt.price, receipt.details["train_type"]) == (260, "Z")
        assert receipt.details["duration_minutes"] == 300
        assert TrainSeat.objects.get(train=train, seat="hard_sleeper").seats_left == 1

    def test_it_sells_the_last_seat_once(self, tiny: TinyWorld, session: ChatSession) -> None:
        flight = tiny.flights["CZ3901"]
        book(session, "flight", flight.pk, "first")
        with pytest.raises(BookingError) as error:
            book(session, "flight", flight.pk, "first")
        assert error.value.code == "sold_out"
        assert seats_left(flight, "first") == 0
        assert Booking.objects.filter(session=session).count() == 1

    def test_it_books_every_night_of_a_stay(self, tiny: TinyWorld, session: ChatSession) -> None:
        hotel = tiny.hotels["H4a"]
        receipt = book(session, "hotel", hotel.pk, "king", check_in=DAY, nights=2)
        assert receipt.reference.startswith("HT-")
        assert receipt.price == 1031
        assert receipt.details["nightly_prices"] == [500, 531]
        assert receipt.details["nightly_price"] == 516
        assert (receipt.details["check_in"], receipt.details["check_out"]) == (
            "2026-12-02",
            "2026-12-04",
        )
        assert rooms_left(hotel, "king") == [2, 2]

    def test_a_full_night_leaves_the_whole_stay_unbooked(
        self, tiny: TinyWorld, session: ChatSession
    ) -> None:
        hotel = tiny.hotels["H2"]
        with pytest.raises(BookingError) as error:
            book(session, "hotel", hotel.pk, "king", check_in=DAY, nights=2)
        assert error.value.code == "sold_out"
        assert rooms_left(hotel, "king") == [3, 0]
        assert not Booking.objects.exists()

    @pytest.mark.parametrize(
        ("domain", "key", "option", "stay", "code"),
        [
            ("flight", "missing", "economy", None, "unknown_item"),
            ("flight", "CZ3901", "premium", None, "unknown_option"),
            ("flight", "MU5101", "economy", None, "sold_out"),
            ("train", "D311", "business", None, "unknown_option"),
            ("hotel", "H4b", "suite", (DAY, 1), "unknown_option"),
            ("hotel", "H4b", "king", (NEXT, 2), "bad_parameter"),
            ("hotel", "H4b", "king", (DAY, 0), "bad_parameter"),
            ("hotel", "H4b", "king", (TODAY - dt.timedelta(days=1), 1), "bad_parameter"),
            ("hotel", "H4b", "king", None, "bad_parameter"),
            ("ship", "CZ3901", "economy", None, "bad_parameter"),
        ],
    )
    def test_it_refuses_with_a_code(
        self,
        tiny: TinyWorld,
        session: ChatSession,
        domain: str,
        key: str,
        option: str,
        stay: tuple[dt.date, int] | None,
        code: str,
    ) -> None:
        items = {**tiny.flights, **tiny.trains, **tiny.hotels}
        item_id = items[key].pk if key in items else 999_999
        check_in, nights = stay if stay else (None, None)
        with pytest.raises(BookingError) as error:
            book(session, cast(Domain, domain), item_id, option, check_in=check_in, nights=nights)
        assert error.value.code == code
        assert not Booking.objects.exists()

    def test_it_refuses_a_flight_before_the_conversations_today(
        self, tiny: TinyWorld, session: ChatSession
    ) -> None:
        session.today = NEXT
        with pytest.raises(BookingError) as error:
            book(session, "flight", tiny.flights["CA1501"].pk, "economy")
        assert error.value.code == "bad_parameter"
        assert seats_left(tiny.flights["CA1501"], "economy") == 5


class TestCancel:
    def test_it_gives_the_seat_back_and_marks_the_booking(
        self, tiny: TinyWorld, session: ChatSession
    ) -> None:
        flight = tiny.flights["CA1501"]
        receipt = book(session, "flight", flight.pk, "business")
        cancelled = cancel(session, receipt.reference.lower())
        assert cancelled.status == Booking.Status.CANCELLED
        assert cancelled.cancelled_at is not None
        assert seats_left(flight, "business") == 2

    def test_it_gives_every_night_back(self, tiny: TinyWorld, session: ChatSession) -> None:
        hotel = tiny.hotels["H5"]
        receipt = book(session, "hotel", hotel.pk, "king", check_in=DAY, nights=2)
        assert rooms_left(hotel, "king") == [3, 0]
        cancel(session, receipt.reference)
        assert rooms_left(hotel, "king") == [4, 1]

    def test_cancelling_twice_is_refused_and_releases_once(
        self, tiny: TinyWorld, session: ChatSession
    ) -> None:
        train = tiny.trains["G101"]
        receipt = book(session, "train", train.pk, "second")
        cancel(session, receipt.reference)
        with pytest.raises(BookingError) as error:
            cancel(session, receipt.reference)
        assert error.value.code == "already_cancelled"
        assert TrainSeat.objects.get(train=train, seat="second").seats_left == 10

    def test_it_cannot_cancel_another_conversations_booking(
        self, tiny: TinyWorld, session: ChatSession
    ) -> None:
        other = ChatSession.objects.create(
            system=session.system, kind=ChatSession.Kind.SANDBOX, today=TODAY
        )
        receipt = book(other, "flight", tiny.flights["CA1501"].pk, "economy")
        with pytest.raises(BookingError) as error:
            cancel(session, receipt.reference)
        assert error.value.code == "not_found"
        assert Booking.objects.get(reference=receipt.reference).status == Booking.Status.ACTIVE
        with pytest.raises(BookingError) as unknown:
            cancel(session, "FL-AAAAAA")
        assert unknown.value.code == "not_found"


class TestSessionWorld:
    def test_it_books_for_its_conversation_on_its_today(
        self, tiny: TinyWorld, session: ChatSession
    ) -> None:
        world = SessionWorld(session)
        assert world.today == TODAY
        offer = world.search_flights("北京", "上海", DAY, cabin="economy")[0]
        receipt = world.book("flight", offer.id, "economy")
        assert Booking.objects.get(reference=receipt.reference).session == session
        world.cancel(receipt.reference)
        assert Booking.objects.get(reference=receipt.reference).status == Booking.Status.CANCELLED

    def test_days_before_today_are_past(self, tiny: TinyWorld, session: ChatSession) -> None:
        session.today = NEXT
        world = SessionWorld(session)
        assert world.search_flights("北京", "上海", DAY) == []
        assert world.search_trains("北京", "上海", DAY) == []
        assert world.search_hotels("上海", DAY, 1) == []
        assert numbers(world.search_flights("北京", "上海", NEXT)) == ["HO1001"]

    def test_a_token_finds_its_conversation_open_or_not(self, session: ChatSession) -> None:
        session.end(ChatSession.EndReason.USER)
        world = world_for_token(session.token)
        assert world is not None and world.session.pk == session.pk
        assert world_for_token("no-such-token") is None
        assert world_for_token("") is None

    def test_world_covers_the_days_it_has(self, tiny: TinyWorld) -> None:
        assert world_covers(DAY)
        # NEXT has a flight and hotel nights but no train.
        assert not world_covers(NEXT)
        assert not world_covers(TODAY)
