"""The JSON forms of offers, receipts and bookings in the booking API's answers."""

from __future__ import annotations

from collections.abc import Mapping

from liveeval.booking.models import Booking
from liveeval.booking.offers import (
    BookingReceipt,
    Fare,
    FlightOffer,
    HotelOffer,
    TrainOffer,
)


def _fares(fares: Mapping[str, Fare], left: str = "seats_left") -> dict[str, dict[str, object]]:
    shown: dict[str, dict[str, object]] = {}
    for name, fare in fares.items():
        shown[name] = {"price": fare.price, left: fare.seats_left}
        if fare.discount is not None:
            shown[name]["discount"] = fare.discount
    return shown


def flight_json(offer: FlightOffer) -> dict[str, object]:
    return {
        "id": offer.id,
        "number": offer.number,
        "airline": offer.airline,
        "airline_en": offer.airline_en,
        "from_city": offer.from_city,
        "to_city": offer.to_city,
        "date": offer.date.isoformat(),
        "depart": offer.depart.strftime("%H:%M"),
        "arrive": offer.arrive.strftime("%H:%M"),
        "cabins": _fares(offer.cabins),
    }


def train_json(offer: TrainOffer) -> dict[str, object]:
    return {
        "id": offer.id,
        "number": offer.number,
        "train_type": offer.train_type,
        "from_city": offer.from_city,
        "to_city": offer.to_city,
        "date": offer.date.isoformat(),
        "depart": offer.depart.strftime("%H:%M"),
        "arrive": offer.arrive.strftime("%H:%M"),
        "duration_minutes": offer.duration_minutes,
        "seats": _fares(offer.seats),
    }


def hotel_json(offer: HotelOffer) -> dict[str, object]:
    return {
        "id": offer.id,
        "name": offer.name,
        "name_en": offer.name_en,
        "city": offer.city,
        "district": offer.district,
        "stars": offer.stars,
        "rating": offer.rating,
        "check_in": offer.check_in.isoformat(),
        "nights": offer.nights,
        "rooms": _fares(offer.rooms, left="rooms_left"),
    }


def receipt_json(receipt: BookingReceipt) -> dict[str, object]:
    return {
        "reference": receipt.reference,
        "domain": receipt.domain,
        "item_id": receipt.item_id,
        "option": receipt.option,
        "price": receipt.price,
        "details": receipt.details,
    }


def booking_json(booking: Booking) -> dict[str, object]:
    return {
        "reference": booking.reference,
        "domain": booking.domain,
        "item_id": booking.item_id,
        "option": booking.option,
        "price": booking.price,
        "status": booking.status,
        "details": booking.details,
    }
