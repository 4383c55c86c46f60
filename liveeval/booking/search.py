"""Searching the booking world.

Searches are plain reads that never raise: an unknown city, class or date just
finds nothing, and the dialogue policy decides what to say.

``max_price`` applies to the requested class, or to the cheapest class with seats
left when none is requested. A hotel offer's price for a room type is its mean
nightly price over the stay, rounded up, so that ``price <= max_price`` holds
exactly when the stay costs at most ``max_price`` times its nights. Asking for
train type ``K`` finds every classic train (K, Z and T), as a traveller asking for
"普通火车" means; ``Z`` and ``T`` find only their own type.
"""

from __future__ import annotations

import datetime as dt
import itertools
import math
import operator
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any, NamedTuple

from liveeval.booking.models import (
    FlightCabin,
    HotelRoom,
    TrainSeat,
)
from liveeval.booking.offers import (
    CABINS,
    ROOM_TYPES,
    TRAIN_SEATS,
    Fare,
    FlightOffer,
    HotelOffer,
    TrainOffer,
)

CLASSIC_TYPES = ("K", "Z", "T")


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


def _by_item(rows: Iterable[tuple[Any, ...]]) -> Iterator[list[tuple[Any, ...]]]:
    """Fare rows ordered by item, grouped: one list per item, the item's id first in each row."""
    for _item, group in itertools.groupby(rows, key=operator.itemgetter(0)):
        yield list(group)


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
    # One query: each cabin's row with its flight's fields, flights in departure order.
    rows = FlightCabin.objects.filter(
        flight__from_city__name=from_city, flight__to_city__name=to_city, flight__date=date
    )
    if depart_after is not None:
        rows = rows.filter(flight__depart__gte=depart_after)
    if depart_before is not None:
        rows = rows.filter(flight__depart__lte=depart_before)
    fares = rows.order_by("flight__depart", "flight__number", "flight_id").values_list(
        "flight_id",
        "flight__number",
        "flight__airline",
        "flight__airline_en",
        "flight__depart",
        "flight__arrive",
        "cabin",
        "price",
        "seats_left",
        "discount",
    )
    offers = []
    for group in _by_item(fares):
        flight_id, number, airline, airline_en, depart, arrive = group[0][:6]
        cabins = {
            name: Fare(price=price, seats_left=left, discount=discount)
            for *_flight, name, price, left, discount in group
        }
        if not _fits(cabins, cabin, max_price):
            continue
        offers.append(
            FlightOffer(
                id=flight_id,
                number=number,
                airline=airline,
                airline_en=airline_en,
                from_city=from_city,
                to_city=to_city,
                date=date,
                depart=depart,
                arrive=arrive,
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
    # One query: each seat class's row with its train's fields, trains in departure order.
    rows = TrainSeat.objects.filter(
        train__from_city__name=from_city, train__to_city__name=to_city, train__date=date
    )
    if depart_after is not None:
        rows = rows.filter(train__depart__gte=depart_after)
    if depart_before is not None:
        rows = rows.filter(train__depart__lte=depart_before)
    if train_type is not None:
        rows = rows.filter(train__train_type__in=train_types_for(train_type))
    fares = rows.order_by("train__depart", "train__number", "train_id").values_list(
        "train_id",
        "train__number",
        "train__train_type",
        "train__depart",
        "train__arrive",
        "train__duration_minutes",
        "seat",
        "price",
        "seats_left",
    )
    offers = []
    for group in _by_item(fares):
        train_id, number, kind, depart, arrive, minutes = group[0][:6]
        seats = {name: Fare(price=price, seats_left=left) for *_train, name, price, left in group}
        if not _fits(seats, seat, max_price):
            continue
        offers.append(
            TrainOffer(
                id=train_id,
                number=number,
                train_type=kind,
                from_city=from_city,
                to_city=to_city,
                date=date,
                depart=depart,
                arrive=arrive,
                duration_minutes=minutes,
                seats=_ordered(seats, TRAIN_SEATS),
            )
        )
    return offers


class _HotelFields(NamedTuple):
    name: str
    name_en: str
    district: str
    stars: int
    rating: float


_HOTEL_FIELDS = tuple(f"hotel__{name}" for name in _HotelFields._fields)


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
    # One query, each night's row with its hotel's fields, as for flights and trains.
    # Per hotel and room type: nights found, total price, fewest rooms left on any night.
    stays: dict[int, dict[str, list[int]]] = defaultdict(dict)
    hotels: dict[int, _HotelFields] = {}
    for hotel_id, kind, nightly, rooms_left, *fields in rows.values_list(
        "hotel_id", "room_type", "price", "rooms_left", *_HOTEL_FIELDS
    ):
        found, total, fewest = stays[hotel_id].get(kind, [0, 0, rooms_left])
        stays[hotel_id][kind] = [found + 1, total + nightly, min(fewest, rooms_left)]
        hotels[hotel_id] = _HotelFields(*fields)
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
            id=hotel_id,
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
        ranked.append((-hotel.stars, price, hotel_id, offer))
    ranked.sort(key=lambda entry: entry[:3])
    return [offer for *_, offer in ranked]
