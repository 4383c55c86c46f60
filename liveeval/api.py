"""The booking API: JSON endpoints through which outside systems search, book and cancel.

A system under test receives the secret token of the conversation it serves with
every message (``docs/system-protocol.md``) and sends it back with every call,
as ``Authorization: Bearer <token>`` or ``X-Session-Token: <token>``. Whatever it
books is therefore recorded against that conversation, and the task's goal is
checked exactly as for the built-in systems.

Parameters are checked here, in plain functions over a ``World``, so that the
LLM agent's tools (``liveeval.systems.openai``) reach the world through the same
rules and the same JSON as outside systems. Every refusal is an :class:`ApiError`
or a ``BookingError`` with a stable code; the views turn both into
``{"error": {"code", "message", "field"}}`` with a fitting status, so that no
request an outside system can make is answered with an HTML page or a 500.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import wraps
from typing import Any, TypeVar

from django.core.exceptions import RequestDataTooBig
from django.db.models import Q
from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_exempt

from liveeval.booking.models import Booking, City
from liveeval.booking.offers import (
    CABINS,
    ROOM_TYPES,
    TRAIN_SEATS,
    TRAIN_TYPES,
    BookingError,
    BookingReceipt,
    Domain,
    Fare,
    FlightOffer,
    HotelOffer,
    TrainOffer,
    World,
)
from liveeval.booking.world import SessionWorld, world_for_token
from liveeval.models import ChatSession

logger = logging.getLogger(__name__)

Params = Mapping[str, object]
T = TypeVar("T")

ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
CLOCK = re.compile(r"^([01]\d|2[0-3]):([0-5]\d)$")
DIGITS = re.compile(r"^\d{1,9}$")
MAX_NIGHTS = 30
DOMAINS: tuple[Domain, ...] = ("flight", "train", "hotel")

STATUS_BY_CODE: dict[str, int] = {
    "bad_parameter": 400,
    "bad_token": 401,
    "session_not_open": 403,
    "unknown_item": 404,
    "unknown_option": 404,
    "not_found": 404,
    "unknown_endpoint": 404,
    "method_not_allowed": 405,
    "sold_out": 409,
    "already_cancelled": 409,
    "internal_error": 500,
}

SEARCH_PARAMETERS: dict[str, tuple[str, ...]] = {
    "flight": (
        "from_city",
        "to_city",
        "date",
        "depart_after",
        "depart_before",
        "cabin",
        "max_price",
    ),
    "train": (
        "from_city",
        "to_city",
        "date",
        "depart_after",
        "depart_before",
        "seat",
        "train_type",
        "max_price",
    ),
    "hotel": ("city", "check_in", "nights", "min_stars", "max_price", "room_type"),
}
BOOK_PARAMETERS = ("domain", "item_id", "option", "check_in", "nights")
CANCEL_PARAMETERS = ("reference",)


class ApiError(Exception):
    """A request the booking API refuses, with a stable code and the parameter at fault."""

    def __init__(self, code: str, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.field = field

    def as_json(self) -> dict[str, object]:
        return {"error": {"code": self.code, "message": self.message, "field": self.field}}


def refusal(error: BookingError) -> ApiError:
    """The API's form of a refusal by the booking world."""
    return ApiError(error.code, error.message)


# Reading parameters. Query strings give strings and JSON bodies give numbers, so
# numbers are accepted in either form; booleans never count as numbers.


def _only_known(params: Params, known: tuple[str, ...]) -> None:
    for name in params:
        if name not in known:
            raise ApiError(
                "bad_parameter",
                f"unknown parameter {name!r}; expected some of: {', '.join(known)}",
                name,
            )


def _present(params: Params, name: str) -> object | None:
    value = params.get(name)
    return None if value is None or value == "" else value


def _required(params: Params, name: str) -> object:
    value = _present(params, name)
    if value is None:
        raise ApiError("bad_parameter", f"{name} is required", name)
    return value


