"""Searching and booking in the booking world.

Searches are plain reads that never raise: an unknown city, class or date just
finds nothing, and the dialogue policy decides what to say. ``book`` and
``cancel`` change availability with conditional UPDATEs inside one transaction,
so that two conversations booking the last seat at the same moment, from
separate processes or database connections, never both get it.

``max_price`` applies to the requested class, or to the cheapest class with seats
left when none is requested. A hotel offer's price for a room type is its mean
nightly price over the stay, rounded up, so that ``price <= max_price`` holds
exactly when the stay costs at most ``max_price`` times its nights. Asking for
train type ``K`` finds every classic train (K, Z and T), as a traveller asking for
"普通火车" means; ``Z`` and ``T`` find only their own type.
"""

from __future__ import annotations

import datetime as dt
import math
import secrets
from collections import defaultdict
from collections.abc import Mapping, Sequence

from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone

from liveeval.booking.models import (
    Booking,
    Flight,
    FlightCabin,
    Hotel,
    HotelRoom,
    Train,
    TrainSeat,
)
from liveeval.booking.offers import (
    CABINS,
    ROOM_TYPES,
    TRAIN_SEATS,
    BookingError,
    BookingReceipt,
    Domain,
    Fare,
    FlightOffer,
    HotelOffer,
    TrainOffer,
)
from liveeval.models import ChatSession

CLASSIC_TYPES = ("K", "Z", "T")
REFERENCE_PREFIXES: dict[str, str] = {"flight": "FL", "train": "TR", "hotel": "HT"}
# No 0/O or 1/I, so that a reference read aloud or copied by hand stays unambiguous.
REFERENCE_ALPHABET = "23456789ABCDEFGHJKLMNPQRSTUVWXYZ"
REFERENCE_LENGTH = 6


def train_types_for(requested: str) -> tuple[str, ...]:
    """The stored train types that a requested type stands for."""
    wanted = requested.strip().upper()
    return CLASSIC_TYPES if wanted == "K" else (wanted,)


def mean_nightly_price(total: int, nights: int) -> int:
    return math.ceil(total / nights)


def _ordered(fares: Mapping[str, Fare], order: Sequence[str]) -> dict[str, Fare]:
    return {name: fares[name] for name in order if name in fares}


def relevant_price(fares: Mapping[str, Fare], option: str | None) -> int | None:
    """The price that ``max_price`` is held against, or None when nothing is bookable.

    That is the requested class's price when it has seats left, or the cheapest
    price among the classes with seats left when no class is requested.
    """
    if option is not None:
        fare = fares.get(option)
        return fare.price if fare is not None and fare.seats_left > 0 else None
    prices = [fare.price for fare in fares.values() if fare.seats_left > 0]
    return min(prices) if prices else None


def _fits(fares: Mapping[str, Fare], option: str | None, max_price: int | None) -> bool:
    price = relevant_price(fares, option)
    return price is not None and (max_price is None or price <= max_price)


def search_flights(
    from_city: str,
    to_city: str,
    date: dt.date,
    *,
    depart_after: dt.time | None = None,
    depart_before: dt.time | None = None,
    cabin: str | None = None,
    max_price: int | None = None,
) -> list[FlightOffer]:
    flights = Flight.objects.filter(from_city__name=from_city, to_city__name=to_city, date=date)
    if depart_after is not None:
        flights = flights.filter(depart__gte=depart_after)
    if depart_before is not None:
        flights = flights.filter(depart__lte=depart_before)
    offers = []
    for flight in flights.order_by("depart", "number").prefetch_related("cabins"):
        cabins = {
            row.cabin: Fare(price=row.price, seats_left=row.seats_left, discount=row.discount)
            for row in flight.cabins.all()
        }
        if not _fits(cabins, cabin, max_price):
            continue
        offers.append(
            FlightOffer(
                id=flight.pk,
                number=flight.number,
                airline=flight.airline,
                airline_en=flight.airline_en,
                from_city=from_city,
                to_city=to_city,
                date=flight.date,
                depart=flight.depart,
                arrive=flight.arrive,
                cabins=_ordered(cabins, CABINS),
            )
        )
    return offers


