"""Booking and cancelling in the booking world, for one conversation.

``book`` and ``cancel`` change availability with conditional UPDATEs inside one
transaction, so that two conversations booking the last seat at the same moment, from
separate processes or database connections, never both get it. Every booking is recorded
against its conversation, with a reference such as ``FL-7KQ2MX``.
"""

from __future__ import annotations

import datetime as dt
import secrets

from django.conf import settings
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
    BookingError,
    BookingReceipt,
    Domain,
)
from liveeval.booking.search import mean_nightly_price
from liveeval.models import ChatSession

REFERENCE_PREFIXES: dict[str, str] = {"flight": "FL", "train": "TR", "hotel": "HT"}


# No 0/O or 1/I, so that a reference read aloud or copied by hand stays unambiguous.
REFERENCE_ALPHABET = "23456789ABCDEFGHJKLMNPQRSTUVWXYZ"


REFERENCE_LENGTH = 6


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
        _refuse_beyond_the_cap(session)
        if domain == "flight":
            return _book_flight(session, item_id, option)
        if domain == "train":
            return _book_train(session, item_id, option)
        return _book_hotel(session, item_id, option, check_in, nights)


def _refuse_beyond_the_cap(session: ChatSession) -> None:
    """One conversation holds at most ``MAX_ACTIVE_BOOKINGS`` (so one token cannot empty the
    shared world); the session's row lock makes concurrent bookings of it wait their turn.

    The conversation must not have ended by the time the lock is held: a booking that began
    just before its campaign closed (which ends the conversation under the same lock) is
    refused. (A conversation that has not started is refused earlier, by the API's token check.)"""
    status = (
        ChatSession.objects.select_for_update()
        .filter(pk=session.pk)
        .values_list("status", flat=True)
        .first()
    )
    if status is None or status == ChatSession.Status.ENDED:
        raise BookingError("session_not_open", f"conversation {session.pk} has ended")
    active = Booking.objects.filter(session=session, status=Booking.Status.ACTIVE).count()
    if active >= settings.MAX_ACTIVE_BOOKINGS:
        raise BookingError(
            "booking_limit",
            f"this conversation already holds {active} active bookings, the most one "
            "conversation may hold; cancel one before booking another",
        )


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
