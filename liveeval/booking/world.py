"""``SessionWorld``: the database-backed ``World`` of one conversation, and finding the
conversation a booking API token belongs to.
"""

from __future__ import annotations

import datetime as dt

from liveeval.booking.models import (
    Flight,
    HotelRoom,
    Train,
)
from liveeval.booking.offers import (
    BookingReceipt,
    Domain,
    FlightOffer,
    HotelOffer,
    TrainOffer,
)
from liveeval.booking.reservations import book, cancel
from liveeval.booking.search import search_flights, search_hotels, search_trains
from liveeval.models import ChatSession


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