def search_trains(
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
    trains = Train.objects.filter(from_city__name=from_city, to_city__name=to_city, date=date)
    if depart_after is not None:
        trains = trains.filter(depart__gte=depart_after)
    if depart_before is not None:
        trains = trains.filter(depart__lte=depart_before)
    if train_type is not None:
        trains = trains.filter(train_type__in=train_types_for(train_type))
    offers = []
    for train in trains.order_by("depart", "number").prefetch_related("seats"):
        seats = {
            row.seat: Fare(price=row.price, seats_left=row.seats_left) for row in train.seats.all()
        }
        if not _fits(seats, seat, max_price):
            continue
        offers.append(
            TrainOffer(
                id=train.pk,
                number=train.number,
                train_type=train.train_type,
                from_city=from_city,
                to_city=to_city,
                date=train.date,
                depart=train.depart,
                arrive=train.arrive,
                duration_minutes=train.duration_minutes,
                seats=_ordered(seats, TRAIN_SEATS),
            )
        )
    return offers


def search_hotels(
    city: str,
    check_in: dt.date,
    nights: int,
    *,
    min_stars: int | None = None,
    max_price: int | None = None,
    room_type: str | None = None,
) -> list[HotelOffer]:
    """Hotels with every night of the stay in the world, best stars first, then cheapest."""
    if nights < 1:
        return []
    rows = HotelRoom.objects.filter(
        hotel__city__name=city,
        date__gte=check_in,
        date__lt=check_in + dt.timedelta(days=nights),
    )
    if min_stars is not None:
        rows = rows.filter(hotel__stars__gte=min_stars)
    # Per hotel and room type: nights found, total price, fewest rooms left on any night.
    stays: dict[int, dict[str, list[int]]] = defaultdict(dict)
    for hotel_id, kind, nightly, rooms_left in rows.values_list(
        "hotel_id", "room_type", "price", "rooms_left"
    ):
        found, total, fewest = stays[hotel_id].get(kind, [0, 0, rooms_left])
        stays[hotel_id][kind] = [found + 1, total + nightly, min(fewest, rooms_left)]
    hotels = Hotel.objects.in_bulk(list(stays))
    ranked: list[tuple[int, int, int, HotelOffer]] = []
    for hotel_id, kinds in stays.items():
        rooms = {
            kind: Fare(price=mean_nightly_price(total, nights), seats_left=fewest)
            for kind, (found, total, fewest) in kinds.items()
            if found == nights
        }
        price = relevant_price(rooms, room_type)
        if price is None or (max_price is not None and price > max_price):
            continue
        hotel = hotels[hotel_id]
        offer = HotelOffer(
            id=hotel.pk,
            city=city,
            name=hotel.name,
            name_en=hotel.name_en,
            district=hotel.district,
            stars=hotel.stars,
            rating=hotel.rating,
            check_in=check_in,
            nights=nights,
            rooms=_ordered(rooms, ROOM_TYPES),
        )
        ranked.append((-hotel.stars, price, hotel.pk, offer))
    ranked.sort(key=lambda entry: entry[:3])
    return [offer for *_, offer in ranked]


def _new_reference(domain: str) -> str:
    code = "".join(secrets.choice(REFERENCE_ALPHABET) for _ in range(REFERENCE_LENGTH))
    return f"{REFERENCE_PREFIXES[domain]}-{code}"


def _record(
    session: ChatSession,
    domain: Domain,
    item_id: int,
    option: str,
    price: int,
    details: dict[str, object],
) -> BookingReceipt:
    attempts = 5
    for attempt in range(attempts):
        try:
            # A savepoint of its own, so that a (very unlikely) reference clash can be retried.
            with transaction.atomic():
                booking = Booking.objects.create(
                    session=session,
                    reference=_new_reference(domain),
                    domain=domain,
                    item_id=item_id,
                    option=option,
                    price=price,
                    details=details,
                )
            break
        except IntegrityError:
            if attempt == attempts - 1:
                raise
    return BookingReceipt(
        reference=booking.reference,
        domain=domain,
        item_id=item_id,
        option=option,
        price=price,
        details=details,
    )


def _check_not_past(session: ChatSession, date: dt.date) -> None:
    if date < session.today:
        raise BookingError(
            "bad_parameter",
            f"{date.isoformat()} is before the conversation's today ({session.today.isoformat()})",
        )


def _book_flight(session: ChatSession, item_id: int, option: str) -> BookingReceipt:
    flight = Flight.objects.select_related("from_city", "to_city").filter(pk=item_id).first()
    if flight is None:
        raise BookingError("unknown_item", f"there is no flight {item_id}")
    _check_not_past(session, flight.date)
    cabin = FlightCabin.objects.filter(flight=flight, cabin=option).first()
    if cabin is None:
        raise BookingError("unknown_option", f"flight {flight.number} has no {option} cabin")
    taken = FlightCabin.objects.filter(pk=cabin.pk, seats_left__gt=0).update(
        seats_left=F("seats_left") - 1
    )
    if not taken:
        raise BookingError("sold_out", f"{option} on {flight.number} is sold out")
    details: dict[str, object] = {
        "number": flight.number,
        "airline": flight.airline,
        "airline_en": flight.airline_en,
        "from_city": flight.from_city.name,
        "from_city_en": flight.from_city.name_en,
        "to_city": flight.to_city.name,
        "to_city_en": flight.to_city.name_en,
        "date": flight.date.isoformat(),
        "depart": flight.depart.strftime("%H:%M"),
        "arrive": flight.arrive.strftime("%H:%M"),
        "cabin": option,
        "price": cabin.price,
    }
    return _record(session, "flight", flight.pk, option, cabin.price, details)


def _book_train(session: ChatSession, item_id: int, option: str) -> BookingReceipt:
    train = Train.objects.select_related("from_city", "to_city").filter(pk=item_id).first()
    if train is None:
        raise BookingError("unknown_item", f"there is no train {item_id}")
    _check_not_past(session, train.date)
    seat = TrainSeat.objects.filter(train=train, seat=option).first()
    if seat is None:
        raise BookingError("unknown_option", f"train {train.number} has no {option} seats")
    taken = TrainSeat.objects.filter(pk=seat.pk, seats_left__gt=0).update(
        seats_left=F("seats_left") - 1
    )
    if not taken:
        raise BookingError("sold_out", f"{option} on {train.number} is sold out")
    details: dict[str, object] = {
        "number": train.number,
        "train_type": train.train_type,
        "from_city": train.from_city.name,
        "from_city_en": train.from_city.name_en,
        "to_city": train.to_city.name,
        "to_city_en": train.to_city.name_en,
        "date": train.date.isoformat(),
        "depart": train.depart.strftime("%H:%M"),
        "arrive": train.arrive.strftime("%H:%M"),
        "duration_minutes": train.duration_minutes,
        "seat": option,
        "price": seat.price,
    }
    return _record(session, "train", train.pk, option, seat.price, details)


def _stay(check_in: dt.date, nights: int) -> list[dt.date]:
    return [check_in + dt.timedelta(days=night) for night in range(nights)]


def _book_hotel(
    session: ChatSession,
    item_id: int,
    option: str,
    check_in: dt.date | None,
    nights: int | None,
) -> BookingReceipt:
    hotel = Hotel.objects.select_related("city").filter(pk=item_id).first()
    if hotel is None:
        raise BookingError("unknown_item", f"there is no hotel {item_id}")
    if check_in is None or nights is None:
        raise BookingError("bad_parameter", "a hotel booking needs check_in and nights")
    if nights < 1:
        raise BookingError("bad_parameter", f"nights must be at least 1, not {nights}")
    _check_not_past(session, check_in)
    if not HotelRoom.objects.filter(hotel=hotel, room_type=option).exists():
        raise BookingError("unknown_option", f"{hotel.name} has no {option} rooms")
    dates = _stay(check_in, nights)
    rooms = {
        room.date: room
        for room in HotelRoom.objects.filter(hotel=hotel, room_type=option, date__in=dates)
    }
    missing = [date for date in dates if date not in rooms]
    if missing:
        raise BookingError(
            "bad_parameter", f"the night of {missing[0].isoformat()} is outside the booking world"
        )
    # Night by night in date order: concurrent stays lock rows in the same order, so
    # they queue rather than deadlock, and one full night undoes the whole stay.
    for date in dates:
        taken = HotelRoom.objects.filter(pk=rooms[date].pk, rooms_left__gt=0).update(
            rooms_left=F("rooms_left") - 1
        )
        if not taken:
            raise BookingError(
                "sold_out", f"{option} at {hotel.name} is full on the night of {date.isoformat()}"
            )
    nightly = [rooms[date].price for date in dates]
    total = sum(nightly)
    details: dict[str, object] = {
        "hotel": hotel.name,
        "hotel_en": hotel.name_en,
        "city": hotel.city.name,
        "city_en": hotel.city.name_en,
        "district": hotel.district,
        "stars": hotel.stars,
        "room_type": option,
        "check_in": check_in.isoformat(),
        "check_out": (check_in + dt.timedelta(days=nights)).isoformat(),
        "nights": nights,
        "nightly_prices": nightly,
        "nightly_price": mean_nightly_price(total, nights),
        "total": total,
    }
    return _record(session, "hotel", hotel.pk, option, total, details)


def book(
    session: ChatSession,
    domain: Domain,
    item_id: int,
    option: str,
    *,
    check_in: dt.date | None = None,
    nights: int | None = None,
) -> BookingReceipt:
    """Book one seat or room for ``session`` and record it, or raise ``BookingError``.

    ``option`` is the cabin, seat class or room type. A hotel booking takes a room
    for every night of the stay, or for none of them.
    """
    if domain not in REFERENCE_PREFIXES:
        raise BookingError("bad_parameter", f"unknown domain {domain!r}")
    with transaction.atomic():
        if domain == "flight":
            return _book_flight(session, item_id, option)
        if domain == "train":
            return _book_train(session, item_id, option)
        return _book_hotel(session, item_id, option, check_in, nights)


def _release(booking: Booking) -> None:
    if booking.domain == "flight":
        FlightCabin.objects.filter(flight_id=booking.item_id, cabin=booking.option).update(
            seats_left=F("seats_left") + 1
        )
    elif booking.domain == "train":
        TrainSeat.objects.filter(train_id=booking.item_id, seat=booking.option).update(
            seats_left=F("seats_left") + 1
        )
    else:
        check_in = dt.date.fromisoformat(str(booking.details["check_in"]))
        nights = int(str(booking.details["nights"]))
        HotelRoom.objects.filter(
            hotel_id=booking.item_id, room_type=booking.option, date__in=_stay(check_in, nights)
        ).update(rooms_left=F("rooms_left") + 1)


def cancel(session: ChatSession, reference: str) -> Booking:
    """Cancel one of ``session``'s bookings and give its seat or rooms back."""
    wanted = reference.strip().upper()
    with transaction.atomic():
        booking = Booking.objects.filter(session=session, reference=wanted).first()
        if booking is None:
            raise BookingError("not_found", f"this conversation has no booking {wanted}")
        # Conditional, so that two cancellations racing each other release only once.
        cancelled = Booking.objects.filter(pk=booking.pk, status=Booking.Status.ACTIVE).update(
            status=Booking.Status.CANCELLED, cancelled_at=timezone.now()
        )
        if not cancelled:
            raise BookingError("already_cancelled", f"booking {wanted} is already cancelled")
        _release(booking)
    booking.refresh_from_db()
    return booking


class SessionWorld:
    """The booking world as one conversation sees it (the ``World`` protocol).

    Days before the conversation's today are in the past: searching them finds
    nothing, and booking on them is refused.
    """

    def __init__(self, session: ChatSession) -> None:
        self.session = session
        self.today: dt.date = session.today

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
        if date < self.today:
            return []
        return search_flights(
            from_city,
            to_city,
            date,
            depart_after=depart_after,
            depart_before=depart_before,
            cabin=cabin,
            max_price=max_price,
        )

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
        if date < self.today:
            return []
        return search_trains(
            from_city,
            to_city,
            date,
            depart_after=depart_after,
            depart_before=depart_before,
            seat=seat,
            train_type=train_type,
            max_price=max_price,
        )

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
        if check_in < self.today:
            return []
        return search_hotels(
            city, check_in, nights, min_stars=min_stars, max_price=max_price, room_type=room_type
        )

    def book(
        self,
        domain: Domain,
        item_id: int,
        option: str,
        *,
        check_in: dt.date | None = None,
        nights: int | None = None,
    ) -> BookingReceipt:
        return book(self.session, domain, item_id, option, check_in=check_in, nights=nights)

    def cancel(self, reference: str) -> None:
        cancel(self.session, reference)


def world_covers(date: dt.date) -> bool:
    """Whether the booking world has flights, trains and hotel nights on ``date``."""
    return (
        Flight.objects.filter(date=date).exists()
        and Train.objects.filter(date=date).exists()
        and HotelRoom.objects.filter(date=date).exists()
    )


def world_for_token(token: str) -> SessionWorld | None:
    """The world of the conversation that holds ``token``, open or not; None if there is none.

    Whether a closed conversation may still book is for the caller to decide.
    """
    session = ChatSession.objects.filter(token=token).first() if token else None
    return SessionWorld(session) if session is not None else None
