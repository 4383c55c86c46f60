"""Booking and cancelling through the booking API, as plain functions over a ``World`` shared
by the endpoints and the LLM agent's tools.
"""

from __future__ import annotations

from liveeval.api.errors import ApiError, refusal
from liveeval.api.parameters import (
    BOOK_PARAMETERS,
    CANCEL_PARAMETERS,
    MAX_NIGHTS,
    Params,
    date_param,
    domain_param,
    integer_param,
    only_known,
    present,
    required,
    text_param,
)
from liveeval.api.serialisation import receipt_json
from liveeval.booking.models import Booking
from liveeval.booking.offers import (
    BookingError,
    World,
)


def book(world: World, params: Params) -> dict[str, object]:
    """Book one seat or room; ``check_in`` and ``nights`` are needed, and only taken, for hotels."""
    only_known(params, BOOK_PARAMETERS)
    domain = domain_param(required(params, "domain"))
    item_id = integer_param(required(params, "item_id"), "item_id", 1)
    option = text_param(required(params, "option"), "option").lower()
    check_in = nights = None
    if domain == "hotel":
        check_in = date_param(required(params, "check_in"), "check_in")
        nights = integer_param(required(params, "nights"), "nights", 1, MAX_NIGHTS)
        if check_in < world.today:
            raise ApiError(
                "bad_parameter",
                f"check_in {check_in.isoformat()} is before the conversation's today "
                f"({world.today.isoformat()})",
                "check_in",
            )
    else:
        for name in ("check_in", "nights"):
            if present(params, name) is not None:
                raise ApiError("bad_parameter", f"{name} is only for hotel bookings", name)
    try:
        receipt = world.book(domain, item_id, option, check_in=check_in, nights=nights)
    except BookingError as error:
        raise refusal(error) from None
    return {"booking": receipt_json(receipt)}


def cancel(world: World, params: Params) -> dict[str, object]:
    only_known(params, CANCEL_PARAMETERS)
    reference = text_param(required(params, "reference"), "reference").upper()
    try:
        world.cancel(reference)
    except BookingError as error:
        raise refusal(error) from None
    return {"booking": {"reference": reference, "status": Booking.Status.CANCELLED.value}}