def _text(value: object, name: str) -> str:
    if not isinstance(value, str):
        raise ApiError("bad_parameter", f"{name} must be a string, not {value!r}", name)
    return value.strip()


def _integer(value: object, name: str, low: int, high: int | None = None) -> int:
    if isinstance(value, bool):
        number = None
    elif isinstance(value, int):
        number = value
    elif isinstance(value, str) and DIGITS.match(value.strip()):
        number = int(value)
    else:
        number = None
    if number is None or number < low or (high is not None and number > high):
        bounds = f"from {low} to {high}" if high is not None else f"of at least {low}"
        raise ApiError(
            "bad_parameter", f"{name} must be a whole number {bounds}, not {value!r}", name
        )
    return number


def _date(value: object, name: str) -> dt.date:
    text = value.strip() if isinstance(value, str) else ""
    if ISO_DATE.match(text):
        try:
            return dt.date.fromisoformat(text)
        except ValueError:
            pass
    raise ApiError("bad_parameter", f"{name} must be a date YYYY-MM-DD, not {value!r}", name)


def _clock(value: object, name: str) -> dt.time:
    match = CLOCK.match(value.strip()) if isinstance(value, str) else None
    if match is None:
        raise ApiError(
            "bad_parameter", f"{name} must be a time HH:MM from 00:00 to 23:59, not {value!r}", name
        )
    return dt.time(int(match.group(1)), int(match.group(2)))


def _choice(value: object, name: str, choices: tuple[str, ...]) -> str:
    text = _text(value, name).lower()
    if text not in choices:
        raise ApiError(
            "bad_parameter", f"{name} must be one of {', '.join(choices)}, not {value!r}", name
        )
    return text


def _domain(value: object) -> Domain:
    wanted = _choice(value, "domain", DOMAINS)
    return next(domain for domain in DOMAINS if domain == wanted)


def _city(value: object, name: str) -> str:
    """The world's (Chinese) name of a city given by its Chinese or English name."""
    text = _text(value, name)
    city = City.objects.filter(Q(name=text) | Q(name_en__iexact=text)).first()
    if city is None:
        known = ", ".join(f"{row.name} ({row.name_en})" for row in City.objects.all())
        raise ApiError(
            "bad_parameter", f"{name}: no city {text!r} in the booking world; cities: {known}", name
        )
    return city.name


def _optional(params: Params, name: str, read: Callable[..., T], *args: Any) -> T | None:
    value = _present(params, name)
    return None if value is None else read(value, name, *args)


def _travel(params: Params, domain: str) -> dict[str, Any]:
    _only_known(params, SEARCH_PARAMETERS[domain])
    return {
        "from_city": _city(_required(params, "from_city"), "from_city"),
        "to_city": _city(_required(params, "to_city"), "to_city"),
        "date": _date(_required(params, "date"), "date"),
        "depart_after": _optional(params, "depart_after", _clock),
        "depart_before": _optional(params, "depart_before", _clock),
        "max_price": _optional(params, "max_price", _integer, 1),
    }


# The JSON forms of offers and bookings.


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


# What the endpoints and the LLM agent's tools do.


def search_flights(world: World, params: Params) -> dict[str, object]:
    travel = _travel(params, "flight")
    offers = world.search_flights(
        travel.pop("from_city"),
        travel.pop("to_city"),
        travel.pop("date"),
        cabin=_optional(params, "cabin", _choice, CABINS),
        **travel,
    )
    return {"flights": [flight_json(offer) for offer in offers]}


def search_trains(world: World, params: Params) -> dict[str, object]:
    travel = _travel(params, "train")
    train_type = _optional(params, "train_type", _text)
    if train_type is not None and train_type.upper() not in TRAIN_TYPES:
        raise ApiError(
            "bad_parameter",
            f"train_type must be one of {', '.join(TRAIN_TYPES)}, not {train_type!r}",
            "train_type",
        )
    offers = world.search_trains(
        travel.pop("from_city"),
        travel.pop("to_city"),
        travel.pop("date"),
        seat=_optional(params, "seat", _choice, TRAIN_SEATS),
        train_type=train_type.upper() if train_type is not None else None,
        **travel,
    )
    return {"trains": [train_json(offer) for offer in offers]}


