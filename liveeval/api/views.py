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

import json
import logging
from collections.abc import Callable
from dataclasses import dataclass
from functools import wraps

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_exempt

from evalsite import rate_limits
from evalsite.storable_text import unstorable
from liveeval.api.auth import authenticate
from liveeval.api.errors import STATUS_BY_CODE, ApiError
from liveeval.api.parameters import only_known
from liveeval.api.reservations import book, cancel
from liveeval.api.search import cities, search_flights, search_hotels, search_trains
from liveeval.api.serialisation import booking_json
from liveeval.booking.world import SessionWorld

logger = logging.getLogger(__name__)


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
    if error.retry_after is not None:
        response["Retry-After"] = str(error.retry_after)
    return response


def parameters(request: HttpRequest) -> dict[str, object]:
    if request.method == "GET":
        params: dict[str, object] = {name: request.GET[name] for name in request.GET}
    else:
        params = json_body(request)
    for name, value in params.items():
        if not isinstance(value, str | int | float | bool) and value is not None:
            raise ApiError("bad_parameter", f"{name} must be a string or a number", name)
        for text in (name, value):
            problem = unstorable(text) if isinstance(text, str) else None
            if problem:
                raise ApiError("bad_parameter", f"parameter {name!r} cannot be read: {problem}")
    return params


def json_body(request: HttpRequest) -> dict[str, object]:
    try:
        body = json.loads(request.body or b"{}")
    except RequestDataTooBig:
        raise ApiError("bad_parameter", "the request body is too large") from None
    except RecursionError:
        raise ApiError("bad_parameter", "the request body is nested too deeply") from None
    except (ValueError, UnicodeDecodeError):
        raise ApiError("bad_parameter", "the request body must be a JSON object") from None
    if not isinstance(body, dict):
        raise ApiError("bad_parameter", "the request body must be a JSON object")
    return body


def within_rate(world: SessionWorld) -> None:
    """At most BOOKING_API_CALLS_PER_MINUTE calls a minute per conversation token."""
    limit = settings.BOOKING_API_CALLS_PER_MINUTE
    wait = rate_limits.hit("booking-api", str(world.session.pk), limit, 60)
    if wait is not None:
        raise ApiError(
            "too_many_requests",
            f"more than {limit} calls a minute with this conversation's token; "
            f"try again in {wait} s",
            retry_after=wait,
        )


def endpoint(
    method: str, *, status: int = 200
) -> Callable[[Callable[[Call], dict[str, object]]], Callable[..., JsonResponse]]:
    """A booking API view: one method, token authentication, JSON in and out, JSON errors."""

    def decorate(action: Callable[[Call], dict[str, object]]) -> Callable[..., JsonResponse]:
        @csrf_exempt
        @never_cache
        @wraps(action)
        def view(request: HttpRequest) -> JsonResponse:
            return answer(request, action, method=method, status=status)

        return view

    return decorate


def answer(
    request: HttpRequest,
    action: Callable[[Call], dict[str, object]],
    *,
    method: str,
    status: int,
) -> JsonResponse:
    """Run one endpoint's action for an authenticated request, or say why it cannot run."""
    if request.method != method:
        response = error_response(ApiError("method_not_allowed", f"use {method} for this endpoint"))
        response["Allow"] = method
        return response
    try:
        world = authenticate(request)
        within_rate(world)
        result = action(Call(world, parameters(request)))
    except ApiError as error:
        return error_response(error)
    except Exception:
        logger.exception("booking API: %s %s failed", request.method, request.path)
        return error_response(
            ApiError("internal_error", "the booking API failed; the error is logged")
        )
    return JsonResponse(result, status=status, json_dumps_params={"ensure_ascii": False})


@endpoint("GET")
def city_list(call: Call) -> dict[str, object]:
    only_known(call.params, ())
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
    only_known(call.params, ())
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
