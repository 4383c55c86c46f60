"""An in-memory booking world that follows the ``World`` protocol, for policy tests.

``MemoryWorld(today)`` generates a small deterministic world on demand: every ordered pair of
the 20 cities has, every day, six flights (two in each of the windows 06–12, 12–18, 18–24),
seven G trains, two D trains and one K train, and every city has five hotels (2★ to 5★).
The numbers come from simple formulas (below) so that a test can work out what to expect.
``MemoryWorld(today, generated=False)`` starts empty; ``add_flight`` and friends then build
exactly the situation a test needs.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from liveeval.booking.offers import (
    BookingError,
    BookingReceipt,
    Domain,
    Fare,
    FlightOffer,
    HotelOffer,
    TrainOffer,
)
from liveeval.systems.reference.state import PolicyTurn
from liveeval.systems.understanding.cities import CITY_EN

CITY_INDEX = {zh: index for index, zh in enumerate(CITY_EN)}
SEATS = 20

FLIGHT_TIMES = ("07:30", "10:05", "13:20", "16:45", "19:10", "21:35")
FLIGHT_DISCOUNTS = (0.6, 0.8, 0.7, 1.0, 0.5, 0.9)
AIRLINES = (
    ("CA", "中国国航", "Air China"),
    ("MU", "东方航空", "China Eastern"),
    ("CZ", "南方航空", "China Southern"),
    ("HU", "海南航空", "Hainan Airlines"),
)
G_TIMES = ("06:30", "08:00", "10:30", "13:00", "15:30", "18:30", "20:00")
D_TIMES = ("09:15", "14:10")
K_TIME = "21:05"
HOTELS = (
    # stars, king price before the city's surcharge, rating, name, English name, district
    (2, 180, 4.1, "如家快捷酒店", "Home Inn", "火车站"),
    (3, 320, 4.3, "全季酒店", "JI Hotel", "市中心"),
    (4, 560, 4.6, "亚朵酒店", "Atour Hotel", "高新区"),
    (4, 690, 4.4, "维也纳国际酒店", "Vienna International Hotel", "会展中心"),
    (5, 1080, 4.8, "希尔顿酒店", "Hilton", "滨江"),
)


def route_km(from_city: str, to_city: str) -> int:
    """A made-up but symmetric distance: 北京→上海 (indices 0 and 1) is 500 km."""
    low, high = sorted((CITY_INDEX[from_city], CITY_INDEX[to_city]))
    return 200 + 150 * (high - low + (low + high) % 5)


def full_fare(from_city: str, to_city: str) -> int:
    """Full economy fare: 300 + km / 2, rounded to tens (北京→上海: 550)."""
    return round((300 + route_km(from_city, to_city) / 2) / 10) * 10


def at(text: str) -> dt.time:
    return dt.time.fromisoformat(text)


def later(start: dt.time, minutes: int) -> dt.time:
    total = (start.hour * 60 + start.minute + minutes) % (24 * 60)
    return dt.time(total // 60, total % 60)


@dataclass
class Booking:
    receipt: BookingReceipt
    active: bool = True


class MemoryWorld:
    """The booking world held in dictionaries; ``bookings`` records every booking made."""

    def __init__(self, today: dt.date, *, generated: bool = True) -> None:
        self.today = today
        self.generated = generated
        self.flights: dict[int, FlightOffer] = {}
        self.trains: dict[int, TrainOffer] = {}
        self.hotels: dict[int, HotelOffer] = {}
        self.room_left: dict[tuple[int, str, dt.date], int] = {}
        self.bookings: dict[str, Booking] = {}
        self._generated_routes: set[tuple[str, str, dt.date]] = set()
        self._generated_cities: set[str] = set()
        self._next_id = 1

    # -- building the world

    def _id(self) -> int:
        self._next_id += 1
        return self._next_id - 1

    def add_flight(
        self,
        from_city: str,
        to_city: str,
        date: dt.date,
        depart: str,
        *,
        number: str = "CA1234",
        minutes: int = 130,
        economy: int = 900,
        discount: float | None = None,
        business: int | None = None,
        first: int | None = None,
        seats: int = SEATS,
    ) -> FlightOffer:
        code = number[:2]
        airline = next((a for a in AIRLINES if a[0] == code), AIRLINES[0])
        cabins = {"economy": Fare(economy, seats, discount)}
        if business is not None:
            cabins["business"] = Fare(business, seats)
        if first is not None:
            cabins["first"] = Fare(first, seats)
        offer = FlightOffer(
            id=self._id(),
            number=number,
            airline=airline[1],
            airline_en=airline[2],
            from_city=from_city,
            to_city=to_city,
            date=date,
            depart=at(depart),
            arrive=later(at(depart), minutes),
            cabins=cabins,
        )
        self.flights[offer.id] = offer
        return offer

    def add_train(
        self,
        from_city: str,
        to_city: str,
        date: dt.date,
        depart: str,
        *,
        number: str = "G101",
        minutes: int = 270,
        seats: dict[str, int] | None = None,
        seats_left: int = SEATS,
    ) -> TrainOffer:
        prices = seats or {"second": 550, "first": 930, "business": 1750}
        offer = TrainOffer(
            id=self._id(),
            number=number,
            train_type=number[0],
            from_city=from_city,
            to_city=to_city,
            date=date,
            depart=at(depart),
            arrive=later(at(depart), minutes),
            duration_minutes=minutes,
            seats={name: Fare(price, seats_left) for name, price in prices.items()},
        )
        self.trains[offer.id] = offer
        return offer

    def add_hotel(
        self,
        city: str,
        name: str,
        *,
        stars: int,
        king: int,
        rating: float = 4.5,
        name_en: str = "",
        district: str = "市中心",
        rooms: int = SEATS,
    ) -> HotelOffer:
        """A hotel with nightly prices: twin = king + 40, suite = 2 × king."""
        offer = HotelOffer(
            id=self._id(),
            city=city,
            name=name,
            name_en=name_en or name,
            district=district,
            stars=stars,
            rating=rating,
            check_in=self.today,
            nights=1,
            rooms={
                "king": Fare(king, rooms),
                "twin": Fare(king + 40, rooms),
                "suite": Fare(king * 2, rooms),
            },
        )
        self.hotels[offer.id] = offer
        return offer

    def sell_out(self, item_id: int) -> None:
        """Every class of an item gone, as if other customers had just taken the last seats."""
        if item_id in self.flights:
            flight = self.flights[item_id]
            cabins = {name: replace(fare, seats_left=0) for name, fare in flight.cabins.items()}
            self.flights[item_id] = replace(flight, cabins=cabins)
        elif item_id in self.trains:
            train = self.trains[item_id]
            seats = {name: replace(fare, seats_left=0) for name, fare in train.seats.items()}
            self.trains[item_id] = replace(train, seats=seats)
        else:
            hotel = self.hotels[item_id]
            for room in hotel.rooms:
                for day in range(60):
                    self.room_left[(item_id, room, self.today + dt.timedelta(days=day))] = 0

    def _generate_route(self, from_city: str, to_city: str, date: dt.date) -> None:
        key = (from_city, to_city, date)
        if not self.generated or key in self._generated_routes:
            return
        self._generated_routes.add(key)
        km = route_km(from_city, to_city)
        fare = full_fare(from_city, to_city)
        route = CITY_INDEX[from_city] * 20 + CITY_INDEX[to_city]
        day = (date - self.today).days
        for k, depart in enumerate(FLIGHT_TIMES):
            discount = FLIGHT_DISCOUNTS[(k + day) % len(FLIGHT_DISCOUNTS)]
            code = AIRLINES[k % len(AIRLINES)][0]
            self.add_flight(
                from_city,
                to_city,
                date,
                depart,
                number=f"{code}{1000 + route * 6 + k}",
                minutes=60 + km // 8,
                economy=round(fare * discount / 10) * 10,
                discount=discount,
                business=fare * 3,
                first=fare * 5 if k % 3 == 0 else None,
            )
        high_speed = (
            ("G", G_TIMES, 250, {"second": 0.46, "first": 0.74, "business": 1.45}),
            ("D", D_TIMES, 180, {"second": 0.31, "first": 0.5}),
            ("K", (K_TIME,), 70, {"hard_seat": 0.12, "hard_sleeper": 0.21, "soft_sleeper": 0.32}),
        )
        for letter, times, speed, rates in high_speed:
            for k, depart in enumerate(times):
                self.add_train(
                    from_city,
                    to_city,
                    date,
                    depart,
                    number=f"{letter}{route * 10 + k + 1}",
                    minutes=km * 60 // speed,
                    seats={name: round(km * rate) for name, rate in rates.items()},
                )

    def _generate_city(self, city: str) -> None:
        if not self.generated or city in self._generated_cities:
            return
        self._generated_cities.add(city)
        surcharge = 10 * CITY_INDEX[city]
        for stars, king, rating, name, name_en, district in HOTELS:
            self.add_hotel(
                city,
                f"{city}{name}",
                stars=stars,
                king=king + surcharge,
                rating=rating,
                name_en=f"{name_en} {CITY_EN[city]}",
                district=district,
            )

    # -- the World protocol

    def search_flights(
        self,
        from_city: str,
        to_city: str,
        date: dt.date,
        *,
        depart_after: dt.time | None = None,
        depart_before: dt.time | None = None,
        cabin: str | None = None,
        max_price: int | None = None,
    ) -> list[FlightOffer]:
        self._generate_route(from_city, to_city, date)
        found = []
        for offer in self.flights.values():
            if (offer.from_city, offer.to_city, offer.date) != (from_city, to_city, date):
                continue
            if depart_after is not None and offer.depart < depart_after:
                continue
            if depart_before is not None and offer.depart > depart_before:
                continue
            if not _fare_fits(offer.cabins, cabin, max_price):
                continue
            found.append(offer)
        return sorted(found, key=lambda offer: offer.depart)

    def search_trains(
        self,
        from_city: str,
        to_city: str,
        date: dt.date,
        *,
        depart_after: dt.time | None = None,
        depart_before: dt.time | None = None,
        seat: str | None = None,
        train_type: str | None = None,
        max_price: int | None = None,
    ) -> list[TrainOffer]:
        self._generate_route(from_city, to_city, date)
        found = []
        for offer in self.trains.values():
            if (offer.from_city, offer.to_city, offer.date) != (from_city, to_city, date):
                continue
            if depart_after is not None and offer.depart < depart_after:
                continue
            if depart_before is not None and offer.depart > depart_before:
                continue
            if train_type is not None and offer.train_type != train_type:
                continue
            if not _fare_fits(offer.seats, seat, max_price):
                continue
            found.append(offer)
        return sorted(found, key=lambda offer: offer.depart)

    def search_hotels(
        self,
        city: str,
        check_in: dt.date,
        nights: int,
        *,
        min_stars: int | None = None,
        max_price: int | None = None,
        room_type: str | None = None,
    ) -> list[HotelOffer]:
        self._generate_city(city)
        found = []
        for hotel in self.hotels.values():
            if hotel.city != city or (min_stars is not None and hotel.stars < min_stars):
                continue
            rooms = {
                name: replace(fare, seats_left=self._rooms_left(hotel.id, name, check_in, nights))
                for name, fare in hotel.rooms.items()
            }
            if not _fare_fits(rooms, room_type, max_price):
                continue
            found.append(replace(hotel, check_in=check_in, nights=nights, rooms=rooms))
        return sorted(found, key=lambda hotel: (hotel.stars, min_price(hotel.rooms)))

    def book(
        self,
        domain: Domain,
        item_id: int,
        option: str,
        *,
        check_in: dt.date | None = None,
        nights: int | None = None,
    ) -> BookingReceipt:
        reference = f"M{len(self.bookings) + 1:05d}"
        if domain == "hotel":
            receipt = self._book_hotel(reference, item_id, option, check_in, nights)
        elif domain == "flight":
            receipt = self._book_trip(reference, domain, self.flights, item_id, option)
        else:
            receipt = self._book_trip(reference, domain, self.trains, item_id, option)
        self.bookings[reference] = Booking(receipt)
        return receipt

    def cancel(self, reference: str) -> None:
        booking = self.bookings.get(reference)
        if booking is None or not booking.active:
            raise BookingError("unknown_booking", f"no active booking {reference}")
        booking.active = False

    # -- bookkeeping

    def active(self) -> list[BookingReceipt]:
        return [booking.receipt for booking in self.bookings.values() if booking.active]

    def _rooms_left(self, hotel_id: int, room: str, check_in: dt.date, nights: int) -> int:
        return min(
            self.room_left.get((hotel_id, room, check_in + dt.timedelta(days=n)), SEATS)
            for n in range(nights)
        )

    def _book_trip(
        self,
        reference: str,
        domain: Domain,
        items: dict[int, FlightOffer] | dict[int, TrainOffer],
        item_id: int,
        option: str,
    ) -> BookingReceipt:
        offer = items.get(item_id)
        if offer is None:
            raise BookingError("unknown_item", f"no {domain} {item_id}")
        fares = offer.cabins if isinstance(offer, FlightOffer) else offer.seats
        fare = fares.get(option)
        if fare is None:
            raise BookingError("unknown_option", f"{offer.number} has no {option}")
        if fare.seats_left <= 0:
            raise BookingError("sold_out", f"{offer.number} {option} is sold out")
        updated = {**fares, option: replace(fare, seats_left=fare.seats_left - 1)}
        if isinstance(offer, FlightOffer):
            self.flights[item_id] = replace(offer, cabins=updated)
        else:
            self.trains[item_id] = replace(offer, seats=updated)
        details: dict[str, object] = {
            "number": offer.number,
            "from_city": offer.from_city,
            "to_city": offer.to_city,
            "date": offer.date.isoformat(),
            "depart": offer.depart.strftime("%H:%M"),
        }
        return BookingReceipt(reference, domain, item_id, option, fare.price, details)

    def _book_hotel(
        self,
        reference: str,
        item_id: int,
        option: str,
        check_in: dt.date | None,
        nights: int | None,
    ) -> BookingReceipt:
        hotel = self.hotels.get(item_id)
        if hotel is None:
            raise BookingError("unknown_item", f"no hotel {item_id}")
        if check_in is None or not nights:
            raise BookingError("bad_stay", "a hotel booking needs check_in and nights")
        fare = hotel.rooms.get(option)
        if fare is None:
            raise BookingError("unknown_option", f"{hotel.name} has no {option}")
        if self._rooms_left(item_id, option, check_in, nights) <= 0:
            raise BookingError("sold_out", f"{hotel.name} {option} is full")
        for n in range(nights):
            key = (item_id, option, check_in + dt.timedelta(days=n))
            self.room_left[key] = self.room_left.get(key, SEATS) - 1
        details: dict[str, object] = {
            "hotel": hotel.name,
            "city": hotel.city,
            "check_in": check_in.isoformat(),
            "nights": nights,
            "stars": hotel.stars,
        }
        return BookingReceipt(reference, "hotel", item_id, option, fare.price * nights, details)


def min_price(fares: dict[str, Fare]) -> int:
    return min(fare.price for fare in fares.values())


def _fare_fits(fares: dict[str, Fare], wanted: str | None, max_price: int | None) -> bool:
    """The protocol's rule: the price limit applies to the requested class, else the cheapest."""
    if wanted is not None:
        fare = fares.get(wanted)
        return fare is not None and (max_price is None or fare.price <= max_price)
    if max_price is None:
        return True
    return min_price(fares) <= max_price


Policy = Callable[..., PolicyTurn]


class Conversation:
    """Drives a policy turn by turn, storing its state as JSON text between turns.

    The state goes through ``json.dumps``/``json.loads`` exactly as the database and another
    server process would see it, and each turn checks that nothing was lost on the way.
    """

    def __init__(self, policy: Policy, world: MemoryWorld, *, default_lang: str = "zh") -> None:
        self.policy = policy
        self.world = world
        self.default_lang = default_lang
        self.stored = json.dumps({})
        self.turns: list[PolicyTurn] = []

    @property
    def state(self) -> dict[str, Any]:
        loaded: dict[str, Any] = json.loads(self.stored)
        return loaded

    def say(self, text: str) -> PolicyTurn:
        turn = self.policy(self.world, self.state, text, default_lang=self.default_lang)
        self.stored = json.dumps(turn.state, ensure_ascii=False)
        assert json.loads(self.stored) == turn.state, "the state does not survive JSON"
        self.turns.append(turn)
        return turn