def search_hotels(world: World, params: Params) -> dict[str, object]:
    _only_known(params, SEARCH_PARAMETERS["hotel"])
    offers = world.search_hotels(
        _city(_required(params, "city"), "city"),
        _date(_required(params, "check_in"), "check_in"),
        _integer(_required(params, "nights"), "nights", 1, MAX_NIGHTS),
        min_stars=_optional(params, "min_stars", _integer, 1, 5),
        max_price=_optional(params, "max_price", _integer, 1),
        room_type=_optional(params, "room_type", _choice, ROOM_TYPES),
    )
    return {"hotels": [hotel_json(offer) for offer in offers]}


def book(world: World, params: Params) -> dict[str, object]:
    """Book one seat or room; ``check_in`` and ``nights`` are needed, and only taken, for hotels."""
    _only_known(params, BOOK_PARAMETERS)
    domain = _domain(_required(params, "domain"))
    item_id = _integer(_required(params, "item_id"), "item_id", 1)
    option = _text(_required(params, "option"), "option").lower()
    check_in = nights = None
    if domain == "hotel":
        check_in = _date(_required(params, "check_in"), "check_in")
        nights = _integer(_required(params, "nights"), "nights", 1, MAX_NIGHTS)
        if check_in < world.today:
            raise ApiError(
                "bad_parameter",
                f"check_in {check_in.isoformat()} is before the conversation's today "
                f"({world.today.isoformat()})",
                "check_in",
            )
    else:
        for name in ("check_in", "nights"):
            if _present(params, name) is not None:
                raise ApiError("bad_parameter", f"{name} is only for hotel bookings", name)
    try:
        receipt = world.book(domain, item_id, option, check_in=check_in, nights=nights)
    except BookingError as error:
        raise refusal(error) from None
    return {"booking": receipt_json(receipt)}


def cancel(world: World, params: Params) -> dict[str, object]:
    _only_known(params, CANCEL_PARAMETERS)
    reference = _text(_required(params, "reference"), "reference").upper()
    try:
        world.cancel(reference)
    except BookingError as error:
        raise refusal(error) from None
    return {"booking": {"reference": reference, "status": Booking.Status.CANCELLED.value}}


def cities() -> dict[str, object]:
    return {
        "cities": [
            {"name": name, "name_en": name_en, "code": code}
            for name, name_en, code in City.objects.values_list("name", "name_en", "code")
        ]
    }


# The views.


@dataclass(frozen=True)
class Call:
    """An authenticated request: the conversation's world and the request's parameters."""

    world: SessionWorld
    params: dict[str, object]


def error_response(error: ApiError) -> JsonResponse:
    response = JsonResponse(
        error.as_json(),
        status=STATUS_BY_CODE.get(error.code, 400),
        json_dumps_params={"ensure_ascii": False},
    )
    if error.code == "bad_token":
        response["WWW-Authenticate"] = 'Bearer realm="booking"'
    return response


def token_of(request: HttpRequest) -> str:
    authorization = request.headers.get("Authorization", "")
    scheme, _, credentials = authorization.partition(" ")
    if scheme.lower() == "bearer" and credentials.strip():
        return credentials.strip()
    return request.headers.get("X-Session-Token", "").strip()


def authenticate(request: HttpRequest) -> SessionWorld:
    token = token_of(request)
    if not token:
        raise ApiError(
            "bad_token",
            "send the conversation's token as 'Authorization: Bearer <token>' "
            "or 'X-Session-Token: <token>'",
        )
    world = world_for_token(token)
    if world is None:
        raise ApiError("bad_token", "no conversation holds this token")
    session = world.session
    if session.status != ChatSession.Status.OPEN:
        state = "has ended" if session.status == ChatSession.Status.ENDED else "has not started"
        raise ApiError("session_not_open", f"conversation {session.pk} {state}")
    return world


