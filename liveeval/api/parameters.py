"""Reading the booking API's parameters, as the endpoints and the LLM agent's tools receive them.

Query strings give strings and JSON bodies give numbers, so numbers are accepted in
either form; booleans never count as numbers. Every problem is an ``ApiError`` naming
the parameter at fault.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from django.db.models import Q

from liveeval.api.errors import ApiError
from liveeval.booking.models import City
from liveeval.booking.offers import (
    Domain,
)

Params = Mapping[str, object]


T = TypeVar("T")


ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


CLOCK = re.compile(r"^([01]\d|2[0-3]):([0-5]\d)$")


DIGITS = re.compile(r"^\d{1,9}$")


MAX_NIGHTS = 30


DOMAINS: tuple[Domain, ...] = ("flight", "train", "hotel")


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


def only_known(params: Params, known: tuple[str, ...]) -> None:
    for name in params:
        if name not in known:
            raise ApiError(
                "bad_parameter",
                f"unknown parameter {name!r}; expected some of: {', '.join(known)}",
                name,
            )


def present(params: Params, name: str) -> object | None:
    value = params.get(name)
    return None if value is None or value == "" else value


def required(params: Params, name: str) -> object:
    value = present(params, name)
    if value is None:
        raise ApiError("bad_parameter", f"{name} is required", name)
    return value


def text_param(value: object, name: str) -> str:
    if not isinstance(value, str):
        raise ApiError("bad_parameter", f"{name} must be a string, not {value!r}", name)
    return value.strip()


def integer_param(value: object, name: str, low: int, high: int | None = None) -> int:
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


def date_param(value: object, name: str) -> dt.date:
    text = value.strip() if isinstance(value, str) else ""
    if ISO_DATE.match(text):
        try:
            return dt.date.fromisoformat(text)
        except ValueError:
            pass
    raise ApiError("bad_parameter", f"{name} must be a date YYYY-MM-DD, not {value!r}", name)


def clock_param(value: object, name: str) -> dt.time:
    match = CLOCK.match(value.strip()) if isinstance(value, str) else None
    if match is None:
        raise ApiError(
            "bad_parameter", f"{name} must be a time HH:MM from 00:00 to 23:59, not {value!r}", name
        )
    return dt.time(int(match.group(1)), int(match.group(2)))


def choice_param(value: object, name: str, choices: tuple[str, ...]) -> str:
    text = text_param(value, name).lower()
    if text not in choices:
        raise ApiError(
            "bad_parameter", f"{name} must be one of {', '.join(choices)}, not {value!r}", name
        )
    return text


def domain_param(value: object) -> Domain:
    wanted = choice_param(value, "domain", DOMAINS)
    return next(domain for domain in DOMAINS if domain == wanted)


def city_param(value: object, name: str) -> str:
    """The world's (Chinese) name of a city given by its Chinese or English name."""
    text = text_param(value, name)
    city = City.objects.filter(Q(name=text) | Q(name_en__iexact=text)).first()
    if city is None:
        known = ", ".join(f"{row.name} ({row.name_en})" for row in City.objects.all())
        raise ApiError(
            "bad_parameter", f"{name}: no city {text!r} in the booking world; cities: {known}", name
        )
    return city.name


def optional(params: Params, name: str, read: Callable[..., T], *args: Any) -> T | None:
    value = present(params, name)
    return None if value is None else read(value, name, *args)


def travel_params(params: Params, domain: str) -> dict[str, Any]:
    only_known(params, SEARCH_PARAMETERS[domain])
    return {
        "from_city": city_param(required(params, "from_city"), "from_city"),
        "to_city": city_param(required(params, "to_city"), "to_city"),
        "date": date_param(required(params, "date"), "date"),
        "depart_after": optional(params, "depart_after", clock_param),
        "depart_before": optional(params, "depart_before", clock_param),
        "max_price": optional(params, "max_price", integer_param, 1),
    }