def parameters(request: HttpRequest) -> dict[str, object]:
    if request.method == "GET":
        return {name: request.GET[name] for name in request.GET}
    try:
        body = json.loads(request.body or b"{}")
    except RequestDataTooBig:
        raise ApiError("bad_parameter", "the request body is too large") from None
    except (ValueError, UnicodeDecodeError):
        raise ApiError("bad_parameter", "the request body must be a JSON object") from None
    if not isinstance(body, dict):
        raise ApiError("bad_parameter", "the request body must be a JSON object")
    return body


def endpoint(
    method: str, *, status: int = 200
) -> Callable[[Callable[[Call], dict[str, object]]], Callable[..., JsonResponse]]:
    """A booking API view: one method, token authentication, JSON in and out, JSON errors."""

    def decorate(action: Callable[[Call], dict[str, object]]) -> Callable[..., JsonResponse]:
        @csrf_exempt
        @never_cache
        @wraps(action)
        def view(request: HttpRequest) -> JsonResponse:
            if request.method != method:
                response = error_response(
                    ApiError("method_not_allowed", f"use {method} for this endpoint")
                )
                response["Allow"] = method
                return response
            try:
                world = authenticate(request)
                result = action(Call(world, parameters(request)))
            except ApiError as error:
                return error_response(error)
            except Exception:
                logger.exception("booking API: %s %s failed", request.method, request.path)
                return error_response(
                    ApiError("internal_error", "the booking API failed; the error is logged")
                )
            return JsonResponse(result, status=status, json_dumps_params={"ensure_ascii": False})

        return view

    return decorate


@endpoint("GET")
def city_list(call: Call) -> dict[str, object]:
    _only_known(call.params, ())
    return cities()


@endpoint("GET")
def flights(call: Call) -> dict[str, object]:
    return search_flights(call.world, call.params)


@endpoint("GET")
def trains(call: Call) -> dict[str, object]:
    return search_trains(call.world, call.params)


@endpoint("GET")
def hotels(call: Call) -> dict[str, object]:
    return search_hotels(call.world, call.params)


@endpoint("GET")
def bookings(call: Call) -> dict[str, object]:
    _only_known(call.params, ())
    session = call.world.session
    return {
        "today": session.today.isoformat(),
        "bookings": [booking_json(booking) for booking in session.bookings.all()],
    }


@endpoint("POST", status=201)
def make_booking(call: Call) -> dict[str, object]:
    return book(call.world, call.params)


@endpoint("POST")
def cancel_booking(call: Call) -> dict[str, object]:
    return cancel(call.world, call.params)


ENDPOINTS = {
    "cities": "GET: the cities of the booking world",
    "flights": "GET: search flights",
    "trains": "GET: search trains",
    "hotels": "GET: search hotels",
    "bookings": "GET: this conversation's bookings",
    "book": "POST: book a seat or a room",
    "cancel": "POST: cancel a booking of this conversation",
}


@csrf_exempt
@never_cache
def index(request: HttpRequest) -> JsonResponse:
    """What the API offers; the only answer given without a token."""
    if request.method != "GET":
        response = error_response(ApiError("method_not_allowed", "use GET for this endpoint"))
        response["Allow"] = "GET"
        return response
    return JsonResponse({"endpoints": ENDPOINTS, "auth": "Authorization: Bearer <token>"})


@csrf_exempt
def unknown_endpoint(request: HttpRequest, path: str) -> JsonResponse:
    return error_response(
        ApiError(
            "unknown_endpoint",
            f"no booking API endpoint {path!r}; endpoints: {', '.join(ENDPOINTS)}",
        )
    )
